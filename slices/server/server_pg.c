/* The postgresql engine: Debian's PostgreSQL 15.  initdb as the server's
 * user, the superuser root over peer authentication on a unix socket only
 * (slicebench's own pg_hba.conf: nothing else may connect), the option
 * file STATE/postgresql.conf with shared_buffers from buffer-pool and
 * max_connections from the experiment.  postgres refuses to run as root,
 * so every context starts it as the user; SIGINT is its fast shutdown. */
#include <inttypes.h>
#include <libgen.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/shm.h>
#include <sys/stat.h>

#include "slices/server/server.h"
#include "slices/attr/placement.h"
#include "common/util.h"

#define PG_BINDIR "/usr/lib/postgresql/15/bin"
#define PG_SOCKET ".s.PGSQL.5432"

/* initdb beside the binary: Debian keeps each major version's apart. */
static int bindir_program(const char *binary, const char *name, char **ret)
{
	_cleanup_free_ char *copy = strdup(binary);

	if (!copy)
		return -ENOMEM;
	return xasprintf(ret, "%s/%s", strchr(binary, '/') ? dirname(copy) : PG_BINDIR, name);
}

static int pg_installed(const char *binary, char **ret_missing)
{
	_cleanup_free_ char *initdb = NULL;
	const char *missing;
	int r;

	*ret_missing = NULL;
	r = bindir_program(binary, "initdb", &initdb);
	if (r < 0)
		return r;
	missing = access(binary, X_OK) < 0 ? binary : access(initdb, X_OK) < 0 ? initdb : NULL;
	if (!missing)
		return 0;
	*ret_missing = strdup(missing);
	return *ret_missing ? -ENOENT : -ENOMEM;
}

static int pg_init_datadir(const struct server *s, const char *datadir)
{
	_cleanup_free_ char *initdb = NULL;
	struct passwd *pw = getpwnam(s->user);
	int r;

	if (!pw)
		return -ESRCH;
	r = bindir_program(s->binary, "initdb", &initdb);
	if (r < 0)
		return r;
	/* initdb refuses root: it runs as the user, in the directory made for
	 * it, with the locale that sorts and compares bytes (as the tests'
	 * data has no other). */
	char *argv[] = { initdb, "--pgdata", (char *)datadir, "--username=root", "--auth-local=peer",
			 "--auth-host=reject", "--encoding=UTF8", "--locale=C", "--no-instructions", NULL };
	return server_run_installer(s, argv, datadir, pw);
}

/* buffer-pool in the kB that shared_buffers takes without ambiguity (a
 * bare number would be 8 kB pages). */
static int size_kb(const char *s, uint64_t *ret)
{
	uint64_t v;

	if (parse_size_bytes(s, &v) < 0 || v == 0)
		return -EINVAL;
	*ret = MAX(v / 1024, UINT64_C(128)); /* PostgreSQL's minimum, 128 kB */
	return 0;
}

/* The peer map of pg_hba.conf, root's like it (in the state directory,
 * not the datadir, which is the server's user's): root and the server's
 * user may log in as root. */
static int pg_write_ident(const struct server *s, const char *hba_path)
{
	_cleanup_free_ char *text = NULL, *path = NULL;

	if (xasprintf(&path, "%s/pg_ident.conf", dirname(strdupa(hba_path))) < 0 ||
	    xasprintf(&text, "# Written by slicebench.\nslicebench root root\nslicebench %s root\n", s->user) < 0)
		return -ENOMEM;
	return write_file_atomic(path, text, strlen(text));
}

static int pg_write_options(const struct server_config *cfg, const struct server *s)
{
	_cleanup_free_ char *text = NULL, *hba = NULL, *hba_path = NULL, *socket_dir = strdup(s->socket);
	uint64_t kb;
	int r;

	if (!socket_dir || xasprintf(&hba_path, "%s/pg_hba.conf", dirname(strdupa(s->cnf))) < 0)
		return -ENOMEM;
	*strrchr(socket_dir, '/') = 0;
	r = size_kb(cfg->buffer_pool, &kb);
	if (r < 0)
		return r;
	r = xasprintf(&text,
		      "# Written by slicebench; rewritten at every setup.\n"
		      "data_directory = '%s'\n"
		      "hba_file = '%s'\n"
		      "ident_file = '%s/pg_ident.conf'\n"
		      "listen_addresses = ''\n"
		      "unix_socket_directories = '%s'\n"
		      "port = 5432\n"
		      "max_connections = %u\n"
		      "shared_buffers = '%" PRIu64 "kB'\n"
		      "logging_collector = on\n"
		      "log_directory = '%s'\n"
		      "log_filename = '%s'\n"
		      "log_rotation_age = 0\n"
		      "log_rotation_size = 0\n",
		      s->datadir, hba_path, dirname(strdupa(s->cnf)), socket_dir, cfg->max_connections, kb, s->datadir,
		      strrchr(s->log, '/') + 1);
	if (r < 0)
		return r;
	/* Only root, over the socket, as itself, or as the server's own user
	 * (a proxy, pgbouncer, runs as that user and logs in as root: the user
	 * that owns the datadir can do anything with it anyway). */
	r = xasprintf(&hba, "# Written by slicebench.\nlocal all root peer map=slicebench\n");
	if (r >= 0)
		r = write_file_atomic(hba_path, hba, strlen(hba));
	if (r >= 0)
		r = pg_write_ident(s, hba_path);
	return r < 0 ? r : write_file_atomic(s->cnf, text, strlen(text));
}

static int pg_connect_root(const struct server *s, const char *timeout, PGconn **ret)
{
	_cleanup_free_ char *dir = strdup(s->socket);
	PGconn *c;
	pid_t peer;

	if (!dir)
		return -ENOMEM;
	*strrchr(dir, '/') = 0;
	const char *const keys[] = { "host", "port", "user", "dbname", "connect_timeout", "application_name", NULL };
	const char *const values[] = { dir, "5432", "root", "postgres", timeout, "slicebench", NULL };
	c = PQconnectdbParams(keys, values, 0);
	if (!c)
		return -ENOMEM;
	if (PQstatus(c) != CONNECTION_OK) {
		PQfinish(c);
		return -ECONNREFUSED;
	}
	if (s->peer && (server_peer_of(PQsocket(c), &peer) < 0 || peer != s->peer)) {
		PQfinish(c);
		return -ESRCH;
	}
	*ret = c;
	return 0;
}

static bool pg_ping(const struct server *s)
{
	PGconn *c = NULL;

	if (pg_connect_root(s, "2", &c) < 0)
		return false;
	PQfinish(c);
	return true;
}

/* What the server made of its placement and its configuration: the
 * connection and file limits it runs with, its shared memory; its
 * server_version read as server.version. */
static const char *const pg_fact_names[] = {
	"max_connections", "superuser_reserved_connections", "max_files_per_process", "shared_buffers", "huge_pages",
	"shared_memory_type", "dynamic_shared_memory_type", "max_worker_processes", "max_parallel_workers_per_gather",
	"server_version", NULL,
};

static int pg_facts(const struct server *s, struct placement *p)
{
	_cleanup_free_ char *in = NULL, *sql = NULL;
	PGconn *c = NULL;
	PGresult *res;
	int r;

	if (server_sql_names(pg_fact_names, &in) < 0 ||
	    xasprintf(&sql, "SELECT CASE name WHEN 'server_version' THEN 'version' ELSE name END, current_setting(name) "
		      "FROM pg_settings WHERE name IN (%s) ORDER BY 1", in) < 0)
		return -ENOMEM;
	r = pg_connect_root(s, "10", &c);
	if (r < 0)
		return r;
	res = PQexec(c, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		r = -EIO;
	for (int i = 0; r >= 0 && i < PQntuples(res); i++) {
		_cleanup_free_ char *key = NULL;

		r = xasprintf(&key, "server.%s", PQgetvalue(res, i, 0));
		if (r >= 0)
			r = placement_set(p, key, PQgetvalue(res, i, 1));
	}
	PQclear(res);
	PQfinish(c);
	return r < 0 ? r : 0;
}

/* A postmaster killed with SIGKILL leaves its System V segment (line 7 of
 * postmaster.pid: key and id), the socket and its lock file; its backends
 * notice and exit.  The segment goes once nothing is attached to it. */
static void pg_clear_stale(const char *datadir, const char *socket)
{
	_cleanup_free_ char *pidfile = NULL, *lock = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	char line[256];
	struct shmid_ds ds;
	long key;
	int id = -1;

	if (xasprintf(&pidfile, "%s/postmaster.pid", datadir) < 0 || xasprintf(&lock, "%s.lock", socket) < 0)
		return;
	f = fopen(pidfile, "re");
	for (int i = 1; f && fgets(line, sizeof(line), f); i++)
		if (i == 7 && sscanf(line, "%ld %d", &key, &id) != 2)
			id = -1;
	for (int i = 0; id >= 0 && i < 100; i++) {
		if (shmctl(id, IPC_STAT, &ds) < 0)
			break;
		/* Only a segment of the server's user, which it made. */
		if (ds.shm_nattch == 0) {
			struct stat st;

			if (stat(datadir, &st) == 0 && ds.shm_perm.uid == st.st_uid)
				shmctl(id, IPC_RMID, NULL);
			break;
		}
		usleep(100000);
	}
	(void)unlink(socket);
	(void)unlink(lock);
}

const struct server_engine server_engine_postgresql = {
	.name = "postgresql",
	.protocol = "postgresql",
	.binary = PG_BINDIR "/postgres",
	.datadir_name = "datadir-postgresql",
	.socket_name = PG_SOCKET,
	.option_file = "postgresql.conf",
	.log_name = "postgresql.log",
	.stop_signal = SIGINT,
	.installed = pg_installed,
	.init_datadir = pg_init_datadir,
	.write_options = pg_write_options,
	.option_flag = "--config-file",
	.set_variable = "--%s=%s",
	.ping = pg_ping,
	.facts = pg_facts,
	.fact_names = pg_fact_names,
	.clear_stale = pg_clear_stale,
};

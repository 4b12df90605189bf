#include <fcntl.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slices/server/server.h"
#include "tap.h"
#include "testpg.h"
#include "common/util.h"

static const struct passwd *pg_user(void)
{
	const struct passwd *pw = getpwnam("postgres");

	if (!pw)
		bail_out("no postgres user");
	return pw;
}

/* Forks argv as the postgres user, output to log; waits if wait. */
static pid_t run_as_postgres(char *const *argv, const char *log, bool wait)
{
	const struct passwd *pw = pg_user();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		bail_out("fork: %m");
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (!wait)
		return pid;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bail_out("%s failed (see %s)", argv[0], log);
	return 0;
}

static void stop_pg(void *arg)
{
	struct test_pg *pg = arg;

	/* SIGINT is PostgreSQL's fast shutdown. */
	if (pg->pid > 0 && kill(pg->pid, SIGINT) == 0)
		waitpid(pg->pid, NULL, 0);
	pg->pid = 0;
	/* After a SIGKILL: the segment, the socket and its lock, as cleanup. */
	if (pg->datadir) {
		_cleanup_free_ char *socket = NULL;

		xasprintf(&socket, "%s/.s.PGSQL.5432", pg->socket_dir);
		server_engine_postgresql.clear_stale(pg->datadir, socket);
	}
	free(pg->datadir);
	free(pg->socket_dir);
	free(pg->log);
	*pg = (struct test_pg){};
}

void test_pg_start(unsigned max_connections, struct test_pg *ret)
{
	_cleanup_free_ char *dir = NULL, *conf = NULL, *text = NULL, *conninfo = NULL;
	const struct passwd *pw = pg_user();

	chmod(scratch_dir(), 0755);
	xasprintf(&dir, "%s/pg", scratch_dir());
	xasprintf(&ret->datadir, "%s/data", dir);
	xasprintf(&ret->socket_dir, "%s/run", dir);
	xasprintf(&ret->log, "%s/postgres.log", dir);
	xasprintf(&conf, "%s/postgresql.conf", dir);
	if (mkdir(dir, 0755) < 0 || mkdir(ret->socket_dir, 0700) < 0 || mkdir(ret->datadir, 0700) < 0 ||
	    chown(ret->socket_dir, pw->pw_uid, pw->pw_gid) < 0 || chown(ret->datadir, pw->pw_uid, pw->pw_gid) < 0 ||
	    chown(dir, pw->pw_uid, pw->pw_gid) < 0)
		bail_out("cannot make %s: %m", dir);
	char *const initdb[] = { TEST_PG_BINDIR "/initdb", "-D", ret->datadir, "-U", "root", "--auth-local=peer",
				 "--auth-host=reject", "-E", "UTF8", "--locale=C", NULL };
	run_as_postgres(initdb, ret->log, true);
	xasprintf(&text,
		  "data_directory = '%s'\nhba_file = '%s/pg_hba.conf'\nident_file = '%s/pg_ident.conf'\n"
		  "listen_addresses = ''\nunix_socket_directories = '%s'\nmax_connections = %u\n"
		  "shared_buffers = 128MB\nfsync = off\n",
		  ret->datadir, ret->datadir, ret->datadir, ret->socket_dir, max_connections);
	if (write_file_atomic(conf, text, strlen(text)) < 0 || chmod(conf, 0644) < 0)
		bail_out("cannot write %s", conf);
	_cleanup_free_ char *config_opt = NULL;
	xasprintf(&config_opt, "--config-file=%s", conf);
	char *const postgres[] = { TEST_PG_BINDIR "/postgres", config_opt, NULL };
	ret->pid = run_as_postgres(postgres, ret->log, false);
	on_exit_run(stop_pg, ret);
	xasprintf(&conninfo, "host=%s dbname=postgres user=root connect_timeout=2", ret->socket_dir);
	for (int i = 0; i < 600; i++) {
		if (PQping(conninfo) == PQPING_OK)
			return;
		if (waitpid(ret->pid, NULL, WNOHANG) == ret->pid) {
			ret->pid = 0;
			break;
		}
		usleep(100000);
	}
	bail_out("postgres did not come up (see %s)", ret->log);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *test_pg_log_lines(const struct test_pg *pg, const char *needle)
{
	_cleanup_fclose_ FILE *f = fopen(pg->log, "re");
	char line[2048], **lines = NULL, *out;
	size_t n = 0, len = 1;

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, needle);
		bool seen = false;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		for (size_t i = 0; i < n && !seen; i++)
			seen = streq(lines[i], p);
		if (seen)
			continue;
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = strdup(p);
		len += strlen(p) + 1;
	}
	if (n) /* qsort() wants an array, even of none */
		qsort(lines, n, sizeof(*lines), cmp_str);
	out = calloc(1, len);
	for (size_t i = 0; i < n; i++) {
		strcat(strcat(out, lines[i]), "\n");
		free(lines[i]);
	}
	free(lines);
	return out;
}

/* The mysql engines: MariaDB (mariadb-install-db) and MySQL 8 / Percona
 * (mysqld --initialize-insecure), which differ only in how the datadir is
 * made; the option file, the ping and the server's variables are theirs
 * alike. */
#include <mysql.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>

#include "slices/server/server.h"
#include "slices/attr/placement.h"
#include "common/util.h"

/* The installers run as the server's user, never as root: given --user as
 * root, mariadb-install-db chowns the datadir through an unquoted word and
 * the packaged plugin/auth_pam_tool_dir.  Root logs in over the socket
 * (root's own login, named here rather than taken from $USER). */
static int mariadb_init_datadir(const struct server *s, const char *datadir)
{
	_cleanup_free_ char *d = NULL;
	struct passwd *pw = getpwnam(s->user);

	if (!pw)
		return -ESRCH;
	if (xasprintf(&d, "--datadir=%s", datadir) < 0)
		return -ENOMEM;
	char *argv[] = { "mariadb-install-db", "--no-defaults", d, "--auth-root-authentication-method=socket",
			 "--auth-root-socket-user=root", "--skip-test-db", NULL };
	return server_run_installer(s, argv, datadir, pw);
}

static int mysql_init_datadir(const struct server *s, const char *datadir)
{
	_cleanup_free_ char *d = NULL;
	struct passwd *pw = getpwnam(s->user);

	if (!pw)
		return -ESRCH;
	if (xasprintf(&d, "--datadir=%s", datadir) < 0)
		return -ENOMEM;
	char *argv[] = { s->binary, "--no-defaults", "--initialize-insecure", d, NULL };
	return server_run_installer(s, argv, datadir, pw);
}

static int mariadb_installed(const char *binary, char **ret_missing)
{
	const char *missing = !executable_in_path(binary, NULL)		     ? binary :
			      !executable_in_path("mariadb-install-db", NULL) ? "mariadb-install-db" :
									     NULL;

	*ret_missing = NULL;
	if (!missing)
		return 0;
	*ret_missing = strdup(missing);
	return *ret_missing ? -ENOENT : -ENOMEM;
}

/* Debian's mysqld is a link to MariaDB's mariadbd, which has no
 * --initialize-insecure: that is no MySQL or Percona Server. */
static int mysql_installed(const char *binary, char **ret_missing)
{
	_cleanup_free_ char *found = NULL, *real = NULL;
	const char *missing = NULL;

	*ret_missing = NULL;
	if (!executable_in_path(binary, &found))
		missing = binary;
	else if ((real = realpath(found, NULL)) && streq(basename(real), "mariadbd"))
		missing = "MySQL's mysqld (this one is MariaDB's mariadbd)";
	if (!missing)
		return 0;
	*ret_missing = strdup(missing);
	return *ret_missing ? -ENOENT : -ENOMEM;
}

static int write_option_file(const struct server_config *cfg, const struct server *s)
{
	_cleanup_free_ char *text = NULL;
	int r;

	r = xasprintf(&text,
		      "# Written by slicebench; rewritten at every setup.\n"
		      "[mysqld]\n"
		      "datadir=%s\n"
		      "socket=%s\n"
		      "log-error=%s\n"
		      "user=%s\n"
		      "skip-networking\n"
		      "innodb_buffer_pool_size=%s\n"
		      "max_connections=%u\n"
		      "max_prepared_stmt_count=1048576\n",
		      s->datadir, s->socket, s->log, s->user, cfg->buffer_pool, cfg->max_connections);
	if (r < 0)
		return r;
	return write_file_atomic(s->cnf, text, strlen(text));
}

static int connect_root(const struct server *s, unsigned timeout, MYSQL **ret)
{
	MYSQL *m = mysql_init(NULL);
	pid_t peer;

	if (!m)
		return -ENOMEM;
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	if (!mysql_real_connect(m, NULL, "root", NULL, NULL, 0, s->socket, 0)) {
		mysql_close(m);
		return -ECONNREFUSED;
	}
	if (s->peer && (server_peer_of(mysql_get_socket(m), &peer) < 0 || peer != s->peer)) {
		mysql_close(m);
		return -ESRCH;
	}
	*ret = m;
	return 0;
}

static bool mysql_ping_root(const struct server *s)
{
	MYSQL *m = NULL;
	bool ok = connect_root(s, 1, &m) >= 0 && mysql_ping(m) == 0;

	if (m)
		mysql_close(m);
	return ok;
}

/* The server's variables that change throughput, as server.NAME: what it
 * made of its placement (with 1024 descriptors mysqld quietly lowers
 * max_connections and table_open_cache) and what a DBA's my.cnf sets. */
static const char *const fact_names[] = {
	"open_files_limit", "max_connections", "table_open_cache", "table_open_cache_instances",
	"innodb_numa_interleave", "innodb_buffer_pool_size", "innodb_buffer_pool_instances", "thread_handling",
	"thread_cache_size", "performance_schema", "version", NULL,
};

/* SHOW GLOBAL VARIABLES WHERE Variable_name IN ('a', 'b', ...). */
static int facts_query(char **ret)
{
	_cleanup_free_ char *in = NULL;

	if (server_sql_names(fact_names, &in) < 0)
		return -ENOMEM;
	return xasprintf(ret, "SHOW GLOBAL VARIABLES WHERE Variable_name IN (%s)", in);
}

/* server.missing: the names this server has no variable of (MariaDB 10.11
 * dropped innodb_buffer_pool_instances), so that "not read" says why. */
static int set_missing(struct placement *p)
{
	char missing[512] = "";

	for (size_t i = 0; fact_names[i]; i++) {
		char key[64];

		snprintf(key, sizeof(key), "server.%s", fact_names[i]);
		if (!placement_get(p, key))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s", *missing ? " " : "",
				 fact_names[i]);
	}
	return *missing ? placement_set(p, "server.missing", missing) : 0;
}

static int mysql_facts(const struct server *s, struct placement *p)
{
	_cleanup_free_ char *sql = NULL;
	MYSQL *m = NULL;
	MYSQL_RES *res;
	MYSQL_ROW row;
	int r;

	r = facts_query(&sql);
	if (r >= 0)
		r = connect_root(s, 10, &m);
	if (r < 0)
		return r;
	if (mysql_real_query(m, sql, strlen(sql)) != 0 || !(res = mysql_store_result(m))) {
		mysql_close(m);
		return -EIO;
	}
	while (r >= 0 && (row = mysql_fetch_row(res))) {
		_cleanup_free_ char *key = NULL;

		r = xasprintf(&key, "server.%s", row[0]);
		if (r >= 0)
			r = placement_set(p, key, row[1] ? row[1] : "");
	}
	mysql_free_result(res);
	mysql_close(m);
	return r < 0 ? r : set_missing(p);
}

/* The proxy's account: the server's user, known by the socket's peer
 * (MariaDB's unix_socket), or by a password for a proxy that logs in with
 * one (ProxySQL's users have passwords).  Made afresh at every unit, so
 * that a password of an earlier run is not kept.  MySQL 8 has no such
 * plugin loaded: there the account has the password, or none; either way
 * it is reachable only through the socket (skip-networking), whose
 * directory is the server's user's alone.  The password is sent in the
 * statement, never on a command line. */
/* A text that held a password, wiped before it is freed. */
static void forget(char *text)
{
	if (text)
		explicit_bzero(text, strlen(text));
}

static int proxy_account_with(const struct server *s, const char *by_peer, const char *by_password,
			      const char *password)
{
	_cleanup_free_ char *drop = NULL, *clause = NULL, *create = NULL, *grant = NULL, *escaped = NULL;
	MYSQL *m = NULL;
	int r;

	r = connect_root(s, 10, &m);
	if (r < 0)
		return r;
	if (password && (escaped = malloc(2 * strlen(password) + 1)))
		mysql_real_escape_string(m, escaped, password, strlen(password));
	if ((password && !escaped) || xasprintf(&drop, "DROP USER IF EXISTS '%s'@'localhost'", s->user) < 0 ||
	    xasprintf(&clause, password ? by_password : by_peer, strempty(escaped)) < 0 ||
	    xasprintf(&create, "CREATE USER '%s'@'localhost'%s", s->user, clause) < 0 ||
	    xasprintf(&grant, "GRANT ALL PRIVILEGES ON *.* TO '%s'@'localhost'", s->user) < 0)
		r = -ENOMEM;
	if (r >= 0 && (mysql_query(m, drop) != 0 || mysql_query(m, create) != 0 || mysql_query(m, grant) != 0))
		r = -EIO;
	forget(escaped);
	forget(clause);
	forget(create);
	mysql_close(m);
	return r;
}

static int mariadb_proxy_account(const struct server *s, const char *password)
{
	return proxy_account_with(s, " IDENTIFIED VIA unix_socket%s",
				  " IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('%s')", password);
}

static int mysql_proxy_account(const struct server *s, const char *password)
{
	return proxy_account_with(s, "%s", " IDENTIFIED BY '%s'", password);
}

#define MYSQL_ENGINE(engine, dir, bin, init, check, account)                                                              \
	{                                                                                                       \
		.name = engine, .protocol = "mysql", .binary = bin, .datadir_name = dir, .socket_name = "mysqld.sock", \
		.option_file = "my.cnf", .log_name = "mysqld.err", .stop_signal = SIGTERM,                       \
		.installed = check, .init_datadir = init,                              \
		.write_options = write_option_file, .option_flag = "--defaults-file", .ping = mysql_ping_root,                 \
		.set_variable = "--%s=%s",                                                                      \
		.facts = mysql_facts, .fact_names = fact_names, .proxy_account = account,                                                  \
	}

/* MariaDB's datadir keeps the name it had before there were engines. */
const struct server_engine server_engine_mariadb = MYSQL_ENGINE("mariadb", "datadir", "mariadbd", mariadb_init_datadir,
								   mariadb_installed, mariadb_proxy_account);
const struct server_engine server_engine_mysql = MYSQL_ENGINE("mysql", "datadir-mysql", "mysqld", mysql_init_datadir,
								 mysql_installed, mysql_proxy_account);

/* The proxy engines: haproxy in TCP mode for the mysql engines, pgbouncer
 * for PostgreSQL (both Debian's), and ProxySQL where it is installed.  A
 * proxy runs as the server's user (its socket directory is that user's),
 * listens on a socket beside the server's and forwards to the server's
 * socket; its log lives in STATE/slicebench-proxy, its configuration
 * (root's) in STATE/slicebench-proxy-NAME.conf. */
#include "slices/server/proxy.h"

#include <fcntl.h>
#include <libgen.h>
#include <libpq-fe.h>
#include <mysql.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "common/util.h"

#define PROXY_DIR "slicebench-proxy"
/* pgbouncer's socket is .s.PGSQL.PORT in the server's directory, whose
 * own is 5432: the index-th proxy takes this plus index. */
#define PGBOUNCER_PORT 6432

/* Does the server answer, through the proxy's socket, as user? */
static bool mysql_ping_through(const struct server *s)
{
	unsigned timeout = 1;
	MYSQL *m = mysql_init(NULL);
	bool ok;

	if (!m)
		return false;
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	ok = mysql_real_connect(m, NULL, s->user, s->password, NULL, 0, s->socket, 0) && mysql_ping(m) == 0;
	mysql_close(m);
	return ok;
}

/* The directory and port of a .s.PGSQL.PORT socket. */
static int pg_socket_parts(const char *socket, char **ret_dir, const char **ret_port)
{
	const char *slash = strrchr(socket, '/');

	if (!slash || strncmp(slash + 1, ".s.PGSQL.", 9) != 0)
		return -EINVAL;
	*ret_port = slash + 10;
	*ret_dir = strndup(socket, (size_t)(slash - socket));
	return *ret_dir ? 0 : -ENOMEM;
}

static bool pg_ping_through(const struct server *s)
{
	_cleanup_free_ char *dir = NULL;
	const char *port;
	PGconn *c;
	bool ok;

	if (pg_socket_parts(s->socket, &dir, &port) < 0)
		return false;
	const char *const keys[] = { "host", "port", "user", "dbname", "connect_timeout", "application_name", NULL };
	const char *const values[] = { dir, port, "root", "postgres", "2", "slicebench", NULL };
	c = PQconnectdbParams(keys, values, 0);
	ok = c && PQstatus(c) == CONNECTION_OK;
	PQfinish(c);
	return ok;
}

/* A NULL-terminated copy of n words, for exec. */
static int argv_of(const char *const *words, size_t n, char ***ret)
{
	char **argv = calloc(n + 1, sizeof(char *));

	if (!argv)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!(argv[i] = strdup(words[i]))) {
			strv_free(argv);
			return -ENOMEM;
		}
	*ret = argv;
	return 0;
}

/* haproxy writes its alerts to stderr and has no log file of its own:
 * sh redirects them into the log and execs it, so that the PID placed is
 * haproxy's.  -db: in the foreground. */
static int haproxy_argv(const struct server *s, char ***ret)
{
	const char *words[] = { "/bin/sh", "-c", "exec \"$0\" -db -f \"$1\" >>\"$2\" 2>&1", s->binary, s->cnf, s->log };

	return argv_of(words, ELEMENTSOF(words), ret);
}

/* TCP mode between two unix sockets; the timeouts outlast any step. */
static int haproxy_config(const struct server *proxy, const struct server *backend, unsigned max_connections,
			  const char *path)
{
	_cleanup_free_ char *text = NULL;

	if (xasprintf(&text,
		      "# Written by slicebench; rewritten at every setup.\n"
		      "global\n"
		      "\tmaxconn %u\n"
		      "defaults\n"
		      "\tmode tcp\n"
		      "\ttimeout connect 10s\n"
		      "\ttimeout client 24h\n"
		      "\ttimeout server 24h\n"
		      "listen slicebench\n"
		      "\tbind %s\n"
		      "\tserver db %s maxconn %u\n",
		      2 * max_connections + 16, proxy->socket, backend->socket, max_connections) < 0)
		return -ENOMEM;
	return write_file_atomic(path, text, strlen(text));
}

/* pgbouncer, in session mode (a client keeps its server connection, and
 * with it its prepared statements), logs in to the server as root (the
 * server's peer map lets its user do so) whatever the client says. */
static int pgbouncer_config(const struct server *proxy, const struct server *backend, unsigned max_connections,
			    const char *path)
{
	_cleanup_free_ char *text = NULL, *dir = NULL, *backend_dir = NULL;
	const char *port, *backend_port;
	int r;

	r = pg_socket_parts(proxy->socket, &dir, &port);
	if (r >= 0)
		r = pg_socket_parts(backend->socket, &backend_dir, &backend_port);
	if (r < 0)
		return r;
	if (xasprintf(&text,
		      "; Written by slicebench; rewritten at every setup.\n"
		      "[databases]\n"
		      "* = host=%s port=%s user=root\n"
		      "[pgbouncer]\n"
		      "listen_addr =\n"
		      "listen_port = %s\n"
		      "unix_socket_dir = %s\n"
		      "auth_type = any\n"
		      "pool_mode = session\n"
		      "max_client_conn = %u\n"
		      "default_pool_size = %u\n"
		      "max_db_connections = %u\n"
		      "logfile = %s\n"
		      "ignore_startup_parameters = extra_float_digits\n",
		      backend_dir, backend_port, port, dir, max_connections, max_connections, max_connections,
		      proxy->log) < 0)
		return -ENOMEM;
	return write_file_atomic(path, text, strlen(text));
}

static int pgbouncer_argv(const struct server *s, char ***ret)
{
	const char *words[] = { s->binary, s->cnf };

	return argv_of(words, ELEMENTSOF(words), ret);
}

/* ProxySQL's own file: its datadir, its admin interface on a socket, the
 * server's socket as its one backend, the server's user with the drawn
 * password as its one user (for the client and for the backend alike),
 * monitoring off (it would log in as a user of its own).  The file holds
 * the password: it lives in the proxies' directory, the server's user's
 * alone. */
static int proxysql_config(const struct server *proxy, const struct server *backend, unsigned max_connections,
			   const char *path)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (xasprintf(&text,
		      "# Written by slicebench; rewritten at every setup.\n"
		      "datadir=\"%s\"\n"
		      "errorlog=\"%s\"\n"
		      "admin_variables={ mysql_ifaces=\"%s/proxysql-admin.sock\" }\n"
		      "mysql_variables={ interfaces=\"%s\"; max_connections=%u; monitor_enabled=false; }\n"
		      "mysql_servers=({ address=\"%s\"; port=0; hostgroup=0; max_connections=%u; })\n"
		      "mysql_users=({ username=\"%s\"; password=\"%s\"; default_hostgroup=0; })\n",
		      proxy->datadir, proxy->log, proxy->datadir, proxy->socket, max_connections, backend->socket,
		      max_connections, proxy->user, proxy->password) < 0)
		return -ENOMEM;
	r = write_file_atomic(path, text, strlen(text));
	explicit_bzero(text, strlen(text));
	return r;
}

/* -f: in the foreground; --initial: the file, not a database left from
 * an earlier start. */
static int proxysql_argv(const struct server *s, char ***ret)
{
	const char *words[] = { s->binary, "-f", "--initial", "-c", s->cnf, "--no-monitor" };

	return argv_of(words, ELEMENTSOF(words), ret);
}

#define PROXY_AS_SERVER(bin, sock, log, args, ping_fn)                                                           \
	{                                                                                                       \
		.name = bin, .binary = bin, .socket_name = sock, .log_name = log, .stop_signal = SIGTERM,          \
		.argv = args, .ping = ping_fn, .service_type = "exec",                 \
	}

static const struct proxy_engine proxy_haproxy = {
	.name = "haproxy",
	.protocol = "mysql",
	.install = "apt-get install haproxy",
	.client_as_server_user = true,
	.write_config = haproxy_config,
	.as_server = PROXY_AS_SERVER("haproxy", "haproxy.sock", "haproxy.log", haproxy_argv, mysql_ping_through),
};

static const struct proxy_engine proxy_pgbouncer = {
	.name = "pgbouncer",
	.protocol = "postgresql",
	.install = "apt-get install pgbouncer",
	.write_config = pgbouncer_config,
	.as_server = PROXY_AS_SERVER("pgbouncer", ".s.PGSQL", "pgbouncer.log", pgbouncer_argv, pg_ping_through),
};

static const struct proxy_engine proxy_proxysql = {
	.name = "proxysql",
	.protocol = "mysql",
	.install = "ProxySQL is not packaged in Debian 12: install it from ProxySQL's own packages",
	.client_as_server_user = true,
	.password = true,
	.write_config = proxysql_config,
	.as_server = PROXY_AS_SERVER("proxysql", "proxysql.sock", "proxysql.log", proxysql_argv, mysql_ping_through),
};

const struct proxy_engine *const proxy_engines[] = { &proxy_haproxy, &proxy_pgbouncer, &proxy_proxysql, NULL };
const struct word proxy_engine_words[] = {
	{ "haproxy", 0 },
	{ "pgbouncer", 1 },
	{ "proxysql", 2 },
	{},
};

const struct proxy_engine *proxy_engine_named(const char *name)
{
	int i;

	return name && word_lookup(proxy_engine_words, name, &i) >= 0 ? proxy_engines[i] : NULL;
}

const struct proxy_engine *proxy_engine_of(const struct server_engine *engine)
{
	for (size_t i = 0; proxy_engines[i]; i++)
		if (&proxy_engines[i]->as_server == engine)
			return proxy_engines[i];
	return NULL;
}

int proxy_installed(const struct proxy_engine *pe, const char *binary, char **ret_why)
{
	*ret_why = NULL;
	if (executable_in_path(binary ? binary : pe->as_server.binary, NULL))
		return 0;
	if (xasprintf(ret_why, "%s is not installed here: no %s (%s)", pe->name, binary ? binary : pe->as_server.binary,
		      pe->install) < 0)
		return -ENOMEM;
	return -ENOENT;
}

/* STATE/slicebench-proxy, the proxies' own directory (their logs, and
 * ProxySQL's database), given to the server's user. */
static int proxy_dir_setup(const char *dir, const char *user)
{
	_cleanup_close_ int fd = -EBADF;
	struct passwd *pw = getpwnam(user);
	int r;

	if (!pw)
		return -ESRCH;
	r = mkdir_new(dir, 0700);
	if (r < 0 && r != -EEXIST)
		return r;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchown(fd, pw->pw_uid, pw->pw_gid) < 0 || fchmod(fd, 0700) < 0)
		return -errno;
	return 0;
}

/* The paths of the index-th proxy: its socket beside the server's. */
static int proxy_paths(const struct proxy_engine *pe, const char *name, unsigned index, const struct server *backend,
		       struct server *s)
{
	_cleanup_free_ char *state = strdup(backend->cnf), *sockdir = strdup(backend->socket);

	if (!state || !sockdir)
		return -ENOMEM;
	*strrchr(sockdir, '/') = 0;
	/* One directory and one log per engine for every proxy (they never run
	 * at once): a path that named the proxy would differ between two
	 * contexts' placements (the proxy's descriptors) for no cause. */
	/* A configuration that holds a password goes inside that directory. */
	if (xasprintf(&s->datadir, "%s/" PROXY_DIR, dirname(state)) < 0 ||
	    xasprintf(&s->cnf, pe->password ? "%s/%s.conf" : "%s-%s.conf", s->datadir, name) < 0 ||
	    xasprintf(&s->log, "%s/%s", s->datadir, pe->as_server.log_name) < 0)
		return -ENOMEM;
	if (streq(pe->protocol, "postgresql"))
		return xasprintf(&s->socket, "%s/%s.%u", sockdir, pe->as_server.socket_name, PGBOUNCER_PORT + index) < 0
			       ? -ENOMEM
			       : 0;
	return xasprintf(&s->socket, "%s/%s-%s", sockdir, name, pe->as_server.socket_name) < 0 ? -ENOMEM : 0;
}

/* 128 bits from the kernel, as 32 hex digits: a password no one types. */
static int password_draw(char **ret)
{
	uint8_t bytes[16];
	char *text = malloc(2 * sizeof(bytes) + 1);

	if (!text)
		return -ENOMEM;
	if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes)) {
		free(text);
		return -errno;
	}
	for (size_t i = 0; i < sizeof(bytes); i++)
		sprintf(text + 2 * i, "%02x", bytes[i]);
	explicit_bzero(bytes, sizeof(bytes));
	*ret = text;
	return 0;
}

int proxy_setup(const struct proxy_engine *pe, const char *binary, const char *name, unsigned index,
		const struct server *backend, unsigned max_connections, struct server *ret)
{
	struct server s = { .engine = &pe->as_server };
	int r;

	s.binary = strdup(binary ? binary : pe->as_server.binary);
	s.user = strdup(backend->user);
	if (!s.binary || !s.user)
		r = -ENOMEM;
	else
		r = proxy_paths(pe, name, index, backend, &s);
	if (r >= 0)
		r = proxy_dir_setup(s.datadir, s.user);
	if (r >= 0 && pe->password)
		r = password_draw(&s.password);
	if (r >= 0)
		r = pe->write_config(&s, backend, max_connections, s.cnf);
	if (r < 0) {
		server_done(&s);
		return r;
	}
	*ret = s;
	return 0;
}

int proxy_account(const struct server *proxy, const struct server *backend)
{
	return backend->engine->proxy_account ? backend->engine->proxy_account(backend, proxy->password) : 0;
}

int proxy_chain(const struct proxy_engine *pe, const struct server *backend, char **ret)
{
	return xasprintf(ret, "slicebench -> %s -> %s", pe->name, backend->engine->name) < 0 ? -ENOMEM : 0;
}

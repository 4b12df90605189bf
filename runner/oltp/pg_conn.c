/* The one place that opens a libpq connection to the server under test,
 * and the small SQL helpers prepare and the facts use. */
#include <stdio.h>

#include "oltp/pg.h"
#include "common/util.h"

#define SOCKET_PREFIX ".s.PGSQL."

int pg_socket_split(const char *socket, char **ret_dir, char **ret_port)
{
	const char *slash = strrchr(socket, '/'), *base = slash ? slash + 1 : socket;
	long port;

	if (!*socket)
		return -EINVAL;
	if (strncmp(base, SOCKET_PREFIX, strlen(SOCKET_PREFIX)) != 0) {
		/* A directory: libpq's host, with the default port. */
		*ret_dir = strdup(socket);
		*ret_port = strdup("5432");
	} else {
		if (!slash || parse_int_range(base + strlen(SOCKET_PREFIX), 1, 65535, &port) < 0)
			return -EINVAL;
		*ret_dir = slash == socket ? strdup("/") : strndup(socket, (size_t)(slash - socket));
		*ret_port = strdup(base + strlen(SOCKET_PREFIX));
	}
	if (!*ret_dir || !*ret_port) {
		free(*ret_dir);
		free(*ret_port);
		return -ENOMEM;
	}
	return 0;
}

/* The server's notices ("relation exists, skipping") are not ours to print. */
static void ignore_notice(void *arg _unused_, const char *message _unused_)
{
}

int pg_connect(const struct oltp_options *o, const char *db, PGconn **ret, char **ret_msg)
{
	_cleanup_free_ char *host = NULL, *port = NULL;
	char timeout[16];
	PGconn *c;
	int r;

	r = pg_socket_split(o->socket, &host, &port);
	if (r < 0) {
		if (ret_msg)
			xasprintf(ret_msg, "%s is neither a socket's directory nor a .s.PGSQL.PORT socket", o->socket);
		return r;
	}
	snprintf(timeout, sizeof(timeout), "%u", o->timeout_s ? o->timeout_s : 10);
	/* No password anywhere: peer authentication over the socket. */
	const char *const keys[] = { "host", "port", "user", "dbname", "connect_timeout", "application_name", NULL };
	const char *const values[] = { host, port, o->user, db ? db : oltp_db(o), timeout, "slicebench", NULL };
	c = PQconnectdbParams(keys, values, 0);
	if (!c)
		return -ENOMEM;
	if (PQstatus(c) != CONNECTION_OK) {
		if (ret_msg) {
			const char *m = PQerrorMessage(c);

			xasprintf(ret_msg, "cannot connect to %s/" SOCKET_PREFIX "%s as %s: %.*s", host, port, o->user,
				  (int)strcspn(m, "\n"), m);
		}
		PQfinish(c);
		return -ECONNREFUSED;
	}
	PQsetNoticeProcessor(c, ignore_notice, NULL);
	*ret = c;
	return 0;
}

static int vexec(PGconn *c, char **ret_msg, PGresult **ret, const char *fmt, va_list ap)
{
	_cleanup_free_ char *sql = NULL;
	PGresult *res;
	ExecStatusType st;

	if (vasprintf(&sql, fmt, ap) < 0)
		return -ENOMEM;
	res = PQexec(c, sql);
	st = PQresultStatus(res);
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		if (ret)
			*ret = res;
		else
			PQclear(res);
		return 0;
	}
	if (ret_msg && !*ret_msg) {
		const char *m = res ? PQresultErrorMessage(res) : PQerrorMessage(c);
		const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

		xasprintf(ret_msg, "%.80s%s: %.*s%s%s%s", sql, strlen(sql) > 80 ? "..." : "", (int)strcspn(m, "\n"), m,
			  state ? " (" : "", strempty(state), state ? ")" : "");
	}
	PQclear(res);
	return -EIO;
}

int pg_exec(PGconn *c, char **ret_msg, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vexec(c, ret_msg, NULL, fmt, ap);
	va_end(ap);
	return r;
}

int pg_value(PGconn *c, char **ret_msg, char **ret, const char *fmt, ...)
{
	_cleanup_pgresult_ PGresult *res = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vexec(c, ret_msg, &res, fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	*ret = strdup(PQntuples(res) > 0 && PQnfields(res) > 0 ? PQgetvalue(res, 0, 0) : "");
	return *ret ? 0 : -ENOMEM;
}

enum oltp_err_class pg_classify_error(const char *sqlstate, bool connection_lost)
{
	if (connection_lost)
		return OLTP_ERR_RECONNECT;
	if (!sqlstate)
		return OLTP_ERR_FATAL;
	/* What pgbench 15 counts as a failed transaction and goes on after. */
	if (streq(sqlstate, "40001") || streq(sqlstate, "40P01"))
		return OLTP_ERR_IGNORABLE;
	/* Connection exceptions, and the server shutting down or starting up. */
	if (strncmp(sqlstate, "08", 2) == 0 || streq(sqlstate, "57P01") || streq(sqlstate, "57P02") ||
	    streq(sqlstate, "57P03"))
		return OLTP_ERR_RECONNECT;
	return OLTP_ERR_FATAL;
}

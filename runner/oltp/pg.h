/* pgbench's workloads over libpq (select-only and tpcb-like): the
 * connection, the dataset (pgbench's schema at a scale factor, loaded with
 * COPY), the native driver (many connections on few threads, libpq's
 * non-blocking API, statements prepared as pgbench -M prepared does) and
 * the real pgbench run with its report parsed into the same record. */
#pragma once

#include <libpq-fe.h>

#include "oltp/oltp.h"
#include "common/util.h"

static inline void pg_finishp(PGconn **c)
{
	if (*c)
		PQfinish(*c);
}
#define _cleanup_pg_ __attribute__((cleanup(pg_finishp)))

static inline void pg_clearp(PGresult **r)
{
	if (*r)
		PQclear(*r);
}
#define _cleanup_pgresult_ __attribute__((cleanup(pg_clearp)))

/* o->socket as libpq's host (the socket's directory) and port: a directory,
 * or the path of the socket itself (DIR/.s.PGSQL.PORT).  -EINVAL if it is
 * neither. */
int pg_socket_split(const char *socket, char **ret_dir, char **ret_port);

/* A blocking connection over o->socket as o->user, with no password, to
 * database db (NULL: the workload's).  On failure *ret_msg says why. */
int pg_connect(const struct oltp_options *o, const char *db, PGconn **ret, char **ret_msg);

/* Runs one statement; -EIO with "SQL: the server's message (SQLSTATE)" in
 * *ret_msg (if not NULL and still empty) when it fails. */
int pg_exec(PGconn *c, char **ret_msg, const char *fmt, ...) _printf_(3, 4);
/* The first column of the first row ("" for no row or NULL). */
int pg_value(PGconn *c, char **ret_msg, char **ret, const char *fmt, ...) _printf_(4, 5);

/* pgbench's classes: serialization failures and deadlocks are counted and
 * the transaction goes on with the next one, a lost connection is
 * reconnected, anything else ends the step. */
enum oltp_err_class pg_classify_error(const char *sqlstate, bool connection_lost);

/* The rows of the workload table (oltp/oltp.h). */
int pgbench_prepare(const struct oltp_options *o, char **ret_msg);
int pgbench_prewarm(const struct oltp_options *o, char **ret_msg);
int pgbench_run_step(const struct oltp_options *o, unsigned clients, struct step_result *ret);
int pgbench_tool_step(const struct oltp_options *o, unsigned clients, struct step_result *ret);

/* The statements of one transaction of the workload's script. */
unsigned pgbench_statements(enum oltp_workload w);

/* The scale of the dataset there, as pgbench finds it: its branches. */
int pgbench_scale_of(PGconn *c, unsigned *ret);

/* Parses pgbench's report (-P 1 progress lines and the summary of a -T
 * run) into *ret (exposed for the tests). */
int pgbench_parse_report(const char *text, struct step_result *ret);

/* The step measured from pgbench's transaction logs in dir (-l, one file a
 * thread) as the native driver measures it: the clock starts once every
 * one of the clients has completed its first transaction (pgbench -M
 * prepared prepares then; the native driver's clients before the clock
 * starts), then warmup_us are not counted, and the duration_us after are
 * the step: its transactions, tps, percentiles and per-second intervals
 * into *ret.  1 if the run ended before that (short_s: by how much; 0 if
 * nothing was logged), with *ret untouched.  duration_us 0 (an
 * event-count step): the percentiles of every transaction only.  Sets
 * from_us, the clock's start (epoch microseconds). */
struct pgbench_window {
	uint64_t warmup_us, duration_us;
	uint64_t from_us;
	double short_s;
};
int pgbench_measure_logs(const char *dir, unsigned clients, struct pgbench_window *w, struct step_result *ret);

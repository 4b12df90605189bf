/* sysbench's write workloads in the native driver, against a real
 * mariadbd and the real sysbench: for oltp_read_write, oltp_write_only,
 * oltp_update_index and oltp_insert, an event-count step runs exactly its
 * transactions at 1 thread (no deadlock to retry, no transaction past the
 * count) with the script's statements a transaction (20, 6, 1, 1),
 * the server's general log shows the native driver prepared the same
 * statement texts as sysbench and, for oltp_insert, sent the same INSERT
 * (its numbers and strings aside), and oltp_insert's rows grew by its
 * transactions.  A step goes without each figure sweep --without turns
 * off, and the others stay.  A server stopped (SIGSTOP) for good in the
 * middle of a step: the step ends at its deadline plus the read timeout
 * the step frame gives a worker still waiting, not never.
 * Prerequisites: ROOT, MYSQLD, SYSBENCH (for the comparisons). */
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "oltp/oltp.h"
#include "common/util.h"
#include "tap.h"
#include "testserver.h"

static const struct {
	enum oltp_workload w;
	unsigned queries;
} writes[] = {
	{ OLTP_WORKLOAD_READ_WRITE, 20 },
	{ OLTP_WORKLOAD_WRITE_ONLY, 6 },
	{ OLTP_WORKLOAD_UPDATE_INDEX, 1 },
	{ OLTP_WORKLOAD_INSERT, 1 },
};

static int sql(const struct oltp_options *o, const char *q, char **ret)
{
	_cleanup_mysql_ MYSQL *m = NULL;
	MYSQL_RES *res;
	MYSQL_ROW row;

	if (oltp_connect(o, NULL, &m, NULL) < 0 || mysql_query(m, q) != 0)
		return -EIO;
	if (!ret)
		return 0;
	res = mysql_store_result(m);
	row = res ? mysql_fetch_row(res) : NULL;
	*ret = strdup(row && row[0] ? row[0] : "");
	mysql_free_result(res);
	return 0;
}

static uint64_t rows_of(const struct oltp_options *o, unsigned t)
{
	_cleanup_free_ char *q = NULL, *v = NULL;

	xasprintf(&q, "SELECT COUNT(*) FROM sbtest.sbtest%u", t);
	return sql(o, q, &v) < 0 ? 0 : strtoull(v, NULL, 10);
}

/* The general log's Prepare and Query texts from offset on, numbers and
 * quoted strings masked, each once, sorted by first sight: what a driver
 * asked of the server. */
static char *statements(const char *log, long from)
{
	_cleanup_fclose_ FILE *f = fopen(log, "re");
	char line[2048], *set = calloc(1, 1);

	if (!f || !set || fseek(f, from, SEEK_SET) < 0)
		return set;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "Prepare\t"), shape[2048];
		size_t n = 0;

		if (!p && (p = strstr(line, "Query\t")) && strncmp(p + 6, "INSERT", 6) != 0)
			continue; /* a driver's session set-up, not the workload's */
		if (!p)
			continue;
		p = strchr(p, '\t') + 1;
		for (; *p && *p != '\n' && n + 2 < sizeof(shape); p++) {
			if (*p == '\'') {
				shape[n++] = 'S';
				p = strchr(p + 1, '\'');
				if (!p)
					break;
			} else if (isdigit((unsigned char)*p) && (n == 0 || !isalpha((unsigned char)shape[n - 1]))) {
				shape[n++] = 'N';
				while (isdigit((unsigned char)p[1]))
					p++;
			} else
				shape[n++] = *p;
		}
		shape[n++] = '\n';
		shape[n] = 0;
		if (!strstr(set, shape)) {
			set = realloc(set, strlen(set) + n + 1);
			strcat(set, shape);
		}
	}
	return set;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The set's lines sorted: which table a driver drew first does not matter. */
static char *sorted(char *set)
{
	char *lines[256], *out = calloc(1, strlen(set) + 1);
	size_t n = 0;

	for (char *l = strtok(set, "\n"); l && n < ELEMENTSOF(lines); l = strtok(NULL, "\n"))
		lines[n++] = l;
	qsort(lines, n, sizeof(*lines), cmp_lines);
	for (size_t i = 0; out && i < n; i++)
		strcat(strcat(out, lines[i]), "\n");
	free(set);
	return out;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? 0 : (long)st.st_size;
}

/* One write workload: its native event-count step and sysbench's, the
 * statements each sent in the general log. */
static void check_workload(struct oltp_options *o, const char *log, unsigned i)
{
	const char *name = oltp_workload_name(writes[i].w);
	struct step_result native = {}, sb = {};
	_cleanup_free_ char *mine = NULL, *theirs = NULL;
	uint64_t before = rows_of(o, 1) + rows_of(o, 2);
	long at;

	o->workload = writes[i].w;
	o->events = 40;
	at = file_size(log);
	is_int(oltp_run_step(o, 1, &native), 0, "%s: the native step runs", name);
	mine = sorted(statements(log, at));
	ok(!native.failed && native.transactions == 40 && native.queries == 40 * writes[i].queries,
	   "%s: 40 transactions of %u statements (%" PRIu64 " transactions, %" PRIu64 " queries, %s)", name,
	   writes[i].queries, native.transactions, native.queries, native.reason);
	if (writes[i].w == OLTP_WORKLOAD_INSERT)
		is_int((long long)(rows_of(o, 1) + rows_of(o, 2) - before), 40, "%s: the tables grew by its 40 rows", name);
	if (!have_prereq("SYSBENCH")) {
		skip(2, "sysbench is not installed");
	} else {
		at = file_size(log);
		sysbench_run_step(o, 1, &sb);
		theirs = sorted(statements(log, at));
		ok(!sb.failed && sb.transactions == 40 && sb.queries == 40 * writes[i].queries,
		   "%s through sysbench: 40 transactions of %u statements (%" PRIu64 ", %" PRIu64 ")", name,
		   writes[i].queries, sb.transactions, sb.queries);
		if (!is_str(mine, theirs, "%s: the native driver sent the statements sysbench sent", name))
			diag("native:\n%s\nsysbench:\n%s", mine, theirs);
	}
	o->events = 0;
	step_result_done(&native);
	step_result_done(&sb);
}

/* sweep --without: each figure left out, the others kept. */
static void check_figures_off(struct oltp_options *o)
{
	struct step_result r = {};

	o->workload = OLTP_WORKLOAD_WRITE_ONLY;
	o->figures_off = OLTP_FIGURE_LATENCY;
	oltp_run_step(o, 1, &r);
	ok(r.lat_p50_ms < 0 && r.n_intervals == 2 && r.n_samples > 0 && r.tps > 0,
	   "without latency: no percentiles (p50 %.3f ms), the per-second counts (%zu) and samples (%zu) kept", r.lat_p50_ms,
	   r.n_intervals, r.n_samples);
	step_result_done(&r);
	o->figures_off = OLTP_FIGURE_SECONDS | OLTP_FIGURE_SAMPLES;
	oltp_run_step(o, 1, &r);
	ok(r.lat_p50_ms > 0 && r.n_samples == 0 && r.tps > 0 && r.transactions > 0,
	   "without per-second counts and telemetry: the latency kept, no sample, TPS as ever");
	o->figures_off = 0;
	step_result_done(&r);
}

int main(void)
{
	struct oltp_options o;
	struct step_result r = {};
	_cleanup_free_ char *msg = NULL, *log = NULL, *q = NULL;
	struct server s = {};
	uint64_t t0;
	pid_t pid;

	require("ROOT MYSQLD");
	plan(23);
	test_server_setup(NULL, &s);
	pid = test_server_fork(&s);
	oltp_options_default(&o);
	o.socket = s.socket;
	o.tables = 2;
	o.table_size = 1000;
	o.duration_ns = 2 * NSEC_PER_SEC;
	o.server_pid = pid;
	if (!is_int(oltp_prepare(&o, &msg), 0, "prepare 2 x 1000 rows"))
		bail_out("prepare: %s", strempty(msg));
	xasprintf(&log, "%s/slicebench-general.log", s.datadir);
	xasprintf(&q, "SET GLOBAL general_log_file='%s'", log);
	if (sql(&o, q, NULL) < 0 || sql(&o, "SET GLOBAL general_log=1", NULL) < 0)
		bail_out("cannot turn the general log on");
	o.duration_ns = 30 * NSEC_PER_SEC;
	for (unsigned i = 0; i < ELEMENTSOF(writes); i++)
		check_workload(&o, log, i);
	sql(&o, "SET GLOBAL general_log=0", NULL);
	o.duration_ns = 2 * NSEC_PER_SEC;
	check_figures_off(&o);

	/* A server that stops answering for good, 1 s into a 2 s step. */
	o.timeout_s = 2;
	o.server_pid = 0;
	if (fork() == 0) {
		sleep(1);
		kill(pid, SIGSTOP);
		_exit(0);
	}
	t0 = now_ns();
	is_int(oltp_run_step(&o, 2, &r), 0, "a step whose server stops answering returns a record");
	cmp_ok((double)(now_ns() - t0) / 1e9, "<", 8,
	       "at its deadline and the 2 s the workers are given to finish (%.1f s)", (double)(now_ns() - t0) / 1e9);
	ok(r.transactions > 0 && r.failed, "the transactions before the stop counted (%" PRIu64 "), the step failed: %s",
	   r.transactions, r.reason);
	step_result_done(&r);
	kill(pid, SIGCONT);
	server_done(&s);
	return done_testing();
}

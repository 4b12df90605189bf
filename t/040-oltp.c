/* The native OLTP driver against a real mariadbd: the step record adds up,
 * the statements the server sees are sysbench's, both drivers give records
 * of the same shape, and a server that dies mid-step fails the step. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "oltp/oltp.h"
#include "tap.h"
#include "testserver.h"
#include "common/util.h"

static double sum_intervals(const struct step_result *r)
{
	double sum = 0;

	for (size_t i = 0; i < r->n_intervals; i++)
		sum += r->intervals[i] * MIN(1.0, r->duration_s - (double)i);
	return sum;
}

static void check_step(const struct oltp_options *o, unsigned threads)
{
	struct step_result r = {};

	is_int(oltp_run_step(o, threads, &r), 0, "%u thread(s): the step runs", threads);
	ok(!r.failed, "%u thread(s): not failed (%s)", threads, r.reason);
	cmp_ok(r.tps, ">", 0, "%u thread(s): TPS above zero", threads);
	is_int(r.queries, r.transactions * 16, "%u thread(s): 16 queries per transaction", threads);
	ok(r.lat_p50_ms > 0 && r.lat_p50_ms <= r.lat_p95_ms && r.lat_p95_ms <= r.lat_p99_ms &&
		   r.lat_p99_ms <= r.lat_max_ms,
	   "%u thread(s): 0 < p50 %.3f <= p95 %.3f <= p99 %.3f <= max %.3f ms", threads, r.lat_p50_ms, r.lat_p95_ms,
	   r.lat_p99_ms, r.lat_max_ms);
	is_int(r.n_intervals, 2, "%u thread(s): one interval per second", threads);
	cmp_ok(fabs(sum_intervals(&r) - (double)r.transactions), "<", 0.5,
	       "%u thread(s): the intervals add up to the %" PRIu64 " transactions", threads, r.transactions);
	step_result_done(&r);
}

static int sql(const struct oltp_options *o, const char *q)
{
	_cleanup_mysql_ MYSQL *m = NULL;

	if (oltp_connect(o, NULL, &m, NULL) < 0)
		return -ECONNREFUSED;
	return mysql_query(m, q) == 0 ? 0 : -EIO;
}

/* The distinct statement texts prepared while the general log was on,
 * sorted, and the number of executions. */
static char *prepared_statements(const char *log, size_t *ret_executes)
{
	_cleanup_fclose_ FILE *f = fopen(log, "re");
	char line[1024], *set = NULL, *p;
	size_t n = 0, len = 0;

	*ret_executes = 0;
	if (!f)
		return strdup("");
	set = calloc(1, 1);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strstr(line, "\tExecute\t") || strstr(line, " Execute\t"))
			(*ret_executes)++;
		p = strstr(line, "Prepare\t");
		if (!p)
			continue;
		p += strlen("Prepare\t");
		if (strstr(set, p))
			continue;
		len = strlen(set) + strlen(p) + 2;
		set = realloc(set, len);
		strcat(strcat(set, p), "\n");
		n++;
	}
	return set;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static bool has_line(const char *set, const char *line)
{
	_cleanup_free_ char *l = NULL;

	xasprintf(&l, "%s\n", line);
	return strstr(set, l) != NULL;
}

static void check_general_log(struct oltp_options *o, const struct server *srv)
{
	_cleanup_free_ char *log = NULL, *q = NULL, *set = NULL;
	struct step_result r = {};
	size_t executes;

	/* In the datadir, which the server's user can write. */
	xasprintf(&log, "%s/slicebench-general.log", srv->datadir);
	xasprintf(&q, "SET GLOBAL general_log_file='%s'", log);
	if (sql(o, q) < 0 || sql(o, "SET GLOBAL general_log=1") < 0) {
		skip(4, "cannot turn the general log on");
		return;
	}
	o->events = 20;
	oltp_run_step(o, 1, &r);
	o->events = 0;
	sql(o, "SET GLOBAL general_log=0");
	is_int(r.transactions, 20, "an event-count step counts exactly 20 transactions");
	step_result_done(&r);

	set = prepared_statements(log, &executes);
	is_int(count_lines(set), 2 + 5 * o->tables, "BEGIN, COMMIT and five statements per table are prepared");
	ok(has_line(set, "BEGIN") && has_line(set, "COMMIT") && has_line(set, "SELECT c FROM sbtest1 WHERE id=?") &&
		   has_line(set, "SELECT c FROM sbtest2 WHERE id BETWEEN ? AND ?") &&
		   has_line(set, "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?") &&
		   has_line(set, "SELECT c FROM sbtest2 WHERE id BETWEEN ? AND ? ORDER BY c") &&
		   has_line(set, "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"),
	   "the prepared texts are sysbench's, character for character");
	if (!ok(executes >= 20 * 16, "the server executed at least 16 statements per transaction (%zu)", executes))
		diag("prepared: %s", set);
}

/* A step's evidence of mechanism: every row of the table, and those a
 * 2 s step at 1 thread must have as numbers in their range. */
static void check_mechanism(const json_t *record)
{
	const json_t *m = json_object_get(record, "mechanism");
	const json_t *wait = json_object_get(m, "server_runq_wait_us"), *on = json_object_get(m, "server_on_client_cpu_pct");
	const struct oltp_mechanism_def *rows;
	size_t n;
	bool all = true;

	rows = oltp_mechanism_table(&n);
	for (size_t i = 0; i < n; i++)
		all &= json_object_get(m, rows[i].key) != NULL;
	ok(all && json_is_number(wait) && json_number_value(wait) >= 0 && json_is_number(on) &&
		   json_number_value(on) >= 0 && json_number_value(on) <= 100,
	   "the record carries its mechanism: run-queue wait %.1f us per transaction, server on a client's CPU %.0f%%",
	   json_number_value(wait), json_number_value(on));
}

/* The same keys from both drivers, so that reports need not care. */
static void check_record_shape(const struct oltp_options *o)
{
	struct step_result native = {}, sb = {};
	json_t *a = NULL, *b = NULL;
	const char *key;
	json_t *v;
	bool same = true;

	if (!have_prereq("SYSBENCH")) {
		skip(4, "sysbench is not installed");
		return;
	}
	oltp_run_step(o, 1, &native);
	is_int(sysbench_run_step(o, 1, &sb), 0, "the sysbench driver runs the same step");
	step_result_to_json(&native, &a);
	step_result_to_json(&sb, &b);
	json_object_foreach(a, key, v) if (!json_object_get(b, key)) {
		diag("sysbench's record lacks %s", key);
		same = false;
	}
	json_object_foreach(b, key, v) if (!json_object_get(a, key)) {
		diag("the native record lacks %s", key);
		same = false;
	}
	if (!ok(same && !sb.failed && sb.tps > 0, "both records have the same keys (sysbench: %.1f tps, native %.1f)",
		sb.tps, native.tps))
		diag("sysbench: %s", sb.reason);
	ok(sb.n_samples >= 1 && sb.samples[0].n_nodes >= 1 && sb.samples[0].client_per_node[0] > 0 &&
		   sb.samples[0].server_per_node[0] > 0,
	   "the sysbench step samples telemetry, sysbench's threads as the client (%zu samples, %u client threads)",
	   sb.n_samples, sb.n_samples ? sb.samples[0].client_per_node[0] : 0);
	check_mechanism(a);
	json_decref(a);
	json_decref(b);
	step_result_done(&native);
	step_result_done(&sb);
}

/* oltp_point_select: an event is one point select and no transaction, in
 * the native driver as in sysbench's script. */
static void check_point_select(struct oltp_options *o)
{
	struct step_result native = {}, sb = {};

	o->workload = OLTP_WORKLOAD_POINT_SELECT;
	is_int(oltp_run_step(o, 1, &native), 0, "oltp_point_select: the native step runs");
	ok(!native.failed && native.tps > 0 && native.queries == native.transactions,
	   "oltp_point_select: TPS above zero, one query a transaction (%.1f tps, %" PRIu64 " queries, %" PRIu64
	   " transactions)", native.tps, native.queries, native.transactions);
	if (have_prereq("SYSBENCH")) {
		sysbench_run_step(o, 1, &sb);
		ok(!sb.failed && sb.tps > 0 && sb.queries == sb.transactions,
		   "oltp_point_select through sysbench: TPS above zero, one query a transaction (%.1f tps, native %.1f)",
		   sb.tps, native.tps);
	} else
		skip(1, "sysbench is not installed");
	o->workload = OLTP_WORKLOAD_READ_ONLY;
	step_result_done(&native);
	step_result_done(&sb);
}

static void *kill_later(void *arg)
{
	sleep(1);
	kill(*(pid_t *)arg, SIGKILL);
	return NULL;
}

int main(void)
{
	struct oltp_options o;
	struct step_result r = {};
	_cleanup_free_ char *msg = NULL;
	struct server s = {};
	pthread_t killer;
	uint64_t t0;
	pid_t pid;

	require("ROOT MYSQLD");
	plan(31);
	test_server_setup(NULL, &s);
	pid = test_server_fork(&s);
	oltp_options_default(&o);
	o.socket = s.socket;
	o.tables = 2;
	o.table_size = 10000;
	o.duration_ns = 2 * NSEC_PER_SEC;
	o.server_pid = pid;
	if (!is_int(oltp_prepare(&o, &msg), 0, "prepare 2 x 10000 rows"))
		bail_out("prepare: %s", strempty(msg));
	is_int(oltp_prewarm(&o, NULL), 0, "prewarm reads every table");

	check_step(&o, 1);
	check_step(&o, 2);
	check_general_log(&o, &s);
	check_record_shape(&o);
	check_point_select(&o);

	/* The server dies a second into a 10 s step. */
	o.duration_ns = 10 * NSEC_PER_SEC;
	pthread_create(&killer, NULL, kill_later, &pid);
	t0 = now_ns();
	is_int(oltp_run_step(&o, 2, &r), 0, "a step whose server dies still returns a record");
	pthread_join(killer, NULL);
	waitpid(pid, NULL, 0);
	ok(r.failed, "the step is marked failed");
	ok(r.reason[0] != 0, "with a reason: %s", r.reason);
	cmp_ok((double)(now_ns() - t0) / 1e9, "<", 9, "and it ends soon after, not at the deadline");
	step_result_done(&r);
	server_done(&s);
	return done_testing();
}

/* The cross-check: the same step run by the real pgbench (-M prepared, the
 * same script, clients and threads), with its report parsed into the same
 * record: the summary for the counts and rates, the -P 1 progress lines
 * for the intervals, and its per-transaction log (-l) through the
 * histogram for the percentiles, which the summary does not print. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/wait.h>

#include "oltp/histogram.h"
#include "oltp/pg.h"
#include "oltp/tool.h"
#include "common/util.h"

/* Debian's own binary rather than the pg_wrapper in PATH, which would pick
 * the version of whatever cluster it finds. */
#define PGBENCH_DEBIAN "/usr/lib/postgresql/15/bin/pgbench"

static const char *pgbench_path(const struct oltp_options *o)
{
	if (streq(o->pgbench_path, "pgbench") && access(PGBENCH_DEBIAN, X_OK) == 0)
		return PGBENCH_DEBIAN;
	return o->pgbench_path;
}

/* The -P 1 lines after the connections were made: pgbench's -T counts
 * from before it connects, its rates from after. */
static int parse_progress(const char *text, double connect_s, struct step_result *ret)
{
	for (const char *p = strstr(text, "progress: "); p; p = strstr(p + 1, "\nprogress: ")) {
		double t, tps, *n;

		if (sscanf(p + (*p == '\n'), "progress: %lf s, %lf tps", &t, &tps) != 2 || t <= connect_s)
			continue;
		n = realloc(ret->intervals, (ret->n_intervals + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		ret->intervals = n;
		ret->intervals[ret->n_intervals++] = tps;
	}
	return 0;
}

int pgbench_parse_report(const char *text, struct step_result *ret)
{
	double connect_ms = 0;

	snprintf(ret->driver, sizeof(ret->driver), "%s", word_name(oltp_driver_words, OLTP_DRIVER_PGBENCH));
	if (!tool_report_count(text, "number of transactions actually processed:", &ret->transactions) ||
	    !tool_report_number(text, "\ntps = ", &ret->tps))
		return -EBADMSG;
	/* pgbench 15 goes on after serialization failures and deadlocks and
	 * counts them, as the native driver's ignorable class. */
	tool_report_count(text, "number of failed transactions:", &ret->errors[OLTP_ERR_IGNORABLE]);
	ret->duration_s = ret->tps > 0 ? (double)ret->transactions / ret->tps : 0;
	ret->lat_avg_ms = -1;
	tool_report_number(text, "latency average = ", &ret->lat_avg_ms);
	tool_report_number(text, "initial connection time = ", &connect_ms);
	return parse_progress(text, connect_ms / 1000, ret);
}

/* One transaction log line: "client_id transaction_no time script_no
 * time_epoch time_us", time being the latency in microseconds ("failed"
 * and the like for a transaction that failed). */
static void add_log_file(const char *path, struct histogram *h)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long us;

		if (sscanf(line, "%*d %*d %llu", &us) == 1)
			histogram_add(h, us * NSEC_PER_USEC);
	}
}

/* Every thread's log (PREFIX.PID, PREFIX.PID.N) in dir, into the percentiles. */
static int percentiles_from_logs(const char *dir, struct step_result *ret)
{
	_cleanup_free_ struct histogram *h = malloc(sizeof(*h));
	struct dirent *e;
	DIR *d;

	if (!h)
		return -ENOMEM;
	histogram_init(h);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		_cleanup_free_ char *path = NULL;

		if (strncmp(e->d_name, "txn.", 4) == 0 && xasprintf(&path, "%s/%s", dir, e->d_name) >= 0)
			add_log_file(path, h);
	}
	if (d)
		closedir(d);
	if (h->count == 0)
		return 0;
	ret->lat_p50_ms = (double)histogram_percentile(h, 50) / 1e6;
	ret->lat_p95_ms = (double)histogram_percentile(h, 95) / 1e6;
	ret->lat_p99_ms = (double)histogram_percentile(h, 99) / 1e6;
	ret->lat_max_ms = (double)histogram_max(h) / 1e6;
	return 0;
}

/* pgbench's -T includes making the connections, which takes seconds for
 * hundreds of them (a backend forked for each): the time it is given on
 * top, so that the measured part is about as long as the native driver's,
 * whose clock starts once all are connected. */
static uint64_t pgbench_connect_allowance(unsigned clients)
{
	return clients / 50;
}

/* Runs pgbench once for time_s seconds (or events per client); with
 * log_dir, each transaction's latency is logged there. */
static int run_pgbench(const struct oltp_options *o, unsigned clients, uint64_t time_s, uint64_t events,
		       const char *log_dir, struct step_result *samples, char **ret_out, int *ret_status)
{
	_cleanup_(tool_argv_done) struct tool_argv a = {};
	_cleanup_free_ char *host = NULL, *port = NULL;
	int r;

	r = pg_socket_split(o->socket, &host, &port);
	if (r < 0)
		return r;
	tool_arg(&a, "%s", pgbench_path(o));
	/* slicebench's prepare did what pgbench's pre-run vacuum would. */
	tool_arg(&a, "--no-vacuum");
	tool_arg(&a, "--host=%s", host);
	tool_arg(&a, "--port=%s", port);
	tool_arg(&a, "--username=%s", o->user);
	tool_arg(&a, "--protocol=prepared");
	tool_arg(&a, "--builtin=%s", oltp_workload_name(o->workload));
	tool_arg(&a, "--client=%u", clients);
	tool_arg(&a, "--jobs=%u", MAX(1u, MIN(o->client_threads ? o->client_threads : 1, clients)));
	if (events)
		tool_arg(&a, "--transactions=%" PRIu64, (events + clients - 1) / clients);
	else
		tool_arg(&a, "--time=%" PRIu64, time_s + pgbench_connect_allowance(clients));
	tool_arg(&a, "--progress=1");
	if (log_dir) {
		tool_arg(&a, "--log");
		tool_arg(&a, "--log-prefix=%s/txn", log_dir);
	}
	tool_arg(&a, "%s", oltp_db(o));
	return tool_run(o, &a, time_s + pgbench_connect_allowance(clients) + 60 + clients / 10, samples, ret_out,
			ret_status);
}

static void remove_logs(char **dir)
{
	if (*dir)
		(void)remove_tree(*dir);
	free(*dir);
}

int pgbench_tool_step(const struct oltp_options *o, unsigned clients, struct step_result *ret)
{
	uint64_t time_s = (o->duration_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	_cleanup_(remove_logs) char *logs = strdup("/tmp/slicebench-pgbench.XXXXXX");
	_cleanup_free_ char *out = NULL;
	int status = 0, r = 0;

	step_result_start(ret, OLTP_DRIVER_PGBENCH, clients);
	if (!logs || !mkdtemp(logs)) {
		free(logs);
		logs = NULL;
		return -errno;
	}
	/* pgbench has no warm-up: it is a run of its own whose report is dropped. */
	if (o->warmup_ns) {
		r = run_pgbench(o, clients, (o->warmup_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC, 0, NULL, NULL, &out,
				&status);
		free(out);
		out = NULL;
	}
	if (r >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		r = run_pgbench(o, clients, time_s, o->events, logs, ret, &out, &status);
	r = tool_failed(pgbench_path(o), r, status, out, "pgbench: error:", ret);
	if (r != 0)
		return r < 0 ? r : 0;
	r = pgbench_parse_report(out, ret);
	if (r >= 0)
		r = percentiles_from_logs(logs, ret);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		ret->failed = true;
		snprintf(ret->reason, sizeof(ret->reason), "cannot parse pgbench's report");
	}
	ret->queries = ret->transactions * pgbench_statements(o->workload);
	ret->qps = ret->tps * pgbench_statements(o->workload);
	return 0;
}

/* The cross-check: the same step run by the real sysbench 1.0.20
 * (oltp_read_only or oltp_point_select), with its report parsed into the
 * same record. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <sys/wait.h>

#include "oltp/oltp.h"
#include "oltp/script.h"
#include "oltp/tool.h"
#include "common/util.h"

/* "    transactions:   5676   (2837.04 per sec.)": the count and the rate. */
static bool find_count_rate(const char *text, const char *key, uint64_t *ret_count, double *ret_rate)
{
	const char *p = strstr(text, key);
	char *end;

	if (!p)
		return false;
	p += strlen(key);
	*ret_count = strtoull(p, &end, 10);
	if (end == p)
		return false;
	p = strchr(end, '(');
	*ret_rate = p ? strtod(p + 1, NULL) : NAN;
	return true;
}

/* The histogram rows ("   0.537 |****   12") give p50 and p99, which the
 * summary does not print. */
static void parse_histogram(const char *text, struct step_result *ret)
{
	const char *start = strstr(text, "Latency histogram");
	double values[4096];
	uint64_t counts[4096], total = 0, cum = 0;
	size_t n = 0;

	if (!start)
		return;
	for (const char *line = strchr(start, '\n'); line && n < ELEMENTSOF(values); line = strchr(line, '\n')) {
		double v;
		unsigned long long c;

		line++;
		if (sscanf(line, " %lf |%*[*] %llu", &v, &c) != 2 && sscanf(line, " %lf | %llu", &v, &c) != 2) {
			if (strncmp(line, "SQL statistics", 14) == 0 || !*line)
				break;
			continue;
		}
		values[n] = v;
		counts[n++] = c;
		total += c;
	}
	ret->lat_p50_ms = ret->lat_p99_ms = -1;
	for (size_t i = 0; i < n; i++) {
		cum += counts[i];
		if (ret->lat_p50_ms < 0 && cum * 100 >= total * 50)
			ret->lat_p50_ms = values[i];
		if (ret->lat_p99_ms < 0 && cum * 100 >= total * 99)
			ret->lat_p99_ms = values[i];
	}
}

/* A --report-interval line: "[ 1s ] thds: 4 tps: 4530.12 ...". */
static bool interval_rate(const char *line, const void *userdata, double *ret_tps)
{
	unsigned s;

	(void)userdata;
	return sscanf(line, "[ %us ] thds: %*u tps: %lf", &s, ret_tps) == 2;
}

int sysbench_parse_report(const char *text, struct step_result *ret)
{
	uint64_t ignored = 0, reconnects = 0;
	double rate, total_time;

	(void)text_copy(ret->driver, sizeof(ret->driver), word_name(oltp_driver_words, OLTP_DRIVER_SYSBENCH));
	if (!find_count_rate(text, "transactions:", &ret->transactions, &ret->tps) ||
	    !find_count_rate(text, "queries:", &ret->queries, &ret->qps))
		return -EBADMSG;
	if (find_count_rate(text, "ignored errors:", &ignored, &rate))
		ret->errors[OLTP_ERR_IGNORABLE] = ignored;
	if (find_count_rate(text, "reconnects:", &reconnects, &rate))
		ret->reconnects = reconnects;
	if (tool_report_number(text, "total time:", &total_time))
		ret->duration_s = ret->tps > 0 ? (double)ret->transactions / ret->tps : total_time;
	ret->lat_avg_ms = ret->lat_max_ms = ret->lat_p95_ms = -1;
	tool_report_number(text, "avg:", &ret->lat_avg_ms);
	tool_report_number(text, "max:", &ret->lat_max_ms);
	tool_report_number(text, "th percentile:", &ret->lat_p95_ms);
	parse_histogram(text, ret);
	return tool_report_intervals(text, "[ ", interval_rate, NULL, ret);
}

/* Runs sysbench once as run says (its threads, time or events, samples),
 * its output and status into run. */
static int run_sysbench(const struct oltp_options *o, struct tool_step *run)
{
	_cleanup_(tool_argv_done) struct tool_argv a = {};
	_cleanup_free_ char *help = NULL;
	bool user = oltp_workload_def(o->workload)->user_script;
	int r;

	tool_arg(&a, "%s", o->sysbench_path);
	if (user)
		(void)oltp_script_args(o, &a);
	else
		tool_arg(&a, "%s", oltp_workload_def(o->workload)->script);
	/* sysbench refuses an option its script does not declare: the user's
	 * gets the dataset's where it declares them (oltp_common's do). */
	r = user ? oltp_script_help(o, &help) : 0;
	if (r < 0)
		return r;
	tool_arg(&a, "--db-driver=mysql");
	tool_arg(&a, "--mysql-socket=%s", o->socket);
	tool_arg(&a, "--mysql-user=%s", o->user);
	tool_arg(&a, "--mysql-db=%s", oltp_db(o));
	if (!user || strstr(help, "  --tables="))
		tool_arg(&a, "--tables=%u", o->tables);
	if (!user || strstr(help, "  --table_size="))
		tool_arg(&a, "--table-size=%u", o->table_size);
	if (!user || strstr(help, "  --range_size="))
		tool_arg(&a, "--range-size=%u", o->range_size);
	tool_arg(&a, "--rand-type=%s", sbrand_type_to_string(o->rand.type));
	tool_arg(&a, "--rand-spec-iter=%u", o->rand.spec_iter);
	tool_arg(&a, "--rand-spec-pct=%u", o->rand.spec_pct);
	tool_arg(&a, "--rand-spec-res=%u", o->rand.spec_res);
	tool_arg(&a, "--rand-pareto-h=%g", o->rand.pareto_h);
	tool_arg(&a, "--threads=%u", run->size);
	tool_arg(&a, "--time=%" PRIu64, run->time_s);
	tool_arg(&a, "--events=%" PRIu64, run->events);
	if (o->rate)
		tool_arg(&a, "--rate=%u", o->rate);
	tool_arg(&a, "--report-interval=1");
	tool_arg(&a, "--histogram=on");
	tool_arg(&a, "--mysql-ignore-errors=1213,1020,1205");
	tool_arg(&a, "run");
	return tool_run(o, &a, run->time_s + 60, run->samples, &run->out, &run->status);
}

int sysbench_run_step(const struct oltp_options *o, unsigned threads, struct step_result *ret)
{
	struct tool_step warm = { .size = threads, .time_s = (o->warmup_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC };
	struct tool_step run = { .size = threads, .time_s = (o->duration_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC,
				 .events = o->events, .samples = ret };
	const struct tool_step *last = &warm;
	_cleanup_free_ char *out = NULL;
	int r = 0;

	step_result_start(ret, OLTP_DRIVER_SYSBENCH, threads);
	/* sysbench --rate times an event from when a worker took it from its
	 * queue: its latencies leave out the wait, and it says neither. */
	ret->open_loop.rate = o->rate;
	ret->open_loop.latency_from_start = true;
	/* sysbench 1.0.20 has no --warmup-time: the warm-up is a run of its own
	 * whose report is dropped; one that failed is the step's failure. */
	if (o->warmup_ns)
		r = run_sysbench(o, &warm);
	/* a failed warm-up's output is the step's reason (a script's FATAL line) */
	if (r >= 0 && WIFEXITED(warm.status) && WEXITSTATUS(warm.status) == 0) {
		free(warm.out);
		warm.out = NULL;
		r = run_sysbench(o, &run);
		last = &run;
	}
	out = last->out;
	r = tool_failed(o->sysbench_path, r, last->status, out, "FATAL:", ret);
	if (r != 0)
		return r < 0 ? r : 0;
	if (sysbench_parse_report(out, ret) < 0) {
		ret->failed = true;
		snprintf(ret->reason, sizeof(ret->reason), "cannot parse sysbench's report");
	}
	return 0;
}

/* slicebench sweep: the same read-only OLTP step at each thread count
 * against one server, given by its socket or started in a context. */
#include <inttypes.h>
#include <stdio.h>

#include "cli/args.h"
#include "oltp/oltp.h"
#include "common/util.h"
#include "cli/verbs.h"

#define SWEEP_JSON_FORMAT 1

/* An open loop's latencies count from each intended start: beside them
 * the mean lag behind it and the arrivals still waiting at the end. */
static void print_text_header(const char *unit, unsigned rate, bool limit)
{
	if (rate)
		printf("open loop: %u transactions a second arriving; latencies from their intended starts\n", rate);
	printf("%-10s %7s %10s %11s %8s %8s %8s %8s %8s %7s %6s %9s", "driver", unit, "tps", "qps", "avg_ms",
	       "p50_ms", "p95_ms", "p99_ms", "max_ms", "errors", "recon", "connect_s");
	if (rate)
		printf(" %8s %8s", "lag_ms", "waiting");
	if (limit)
		printf(" %8s %8s", "late", "skipped");
	putchar('\n');
}

/* A figure a driver may not report: "-" for that. */
static void print_column(double v, int width, int decimals)
{
	if (v < 0)
		printf(" %*s", width, "-");
	else
		printf(" %*.*f", width, decimals, v);
}

static void print_text_step(const struct step_result *r)
{
	if (r->failed) {
		printf("%-10s %7u FAILED: %s\n", r->driver, r->threads, r->reason);
		return;
	}
	printf("%-10s %7u %10.2f %11.2f %8.2f %8.2f %8.2f %8.2f %8.2f %7" PRIu64 " %6" PRIu64, r->driver, r->threads,
	       r->tps, r->qps, r->lat_avg_ms, r->lat_p50_ms, r->lat_p95_ms, r->lat_p99_ms, r->lat_max_ms,
	       r->errors[OLTP_ERR_IGNORABLE] + r->errors[OLTP_ERR_RECONNECT] + r->errors[OLTP_ERR_FATAL], r->reconnects);
	/* Connecting is not in the tps: it is shown apart, as pgbench does. */
	print_column(r->connect_s > 0 ? r->connect_s : -1, 9, 2);
	if (r->open_loop.rate) {
		print_column(r->open_loop.lag_avg_ms, 8, 2);
		print_column(r->open_loop.backlog_at_end == UINT64_MAX ? -1 : (double)r->open_loop.backlog_at_end, 8, 0);
	}
	if (r->open_loop.latency_limit_ms > 0)
		printf(" %8" PRIu64 " %8" PRIu64, r->open_loop.late, r->open_loop.skipped);
	putchar('\n');
	fflush(stdout);
}

/* Runs the steps against a->o.socket.  Returns 0, -EIO if a step failed
 * (printed), or -errno (logged). */
static int sweep_steps(struct sweep_args *a)
{
	json_t *doc = NULL, *steps = NULL;
	bool failed = false;
	int r;

	r = cli_prepare_dataset("sweep", &a->o);
	if (r < 0)
		return r;
	if (a->o.prewarm) {
		_cleanup_free_ char *msg = NULL;

		r = oltp_prewarm(&a->o, &msg);
		if (r < 0) {
			if (msg)
				log_error_errno(r, "sweep: warming the buffer pool: %s", msg);
			else
				log_error_errno(r, "sweep: warming the buffer pool: %m");
			return r;
		}
	}
	if (a->json) {
		doc = json_pack("{s:i, s:s, s:s, s:i, s:i, s:i, s:s, s:[]}", "format_version", SWEEP_JSON_FORMAT, "workload",
				oltp_workload_name(a->o.workload), "driver", word_name(oltp_driver_words, a->o.driver),
				"tables", (int)a->o.tables, "table_size", (int)a->o.table_size, "scale", (int)a->o.scale,
				"rand_type", sbrand_type_to_string(a->o.rand.type), "steps");
		if (!doc)
			return log_error_errno(-ENOMEM, "sweep: %m");
		steps = json_object_get(doc, "steps");
	} else
		print_text_header(oltp_workload_def(a->o.workload)->unit, a->o.rate, a->o.latency_limit_ns > 0);

	for (size_t i = 0; i < a->n_threads && !failed; i++) {
		struct step_result res = {};
		json_t *j = NULL;

		r = oltp_step(&a->o, (unsigned)a->threads[i], &res);
		if (r < 0) {
			log_error_errno(r, "sweep: cannot run the step at %ld threads: %m", a->threads[i]);
			failed = true;
			break;
		}
		/* A failed step ends the sweep: the server is likely gone. */
		failed = res.failed;
		if (!a->json)
			print_text_step(&res);
		else if (step_result_to_json(&res, &j) < 0 || json_array_append_new(steps, j) < 0) {
			log_error_errno(-ENOMEM, "sweep: %m");
			failed = true;
		}
		step_result_done(&res);
	}
	if (doc) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
	}
	return failed ? -EIO : 0;
}

static int sweep_in_context(struct sweep_args *a, struct managed_unit *u _unused_)
{
	return sweep_steps(a);
}

int verb_sweep(int argc, char **argv)
{
	struct sweep_args a = {};
	int r, status;

	r = sweep_parse_argv(&cli_sweep, argc, argv, &a);
	if (r <= 0)
		status = verb_parse_exit_status(r);
	else
		status = verb_exit_status(a.in_context ? with_managed_server("sweep", &a, sweep_in_context) : sweep_steps(&a));
	sweep_args_done(&a);
	return status;
}


/* pgbench 15's report, as printed by the real binary
 * (t/fixtures/pgbench-15-select-only.txt: -M prepared -b select-only -c 2
 * -j 2 -T 3 -P 1), parsed into a step record; and the step measured from
 * pgbench's transaction log as the native driver measures. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "oltp/pg.h"
#include "tap.h"
#include "common/util.h"

/* Not inlined: gcc 12 then takes the getdelim() buffer for a dangling pointer. */
__attribute__((noinline)) static char *fixture(void)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	char *text = NULL;
	size_t len = 0;

	xasprintf(&path, "%s/t/fixtures/pgbench-15-select-only.txt", getenv("SLICEBENCH_TOP") ?: ".");
	f = fopen(path, "re");
	if (!f)
		bail_out("cannot open %s: %m", path);
	if (getdelim(&text, &len, 0, f) < 0)
		bail_out("cannot read %s", path);
	return text;
}

/* pgbench -l lines for 3 clients from epoch second 1000: clients 0 and 1
 * complete a 10 ms transaction every 10 ms from 1000.0 s; client 2's
 * first (its backend's first query, prepared then) ends at 1002.5 s, then
 * one every 10 ms.  Run until end_s. */
static char *write_log(double end_s)
{
	char *dir = strdup("/tmp/slicebench-t046.XXXXXX");
	_cleanup_free_ char *path = NULL;
	_cleanup_fclose_ FILE *f = NULL;

	if (!dir || !mkdtemp(dir))
		bail_out("mkdtemp: %m");
	xasprintf(&path, "%s/txn.1", dir);
	f = fopen(path, "we");
	if (!f)
		bail_out("cannot write %s: %m", path);
	for (unsigned c = 0; c < 3; c++) {
		uint64_t end = c == 2 ? 1002500000 : 1000010000, lat = c == 2 ? 2500000 : 10000;

		for (unsigned n = 1; end <= (uint64_t)(end_s * 1e6); n++, end += 10000, lat = 10000)
			fprintf(f, "%u %u %" PRIu64 " 0 %" PRIu64 " %" PRIu64 "\n", c, n, lat, end / 1000000, end % 1000000);
	}
	return dir;
}

/* The step's window in pgbench's log: from every client's first
 * transaction on, after the warm-up, for the duration. */
static void check_window(void)
{
	_cleanup_free_ char *dir = write_log(1006.0), *cut = write_log(1003.0);
	struct pgbench_window w = { .warmup_us = 1000000, .duration_us = 2000000 };
	struct step_result r = {};

	step_result_start(&r, OLTP_DRIVER_PGBENCH, 3);
	is_int(pgbench_measure_logs(dir, 3, &w, &r), 0, "the log holds the measured part");
	is_int(w.from_us, 1003500000, "the clock starts once client 2's first transaction is done, plus the 1 s warm-up");
	/* A transaction that ends on a second's edge counts in the next
	 * second, the last one's in the last: 99 and 101 a client. */
	ok(r.n_intervals == 2 && r.intervals[0] == 297 && r.intervals[1] == 303 && r.transactions == 600 &&
		   fabs(r.tps - 300) < 1e-9 && r.duration_s == 2,
	   "2 s of 300 transactions a second: %" PRIu64 " transactions, %.1f tps, intervals %.0f %.0f", r.transactions,
	   r.tps, r.n_intervals ? r.intervals[0] : -1, r.n_intervals > 1 ? r.intervals[1] : -1);
	ok(r.lat_p50_ms > 9.5 && r.lat_max_ms < 10.5, "the 2.5 s first transaction is not among the latencies (max %.3f ms)",
	   r.lat_max_ms);
	step_result_done(&r);

	w = (struct pgbench_window){ .warmup_us = 1000000, .duration_us = 2000000 };
	step_result_start(&r, OLTP_DRIVER_PGBENCH, 3);
	is_int(pgbench_measure_logs(cut, 3, &w, &r), 1, "a run that ended at 1003 s is short of the measured part");
	cmp_ok(fabs(w.short_s - 2.5), "<", 1e-6, "by 2.5 s (%.3f)", w.short_s);
	step_result_done(&r);
	remove_tree(dir);
	remove_tree(cut);
}

int main(void)
{
	_cleanup_free_ char *text = fixture();
	_cleanup_free_ char *failed = NULL, *cut = NULL, *huge = NULL;
	struct step_result r = {};

	plan(19);
	is_int(pgbench_parse_report(text, &r), 0, "the report parses");
	is_str(r.driver, "pgbench", "the driver is pgbench");
	is_int(r.transactions, 45185, "transactions actually processed");
	cmp_ok(fabs(r.tps - 15106.012885), "<", 1e-9, "tps without the initial connection time (%.6f)", r.tps);
	cmp_ok(fabs(r.duration_s - 45185 / 15106.012885), "<", 1e-9, "the duration is transactions over tps (%.4f s)",
	       r.duration_s);
	cmp_ok(fabs(r.lat_avg_ms - 0.132), "<", 1e-9, "the average latency (%.3f ms)", r.lat_avg_ms);
	cmp_ok(fabs(r.connect_s - 0.009121), "<", 1e-12, "the initial connection time, apart (%.6f s)", r.connect_s);
	ok(r.n_intervals == 3 && r.intervals[0] == 14923.0 && r.intervals[1] == 17088.9 && r.intervals[2] == 13163.1,
	   "the three progress lines are the intervals (%zu)", r.n_intervals);
	is_int(r.errors[OLTP_ERR_IGNORABLE], 0, "no failed transactions");
	step_result_done(&r);

	xasprintf(&failed, "%.*snumber of failed transactions: 7 (0.015%%)%s", (int)(strstr(text, "number of failed") - text),
		  text, strstr(strstr(text, "number of failed"), "\n"));
	r = (struct step_result){};
	pgbench_parse_report(failed, &r);
	is_int(r.errors[OLTP_ERR_IGNORABLE], 7, "failed transactions (serialization, deadlock) are counted as ignorable");
	step_result_done(&r);

	cut = strdup(text);
	cut[strstr(cut, "number of transactions") - cut] = 0;
	r = (struct step_result){};
	is_int(pgbench_parse_report(cut, &r), -EBADMSG, "a report cut before its summary is -EBADMSG");
	step_result_done(&r);
	is_int(pgbench_parse_report("", &r), -EBADMSG, "so is an empty one");
	step_result_done(&r);
	/* The fuzzer's find: a count no integer holds was converted anyway. */
	xasprintf(&huge, "number of transactions actually processed: 4.51e+87\ntps = 1.0 (without initial connection time)\n");
	r = (struct step_result){};
	is_int(pgbench_parse_report(huge, &r), -EBADMSG, "a count that is not a whole number in range is -EBADMSG");
	step_result_done(&r);
	check_window();
	return done_testing();
}

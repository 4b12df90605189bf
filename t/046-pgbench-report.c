/* pgbench 15's report, as printed by the real binary
 * (t/fixtures/pgbench-15-select-only.txt: -M prepared -b select-only -c 2
 * -j 2 -T 3 -P 1), parsed into a step record. */
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

int main(void)
{
	_cleanup_free_ char *text = fixture();
	_cleanup_free_ char *failed = NULL, *cut = NULL, *huge = NULL;
	struct step_result r = {};

	plan(12);
	is_int(pgbench_parse_report(text, &r), 0, "the report parses");
	is_str(r.driver, "pgbench", "the driver is pgbench");
	is_int(r.transactions, 45185, "transactions actually processed");
	cmp_ok(fabs(r.tps - 15106.012885), "<", 1e-9, "tps without the initial connection time (%.6f)", r.tps);
	cmp_ok(fabs(r.duration_s - 45185 / 15106.012885), "<", 1e-9, "the duration is transactions over tps (%.4f s)",
	       r.duration_s);
	cmp_ok(fabs(r.lat_avg_ms - 0.132), "<", 1e-9, "the average latency (%.3f ms)", r.lat_avg_ms);
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
	return done_testing();
}

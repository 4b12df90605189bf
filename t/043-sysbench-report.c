/* sysbench 1.0.20's run report, as printed by the real binary
 * (t/fixtures/sysbench-1.0.20-oltp_read_only.txt: 2 threads, 3 s,
 * --report-interval=1 --histogram=on), parsed into a step record. */
#include <math.h>
#include <stdio.h>

#include "oltp/oltp.h"
#include "tap.h"
#include "common/util.h"

/* Not inlined: gcc 12 then takes the getdelim() buffer for a dangling pointer. */
__attribute__((noinline)) static char *fixture(void)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	char *text = NULL;
	size_t len = 0;

	xasprintf(&path, "%s/t/fixtures/sysbench-1.0.20-oltp_read_only.txt", getenv("SLICEBENCH_TOP") ?: ".");
	f = fopen(path, "re");
	if (!f)
		bail_out("cannot open %s: %m", path);
	if (getdelim(&text, &len, 0, f) < 0)
		bail_out("cannot read %s", path);
	return text;
}

/* The text with the first occurrence of `from` replaced by `to`. */
static char *edited(const char *text, const char *from, const char *to)
{
	size_t at;
	char *s = NULL;

	if (!strstr(text, from))
		bail_out("the fixture has no '%s'", from);
	at = (size_t)(strstr(text, from) - text);
	xasprintf(&s, "%.*s%s%s", (int)at, text, to, text + at + strlen(from));
	return s;
}

#define is_ms(got, want, what) cmp_ok(fabs((got) - (want)), "<", 1e-9, "%s is %.3f ms (%.3f)", what, want, got)

int main(void)
{
	_cleanup_free_ char *text = fixture();
	_cleanup_free_ char *errs = NULL, *cut = NULL;
	struct step_result r = {};

	plan(17);
	is_int(sysbench_parse_report(text, &r), 0, "the report parses");
	is_str(r.driver, "sysbench", "the driver is sysbench");
	is_int(r.transactions, 7956, "transactions");
	is_int(r.queries, 127296, "queries");
	cmp_ok(fabs(r.tps - 2644.84), "<", 1e-9, "tps is sysbench's per-second figure (%.2f)", r.tps);
	cmp_ok(fabs(r.qps - 42317.46), "<", 1e-9, "qps (%.2f)", r.qps);
	cmp_ok(fabs(r.duration_s - 7956 / 2644.84), "<", 1e-9, "the duration is transactions over tps (%.4f s)",
	       r.duration_s);
	is_ms(r.lat_avg_ms, 0.75, "avg");
	is_ms(r.lat_p95_ms, 0.97, "p95 (the summary's 95th percentile)");
	is_ms(r.lat_max_ms, 7.12, "max");
	/* Both from the cumulative histogram counts (awk over the fixture). */
	is_ms(r.lat_p50_ms, 0.690, "p50 from the histogram");
	is_ms(r.lat_p99_ms, 1.960, "p99 from the histogram");
	ok(r.n_intervals == 3 && r.intervals[0] == 2554.93 && r.intervals[1] == 2922.67 && r.intervals[2] == 2468.65,
	   "the three [ Ns ] lines are the intervals (%zu)", r.n_intervals);
	is_int(r.errors[OLTP_ERR_IGNORABLE] + r.reconnects, 0, "no errors, no reconnects");
	step_result_done(&r);

	errs = edited(text, "ignored errors:                      0      (0.00 per sec.)",
		      "ignored errors:                      12     (4.00 per sec.)");
	r = (struct step_result){};
	sysbench_parse_report(errs, &r);
	is_int(r.errors[OLTP_ERR_IGNORABLE], 12, "ignored errors are counted as ignorable");
	step_result_done(&r);

	cut = strdup(text);
	cut[strstr(cut, "SQL statistics") - cut] = 0;
	r = (struct step_result){};
	is_int(sysbench_parse_report(cut, &r), -EBADMSG, "a report cut before its statistics is -EBADMSG");
	step_result_done(&r);
	is_int(sysbench_parse_report("", &r), -EBADMSG, "so is an empty one");
	step_result_done(&r);
	return done_testing();
}

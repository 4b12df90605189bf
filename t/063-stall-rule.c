/* The stall rule on per-second intervals built here, no prerequisites: two
 * seconds in a row under a tenth of the pace, from a server whose pace
 * would have put 5 transactions in them, fail a step with the gap named
 * (a start at 1.0 TPS whose seconds were 0, 0, 3 among them); one silent
 * second (a loaded machine's hiccup) and the silence of a server too slow
 * to fill a second do not; a step that completed nothing fails as such;
 * and every silent second is counted in any case;
 * and an oltp neighbour's per-second TPS cut to a step's measured seconds.
 * t/059 stops a real server. */
#include <math.h>
#include <stdio.h>

#include "oltp/oltp.h"
#include "tap.h"
#include "common/util.h"

/* A native step of `seconds` with these n intervals (fewer: some missing),
 * judged; failed already with `reason` if that is not NULL. */
static void judge_step(const double *tps, size_t n, unsigned seconds, const char *reason, struct step_result *r)
{
	struct oltp_options o;

	oltp_options_default(&o);
	o.duration_ns = seconds * NSEC_PER_SEC;
	step_result_start(r, OLTP_DRIVER_NATIVE, 1);
	if (reason) {
		r->failed = true;
		snprintf(r->reason, sizeof(r->reason), "%s", reason);
	}
	r->intervals = calloc(n, sizeof(double));
	if (!r->intervals)
		bail_out("out of memory");
	memcpy(r->intervals, tps, n * sizeof(double));
	r->n_intervals = n;
	r->tps = 0;
	for (size_t i = 0; i < n; i++)
		r->tps += tps[i] / seconds;
	step_result_judge(&o, r);
}

static void judge(const double *tps, size_t n, struct step_result *r)
{
	judge_step(tps, n, (unsigned)n, NULL, r);
}

/* An oltp neighbour's TPS in the step's measured seconds: its client's
 * seconds start 0.4 s before the step's, and its last second is half of
 * one. */
static void check_rate_within(void)
{
	const double rates[] = { 100, 200, 300, 400, 500 };
	uint64_t s = 1000 * NSEC_PER_SEC, from = s + 4 * NSEC_PER_SEC / 10;

	/* [s+0.4, s+2.4): 0.6 s at 100, 1 s at 200 and 0.4 s at 300, 190 */
	ok(fabs(oltp_rate_within(rates, 5, s, s + 45 * NSEC_PER_SEC / 10, from, from + 2 * NSEC_PER_SEC) - 190) < 1e-9,
	   "the neighbour's seconds are weighted by their overlap with the step's (%.1f)",
	   oltp_rate_within(rates, 5, s, s + 45 * NSEC_PER_SEC / 10, from, from + 2 * NSEC_PER_SEC));
	ok(fabs(oltp_rate_within(rates, 5, s, s + 45 * NSEC_PER_SEC / 10, s + 4 * NSEC_PER_SEC, s + 9 * NSEC_PER_SEC) -
		500) < 1e-9,
	   "its last, half second counts for the half it ran");
	ok(isnan(oltp_rate_within(rates, 5, s, s + 5 * NSEC_PER_SEC, s + 6 * NSEC_PER_SEC, s + 7 * NSEC_PER_SEC)),
	   "a step after its run: no rate");
}

int main(void)
{
	struct step_result r;

	plan(20);

	judge((const double[]){ 500, 0, 480, 510 }, 4, &r);
	ok(!r.failed, "one silent second among busy ones is no stall (%s)", r.reason);
	is_int(r.stalled_s, 1, "but it is counted");
	step_result_done(&r);

	judge((const double[]){ 500, 300, 0, 0 }, 4, &r);
	ok(r.failed, "two silent seconds in a row after 400 a second fail the step");
	is_str(r.reason, "a stall: under a tenth of its pace completed in seconds 3-4 of 4 (400 a second in the others)",
	       "the reason names the gap and the pace");
	is_int(r.stalled_s, 2, "stalled_s 2");
	step_result_done(&r);

	judge((const double[]){ 0, 500, 0, 500, 0, 0, 0, 500 }, 8, &r);
	ok(r.failed && r.stalled_from_s == 4, "the longest silence is the one named (from second %u)",
	   r.stalled_from_s + 1);
	is_int(r.stalled_s, 5, "every silent second counted");
	step_result_done(&r);

	judge((const double[]){ 1, 0, 1, 1, 0, 0, 1, 0 }, 8, &r);
	ok(!r.failed, "a server at 1 a second may be silent for two seconds (CPUQuota=1%%): no stall (%s)", r.reason);
	step_result_done(&r);

	judge((const double[]){ 0, 0, 3 }, 3, &r);
	ok(r.failed && r.rule == OLTP_RULE_STALLED, "a start at 1.0 TPS whose seconds were 0, 0, 3 stalled (%s)", r.reason);
	step_result_done(&r);

	judge((const double[]){ 2, 0, 0, 0, 3, 0 }, 6, &r);
	ok(r.failed && r.rule == OLTP_RULE_STALLED, "three silent seconds at 2-3 a second: 7.5 transactions missing, a stall");
	step_result_done(&r);

	judge((const double[]){ 500, 20, 10, 490 }, 4, &r);
	ok(r.failed && r.rule == OLTP_RULE_STALLED, "seconds near zero, not at it, are a stall too (%s)", r.reason);
	is_int(r.stalled_s, 0, "though none was silent");
	step_result_done(&r);

	judge((const double[]){ 0, 0, 0 }, 3, &r);
	ok(r.failed && r.rule == OLTP_RULE_ZERO, "a step that completed nothing fails as such, not as a stall");
	is_str(r.reason, "it completed no transaction", "and says so");
	is_int(r.stalled_s, 3, "its silent seconds are counted");
	step_result_done(&r);

	judge_step((const double[]){ 600, 600 }, 2, 4, NULL, &r);
	ok(r.failed, "missing intervals at the end of a native step count as silent");
	step_result_done(&r);

	judge_step((const double[]){ 500, 500, 0, 0 }, 4, 4, "server went away", &r);
	is_str(r.reason, "server went away", "a step failed already keeps its own reason");
	step_result_done(&r);
	check_rate_within();
	return done_testing();
}

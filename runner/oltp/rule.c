/* The one rule of which starts count (oltp.h): applied to a step as it
 * ends (run) and to a step's record (report, explain), so that all three
 * leave out the same starts for the same reasons. */
#include <math.h>
#include <stdio.h>

#include "oltp/record.h"
#include "common/util.h"

const struct oltp_rule_def oltp_rules[_OLTP_RULE_MAX] = {
	[OLTP_RULE_KEPT] = { .key = "kept", .label = "kept" },
	[OLTP_RULE_FAILED] = { .key = "failed", .label = "failed" },
	[OLTP_RULE_CONNECTION] = { .key = "connection", .label = "a connection failed" },
	[OLTP_RULE_WARMUP] = { .key = "warm-up", .label = "the warm-up failed" },
	[OLTP_RULE_SERVER_GONE] = { .key = "server-gone", .label = "the server was gone" },
	[OLTP_RULE_ZERO] = { .key = "no-transaction", .label = "it completed no transaction" },
	[OLTP_RULE_STALLED] = { .key = "stalled", .label = "it stalled" },
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the seconds that completed a transaction: the pace a
 * second near zero is measured against (a stall's own seconds do not pull
 * it down, a fast start's do not hold it up). */
static double pace_of(const double *intervals, size_t n)
{
	_cleanup_free_ double *x = calloc(n + 1, sizeof(double));
	size_t k = 0;

	if (!x)
		return NAN;
	for (size_t s = 0; s < n; s++)
		if (intervals[s] > 0)
			x[k++] = intervals[s];
	if (!k)
		return 0;
	qsort(x, k, sizeof(*x), cmp_double);
	return k % 2 ? x[k / 2] : (x[k / 2 - 1] + x[k / 2]) / 2;
}

/* The longest run of seconds below the near-zero line in intervals[0..n)
 * (a missing second up to n_seconds counts), and the mean of the others. */
static void find_stall(const double *intervals, size_t n, size_t n_seconds, double line, unsigned *ret_from,
		       unsigned *ret_len, double *ret_pace)
{
	unsigned run = 0, longest = 0, from = 0, busy = 0;
	double done = 0;

	for (size_t s = 0; s < MAX(n, n_seconds); s++) {
		if (s < n && intervals[s] > 0 && intervals[s] >= line) {
			busy++;
			done += intervals[s];
			run = 0;
			continue;
		}
		if (++run > longest) {
			longest = run;
			from = (unsigned)s + 1 - run;
		}
	}
	*ret_from = from;
	*ret_len = longest;
	*ret_pace = busy ? done / busy : 0;
}

enum oltp_rule oltp_step_rule(bool failed, enum oltp_rule failed_as, double tps, const double *intervals, size_t n,
			      size_t n_seconds, unsigned *ret_from, unsigned *ret_len, double *ret_pace)
{
	double pace = pace_of(intervals, n);

	find_stall(intervals, n, n_seconds, OLTP_STALL_NEAR_ZERO * pace, ret_from, ret_len, ret_pace);
	if (failed)
		return failed_as > OLTP_RULE_KEPT && failed_as < _OLTP_RULE_MAX ? failed_as : OLTP_RULE_FAILED;
	if (!(tps > 0))
		return OLTP_RULE_ZERO;
	if (*ret_len >= OLTP_STALL_MIN_S && *ret_pace * *ret_len >= OLTP_STALL_MIN_TXNS)
		return OLTP_RULE_STALLED;
	return OLTP_RULE_KEPT;
}

enum oltp_rule oltp_step_rule_of_json(const json_t *step)
{
	const json_t *a = json_object_get(step, "intervals_tps"), *v, *tps = json_object_get(step, "tps");
	_cleanup_free_ double *x = calloc(json_array_size(a) + 1, sizeof(double));
	const char *class = json_string_value(json_object_get(step, "failure_class"));
	enum oltp_rule as = OLTP_RULE_FAILED;
	unsigned from, len;
	double pace;
	size_t i, n = 0;

	for (size_t k = 0; class && k < _OLTP_RULE_MAX; k++)
		if (streq(class, oltp_rules[k].key))
			as = (enum oltp_rule)k;
	if (!x)
		return OLTP_RULE_FAILED; /* not judged is not kept */
	json_array_foreach(a, i, v)
		x[n++] = json_is_number(v) ? json_number_value(v) : 0;
	return oltp_step_rule(json_is_true(json_object_get(step, "failed")), as,
			      json_is_number(tps) ? json_number_value(tps) : 0, x, n, n, &from, &len, &pace);
}

/* The reason of a stall: the gap, the pace, and what may explain it. */
static void say_stall(const struct oltp_options *o, struct step_result *r, unsigned from, unsigned len, size_t n,
		      double pace)
{
	int k = snprintf(r->reason, sizeof(r->reason),
			 "a stall: under a tenth of its pace completed in seconds %u-%u of %zu (%.0f a second in the others)",
			 from + 1, from + len, n, pace);

	/* Hundreds of fresh backends answer their first queries all at once,
	 * seconds after the clock starts on a small machine: the ramp that a
	 * warm-up is for. */
	if (from == 0 && !o->warmup_ns && k > 0 && (size_t)k < sizeof(r->reason))
		k += snprintf(r->reason + k, sizeof(r->reason) - (size_t)k,
			      "; with no warm-up, the first seconds are the ramp of %u fresh connections: a warm-up leaves it uncounted",
			      r->threads);
	if (r->in_flight_at_end && k > 0 && (size_t)k < sizeof(r->reason))
		snprintf(r->reason + k, sizeof(r->reason) - (size_t)k,
			 "; %llu transaction(s) still in flight at its end, counted in the latency",
			 (unsigned long long)r->in_flight_at_end);
}

void step_result_judge(const struct oltp_options *o, struct step_result *r)
{
	/* The native frame has an interval for each second; a tool's report
	 * may start later (pgbench's -T counts its connecting), so only the
	 * intervals it gives are looked at. */
	size_t want = o->driver == OLTP_DRIVER_NATIVE && o->duration_ns && !o->events
			      ? (size_t)ceil((double)o->duration_ns / 1e9 - 1e-9)
			      : r->n_intervals;
	size_t n = MAX(want, r->n_intervals);
	unsigned from, len;
	double pace;

	r->stalled_s = 0;
	for (size_t s = 0; s < n; s++)
		r->stalled_s += s >= r->n_intervals || r->intervals[s] <= 0;
	r->rule = oltp_step_rule(r->failed, r->rule, r->tps, r->intervals, r->n_intervals, want, &from, &len, &pace);
	r->stalled_from_s = from;
	if (r->rule == OLTP_RULE_KEPT || r->failed)
		return;
	r->failed = true;
	if (r->rule == OLTP_RULE_ZERO)
		snprintf(r->reason, sizeof(r->reason), "it completed no transaction");
	else
		say_stall(o, r, from, len, n, pace);
}

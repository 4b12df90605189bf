/* The mechanism figures: the table of what a step carries beside its TPS
 * (its record's "mechanism" object), so that a step's record, report and
 * explain say the same thing in the same words, and each figure from the
 * step's first and last telemetry samples. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "oltp/mechanism.h"
#include "common/util.h"

#define SAMPLE_FIELD(f) offsetof(struct oltp_telemetry_sample, f)

/* The rows, named by their step record key. */
static const struct oltp_mechanism_def mechanism_table[] = {
	{ .key = "server_runq_wait_us", .label = "server run-queue wait per transaction", .unit = "us",
	  .scale = 1e3, .counter = SAMPLE_FIELD(server_runq_wait_ns), .per = OLTP_PER_TRANSACTION },
	{ .key = "client_runq_wait_us", .label = "client run-queue wait per transaction", .unit = "us",
	  .scale = 1e3, .counter = SAMPLE_FIELD(client_runq_wait_ns), .per = OLTP_PER_TRANSACTION },
	{ .key = "server_migrations", .label = "server migrations per transaction", .unit = "", .scale = 1,
	  .counter = SAMPLE_FIELD(server_migrations), .per = OLTP_PER_TRANSACTION },
	{ .key = "client_migrations", .label = "client migrations per transaction", .unit = "", .scale = 1,
	  .counter = SAMPLE_FIELD(client_migrations), .per = OLTP_PER_TRANSACTION },
	{ .key = "server_nonvol_ctxt", .label = "server involuntary switches per transaction", .unit = "",
	  .scale = 1, .counter = SAMPLE_FIELD(server_nonvol_ctxt), .per = OLTP_PER_TRANSACTION },
	{ .key = "client_nonvol_ctxt", .label = "client involuntary switches per transaction", .unit = "",
	  .scale = 1, .counter = SAMPLE_FIELD(client_nonvol_ctxt), .per = OLTP_PER_TRANSACTION },
	{ .key = "server_vol_ctxt", .label = "server voluntary switches per transaction", .unit = "", .scale = 1,
	  .counter = SAMPLE_FIELD(server_vol_ctxt), .per = OLTP_PER_TRANSACTION },
	{ .key = "client_vol_ctxt", .label = "client voluntary switches per transaction", .unit = "", .scale = 1,
	  .counter = SAMPLE_FIELD(client_vol_ctxt), .per = OLTP_PER_TRANSACTION },
	{ .key = "server_ipc", .label = "server instructions per cycle", .unit = "", .scale = 1,
	  .counter = SAMPLE_FIELD(server_instructions), .per = OLTP_PER_COUNTER, .of = SAMPLE_FIELD(server_cycles) },
	{ .key = "server_llc_misses", .label = "server last-level cache misses per transaction", .unit = "", .scale = 1,
	  .counter = SAMPLE_FIELD(server_llc_misses), .per = OLTP_PER_TRANSACTION },
	{ .key = "server_wakeups_cross_l3_pct", .label = "server wake-ups landing in another L3 group than the waker's",
	  .unit = "%", .scale = 0.01, .counter = SAMPLE_FIELD(server_wakeups_cross_l3), .per = OLTP_PER_COUNTER,
	  .of = SAMPLE_FIELD(server_wakeups) },
	{ .key = "server_on_client_cpu_pct", .label = "server run time on a client's CPU", .unit = "%",
	  .scale = 0.01, .counter = SAMPLE_FIELD(server_run_on_client_cpu_ns), .per = OLTP_PER_COUNTER,
	  .of = SAMPLE_FIELD(server_run_ns) },
};
_Static_assert(ELEMENTSOF(mechanism_table) <= OLTP_MECHANISM_MAX, "OLTP_MECHANISM_MAX too small");

const struct oltp_mechanism_def *oltp_mechanism_table(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(mechanism_table);
	return mechanism_table;
}

static uint64_t sample_counter(const struct oltp_telemetry_sample *s, size_t offset)
{
	uint64_t v;

	memcpy(&v, (const char *)s + offset, sizeof(v));
	return v;
}

/* From the first and the last sample (the totals keep the counts of
 * threads that ended, so they only grow). */
double oltp_mechanism_value(const struct oltp_mechanism_def *d, const struct oltp_telemetry_sample *samples, size_t n,
			    double tps)
{
	const struct oltp_telemetry_sample *first, *last;
	uint64_t a, b;

	if (n < 2)
		return NAN;
	first = &samples[0];
	last = &samples[n - 1];
	a = sample_counter(first, d->counter);
	b = sample_counter(last, d->counter);
	/* A hardware counter without a PMU is unknown, not 0. */
	if (b < a || last->t_s <= first->t_s || a == UINT64_MAX || b == UINT64_MAX)
		return NAN;
	if (d->per == OLTP_PER_COUNTER) {
		uint64_t of_a = sample_counter(first, d->of), of_b = sample_counter(last, d->of);

		return of_b > of_a ? (double)(b - a) / (double)(of_b - of_a) / d->scale : NAN;
	}
	/* The counter's rate over the TPS: the samples need not span the
	 * measured phase exactly (a tool's start with its connecting). */
	if (tps <= 0)
		return NAN;
	return (double)(b - a) / (last->t_s - first->t_s) / tps / d->scale;
}

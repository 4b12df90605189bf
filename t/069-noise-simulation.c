/* Noise as a result, tested as a method on results whose truth is known
 * (as t/065 tests the TPS verdicts): a seeded generator writes run
 * directories in the real format (steps through results_put() with their
 * per-second TPS, the rounds in an order drawn afresh), and report reads
 * each one back as a user's would be read.  Two contexts, 10 starts each,
 * 20 seconds a step; log TPS normal, Student's t on 3 degrees of freedom,
 * or normal with one slow start (0.7x) in five.  Measured: how often
 * equal noise is called different (Brown-Forsythe, at most 5%), how often
 * a true ratio of 3 (sigma 1% against 3%) is found (about 64% under
 * normal log TPS: Brown-Forsythe's real power at 10 starts a side, which
 * reaches 80% at about 4x; asserted at 60%), whether the ratio's
 * interval covers its truth, and whether the within-step CV's interval
 * covers the mean CV of a step.  The rates are asserted with their 99%
 * simulation interval (Wilson), as t/065's; SLICEBENCH_SIM_SCALE=N
 * multiplies every count (doc/statistics.md's figures were made with 2).  No
 * prerequisites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/util.h"
#include "report/report.h"
#include "store/results.h"
#include "stats/stats.h"
#include "sim.h"
#include "tap.h"

#define STARTS 10
#define SECONDS 20
#define WITHIN 0.05

static char dir[512];
static size_t scale = 1;
/* The baseline first: the verdict is pinned's noise against unpinned's. */
static const char *const pair[] = { "unpinned", "pinned" };
static double within_truth;

static double flat_tps(const void *ctx, size_t cell)
{
	(void)ctx;
	(void)cell;
	return log(1000);
}

/* The mean CV of a step's seconds under the generator: what the
 * within-step figure estimates (a sample CV of 20 autocorrelated seconds,
 * not the generator's 5%), by 20,000 steps in memory. */
static double mean_step_cv(void)
{
	struct truth t = { .seconds = SECONDS, .within = WITHIN };
	double x[SECONDS], sum = 0;
	const size_t n = 20000;

	for (size_t i = 0; i < n; i++) {
		sim_seconds(1000, &t, x);
		sum += stats_cv(x, SECONDS);
	}
	return sum / (double)n;
}

struct noise_case {
	const char *what;
	double sigma_base, sigma_other;
	unsigned tail_df;
	bool slow;
	size_t sets;
	double power; /* the detection rate asserted; 0: equal noise, the false rate */
	bool assert_cover;
};

struct noise_rates {
	struct rate called, cover, unbounded, within;
	double *mde; /* what each n.s. said it could have detected */
	size_t mde_n;
};

/* One data set of c: its verdict, its interval against the truth, and
 * both cells' within-step intervals against theirs. */
static void one_set(const struct noise_case *c, struct noise_rates *r)
{
	const double sigmas[] = { c->sigma_base, c->sigma_other };
	struct truth t = { .log_tps = flat_tps, .sigmas = sigmas, .tail_df = c->tail_df, .slow_one_in_five = c->slow,
			   .seconds = SECONDS, .within = WITHIN };
	const char *path = sim_fresh(dir, "noise");
	json_t *rep, *v, *cells;

	sim_write_rounds(path, pair, 2, 1, STARTS, &t, STARTS);
	rep = sim_report_json(path);
	v = json_array_get(json_object_get(rep, "noise_verdicts"), 0);
	r->called.hits += json_is_true(json_object_get(v, "significant"));
	r->called.n++;
	/* An unbounded set is reported as every ratio from 0 up: it covers. */
	r->unbounded.hits += json_is_false(json_object_get(v, "bounded"));
	r->unbounded.n++;
	r->cover.hits += sim_covers(v, "ratio_lo", "ratio_hi", c->sigma_other / c->sigma_base) ||
			 json_is_false(json_object_get(v, "bounded"));
	r->cover.n++;
	/* null: none these starts could detect */
	if (!json_is_true(json_object_get(v, "significant"))) {
		r->mde[r->mde_n++] = json_is_number(json_object_get(v, "mde")) ? json_number_value(json_object_get(v, "mde"))
										: INFINITY;
	}
	cells = json_object_get(json_array_get(json_object_get(rep, "rows"), 0), "cells");
	for (size_t k = 0; k < 2; k++) {
		const json_t *w = json_object_get(json_object_get(json_array_get(cells, k), "noise"), "cv_within");

		r->within.hits += sim_covers(w, "lo", "hi", within_truth);
		r->within.n++;
	}
	json_decref(rep);
}

static void run_case(const struct noise_case *c)
{
	struct noise_rates r = { .mde = calloc(c->sets * scale + 1, sizeof(double)) };
	char what[256];

	if (!r.mde)
		bail_out("calloc");
	for (size_t i = 0; i < c->sets * scale; i++)
		one_set(c, &r);
	if (c->power > 0)
		snprintf(what, sizeof(what), "%s: \"noise differs\" found", c->what);
	else
		snprintf(what, sizeof(what), "%s: a false \"noise differs\"", c->what);
	sim_row(what, &r.called, c->power > 0 ? ">=" : "<=", c->power > 0 ? c->power : 0.05);
	snprintf(what, sizeof(what), "%s: the ratio's interval covers its truth (%.2fx)%s", c->what,
		 c->sigma_other / c->sigma_base, c->assert_cover ? "" : " (not asserted)");
	sim_row(what, &r.cover, c->assert_cover ? ">=" : "", 0.93);
	snprintf(what, sizeof(what), "%s: the ratio's interval unbounded (not asserted)", c->what);
	sim_row(what, &r.unbounded, "", 0);
	snprintf(what, sizeof(what), "%s: the within-step CV's interval covers the mean CV of a step (%.2f%%)", c->what,
		 100 * within_truth);
	sim_row(what, &r.within, ">=", 0.92);
	if (r.mde_n && isfinite(stats_median(r.mde, r.mde_n)))
		diag("%s: an n.s. said these starts could have detected %.2fx (the median of %zu n.s.)", c->what,
		     stats_median(r.mde, r.mde_n), r.mde_n);
	else if (r.mde_n)
		diag("%s: most n.s. said these starts could have detected no ratio (%zu n.s.)", c->what, r.mde_n);
	free(r.mde);
}

int main(void)
{
	static const struct noise_case cases[] = {
		{ .what = "equal noise, sigma 3% both, log TPS normal, 10 starts a side", .sigma_base = 0.03,
		  .sigma_other = 0.03, .sets = 1000, .assert_cover = true },
		{ .what = "equal noise, sigma 3%, one slow start (0.7x) in five", .sigma_base = 0.03, .sigma_other = 0.03,
		  .slow = true, .sets = 600 },
		{ .what = "equal noise, sigma 3%, log TPS Student's t on 3 df", .sigma_base = 0.03, .sigma_other = 0.03,
		  .tail_df = 3, .sets = 600 },
		{ .what = "a ratio of 3, sigma 1% against 3%, normal, 10 starts a side", .sigma_base = 0.03,
		  .sigma_other = 0.01, .sets = 1000, .power = 0.60, .assert_cover = true },
		{ .what = "a ratio of 4, sigma 1% against 4%, normal, 10 starts a side", .sigma_base = 0.04,
		  .sigma_other = 0.01, .sets = 600, .power = 0.80 },
		{ .what = "a ratio of 3, sigma 1% against 3%, Student's t on 3 df", .sigma_base = 0.03, .sigma_other = 0.01,
		  .tail_df = 3, .sets = 600, .power = 0.30 },
	};

	scale = sim_start(dir, sizeof(dir), 20260428);
	within_truth = mean_step_cv();
	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		run_case(&cases[i]);
	remove_tree(dir);
	return done_testing();
}

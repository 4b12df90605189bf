/* What "a gap under X cannot be told from noise (80% power)" is worth,
 * tested as a method (issue 35, item 4; issue 43, item 5): data whose one
 * true gap is the smallest gap slicebench printed should be called
 * significant 75-85% of the time.  Two kinds of figure:
 * - the plan's (run --dry-run, calibrate: stats_design_mde()) at the true
 *   sigma, for the design;
 * - the one report printed under an n.s. verdict of an A/A data set, at
 *   that data set's own spread: each data set's printed gap is the truth
 *   of a fresh one, and the rate is over those, so a spread that came out
 *   low (a gap printed too small) counts against it as a user would find.
 * The quickstart's shape (a baseline and 3 contexts at 1, 2 and 4
 * threads, Holm across 9), noise a start shares with its steps (half of
 * it, t/sim.c's default), the gap on one context, counted at 1 thread;
 * also one context 3 times noisier (its gap on that context) and one start
 * in 20 stalling (the start rule leaves it out; a fresh data set whose
 * cell has no ratio, more than a fifth of its starts left out, takes no
 * part).  Hundreds of data sets per case, each rate with its simulation
 * interval (Wilson, 99%).
 * SLICEBENCH_SIM_SCALE=N multiplies every count.  No prerequisites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "common/util.h"
#include "stats/stats.h"
#include "sim.h"
#include "tap.h"

static char dir[512];
static size_t scale = 1;

/* Every column at one level, but column 1 at gap. */
static double gap;

static double gap_tps(const void *ctx, size_t cell)
{
	(void)ctx;
	return log(1000) + (cell == 1 ? log(gap) : 0);
}

/* report's JSON of a fresh data set of rounds rounds of base whose
 * column 1 is truly g at every thread count. */
static json_t *report_at(const struct truth *base, double g, unsigned rounds)
{
	struct truth t = *base;
	const char *path = sim_fresh(dir, "power");

	t.log_tps = gap_tps;
	gap = g;
	sim_write_rounds(path, sim_quickstart, SIM_QUICKSTART_CONTEXTS, 1, rounds, &t, rounds);
	return sim_report_json(path);
}

/* Whether report calls column 1 at 1 thread significant in a fresh data
 * set whose column 1 is truly g: 1, 0, or -1 where it has no ratio (a
 * start left out of 3 is more than a fifth of them). */
static int detected(const struct truth *base, double g, unsigned rounds)
{
	json_t *rep = report_at(base, g, rounds);
	const json_t *cell = sim_cell(rep, 0, 1);
	int found = !json_is_number(json_object_get(cell, "ratio_lo")) ? -1
										: json_is_true(json_object_get(cell, "significant"));

	json_decref(rep);
	return found;
}

/* A data set more of found's: those without a ratio take no part. */
static void count(struct rate *found, int d)
{
	found->hits += d == 1;
	found->n += d >= 0;
}

static void power_rows(const char *what, const struct rate *found)
{
	sim_row(what, found, ">=", 0.75);
	sim_row(what, found, "<=", 0.85);
}

/* The plan's gap at the true sigma: detected in fresh data at it. */
static void plan_case(unsigned rounds, double sigma, size_t sets)
{
	struct truth t = { .sigma = sigma, .n_threads = SIM_QUICKSTART_THREADS };
	struct rate found = {};
	double df, mde = stats_design_mde(sigma, INFINITY, rounds, SIM_QUICKSTART_THREADS, STATS_PLAN_START_SHARE, 9,
					  0.95, &df);
	char what[400];

	for (size_t i = 0; i < sets * scale; i++)
		count(&found, detected(&t, mde, rounds));
	snprintf(what, sizeof(what), "the smallest gap run --dry-run and calibrate print, sigma %.0f%%, %u repeats of 4 "
		 "columns at 3 thread counts (%.1f df), Holm's first step of 9 (%.3fx): detected at 1 thread",
		 100 * sigma, rounds, df, mde);
	power_rows(what, &found);
}

/* The gap report printed of column 1 at 1 thread in an A/A data set of
 * base, NAN where it printed none (a verdict, or no interval). */
static double printed_gap(const struct truth *base, unsigned rounds)
{
	json_t *rep = report_at(base, 1, rounds);
	const json_t *cell = sim_cell(rep, 0, 1), *mde = json_object_get(cell, "mde");
	double v = json_is_number(mde) && !json_is_true(json_object_get(cell, "significant")) ? json_number_value(mde)
											       : NAN;

	json_decref(rep);
	return v;
}

/* A case of printed_case(), for sim_printed_gap_rate(). */
struct printed {
	const struct truth *t;
	unsigned rounds;
};

static double printed_of(void *ctx)
{
	const struct printed *p = ctx;

	return printed_gap(p->t, p->rounds);
}

static int detected_at(void *ctx, double gap)
{
	const struct printed *p = ctx;

	return detected(p->t, gap, p->rounds);
}

/* Each data set's printed gap the truth of a fresh one: the rate it is
 * detected at, and the printed gaps' median. */
static void printed_case(const char *what, const struct truth *t, unsigned rounds, size_t sets)
{
	struct printed p = { t, rounds };
	struct rate found;
	char line[400];
	double median = sim_printed_gap_rate(sets * scale, printed_of, detected_at, &p, &found);

	snprintf(line, sizeof(line), "%s, %u repeats: data at the gap report printed (median %.3fx) detected at 1 thread",
		 what, rounds, median);
	power_rows(line, &found);
}

int main(void)
{
	static const double noisy[SIM_QUICKSTART_CONTEXTS] = { 0.03, 0.09, 0.03, 0.03 };
	const struct truth quiet = { .sigma = 0.03, .n_threads = SIM_QUICKSTART_THREADS },
			   column = { .sigmas = noisy, .n_threads = SIM_QUICKSTART_THREADS },
			   stalls = { .sigma = 0.03, .n_threads = SIM_QUICKSTART_THREADS, .seconds = 10, .within = 0.03,
				      .stall_one_in = 20 };

	scale = sim_start(dir, sizeof(dir), 106);
	plan_case(2, 0.03, 300);
	plan_case(3, 0.03, 300);
	plan_case(5, 0.03, 200);
	printed_case("report, A/A, the quickstart's shape, sigma 3%", &quiet, 2, 200);
	printed_case("the same", &quiet, 3, 200);
	printed_case("the same", &quiet, 5, 200);
	printed_case("report, A/A, the quickstart's shape, the context 3 times as noisy as the rest (9% against 3%)",
		     &column, 3, 200);
	printed_case("report, A/A, sigma 3%, one start in 20 stalling (left out by the start rule)", &stalls, 5, 200);
	(void)remove_tree(dir);
	done_testing();
}

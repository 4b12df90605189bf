/* What "a gap under X cannot be told from noise (80% power)" is worth,
 * tested as a method (issue 35, item 4): data whose one true gap is the
 * smallest gap slicebench says its design detects, at the level its
 * verdict uses (after Holm), written in the real format and read back by
 * report, should be called significant 75-85% of the time.  The figures
 * are the library's own, at the true sigma: what report says of an n.s.
 * ratio whose sigma came out at the truth, and what run --dry-run,
 * explain's plan and calibrate say of a design (stats_design_mde()).  The
 * quickstart's shape (a baseline and 3 contexts at 1, 2 and 4 threads,
 * Holm across 9), the gap on one context, counted at 1 thread.  Hundreds of data
 * sets per case, each rate with its simulation interval (Wilson, 99%).
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

/* The share of data sets, of rounds rounds, in which the cell of column
 * 1 at 1 thread is called significant, column 1's true ratio g at every
 * thread count (the other columns truly 1.00x). */
static void power_at(const char *what, double g, unsigned rounds, double sigma, size_t sets)
{
	struct truth t = { .log_tps = gap_tps, .sigma = sigma, .n_threads = SIM_QUICKSTART_THREADS };
	struct rate found = {};
	char line[400];

	gap = g;
	for (size_t i = 0; i < sets * scale; i++) {
		const char *path = sim_fresh(dir, "power");
		json_t *rep;

		sim_write_rounds(path, sim_quickstart, SIM_QUICKSTART_CONTEXTS, 1, rounds, &t, rounds);
		rep = sim_report_json(path);
		found.hits += json_is_true(json_object_get(sim_cell(rep, 0, 1), "significant"));
		found.n++;
		json_decref(rep);
	}
	snprintf(line, sizeof(line), "%s (%.3fx): detected at 1 thread", what, g);
	sim_row(line, &found, ">=", 0.75);
	sim_row(line, &found, "<=", 0.85);
}

/* The median of what report printed as the smallest gap of column 1 at
 * 1 thread over A/A data sets: the figure a user reads. */
static double printed_mde(unsigned rounds, double sigma, size_t sets)
{
	struct truth t = { .log_tps = gap_tps, .sigma = sigma, .n_threads = SIM_QUICKSTART_THREADS };
	double *v = calloc(sets + 1, sizeof(double)), m;
	size_t n = 0;

	if (!v)
		bail_out("calloc");
	gap = 1;
	for (size_t i = 0; i < sets; i++) {
		const char *path = sim_fresh(dir, "printed");
		json_t *rep, *mde;

		sim_write_rounds(path, sim_quickstart, SIM_QUICKSTART_CONTEXTS, 1, rounds, &t, rounds);
		rep = sim_report_json(path);
		mde = json_object_get(sim_cell(rep, 0, 1), "mde");
		if (json_is_number(mde))
			v[n++] = json_number_value(mde);
		json_decref(rep);
	}
	m = stats_median(v, n);
	free(v);
	return m;
}

int main(void)
{
	const double sigma = 0.03;
	const size_t cells = SIM_QUICKSTART_CONTEXTS, rows = SIM_QUICKSTART_THREADS, family = 9;
	char what[300];

	scale = sim_start(dir, sizeof(dir), 106);
	for (unsigned rounds = 2; rounds <= 3; rounds++) {
		double df, mde = stats_design_mde(sigma, cells, rounds, rows, family, 0.95, &df), printed;

		/* What run --dry-run and calibrate print at this sigma, and what
		 * report prints of an n.s. whose sigma came out at the truth. */
		snprintf(what, sizeof(what), "the smallest gap run --dry-run, calibrate and report print, sigma 3%%, %u repeats "
					     "of 4 columns at 3 thread counts, %.1f df, Holm's first step of 9", rounds, df);
		power_at(what, mde, rounds, sigma, 300);
		printed = printed_mde(rounds, sigma, 100 * scale);
		diag("%u repeats: report printed a median smallest gap of %.3fx over A/A data sets (the design's %.3fx)",
		     rounds, printed, mde);
	}
	(void)remove_tree(dir);
	done_testing();
}

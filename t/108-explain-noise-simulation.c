/* explain's analysis where A and B are noisier than the mixes between
 * them (issue 35, item 2): A and B are real contexts (a service held to a
 * quota, a shell under a neighbour), the mixes hybrids of the same host;
 * a sigma pooled over every mix lends the quiet hybrids' confidence to the
 * gap and to each share.  A seeded generator writes explain directories
 * in the real format (a screen of every mix of 3 factors, 3 rounds in the
 * engine's orders, explain.json), and explain's re-analysis reads them as
 * a user's would be read.  Asserted: the gap's interval and each factor's
 * share's cover their truth at least 93% of the time.  Hundreds of data
 * sets per case, each rate with its simulation interval (Wilson, 99%).
 * SLICEBENCH_SIM_SCALE=N multiplies every count.  No prerequisites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "common/util.h"
#include "explain/design.h"
#include "stats/stats.h"
#include "sim.h"
#include "tap.h"

static char dir[512];
static size_t scale = 1;

struct noise_case {
	const char *what;
	double sigma_ends, sigma_mixes;
	size_t sets;
};

static void run_case(const struct noise_case *c)
{
	struct mixes m = { .n = 3, .effect = { 0.50, 0.35, 0.15 }, .gap = log(1.3) };
	double sigmas[DESIGN_MIXES_MAX];
	struct truth t = { .sigmas = sigmas };
	struct rate gap = {}, share = {};
	struct design d;
	char what[300];

	/* The screen's cells in sim_explain_screen()'s order: A the closure, B none. */
	design_full(7, 7, &d);
	for (size_t i = 0; i < d.n; i++)
		sigmas[i] = d.masks[i] == 7 || d.masks[i] == 0 ? c->sigma_ends : c->sigma_mixes;
	for (size_t i = 0; i < c->sets * scale; i++) {
		struct explain_record rec;
		const char *path = sim_fresh(dir, "ends");
		_cleanup_free_ char *text = NULL;
		json_t *x;

		sim_explain_screen(path, &m, 3, &t, &rec);
		text = sim_explanation(path, SIM_JSON);
		if (!(x = json_loads(text, 0, NULL)))
			bail_out("the explanation's JSON does not parse");

		gap.hits += sim_covers(json_object_get(x, "gap"), "lo", "hi", 1.3);
		gap.n++;
		for (size_t k = 0; k < 3; k++) {
			const json_t *f = json_object_get(json_array_get(json_object_get(x, "factors"), k), "shapley");

			share.hits += sim_covers(f, "lo", "hi", m.effect[k]) || json_is_false(json_object_get(f, "bounded"));
			share.n++;
		}
		json_decref(x);
	}
	snprintf(what, sizeof(what), "%s: the gap's interval covers the true 1.30x", c->what);
	sim_row(what, &gap, ">=", 0.93);
	snprintf(what, sizeof(what), "%s: each factor's share's interval covers its truth", c->what);
	sim_row(what, &share, ">=", 0.93);
}

/* explain's "a gap under X cannot be told from noise (80% power)" at the
 * data set in hand (issue 43, item 5): each A/A screen's printed gap is
 * the truth of a fresh screen (the same three factors sharing it), which
 * should find it at least 75% of the time.  It printed the gap of the
 * mean squares' degrees of freedom where the interval beside it had 1 to
 * 3 (A's and B's own noise), and data at it was found in 46%; now the
 * test's own, it errs large (88%), which is printed, not asserted. */
static double screen_gap(struct mixes *m, struct truth *t, unsigned rounds, bool mde)
{
	struct explain_record rec;
	const char *path = sim_fresh(dir, "gap");
	_cleanup_free_ char *text = NULL;
	const json_t *g;
	double v;
	json_t *x;

	sim_explain_screen(path, m, rounds, t, &rec);
	text = sim_explanation(path, SIM_JSON);
	if (!(x = json_loads(text, 0, NULL)))
		bail_out("the explanation's JSON does not parse");
	g = json_object_get(x, "gap");
	if (mde)
		v = json_is_number(json_object_get(g, "mde")) && !json_is_true(json_object_get(g, "significant"))
			    ? json_number_value(json_object_get(g, "mde"))
			    : NAN;
	else
		v = json_is_true(json_object_get(g, "significant"));
	json_decref(x);
	return v;
}

static void printed_gap_case(double sigma, unsigned rounds, size_t sets)
{
	struct mixes m = { .n = 3, .effect = { 0.50, 0.35, 0.15 } };
	struct truth t = { .sigma = sigma };
	_cleanup_free_ double *gaps = calloc(sets * scale + 1, sizeof(double));
	struct rate found = {};
	char what[300];
	size_t n = 0;

	if (!gaps)
		bail_out("calloc");
	for (size_t i = 0; i < sets * scale; i++) {
		double g;

		m.gap = 0;
		g = screen_gap(&m, &t, rounds, true);
		if (isnan(g))
			continue;
		gaps[n++] = g;
		m.gap = log(MIN(g, 1e4));
		found.hits += screen_gap(&m, &t, rounds, false) == 1;
		found.n++;
	}
	snprintf(what, sizeof(what), "explain, no gap, 3 factors, sigma %.0f%%, %u rounds: a fresh screen whose gap is "
		 "the one explain printed (median %.3fx) found", 100 * sigma, rounds, stats_median(gaps, n));
	sim_row(what, &found, ">=", 0.75);
}

int main(void)
{
	static const struct noise_case cases[] = {
		{ "explain, 50%, 35% and 15% of a 1.3x gap, A and B at 8% and the mixes at 2%, 3 rounds", 0.08, 0.02, 300 },
		{ "the same, every mix at 4%", 0.04, 0.04, 200 },
	};

	scale = sim_start(dir, sizeof(dir), 108);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		run_case(&cases[i]);
	printed_gap_case(0.05, 3, 200);
	(void)remove_tree(dir);
	done_testing();
}

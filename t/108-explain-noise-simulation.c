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
struct printed_screen {
	struct mixes m;
	struct truth t;
	unsigned rounds;
};

/* The explanation's "gap" of a fresh screen of p's mixes at gap (a log). */
static json_t *screen_gap(struct printed_screen *p, double gap)
{
	struct explain_record rec;
	const char *path = sim_fresh(dir, "gap");
	_cleanup_free_ char *text = NULL;
	json_t *x, *g;

	p->m.gap = gap;
	sim_explain_screen(path, &p->m, p->rounds, &p->t, &rec);
	text = sim_explanation(path, SIM_JSON);
	if (!(x = json_loads(text, 0, NULL)))
		bail_out("the explanation's JSON does not parse");
	g = json_incref(json_object_get(x, "gap"));
	json_decref(x);
	return g;
}

static double printed_screen_gap(void *ctx)
{
	json_t *g = screen_gap(ctx, 0);
	const json_t *mde = json_object_get(g, "mde");
	double v = json_is_number(mde) && !json_is_true(json_object_get(g, "significant")) ? json_number_value(mde) : NAN;

	json_decref(g);
	return v;
}

static int printed_screen_found(void *ctx, double gap)
{
	json_t *g = screen_gap(ctx, log(gap));
	int found = json_is_true(json_object_get(g, "significant"));

	json_decref(g);
	return found;
}

static void printed_gap_case(double sigma, unsigned rounds, size_t sets)
{
	struct printed_screen p = { .m = { .n = 3, .effect = { 0.50, 0.35, 0.15 } }, .t = { .sigma = sigma },
				    .rounds = rounds };
	struct rate found;
	char what[300];
	double median = sim_printed_gap_rate(sets * scale, printed_screen_gap, printed_screen_found, &p, &found);

	snprintf(what, sizeof(what), "explain, no gap, 3 factors, sigma %.0f%%, %u rounds: a fresh screen whose gap is "
		 "the one explain printed (median %.3fx) found", 100 * sigma, rounds, median);
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

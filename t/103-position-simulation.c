/* A unit's place in its round, tested as a method (issue 35, item 1;
 * issue 43, items 1 to 3): on a cold host the first server of every round
 * runs slower (page cache, the first start after prepare), on a warm one
 * the last runs faster, and a drift over the run makes the later units of
 * a round differ from the earlier ones.  A seeded generator writes run
 * directories of the quickstart's shape (a baseline and 3 contexts, each at
 * 1, 2 and 4 threads, Holm across the 9 ratios of the table) in the real
 * format, the rounds in the engine's orders, each start's noise shared by
 * its thread counts (half its variance, 0.9 in the stress case), and report
 * reads each one back.  Asserted: a false "significant" of an A/A table at
 * most 5%; a place sentence where the place has no effect at most 5%; a
 * sentence that says the wrong way (a faster unit "slower", or "cold") or
 * the wrong place never; the place term's interval covering its truth
 * 93% where it is fitted; the null ratios' intervals covering 1.00x beside
 * a warm last unit; with --order fixed, a method line that says the order
 * was fixed and no place term ran, every time.  Hundreds of data sets per
 * case, each rate with its simulation interval (Wilson, 99%).
 * SLICEBENCH_SIM_SCALE=N multiplies every count.  No prerequisites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/util.h"
#include "report/report.h"
#include "sim.h"
#include "tap.h"

static char dir[512];
static size_t scale = 1;

struct place_case {
	const char *what;
	unsigned rounds;
	double first, last; /* the first and the last unit's ratio; 1: none */
	double drift;	    /* per step */
	double share;	    /* of the noise a start's steps share; 0: t/sim.c's */
	bool fixed;	    /* --order fixed */
	size_t sets;
};

/* The counts of one case. */
struct place_rates {
	struct rate table, said, wrong, cover[2], null_cover, method;
};

static const char *const place_names[2] = { "first", "last" };

/* Whether the text's sentence of place x says the way its ratio goes,
 * and names no cold start for a faster unit. */
static bool sentence_right(const char *text, size_t x, double ratio)
{
	char want[64];
	const char *line;

	snprintf(want, sizeof(want), "the %s unit of a round ran %s", place_names[x], ratio < 1 ? "slower" : "faster");
	line = strstr(text, want);
	return line && !(ratio >= 1 && strstr(line, "cold") && strstr(line, "cold") < strchr(line, '\n'));
}

static void count_places(const json_t *rep, const char *text, const struct place_case *c, struct place_rates *r)
{
	const json_t *places = json_object_get(rep, "places");
	const double truth[2] = { c->first, c->last };
	bool any = false;

	for (size_t x = 0; x < 2; x++) {
		const json_t *p = json_object_get(places, place_names[x]);
		bool shown = json_is_true(json_object_get(p, "shown"));

		any |= shown && truth[x] == 1;
		r->wrong.hits += shown && !sentence_right(text, x, json_number_value(json_object_get(p, "ratio")));
		if (json_is_number(json_object_get(p, "ratio_lo"))) {
			r->cover[x].hits += sim_covers(p, "ratio_lo", "ratio_hi", truth[x]);
			r->cover[x].n++;
		}
	}
	r->said.hits += any;
	r->said.n++;
	r->wrong.n++;
}

/* The null ratios (columns 2 and 3, truly 1.00x) cover 1. */
static void count_nulls(const json_t *rep, struct rate *cover)
{
	for (size_t row = 0; row < SIM_QUICKSTART_THREADS; row++)
		for (size_t col = 2; col < SIM_QUICKSTART_CONTEXTS; col++) {
			const json_t *cell = sim_cell(rep, row, col);

			if (!json_is_number(json_object_get(cell, "ratio_lo")))
				continue;
			cover->hits += sim_covers(cell, "ratio_lo", "ratio_hi", 1.0);
			cover->n++;
		}
}

static void run_case(const struct place_case *c)
{
	struct truth t = { .log_tps = sim_flat_tps, .sigma = 0.03, .first_ratio = c->first, .last_ratio = c->last,
			   .drift = c->drift, .start_share = c->share, .fixed_order = c->fixed,
			   .n_threads = SIM_QUICKSTART_THREADS };
	struct place_rates r = {};
	char what[400];

	for (size_t i = 0; i < c->sets * scale; i++) {
		const char *path = sim_fresh(dir, "place");
		_cleanup_free_ char *text = NULL;
		json_t *rep;

		sim_write_rounds(path, sim_quickstart, SIM_QUICKSTART_CONTEXTS, 1, c->rounds, &t, c->rounds);
		rep = sim_report_json(path);
		text = sim_report_text(path, REPORT_TEXT);
		r.table.hits += sim_any_significant(rep);
		r.table.n++;
		count_places(rep, text, c, &r);
		count_nulls(rep, &r.null_cover);
		r.method.hits += c->fixed && strstr(text, "one fixed order") && !strstr(text, "balanced orders");
		r.method.n += c->fixed;
		json_decref(rep);
	}
	snprintf(what, sizeof(what), "%s: a false \"significant\" in the table (Holm across 9)", c->what);
	sim_row(what, &r.table, "<=", 0.05);
	/* A drift is a place's effect too: the later units of a round run
	 * slower, which a sentence may say (the way it goes is asserted). */
	snprintf(what, sizeof(what), "%s: a sentence of a place without an effect%s", c->what,
		 c->drift ? " (a drift's: not asserted)" : "");
	sim_row(what, &r.said, c->drift ? "" : "<=", 0.05);
	snprintf(what, sizeof(what), "%s: a place sentence the wrong way (a faster unit slower, or called cold)", c->what);
	sim_row(what, &r.wrong, "<=", 0);
	for (size_t x = 0; x < 2; x++) {
		if (!r.cover[x].n)
			continue;
		snprintf(what, sizeof(what), "%s: where fitted, the %s place's interval covers %.2fx", c->what,
			 place_names[x], x ? c->last : c->first);
		sim_row(what, &r.cover[x], ">=", 0.93);
	}
	snprintf(what, sizeof(what), "%s: the null ratios' intervals cover 1.00x", c->what);
	sim_row(what, &r.null_cover, ">=", 0.93);
	if (c->fixed) {
		snprintf(what, sizeof(what), "%s: the method line says the order was fixed, no place term", c->what);
		sim_row(what, &r.method, ">=", 1);
	}
}

int main(void)
{
	/* 8% over the quickstart's 24 steps of 2 rounds, 36 of 3, 60 of 5. */
	static const struct place_case cases[] = {
		{ "A/A, the quickstart's shape, sigma 3%, half of it a start's, no place effect, 2 repeats", 2, 1, 1, 0, 0,
		  false, 300 },
		{ "the same, 3 repeats", 3, 1, 1, 0, 0, false, 200 },
		{ "the same, 5 repeats", 5, 1, 1, 0, 0, false, 200 },
		{ "the same, 90% of the noise a start's, 2 repeats", 2, 1, 1, 0, SIM_START_SHARE_STRESS, false, 300 },
		{ "the same, 90% a start's, 5 repeats", 5, 1, 1, 0, SIM_START_SHARE_STRESS, false, 200 },
		{ "A/A, TPS drifting 8% down over the run, 3 repeats", 3, 1, 1, -0.08 / 36, 0, false, 200 },
		{ "the same drift, 5 repeats", 5, 1, 1, -0.08 / 60, 0, false, 200 },
		{ "A/A, the first unit of every round 0.80x (a cold host), 2 repeats", 2, 0.80, 1, 0, 0, false, 300 },
		{ "the same, 3 repeats", 3, 0.80, 1, 0, 0, false, 200 },
		{ "the same, 5 repeats", 5, 0.80, 1, 0, 0, false, 200 },
		{ "A/A, the last unit of every round 1.15x (a warm host), 2 repeats", 2, 1, 1.15, 0, 0, false, 300 },
		{ "the same, 5 repeats", 5, 1, 1.15, 0, 0, false, 200 },
		{ "A/A, --order fixed, TPS drifting 8% down over the run, 2 repeats", 2, 1, 1, -0.08 / 24, 0, true, 300 },
		{ "the same, 5 repeats", 5, 1, 1, -0.08 / 60, 0, true, 200 },
	};

	scale = sim_start(dir, sizeof(dir), 103);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		run_case(&cases[i]);
	(void)remove_tree(dir);
	done_testing();
}

/* The first start of a round, tested as a method (issue 35, item 1): on a
 * cold host the first server of every round runs slower (page cache, the
 * first start after prepare).  A seeded generator writes run directories
 * of the quickstart's shape (a baseline and 3 contexts, each at 1, 2 and 4
 * threads, Holm across the 9 ratios of the table) in the real format, the
 * rounds in the engine's orders, the first unit of every round at 0.80x,
 * and report reads each one back.  Asserted: a false "significant" of the
 * table at most 5%, with the quickstart's 2 repeats and with 3 and 5; the
 * position effect reported as a figure whose interval covers the 0.80x.
 * Hundreds of data sets per case, each rate with its simulation interval
 * (Wilson, 99%), as t/065's.  SLICEBENCH_SIM_SCALE=N multiplies every
 * count.  No prerequisites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "common/util.h"
#include "sim.h"
#include "tap.h"

static char dir[512];
static size_t scale = 1;

struct position_case {
	const char *what;
	unsigned rounds;
	double first;	/* the first unit's ratio; 1: none */
	size_t sets;
	bool covers;	/* assert the position figure's coverage of the truth */
};

static void run_case(const struct position_case *c)
{
	struct truth t = { .log_tps = sim_flat_tps, .sigma = 0.03, .first_ratio = c->first,
			   .n_threads = SIM_QUICKSTART_THREADS };
	struct rate any = {}, shown = {}, cover = {};
	char what[320];

	for (size_t i = 0; i < c->sets * scale; i++) {
		const char *path = sim_fresh(dir, "position");
		const json_t *pos;
		json_t *rep;

		sim_write_rounds(path, sim_quickstart, SIM_QUICKSTART_CONTEXTS, 1, c->rounds, &t, c->rounds);
		rep = sim_report_json(path);
		any.hits += sim_any_significant(rep);
		any.n++;
		pos = json_object_get(rep, "position");
		shown.hits += json_is_true(json_object_get(pos, "shown"));
		shown.n++;
		cover.hits += sim_covers(pos, "ratio_lo", "ratio_hi", c->first);
		cover.n++;
		json_decref(rep);
	}
	snprintf(what, sizeof(what), "%s: a false \"significant\" in the table (Holm across 9)", c->what);
	sim_row(what, &any, "<=", 0.05);
	snprintf(what, sizeof(what), "%s: the position effect's interval covers %.2fx%s", c->what, c->first,
		 c->covers ? "" : " (not asserted)");
	sim_row(what, &cover, c->covers ? ">=" : "", 0.93);
	snprintf(what, sizeof(what), "%s: the position effect said (its interval excludes 1; not asserted)", c->what);
	sim_row(what, &shown, "", 0);
}

int main(void)
{
	static const struct position_case cases[] = {
		{ "A/A, the quickstart's shape, sigma 3%, the first unit of every round 0.80x, 2 repeats", 2, 0.80, 400,
		  false },
		{ "the same, 3 repeats", 3, 0.80, 300, true },
		{ "the same, 5 repeats", 5, 0.80, 300, true },
		{ "A/A, the quickstart's shape, sigma 3%, no position effect, 2 repeats", 2, 1.0, 300, false },
		{ "the same, no position effect, 5 repeats", 5, 1.0, 300, true },
	};

	scale = sim_start(dir, sizeof(dir), 103);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		run_case(&cases[i]);
	(void)remove_tree(dir);
	done_testing();
}

/* calibrate's analysis tested as a method (issue 35, item 8): A/A results
 * directories (a context and its twin, once each a round, in the real
 * format) from a known sigma, read back by calibrate_analyse() as
 * calibrate reads its own.  Asserted: the sigma interval covers the true
 * sigma at least 93% of the time, with normal and with heavy-tailed noise
 * (Student's t on 5 degrees of freedom, its SD the sigma; on 3, whose
 * fourth moment is infinite, shown and not asserted); a false-positive
 * rate stated only from enough A/A tests to bound it.
 * Hundreds of data sets per case, each rate with its simulation interval
 * (Wilson, 99%).  SLICEBENCH_SIM_SCALE=N multiplies every count.  No
 * prerequisites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "calibrate/calibrate.h"
#include "common/util.h"
#include "store/results.h"
#include "sim.h"
#include "tap.h"

static char dir[512];
static size_t scale = 1;

static const char *const twins[] = { "shell", "shell" CALIBRATE_TWIN_SUFFIX };

struct calibrate_case {
	const char *what;
	unsigned pairs, tail_df, group_rounds;
	size_t sets;
	bool assert_cover;
};

static void run_case(const struct calibrate_case *c)
{
	const double sigma = 0.03;
	struct truth t = { .log_tps = sim_flat_tps, .sigma = sigma, .tail_df = c->tail_df };
	struct rate cover = {}, rate_said = {};
	char what[300];

	for (size_t i = 0; i < c->sets * scale; i++) {
		const char *path = sim_fresh(dir, "calibrate");
		_cleanup_free_ char *why = NULL;
		struct calibrate_result res;
		json_t *doc;

		sim_write_rounds(path, twins, 2, 1, c->pairs, &t, c->pairs);
		if (results_load(path, &doc, &why) < 0)
			bail_out("results_load %s: %s", path, strempty(why));
		if (calibrate_analyse(doc, twins[0], twins[1], c->group_rounds, 0.95, &res) < 0)
			bail_out("calibrate_analyse");
		cover.hits += res.sigma_lo <= sigma && sigma <= res.sigma_hi;
		cover.n++;
		rate_said.hits += !isnan(res.fp_lo) && res.groups < 150;
		rate_said.n++;
		json_decref(doc);
	}
	snprintf(what, sizeof(what), "%s: the sigma interval covers the true 3%%%s", c->what,
		 c->assert_cover ? "" : " (not asserted)");
	sim_row(what, &cover, c->assert_cover ? ">=" : "", 0.93);
	snprintf(what, sizeof(what), "%s: a false-positive rate stated from fewer than 150 A/A tests", c->what);
	sim_row(what, &rate_said, "<=", 0);
}

int main(void)
{
	static const struct calibrate_case cases[] = {
		{ "calibrate, 40 pairs, normal log TPS, tests of 2 rounds", 40, 0, 2, 300, true },
		{ "calibrate, 40 pairs, log TPS Student's t on 5 df (kurtosis 9)", 40, 5, 2, 300, true },
		{ "calibrate, 100 pairs, log TPS Student's t on 5 df", 100, 5, 2, 200, true },
		/* no fourth moment: no interval from a sample's holds for it */
		{ "calibrate, 40 pairs, log TPS Student's t on 3 df (an infinite fourth moment)", 40, 3, 2, 200, false },
	};

	scale = sim_start(dir, sizeof(dir), 107);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		run_case(&cases[i]);
	(void)remove_tree(dir);
	done_testing();
}

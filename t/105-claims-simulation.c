/* What the sentences claim, tested on results whose truth is known (issue
 * 35, item 3; issue 39, item 4): no sentence says "significant" unless it
 * is a verdict of the adjusted family; compare's per-host ratios are of
 * their table's family, with one interval per ratio on the page; and the
 * noise advice follows from the noise verdicts (a verdict that a column's
 * starts vary more never sits beside advice to take its placement).  A
 * seeded generator writes run directories in the real format, and report
 * and compare read them back.  Hundreds of data sets per case, each rate
 * with its simulation interval (Wilson, 99%).  SLICEBENCH_SIM_SCALE=N
 * multiplies every count.  No prerequisites. */
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

/* Whether text says "significant" other than as "not significant", "no
 * significant" or "not-significant". */
static bool says_significant(const char *text)
{
	for (const char *p = text; (p = strstr(p, "significant")); p++) {
		size_t at = (size_t)(p - text);

		if (!(at >= 4 && strncmp(p - 4, "not ", 4) == 0) && !(at >= 3 && strncmp(p - 3, "no ", 3) == 0) &&
		    !(at >= 4 && strncmp(p - 4, "not-", 4) == 0) && !(at >= 3 && strncmp(p - 3, "in", 2) == 0))
			return true;
	}
	return false;
}

/* A/A tables of the quickstart's shape: a sentence that says
 * "significant" where no verdict of the table is. */
static void check_crosschecks(unsigned rounds, size_t sets)
{
	struct truth t = { .log_tps = sim_flat_tps, .sigma = 0.03, .n_threads = SIM_QUICKSTART_THREADS };
	struct rate claimed = {};
	char what[256];

	for (size_t i = 0; i < sets * scale; i++) {
		const char *path = sim_fresh(dir, "claims");
		_cleanup_free_ char *text = NULL, *md = NULL;
		json_t *rep;

		sim_write_rounds(path, sim_quickstart, SIM_QUICKSTART_CONTEXTS, 1, rounds, &t, rounds);
		rep = sim_report_json(path);
		text = sim_report_text(path, REPORT_TEXT);
		md = sim_report_text(path, REPORT_MARKDOWN);
		if (!sim_any_significant(rep)) {
			claimed.hits += says_significant(text) || says_significant(md);
			claimed.n++;
		}
		json_decref(rep);
	}
	snprintf(what, sizeof(what), "A/A, the quickstart's shape, sigma 3%%, %u repeats, no verdict significant: a sentence "
				     "(a cross-check) that says \"significant\" all the same", rounds);
	sim_row(what, &claimed, "<=", 0);
}

/* The per-host ratio of row d in compare's host table and in its table of
 * ratios: the same interval. */
static bool same_interval(const json_t *cmp, const json_t *hrow, size_t d)
{
	const json_t *ratio = json_array_get(json_object_get(hrow, "ratios"), d), *row;
	size_t i;

	json_array_foreach(json_object_get(cmp, "rows"), i, row) {
		const json_t *v = json_array_get(json_object_get(row, "values"), d);

		if (json_integer_value(json_object_get(row, "threads")) != json_integer_value(json_object_get(hrow, "threads")) ||
		    !json_equal(json_object_get(row, "column"), json_object_get(hrow, "column")))
			continue;
		return json_equal(json_object_get(v, "ratio_lo"), json_object_get(ratio, "ratio_lo")) &&
		       json_equal(json_object_get(v, "ratio_hi"), json_object_get(ratio, "ratio_hi"));
	}
	return false;
}

/* Two hosts, every ratio truly 1.00x: a per-host ratio called
 * significant, and a ratio printed with two intervals. */
static void check_host_ratios(size_t sets)
{
	static const char *const names[2] = { "epyc-1", "xeon-2" };
	struct rate called = {}, two = {};

	for (size_t i = 0; i < sets * scale; i++) {
		const char *set = sim_fresh(dir, "hosts");
		char paths[2][700];
		const char *p[2] = { paths[0], paths[1] };
		const json_t *hrow;
		bool any = false, differs = false;
		json_t *cmp;
		size_t k;

		for (size_t h = 0; h < 2; h++) {
			struct truth t = { .log_tps = sim_flat_tps, .sigma = 0.03, .host = names[h],
					   .n_threads = SIM_QUICKSTART_THREADS };

			snprintf(paths[h], sizeof(paths[h]), "%s/%s", set, names[h]);
			sim_steps_run = 0;
			sim_write_rounds(paths[h], sim_quickstart, SIM_QUICKSTART_CONTEXTS, 1, 3, &t, 3);
		}
		cmp = sim_compare_json(p, 2);
		json_array_foreach(json_object_get(json_object_get(cmp, "hosts"), "rows"), k, hrow)
			for (size_t d = 0; d < 2; d++) {
				any |= json_is_true(json_object_get(json_array_get(json_object_get(hrow, "ratios"), d),
								    "significant"));
				differs |= !same_interval(cmp, hrow, d);
			}
		called.hits += any;
		called.n++;
		two.hits += differs;
		two.n++;
		json_decref(cmp);
	}
	sim_row("compare of two hosts, every ratio truly 1.00x, the quickstart's shape, 3 repeats: a per-host ratio "
		"called significant", &called, "<=", 0.05);
	sim_row("the same: a per-host ratio printed with two different intervals", &two, "<=", 0);
}

/* Noise advice: "pinned" truly noisier than "unpinned" (4% against 1.5%
 * between starts, 10 starts, the seconds of every step at 15%, so that
 * the noisy steps and their advice are printed): advice to pin beside a
 * verdict that the pinned column's starts vary more. */
static void check_noise_advice(size_t sets)
{
	static const char *const pair[] = { "unpinned", "pinned" };
	static const double sigmas[] = { 0.015, 0.04 };
	struct truth t = { .log_tps = sim_flat_tps, .sigmas = sigmas, .seconds = 20, .within = 0.15 };
	struct rate contradicts = {}, verdict = {};

	for (size_t i = 0; i < sets * scale; i++) {
		const char *path = sim_fresh(dir, "advice");
		_cleanup_free_ char *text = NULL;
		const json_t *v;
		json_t *rep;
		bool worse;

		sim_write_rounds(path, pair, 2, 1, 10, &t, 10);
		rep = sim_report_json(path);
		text = sim_report_text(path, REPORT_TEXT);
		v = json_array_get(json_object_get(rep, "noise_verdicts"), 0);
		worse = json_is_true(json_object_get(v, "significant")) && json_number_value(json_object_get(v, "ratio")) > 1;
		verdict.hits += worse;
		verdict.n++;
		contradicts.hits += worse && strstr(text, "pin the server");
		contradicts.n++;
		json_decref(rep);
	}
	sim_row("noise, the pinned column's starts truly 2.7x as noisy, 10 starts: the verdict says so (not asserted)",
		&verdict, "", 0);
	sim_row("the same: advice to pin beside that verdict", &contradicts, "<=", 0);
}

int main(void)
{
	scale = sim_start(dir, sizeof(dir), 105);
	check_crosschecks(3, 300);
	check_crosschecks(5, 200);
	check_host_ratios(200);
	check_noise_advice(200);
	(void)remove_tree(dir);
	done_testing();
}

/* calibrate's analysis on results directories of known content, written
 * through results_put() as run writes them: the sigma of the model (cell +
 * round) against the paired differences' own formula, its chi-square
 * interval against the tables, the A/A tests counted group by group with
 * one group made to differ, Wilson's interval of the count, failed starts
 * left out, and a step of a third context refused.  Then
 * STATE/calibration.json: written, read back, quoted only on this host at
 * its thread count, and by report beside a "not significant" of a run
 * made on this host.  No prerequisites. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "calibrate/calibrate.h"
#include "stats/stats.h"
#include "host/calibration.h"
#include "host/facts.h"
#include "report/render/format.h"
#include "report/report.h"
#include "store/results.h"
#include "common/util.h"
#include "tap.h"

#define A "service"
#define B "service-twin"

/* One step of context in round, its TPS (0: a failed start). */
static void put_step(struct results *res, const char *context, unsigned round, double tps)
{
	char unit[96], file[160];
	json_t *s;

	snprintf(unit, sizeof(unit), "%s-v1-r%u", context, round);
	snprintf(file, sizeof(file), "steps/%s-t4.json", unit);
	s = json_pack("{s:s, s:i, s:i, s:s, s:f, s:f, s:b, s:s, s:i, s:f, s:n}", "context", context, "repeat", (int)round,
		      "threads", 4, "driver", "slicebench", "duration_s", 1.0, "tps", tps, "failed", 0, "unit", unit,
		      "slot", 1, "started_at", 1.8e9 + round, "vary_value");
	if (!s || results_put(res, file, s) < 0)
		bail_out("results_put %s", file);
	json_decref(s);
}

/* A results directory of rounds 1..n: A at 1000 x exp(base[i]), B at
 * 1000 x exp(base[i] - d[i]); the document of record read back. */
static json_t *write_aa(const char *name, const double *base, const double *d, size_t n, const char *extra)
{
	char path[600];
	_cleanup_free_ char *why = NULL;
	struct results *res;
	json_t *experiment, *doc, *host;

	snprintf(path, sizeof(path), "%s/%s", scratch_dir(), name);
	if (results_open(path, false, &res) < 0)
		bail_out("results_open %s", path);
	/* A third context is the experiment's (the directory's reader refuses
	 * a step of a context the experiment lacks): calibrate's to refuse. */
	experiment = json_pack("{s:s, s:[i], s:[s, s], s:s, s:i}", "name", "calibrate", "threads", 4, "contexts", A, B,
			       "baseline", A, "repeat", (int)n);
	if (extra)
		json_array_append_new(json_object_get(experiment, "contexts"), json_string(extra));
	results_put(res, "experiment.json", experiment);
	json_decref(experiment);
	if (host_facts_collect(&host) < 0 || results_put(res, "host.json", host) < 0)
		bail_out("host.json");
	json_decref(host);
	for (size_t i = 0; i < n; i++) {
		put_step(res, A, (unsigned)i + 1, 1000 * exp(base[i]));
		put_step(res, B, (unsigned)i + 1, isnan(d[i]) ? 0 : 1000 * exp(base[i] - d[i]));
	}
	if (extra)
		put_step(res, extra, 1, 1000);
	results_close(res);
	if (results_load(path, &doc, &why) < 0)
		bail_out("results_load %s: %s", path, strempty(why));
	return doc;
}

/* The model's residual sigma of two cells in n rounds, from the paired
 * differences: sum (d - mean d)^2 / (2 (n - 1)). */
static double paired_sigma(const double *d, size_t n)
{
	double mean = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		mean += d[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (d[i] - mean) * (d[i] - mean);
	return sqrt(ss / (2 * (double)(n - 1)));
}

static const double base[10] = { 0.01, -0.02, 0.03, 0.00, -0.01, 0.02, 0.04, -0.03, 0.01, 0.00 };

/* Ten rounds in five groups of two; the third group's B is 30% slower
 * twice over, every other group's differences cancel. */
static void check_counts(void)
{
	const double d[10] = { 0.05, -0.05, 0.04, -0.04, 0.30, 0.31, 0.02, -0.03, 0.06, -0.05 };
	struct calibrate_result r;
	json_t *doc = write_aa("groups", base, d, 10, NULL);
	double want = paired_sigma(d, 10), lo, hi;

	is_int(calibrate_analyse(doc, A, B, 2, 0.95, &r), 0, "calibrate_analyse of 10 rounds");
	is_int(r.n_starts, 20, "20 starts");
	is_int(r.rounds, 10, "10 rounds");
	cmp_ok(fabs(r.sigma - want), "<", 1e-9, "sigma %.6f is the paired differences' %.6f", r.sigma, want);
	cmp_ok(r.df, "==", 9, "on n - cells - rounds + 1 = 9 degrees of freedom");
	/* Bonett's interval of the differences' SD, over sqrt(2) */
	stats_sd_interval_robust(d, 10, 0.95, &lo, &hi);
	cmp_ok(fabs(r.sigma_lo - lo / M_SQRT2), "<", 1e-8, "the interval's lower end, %.4f sigma, Bonett's",
	       r.sigma_lo / r.sigma);
	cmp_ok(fabs(r.sigma_hi - hi / M_SQRT2), "<", 1e-8, "the interval's upper end, %.4f sigma", r.sigma_hi / r.sigma);
	ok(r.sigma_lo < r.sigma && r.sigma < r.sigma_hi, "the interval holds sigma");
	is_int(r.groups, 5, "five groups of two rounds");
	is_int(r.false_positives, 1, "one of them, the one made to differ, called significant by the report's verdict");
	/* Five tests bound no rate: 1 in 5 is 4-62% */
	ok(isnan(r.fp_lo) && isnan(r.fp_hi), "five tests: no false-positive rate stated (fewer than %d)",
	   CALIBRATE_FP_TESTS_MIN);
	is_int(calibrate_analyse(doc, A, B, 3, 0.95, &r), 0, "groups of three");
	is_int(r.groups, 3, "ten rounds make three groups of three, the tenth left over");
	is_int(calibrate_analyse(doc, A, B, 1, 0.95, &r), 0, "groups of one round");
	is_int(r.group_rounds, 2, "are groups of two: a test needs two rounds");
	is_int(calibrate_analyse(doc, A, B, 5, 0.95, &r), 0, "groups of five");
	is_int(r.false_positives, 0, "the group that differs is diluted in the first five");
	ok(isnan(r.fp_lo), "0 of %u: no rate stated from so few", r.groups);
	json_decref(doc);
}

/* A failed start is left out of the model and counted; a third context's
 * step is no A/A test. */
static void check_failed_and_foreign(void)
{
	const double d[10] = { 0.05, NAN, 0.04, -0.04, 0.01, -0.01, 0.02, -0.03, 0.06, -0.05 };
	struct calibrate_result r;
	json_t *doc = write_aa("failed", base, d, 10, NULL);

	is_int(calibrate_analyse(doc, A, B, 2, 0.95, &r), 0, "calibrate_analyse with a failed start");
	is_int(r.n_failed, 1, "the failed start is counted");
	is_int(r.n_starts, 20, "among 20");
	cmp_ok(r.df, "==", 8, "and left out of the model: 19 observations, 8 degrees of freedom");
	is_int(r.groups, 4, "its group, one round with both and one with A alone, has no degree of freedom: no test");
	json_decref(doc);
	doc = write_aa("foreign", base, base, 10, "user");
	is_int(calibrate_analyse(doc, A, B, 2, 0.95, &r), -EBADMSG, "a step of a third context: -EBADMSG");
	json_decref(doc);
}

/* STATE/calibration.json written, read back, and quoted only where it
 * holds. */
static void check_record(void)
{
	struct calibration c = { .threads = 4, .duration_s = 1, .pairs = 10, .level = 0.95, .sigma = 0.041,
				 .sigma_lo = 0.033, .sigma_hi = 0.054, .df = 9, .group_rounds = 2, .groups = 5,
				 .false_positives = 1, .fp_lo = 0.036, .fp_hi = 0.624 },
			   got;
	char state[600], why[160] = "";

	snprintf(state, sizeof(state), "%s/state", scratch_dir());
	snprintf(c.experiment, sizeof(c.experiment), "quickstart");
	snprintf(c.context, sizeof(c.context), A);
	snprintf(c.date, sizeof(c.date), "2026-12-06 02:40 UTC");
	is_int(calibration_for_host(state, 4, &got, why, sizeof(why)), 0, "no calibration.json: nothing to quote");
	is_str(why, "none stored", "and says there is none");
	is_int(calibration_identify(&c), 0, "this host's name, kernel and CPU");
	is_int(calibration_write(state, &c), 0, "calibration_write");
	is_int(calibration_for_host(state, 4, &got, why, sizeof(why)), 1, "quoted on this host at 4 threads");
	cmp_ok(got.sigma, "==", 0.041, "its sigma read back");
	is_int(got.false_positives, 1, "its false positives read back");
	is_str(got.context, A, "its context read back");
	is_int(calibration_for_host(state, 8, &got, why, sizeof(why)), 0, "not quoted at 8 threads");
	is_str(why, "the one stored was taken at 4 threads", "and says why");
	snprintf(c.hostname, sizeof(c.hostname), "elsewhere");
	is_int(calibration_write(state, &c), 0, "a calibration of another host");
	is_int(calibration_for_host(state, 4, &got, why, sizeof(why)), 0, "not quoted here");
	ok(strstr(why, "another host") != NULL, "and says so: %s", why);
	c.sigma = NAN;
	is_int(calibration_write(state, &c), -EDOM, "a calibration without a sigma is not written");
}

/* report's text of doc, its host facts holding the calibration c (as run
 * records this host's), or none. */
static char *report_text(json_t *doc, const struct calibration *c)
{
	struct report_options o = { .format = REPORT_TEXT };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	json_object_set_new(doc, "host", c ? json_pack("{s:o}", "calibration", calibration_to_json(c)) : json_object());
	if (!f || report_render(doc, &o, f) < 0)
		bail_out("report_render");
	fclose(f);
	return text;
}

/* report quotes the calibration run recorded with the host facts beside a
 * "not significant" at its thread count, and nowhere else. */
static void check_report_quote(void)
{
	const double d[10] = { 0.05, -0.05, 0.04, -0.04, 0.01, -0.01, 0.02, -0.03, 0.06, -0.05 };
	struct calibration c = { .threads = 4, .duration_s = 1, .pairs = 10, .level = 0.95, .sigma = 0.041,
				  .sigma_lo = 0.033, .sigma_hi = 0.054 };
	json_t *doc = write_aa("quoted", base, d, 10, NULL);
	char *text;

	snprintf(c.experiment, sizeof(c.experiment), "quickstart");
	snprintf(c.context, sizeof(c.context), A);
	snprintf(c.date, sizeof(c.date), "2026-12-06 02:40 UTC");
	if (calibration_identify(&c) < 0)
		bail_out("calibration_identify");
	text = report_text(doc, &c);
	ok(strstr(text, "calibrated: on this host the sigma between starts at 4 threads is 4.1% (3.3-5.4%), slicebench "
			"calibrate's figure for service of quickstart, measured 2026-12-06 02:40 UTC") != NULL,
	   "report quotes the host's calibration, from its host facts, beside the n.s. at 4 threads");
	free(text);
	c.threads = 8;
	text = report_text(doc, &c);
	ok(!strstr(text, "calibrated:"), "not one taken at 8 threads");
	free(text);
	text = report_text(doc, NULL);
	ok(!strstr(text, "calibrated:"), "nor from host facts that hold none, whatever this machine's state holds");
	free(text);
	json_decref(doc);
}

int main(void)
{
	check_counts();
	check_failed_and_foreign();
	check_record();
	/* A sentence on one line (t/141 holds the layout at 100 columns). */
	table_set_width(1000);
	check_report_quote();
	return done_testing();
}

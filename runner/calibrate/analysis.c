/* The A/A test's analysis (calibrate/calibrate.h): the steps of the
 * document of record as observations of the one model, fitted once to
 * every round for sigma (its interval from the rounds' differences,
 * robust to heavy tails), and each group of rounds judged by the report's
 * own verdicts. */
#include <math.h>

#include "calibrate/calibrate.h"
#include "report/report.h"
#include "stats/block.h"
#include "common/util.h"

/* Every step of a or b as an observation (cell 0: a, 1: b; its round the
 * block), the failed ones counted.  *ret (to free()) holds *ret_n. */
static int observations(const json_t *doc, const char *a, const char *b, struct calibrate_result *res,
			struct block_obs **ret, size_t *ret_n)
{
	const json_t *steps = json_object_get(doc, "steps"), *st;
	_cleanup_free_ struct block_obs *obs = calloc(json_array_size(steps) + 1, sizeof(*obs));
	long long threads = -1;
	size_t i, n = 0;

	if (!obs)
		return -ENOMEM;
	json_array_foreach(steps, i, st) {
		const char *name = json_string_value(json_object_get(st, "context"));
		json_int_t round = json_integer_value(json_object_get(st, "repeat"));
		long long t = (long long)json_number_value(json_object_get(st, "threads"));
		double tps = report_step_tps(st);

		if (!name || (!streq(name, a) && !streq(name, b)) || round < 1 || round > 1000000 ||
		    (threads >= 0 && t != threads))
			return -EBADMSG;
		threads = t;
		res->n_starts++;
		res->rounds = MAX(res->rounds, (unsigned)round);
		if (isnan(tps)) {
			res->n_failed++;
			continue;
		}
		obs[n] = (struct block_obs){ .cell = streq(name, a) ? 0 : 1, .block = (size_t)round - 1, .y = log(tps), .start = n };
		n++;
	}
	*ret = obs;
	obs = NULL;
	*ret_n = n;
	return 0;
}

/* The document of record of the rounds [first, first + k) of doc,
 * renumbered from 1: a run of the file's repeat as report reads it. */
static json_t *group_document(const json_t *doc, const char *a, const char *b, size_t first, size_t k)
{
	json_t *sub = json_pack("{s:O?, s:{s:s, s:s, s:[s, s], s:O?}, s:[]}", "format_version",
				json_object_get(doc, "format_version"), "experiment", "name", "calibrate", "baseline", a,
				"contexts", a, b, "threads", json_object_get(json_object_get(doc, "experiment"), "threads"),
				"steps");
	const json_t *st;
	size_t i;

	json_array_foreach(json_object_get(doc, "steps"), i, st) {
		json_int_t round = json_integer_value(json_object_get(st, "repeat"));
		json_t *copy;

		if (!sub || round < (json_int_t)first + 1 || round > (json_int_t)(first + k))
			continue;
		copy = json_deep_copy(st);
		if (!copy || json_object_set_new(copy, "repeat", json_integer(round - (json_int_t)first)) < 0 ||
		    json_array_append_new(json_object_get(sub, "steps"), copy) < 0) {
			json_decref(sub);
			sub = NULL;
		}
	}
	return sub;
}

/* The test of b against a in the rounds [first, first + k), through the
 * report's own model and verdicts (report_comparisons()), as a run of the
 * file would be judged: 1 significant, 0 not, -EDOM no interval, -ENOMEM. */
static int group_test(const json_t *doc, const char *a, const char *b, size_t first, size_t k, double level)
{
	_cleanup_free_ struct report_comparison *list = NULL;
	json_t *sub = group_document(doc, a, b, first, k);
	size_t n = 0;
	int r = sub ? report_comparisons(sub, level, &list, &n) : -ENOMEM;

	json_decref(sub);
	if (r == -ENOMEM)
		return r;
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (streq(list[i].context, b)) {
			const struct stats_ratio *v = &list[i].r;

			if (v->verdict == STATS_TOO_FEW || v->verdict == STATS_NO_SPREAD || isnan(v->ratio))
				return -EDOM;
			return v->verdict == STATS_SIGNIFICANT;
		}
	return -EDOM;
}

/* The groups' tests, and their rate where they are enough to bound it. */
static int count_false_positives(const json_t *doc, const char *a, const char *b, struct calibrate_result *res)
{
	int r;

	for (size_t first = 0; first + res->group_rounds <= res->rounds; first += res->group_rounds) {
		r = group_test(doc, a, b, first, res->group_rounds, res->level);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			continue;
		res->groups++;
		res->false_positives += (unsigned)r;
	}
	if (res->groups >= CALIBRATE_FP_TESTS_MIN)
		stats_wilson(res->false_positives, res->groups, res->level, &res->fp_lo, &res->fp_hi);
	return 0;
}

/* sigma between starts and its interval from the rounds' differences
 * between the twins, d = ln a - ln b: sigma is SD(d) / sqrt(2), the
 * block model's for two cells, and its interval Bonett's, which holds
 * under heavy tails. */
static void sigma_of(const struct block_obs *obs, size_t n, struct calibrate_result *res)
{
	_cleanup_free_ double *a = calloc(res->rounds + 1, sizeof(double)), *b = calloc(res->rounds + 1, sizeof(double)),
			      *d = calloc(res->rounds + 1, sizeof(double));
	size_t m = 0;

	if (!a || !b || !d)
		return;
	for (size_t r = 0; r < res->rounds; r++)
		a[r] = b[r] = NAN;
	for (size_t i = 0; i < n; i++)
		*(obs[i].cell == 0 ? &a[obs[i].block] : &b[obs[i].block]) = obs[i].y;
	for (size_t r = 0; r < res->rounds; r++)
		if (!isnan(a[r]) && !isnan(b[r]))
			d[m++] = a[r] - b[r];
	stats_sd_interval_robust(d, m, res->level, &res->sigma_lo, &res->sigma_hi);
	res->sigma_lo /= M_SQRT2;
	res->sigma_hi /= M_SQRT2;
}

int calibrate_analyse(const json_t *doc, const char *a, const char *b, unsigned group_rounds, double level,
		      struct calibrate_result *ret)
{
	_cleanup_free_ struct block_obs *obs = NULL;
	struct calibrate_result res = { .sigma = NAN, .sigma_lo = NAN, .sigma_hi = NAN, .df = NAN, .fp_lo = NAN,
					.fp_hi = NAN, .level = level, .group_rounds = MAX(group_rounds, 2u) };
	struct block_fit fit = {};
	size_t n = 0;
	int r;

	r = observations(doc, a, b, &res, &obs, &n);
	if (r < 0)
		return r;
	if (n == 0)
		return -EDOM;
	r = block_fit(obs, n, 2, res.rounds, &fit);
	if (r == -ENOMEM)
		return r;
	if (r >= 0 && fit.df > 0) {
		res.sigma = block_sigma(&fit);
		res.df = fit.df;
		sigma_of(obs, n, &res);
	}
	block_fit_done(&fit);
	r = count_false_positives(doc, a, b, &res);
	if (r < 0)
		return r;
	*ret = res;
	return 0;
}

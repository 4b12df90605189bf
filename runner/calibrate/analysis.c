/* The A/A test's analysis (calibrate/calibrate.h): the steps of the
 * document of record as observations of the one model, fitted once to
 * every round for sigma and once per group of rounds for the tests. */
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
		obs[n++] = (struct block_obs){ .cell = streq(name, a) ? 0 : 1, .block = (size_t)round - 1, .y = log(tps) };
	}
	*ret = obs;
	obs = NULL;
	*ret_n = n;
	return 0;
}

/* The model's test of b against a in the rounds [first, first + k): 1
 * significant, 0 not, -EDOM no interval (a side without starts, or no
 * residual degrees of freedom), -ENOMEM. */
static int group_test(const struct block_obs *obs, size_t n, size_t first, size_t k, double level)
{
	_cleanup_free_ struct block_obs *g = calloc(n + 1, sizeof(*g));
	struct block_fit fit = {};
	struct stats_ratio ratio;
	size_t m = 0;
	int r;

	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (obs[i].block >= first && obs[i].block < first + k) {
			g[m] = obs[i];
			g[m++].block -= first;
		}
	r = block_fit(g, m, 2, k, &fit);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return -EDOM;
	r = block_ratio(&fit, 1, 0, level, &ratio);
	block_fit_done(&fit);
	if (r < 0 || ratio.verdict == STATS_TOO_FEW || ratio.verdict == STATS_NO_SPREAD)
		return -EDOM;
	return ratio.verdict == STATS_SIGNIFICANT;
}

/* The groups' tests and their rate. */
static int count_false_positives(const struct block_obs *obs, size_t n, struct calibrate_result *res)
{
	int r;

	for (size_t first = 0; first + res->group_rounds <= res->rounds; first += res->group_rounds) {
		r = group_test(obs, n, first, res->group_rounds, res->level);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			continue;
		res->groups++;
		res->false_positives += (unsigned)r;
	}
	stats_wilson(res->false_positives, res->groups, res->level, &res->fp_lo, &res->fp_hi);
	return 0;
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
		stats_sigma_interval(res.sigma, res.df, level, &res.sigma_lo, &res.sigma_hi);
	}
	block_fit_done(&fit);
	r = count_false_positives(obs, n, &res);
	if (r < 0)
		return r;
	*ret = res;
	return 0;
}

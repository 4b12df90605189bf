/* stats: Welch's t on log TPS and Fieller's share interval against reference
 * values that SciPy computed another way (t/fixtures/stats/make-reference.py
 * wrote t/fixtures/stats/reference.txt: the intervals by inverting SciPy's
 * own Welch test numerically); the block model's ratios and shares, the
 * rank test and Holm's step-down against statsmodels and SciPy
 * (make-block-reference.py, block-reference.txt); then the cases without
 * an interval and the parsing of --confidence.  No prerequisites. */
#include <math.h>
#include <stdio.h>

#include "stats/block.h"
#include "stats/rank.h"
#include "stats/stats.h"
#include "tap.h"
#include "common/util.h"

#define VALUES_MAX 32
/* The reference's intervals come from root-finding to 1e-15; GSL's t
 * quantile is good to about 1e-10 relative. */
#define TOLERANCE 1e-8

static bool close_to(double got, double want)
{
	if (isinf(want))
		return got == want;
	return fabs(got - want) <= TOLERANCE * MAX(fabs(want), 1e-3);
}

static bool near_at(int line, double got, double want, const char *what, const char *label)
{
	bool good = close_to(got, want);

	ok_at(__FILE__, line, good, "%s: %s", label, what);
	if (!good)
		diag("got %.17g, want %.17g", got, want);
	return good;
}
#define near(got, want, what, label) near_at(__LINE__, (got), (want), (what), (label))

static size_t parse_values(const char *s, double *v)
{
	_cleanup_free_ char *copy = strdup(s);
	char *save = NULL;
	size_t n = 0;

	if (!copy)
		bail_out("out of memory");
	for (char *tok = strtok_r(copy, ",", &save); tok && n < VALUES_MAX; tok = strtok_r(NULL, ",", &save))
		v[n++] = strtod(tok, NULL);
	return n;
}

static void check_ratio(const char *line, size_t no)
{
	char level_s[32], a_s[512], b_s[512], label[64];
	double a[VALUES_MAX], b[VALUES_MAX], level, want[5];
	struct stats_ratio r;
	size_t na, nb;

	if (sscanf(line, "ratio %31s %511s %511s %lf %lf %lf %lf %lf", level_s, a_s, b_s, &want[0], &want[1], &want[2],
		   &want[3], &want[4]) != 8)
		bail_out("reference line %zu does not parse: %s", no, line);
	level = strtod(level_s, NULL);
	na = parse_values(a_s, a);
	nb = parse_values(b_s, b);
	snprintf(label, sizeof(label), "ratio line %zu (n=%zu/%zu, %s)", no, na, nb, level_s);
	is_int(stats_ratio(a, na, b, nb, level, &r), 0, "%s: computed", label);
	near(r.ratio, want[0], "ratio of the geometric means", label);
	near(r.lo, want[1], "lower bound", label);
	near(r.hi, want[2], "upper bound", label);
	near(r.p, want[3], "p-value", label);
	near(r.df, want[4], "Welch-Satterthwaite df", label);
	is_int(r.verdict, want[1] > 1 || want[2] < 1 ? STATS_SIGNIFICANT : STATS_NOT_SIGNIFICANT,
	       "%s: significant exactly when the interval excludes 1", label);
	ok((r.verdict == STATS_SIGNIFICANT) == (r.p < 1 - level), "%s: and then p < alpha", label);
}

static void check_share(const char *line, size_t no)
{
	char level_s[32], x_s[512], a_s[512], b_s[512], label[64];
	double x[VALUES_MAX], a[VALUES_MAX], b[VALUES_MAX], want[4];
	struct stats_share s;
	size_t nx, na, nb;
	int bounded;

	if (sscanf(line, "share %31s %511s %511s %511s %lf %lf %lf %lf %d", level_s, x_s, a_s, b_s, &want[0], &want[1],
		   &want[2], &want[3], &bounded) != 9)
		bail_out("reference line %zu does not parse: %s", no, line);
	nx = parse_values(x_s, x);
	na = parse_values(a_s, a);
	nb = parse_values(b_s, b);
	snprintf(label, sizeof(label), "share line %zu (%s)", no, level_s);
	is_int(stats_share(x, nx, a, na, b, nb, strtod(level_s, NULL), &s), 0, "%s: computed", label);
	near(s.share, want[0], "share", label);
	near(s.df, want[3], "df at the estimate", label);
	is_int(s.bounded, bounded, "%s: bounded as in the reference", label);
	near(s.lo, want[1], "lower bound", label);
	near(s.hi, want[2], "upper bound", label);
}

static void check_reference(void)
{
	_cleanup_free_ char *path = NULL, *line = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t cap = 0, no = 0, n_ratio = 0, n_share = 0;

	xasprintf(&path, "%s/t/fixtures/stats/reference.txt", getenv("SLICEBENCH_TOP") ?: ".");
	f = fopen(path, "re");
	if (!f)
		bail_out("cannot open %s: %m", path);
	while (getline(&line, &cap, f) > 0) {
		no++;
		if (strncmp(line, "ratio ", 6) == 0) {
			check_ratio(line, no);
			n_ratio++;
		} else if (strncmp(line, "share ", 6) == 0) {
			check_share(line, no);
			n_share++;
		}
	}
	ok(n_ratio >= 10 && n_share >= 4, "the reference holds %zu ratio and %zu share cases", n_ratio, n_share);
}

#define OBS_MAX 64

/* "c:b:tps,..." into obs; how many. */
static size_t parse_obs(const char *s, struct block_obs *obs)
{
	_cleanup_free_ char *copy = strdup(s);
	char *save = NULL;
	size_t n = 0;

	if (!copy)
		bail_out("out of memory");
	for (char *tok = strtok_r(copy, ",", &save); tok && n < OBS_MAX; tok = strtok_r(NULL, ",", &save)) {
		unsigned long c, b;
		double t;

		if (sscanf(tok, "%lu:%lu:%lf", &c, &b, &t) != 3)
			bail_out("observation '%s' does not parse", tok);
		obs[n++] = (struct block_obs){ .cell = c, .block = b, .y = log(t) };
	}
	return n;
}

static void check_block(const char *line, size_t no)
{
	char level_s[32], obs_s[1024], label[64];
	struct block_obs obs[OBS_MAX];
	unsigned long cells, blocks, a, b;
	double want[6];
	struct block_fit f;
	struct stats_ratio r;
	size_t n;

	if (sscanf(line, "block %31s %lu %lu %1023s %lu %lu %lf %lf %lf %lf %lf %lf", level_s, &cells, &blocks, obs_s, &a,
		   &b, &want[0], &want[1], &want[2], &want[3], &want[4], &want[5]) != 12)
		bail_out("reference line %zu does not parse: %s", no, line);
	n = parse_obs(obs_s, obs);
	snprintf(label, sizeof(label), "block line %zu (%lu cells, %zu obs, %s)", no, cells, n, level_s);
	is_int(block_fit(obs, n, cells, blocks, &f), 0, "%s: fitted", label);
	is_int(block_ratio(&f, a, b, strtod(level_s, NULL), &r), 0, "%s: ratio computed", label);
	near(r.ratio, want[0], "ratio", label);
	near(r.lo, want[1], "lower bound", label);
	near(r.hi, want[2], "upper bound", label);
	near(r.p, want[3], "p-value", label);
	near(r.df, want[4], "residual df", label);
	near(block_sigma(&f), want[5], "residual sigma", label);
	block_fit_done(&f);
}

static void check_block_share(const char *line, size_t no)
{
	char level_s[32], obs_s[1024], num_s[256], den_s[256], label[64];
	struct block_obs obs[OBS_MAX];
	double num[VALUES_MAX], den[VALUES_MAX], want[4];
	unsigned long cells, blocks;
	struct block_fit f;
	struct stats_share s;
	int bounded;
	size_t n;

	if (sscanf(line, "bshare %31s %lu %lu %1023s %255s %255s %lf %lf %lf %lf %d", level_s, &cells, &blocks, obs_s,
		   num_s, den_s, &want[0], &want[1], &want[2], &want[3], &bounded) != 11)
		bail_out("reference line %zu does not parse: %s", no, line);
	n = parse_obs(obs_s, obs);
	parse_values(num_s, num);
	parse_values(den_s, den);
	snprintf(label, sizeof(label), "bshare line %zu (%s)", no, level_s);
	is_int(block_fit(obs, n, cells, blocks, &f), 0, "%s: fitted", label);
	is_int(block_share(&f, num, den, strtod(level_s, NULL), &s), 0, "%s: share computed", label);
	near(s.share, want[0], "share", label);
	near(s.df, want[3], "residual df", label);
	is_int(s.bounded, bounded, "%s: bounded as in the reference", label);
	near(s.lo, want[1], "lower bound (Fieller)", label);
	near(s.hi, want[2], "upper bound (Fieller)", label);
	block_fit_done(&f);
}

static void check_rank(const char *line, size_t no)
{
	char level_s[32], a_s[512], b_s[512], label[64];
	double a[VALUES_MAX], b[VALUES_MAX], want[4];
	struct stats_rank r;
	size_t na, nb;

	if (sscanf(line, "rank %31s %511s %511s %lf %lf %lf %lf", level_s, a_s, b_s, &want[0], &want[1], &want[2],
		   &want[3]) != 7)
		bail_out("reference line %zu does not parse: %s", no, line);
	na = parse_values(a_s, a);
	nb = parse_values(b_s, b);
	snprintf(label, sizeof(label), "rank line %zu (n=%zu/%zu, %s)", no, na, nb, level_s);
	is_int(stats_rank_ratio(a, na, b, nb, strtod(level_s, NULL), &r), 0, "%s: computed", label);
	near(r.ratio, want[0], "Hodges-Lehmann ratio", label);
	near(r.lo, want[1], "lower bound", label);
	near(r.hi, want[2], "upper bound", label);
	near(r.p, want[3], "Mann-Whitney p (exact)", label);
	ok(r.exact, "%s: exact", label);
}

static void check_holm(const char *line, size_t no)
{
	char level_s[32], p_s[512], adj_s[512], label[64];
	double p[VALUES_MAX], want[VALUES_MAX], adj[VALUES_MAX], lev[VALUES_MAX], level;
	size_t n;

	if (sscanf(line, "holm %31s %511s %511s", level_s, p_s, adj_s) != 3)
		bail_out("reference line %zu does not parse: %s", no, line);
	level = strtod(level_s, NULL);
	n = parse_values(p_s, p);
	is_int(parse_values(adj_s, want), (long)n, "holm line %zu: as many adjusted as raw", no);
	stats_holm(p, n, level, adj, lev);
	for (size_t i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "holm line %zu, p %g", no, p[i]);
		near(adj[i], want[i], "adjusted p", label);
		/* The interval's level agrees with the decision: p below 1 - its level exactly when rejected. */
		ok((p[i] <= 1 - lev[i] + 1e-15) == (adj[i] <= 1 - level + 1e-15), "%s: its interval's level %g agrees with "
		   "the decision", label, lev[i]);
	}
}

static void check_block_reference(void)
{
	_cleanup_free_ char *path = NULL, *line = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t cap = 0, no = 0, n[4] = {};

	xasprintf(&path, "%s/t/fixtures/stats/block-reference.txt", getenv("SLICEBENCH_TOP") ?: ".");
	f = fopen(path, "re");
	if (!f)
		bail_out("cannot open %s: %m", path);
	while (getline(&line, &cap, f) > 0) {
		no++;
		if (strncmp(line, "block ", 6) == 0 && ++n[0])
			check_block(line, no);
		else if (strncmp(line, "bshare ", 7) == 0 && ++n[1])
			check_block_share(line, no);
		else if (strncmp(line, "rank ", 5) == 0 && ++n[2])
			check_rank(line, no);
		else if (strncmp(line, "holm ", 5) == 0 && ++n[3])
			check_holm(line, no);
	}
	ok(n[0] >= 5 && n[1] >= 3 && n[2] >= 4 && n[3] >= 3, "the block reference holds %zu block, %zu share, %zu rank "
	   "and %zu holm cases", n[0], n[1], n[2], n[3]);
}

/* What the model refuses, and its cases without an interval. */
static void check_block_edges(void)
{
	const struct block_obs two[] = { { 0, 0, 1 }, { 1, 0, 1.1 } }, apart[] = { { 0, 0, 1 }, { 1, 1, 1.2 } },
			       bad[] = { { 2, 0, 1 } };
	struct block_fit f;
	struct stats_ratio r;
	double w[2] = { 1, 0 }, est, se;

	is_int(block_fit(two, 2, 2, 1, &f), 0, "one round of two cells: fitted");
	is_int(block_ratio(&f, 1, 0, 0.95, &r), 0, "one round: ratio computed");
	is_int(r.verdict, STATS_TOO_FEW, "one round: no degrees of freedom, no verdict");
	cmp_ok(fabs(r.ratio - exp(0.1)), "<", 1e-12, "one round: the ratio is still there");
	is_int(block_contrast(&f, w, &est, &se), -EDOM, "a weight vector that is not a contrast: -EDOM");
	block_fit_done(&f);
	is_int(block_fit(apart, 2, 2, 2, &f), -EDOM, "cells that share no round: not connected, -EDOM");
	is_int(block_fit(bad, 1, 2, 1, &f), -EINVAL, "a cell index out of range: -EINVAL");
}

static void check_without_interval(void)
{
	const double one[] = { 500 }, three[] = { 480, 500, 520 }, flat[] = { 300, 300, 300 }, flat2[] = { 200, 200 };
	const double zero[] = { 100, 0 }, nan_[] = { 100, NAN };
	struct stats_ratio r;
	struct stats_share s;

	is_int(stats_ratio(one, 1, three, 3, 0.95, &r), 0, "one repeat: computed");
	is_int(r.verdict, STATS_TOO_FEW, "one repeat: too few for an interval");
	ok(isnan(r.lo) && isnan(r.hi) && isnan(r.p), "one repeat: no interval, no p");
	cmp_ok(fabs(r.ratio - 500 / cbrt(480.0 * 500 * 520)), "<", 1e-12, "one repeat: the ratio is still there");
	ok(isinf(stats_ratio_precision(&r)), "one repeat: precision unknown");

	is_int(stats_ratio(flat, 3, flat2, 2, 0.95, &r), 0, "no spread: computed");
	is_int(r.verdict, STATS_NO_SPREAD, "no spread on either side: no verdict");
	ok(isnan(r.lo) && isnan(r.p), "no spread: no interval, no p");
	cmp_ok(fabs(r.ratio - 1.5), "<", 1e-12, "no spread: ratio 1.5");

	is_int(stats_ratio(one, 0, three, 3, 0.95, &r), 0, "an empty side: computed");
	ok(isnan(r.ratio), "an empty side: no ratio");

	is_int(stats_ratio(zero, 2, three, 3, 0.95, &r), -EDOM, "a repeat at 0 TPS has no logarithm: -EDOM");
	is_int(stats_ratio(nan_, 2, three, 3, 0.95, &r), -EDOM, "NAN: -EDOM");
	is_int(stats_ratio(three, 3, three, 3, 1.0, &r), -EINVAL, "level 1: -EINVAL");
	is_int(stats_ratio(three, 3, three, 3, 0, &r), -EINVAL, "level 0: -EINVAL");

	is_int(stats_ratio(three, 3, three, 3, 0.95, &r), 0, "A against itself: computed");
	cmp_ok(r.ratio, "==", 1.0, "A against itself: 1.00x");
	is_int(r.verdict, STATS_NOT_SIGNIFICANT, "A against itself: not significant");
	cmp_ok(r.p, "==", 1.0, "A against itself: p = 1");
	/* precision: exp(t se) - 1, symmetric on the log scale */
	cmp_ok(fabs(stats_ratio_precision(&r) - (r.hi - 1)), "<", 1e-12, "precision: hi / ratio - 1");

	is_int(stats_share(three, 3, three, 3, three, 3, 0.95, &s), 0, "share of a zero gap: computed");
	ok(isnan(s.share), "share of a zero gap: none");
	is_int(stats_share(one, 1, three, 3, flat, 3, 0.95, &s), 0, "share with one repeat: computed");
	ok(!isnan(s.share) && isnan(s.lo) && !s.bounded, "share with one repeat: an estimate, no interval");
	is_int(stats_share(flat2, 2, flat, 3, flat2, 2, 0.95, &s), 0, "share without spread: computed");
	ok(s.share == 0 && isnan(s.lo), "share without spread: 0, no interval");
}

static void check_cv(void)
{
	const double v[] = { 90, 100, 110 }, one[] = { 5 };

	cmp_ok(fabs(stats_cv(v, 3) - 0.1), "<", 1e-12, "cv of 90, 100, 110 is 10%%");
	ok(isnan(stats_cv(one, 1)), "cv of one value: NAN");
}

static void check_confidence(void)
{
	static const struct {
		const char *s;
		int r;
		double want;
	} cases[] = {
		{ "95", 0, 0.95 },	  { "95%", 0, 0.95 },	  { "97.5", 0, 0.975 },	 { "99.8", 0, 0.998 },
		{ "50.1", 0, 0.501 },	  { "50", -ERANGE, 0 },	  { "99.9", -ERANGE, 0 }, { "100", -ERANGE, 0 },
		{ "0.95", -ERANGE, 0 },	  { "", -EINVAL, 0 },	  { "%", -EINVAL, 0 },	 { "-95", -EINVAL, 0 },
		{ "95x", -EINVAL, 0 },	  { "1e2", -EINVAL, 0 },  { " 95", -EINVAL, 0 }, { "nan", -EINVAL, 0 },
		{ "9.5.1", -EINVAL, 0 },
	};
	double v, p;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		v = -1;
		is_int(stats_parse_confidence(cases[i].s, &v), cases[i].r, "--confidence '%s'", cases[i].s);
		if (cases[i].r == 0)
			cmp_ok(fabs(v - cases[i].want), "<", 1e-12, "--confidence '%s' is %g", cases[i].s, cases[i].want);
	}
	is_int(parse_percent("2%", true, &p), 0, "'2%%' is a percentage");
	cmp_ok(p, "==", 2.0, "'2%%' is 2");
	is_int(parse_percent("2", true, &p), -EINVAL, "'2' without the sign is not, where the sign is required");
	is_int(parse_percent("2.5%", true, &p), 0, "'2.5%%' is");
}

int main(void)
{
	check_reference();
	check_block_reference();
	check_block_edges();
	check_without_interval();
	check_cv();
	check_confidence();
	return done_testing();
}

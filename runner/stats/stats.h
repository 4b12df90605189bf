/* The statistics the report, compare, explain and run share: the median,
 * and how sure a ratio or a share is, from a handful of server restarts.
 * Small and pure: no JSON, no formatting, no logging.
 *
 * The unit of replication is the restart: each repeat starts a fresh
 * server, and a restart moves TPS by a few percent (buffer pool layout,
 * thread placement), more than the seconds within one start do.  So the
 * interval comes from the repeats, not from the per-second samples.
 *
 * Ratios: Welch's t on log TPS.  With a_i and b_j the repeats of the two
 * sides, d = mean(ln a) - mean(ln b), se^2 = var(ln a)/n_a + var(ln b)/n_b
 * (sample variances), Welch-Satterthwaite degrees of freedom, and the ratio
 * exp(d) (the ratio of the geometric means) with the interval
 * exp(d -+ t(1 - alpha/2, df) se) and the two-sided p-value of t = d / se.
 * The interval excludes 1 exactly when p < alpha: that is "significant".
 * With two repeats a side df is between 1 and 2 and t(0.975, 1) is 12.7:
 * the intervals are wide by construction, which the renderers say.
 *
 * Shares (explain), on the same scale: with x the repeats of a mix and a,
 * b the two ends, s = (mean ln x - mean ln b) / (mean ln a - mean ln b),
 * the part of the gap from b to a (as a log ratio) that the mix covers,
 * with Fieller's interval for that ratio of two correlated (both contain
 * mean ln b) differences of means, its t quantile at the
 * Welch-Satterthwaite degrees of freedom of
 * mean ln x - s mean ln a - (1 - s) mean ln b at the estimate s.  The
 * denominator is the gap that the ratio's test judges, so a significant gap
 * usually gives a bounded interval; when the gap is not clearly away from
 * zero the set is unbounded, and says so.
 *
 * Distribution functions are GSL's.  Errors are -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "stats/power.h"

/* The default level of --confidence, and its open range in percent. */
#define STATS_CONFIDENCE_DEFAULT 0.95
#define STATS_CONFIDENCE_MIN_PCT 50.0
#define STATS_CONFIDENCE_MAX_PCT 99.9

/* qsort's comparison of two doubles, ascending. */
int stats_cmp_double(const void *a, const void *b);
/* The median of v[0..n), NAN for n == 0.  Sorts v in place. */
double stats_median(double *v, size_t n);
/* The logarithms of v[0..n) into out; -EDOM for a value without one. */
int stats_logs(const double *v, size_t n, double *out);

enum stats_verdict {
	STATS_SIGNIFICANT,     /* the interval excludes 1 (p < alpha) */
	STATS_NOT_SIGNIFICANT, /* it contains 1 */
	STATS_TOO_FEW,	       /* fewer than two repeats on a side: no interval */
	STATS_NO_SPREAD,       /* no variation on either side: no interval */
};

struct stats_ratio {
	size_t n_a, n_b;
	double ratio;	    /* geometric mean of a over that of b; NAN: a side is empty */
	double lo, hi;	    /* the interval at the level asked for; NAN: none (see verdict) */
	double p;	    /* two-sided p-value, adjusted for the family (Holm); NAN: none */
	double df;	    /* degrees of freedom of the interval; NAN: none */
	enum stats_verdict verdict;
	double se;	    /* of the log ratio; NAN: none */
	double sigma;	    /* the standard deviation of ln TPS between starts behind se; NAN: none */
	/* Among many comparisons: the family's size (1: alone), the p before
	 * the adjustment, and the level the interval was made at. */
	size_t family;
	double p_raw, level;
	/* The smallest gap (a ratio >= 1, either way) that these repeats
	 * detect with STATS_POWER at the interval's level, se being an
	 * estimate (stats_mde_ms()); NAN: none. */
	double mde;
	/* The mean squares se was estimated from, as its design gives them
	 * (stats/block.h: between starts and within them), for the mde; n_ms
	 * 0: one, on df. */
	struct stats_ms ms[STATS_MS_MAX];
	size_t n_ms;
};

/* a against b at level (0.95).  -EINVAL: a level outside (0, 1); -EDOM: a
 * value that is not positive and finite (TPS has a logarithm). */
int stats_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level, struct stats_ratio *ret);

/* The two-sided critical value t(1 - (1 - level)/2, df). */
double stats_t_critical(double level, double df);

/* A log ratio d with standard error se on df degrees of freedom, made a
 * verdict at level (interval, p, and the mde of se estimated from
 * ret->ms, or on df where ret->n_ms is 0; family 1).  se 0: STATS_NO_SPREAD;
 * df not above 0 or se NAN: STATS_TOO_FEW. */
void stats_ratio_from_t(double d, double se, double df, double level, struct stats_ratio *ret);

/* The fewest residual degrees of freedom a variance group of its own
 * takes on average: with fewer, a group's sigma rests on a few squared
 * residuals mixed with the others' (the method of moments subtracts them),
 * and a comparison's Satterthwaite degrees of freedom fall to 1 or 2,
 * wider than one pooled sigma's by more than the noise between columns
 * usually differs (a real run of a shell and a service under CPUQuota=,
 * 5 rounds of 3 columns, lost its 3x gap to them). */
#define STATS_GROUP_DF_MIN 4.0
/* The fewest residual degrees of freedom a fit keeps its position terms
 * with (stats/block.c says why): the block model's (stats/block.h), which the plans' smallest gap follows. */
#define STATS_POSITION_DF_MIN 4.0
/* The share of a start's noise its steps have in common that a plan
 * assumes (report says what it found, "start_share"). */
#define STATS_PLAN_START_SHARE 0.5
/* The degrees of freedom behind a comparison of two columns in `rounds`
 * rounds at `rows` thread counts, as report's model gives them
 * (stats/block.h, report/judge/verdicts.c: a fit of the two columns, its
 * starts the unit), where a start's steps share `share` of its noise:
 * R - 1 between starts, and what the (R - 1)(T - 1) within them add, by
 * Satterthwaite at the mean squares' expectations. */
double stats_design_df(unsigned rounds, size_t rows, double share);
/* What such a design can tell of two columns apart at STATS_POWER with
 * sigma between starts (itself estimated on sigma_df degrees of freedom,
 * INFINITY: taken as known), at the level of the first Holm step of a
 * family of `family` ratios (the level an n.s. verdict of that table is
 * made at): stats_mde_ms() over the design's two mean squares, whose
 * Satterthwaite degrees of freedom are random; stats_design_df() into
 * *ret_df. */
double stats_design_mde(double sigma, double sigma_df, unsigned rounds, size_t rows, double share, size_t family,
			double level, double *ret_df);
/* The same of explain's gap, A against B in `rounds` rounds of `mixes`
 * mixes (one step a start), A and B each their own sigma where the model
 * gives them one (stats_design_df() of that into *ret_df). */
double stats_design_mde_mixes(double sigma, size_t mixes, unsigned rounds, double level, double *ret_df);

/* The interval at level of a standard deviation sigma estimated on df
 * degrees of freedom (normal errors): sigma sqrt(df / chi2(1 - alpha/2, df))
 * to sigma sqrt(df / chi2(alpha/2, df)).  NAN both without df. */
void stats_sigma_interval(double sigma, double df, double level, double *ret_lo, double *ret_hi);

/* The interval at level of the standard deviation of x[0..n) that holds
 * without normal tails: Bonett's (2006), which widens the log-variance's
 * by the sample's kurtosis about a trimmed mean (the chi-square interval
 * covered 66% under Student's t on 3 degrees of freedom).  NAN both with
 * fewer than 5 values. */
void stats_sd_interval_robust(const double *x, size_t n, double level, double *ret_lo, double *ret_hi);

/* The one-sided p of the F test that a spread sigma_a estimated on df_a
 * degrees of freedom is wider than sigma_b on df_b (normal errors):
 * P(F(df_a, df_b) > (sigma_a / sigma_b)^2).  NAN without both. */
double stats_wider_p(double sigma_a, double df_a, double sigma_b, double df_b);

/* Wilson's score interval at level for k successes in n trials (0 with
 * k == 0, 1 with k == n); NAN both for n == 0. */
void stats_wilson(size_t k, size_t n, double level, double *ret_lo, double *ret_hi);

/* Holm's step-down over the two-sided p-values p[0..n) at level: each
 * comparison's adjusted p (*ret_p_adj, monotone in the order of the
 * p-values) and the level its interval is made at (*ret_level): the step's
 * own, 1 - alpha/(n - i) for the i-th smallest while they are rejected,
 * and the level of the step that stopped for every later one, so that an
 * interval excludes its null exactly when Holm rejects.  NAN p-values
 * take no part (their level: level). */
void stats_holm(const double *p, size_t n, double level, double *ret_p_adj, double *ret_level);

/* Stein's two-stage rule: the rounds a comparison of two cells of a block
 * design needs for its interval to be within +-half_width (on log TPS) at
 * level, from a pilot's residual sigma on df degrees of freedom:
 * ceil(2 (t(level, df) sigma / half_width)^2).  The pilot's t, not the
 * normal quantile: its sigma is itself an estimate.  0 without a sigma. */
unsigned stats_rounds_for_width(double sigma, double df, double level, double half_width);

/* Holm over n items of a family, whatever they hold: p_of() gives item
 * i's raw p (NAN: it takes no part), and apply() gets each taking part
 * with its adjusted p, its step's level (stats_holm()) and the family's
 * size.  Without memory nothing is applied. */
void stats_holm_each(size_t n, double level, double (*p_of)(void *items, size_t i),
		     void (*apply)(void *items, size_t i, double p_adj, double step_level, size_t family), void *items);

/* The ratios r[0..n) as one family: Holm's adjustment applied to each
 * (p, p_raw, the interval at its step's level, the verdict, the mde and
 * family).  Ratios without a p take no part. */
void stats_holm_ratios(struct stats_ratio *const *r, size_t n, double level);

/* The interval's half-width relative to the ratio, exp(t se) - 1: the ratio
 * is known to within +-this.  INFINITY without an interval. */
double stats_ratio_precision(const struct stats_ratio *r);

struct stats_share {
	double share;	 /* NAN: a side is empty or the gap is zero */
	double lo, hi;	 /* -INFINITY / INFINITY when unbounded; NAN: no interval */
	double df;	 /* NAN: no interval */
	bool bounded;
	/* The test of share 0 (the numerator 0): its p, adjusted within its
	 * family of family shares, and the level of the interval.  NAN p: none. */
	double p, p_raw, level;
	size_t family;
};

/* The share of the gap from b to a that x covers, on log TPS, at level.
 * -EINVAL: a level outside (0, 1); -EDOM: a value that is not positive. */
int stats_share(const double *x, size_t n_x, const double *a, size_t n_a, const double *b, size_t n_b, double level,
		struct stats_share *ret);

/* A group of repeats in a share of contrasts: its values, and its
 * coefficients in the numerator and in the denominator (of mean log TPS). */
struct stats_term {
	const double *v;
	size_t n;
	double num, den;
};
#define STATS_TERMS_MAX 8

/* A share without a value or interval. */
#define STATS_SHARE_NONE \
	((struct stats_share){ .share = NAN, .lo = NAN, .hi = NAN, .df = NAN, .p = NAN, .p_raw = NAN, .level = NAN })

/* The test of a share's numerator against 0 (num with variance var_num on
 * s->df degrees of freedom) into s: p, p_raw, level, family 1. */
void stats_share_test(struct stats_share *s, double num, double var_num, double level);

/* Fieller's set for num/den at t quantile tq, given var(num) v11, var(den)
 * v22 and their covariance v12: bounded, or the whole line. */
void stats_fieller(double num, double den, double v11, double v22, double v12, double tq, struct stats_share *ret);

/* The general form of a share, on the same scale: sum(num_i mean ln v_i) over
 * sum(den_i mean ln v_i), the groups independent, with Fieller's interval
 * as above.  An interaction is one: (x_ij - x_i - x_j + b) / (a - b).
 * -EINVAL: a level outside (0, 1) or more than STATS_TERMS_MAX groups. */
int stats_share_of_contrast(const struct stats_term *t, size_t k, double level, struct stats_share *ret);

/* The coefficient of variation (sample standard deviation over the mean);
 * NAN with fewer than two values or a mean that is not positive. */
double stats_cv(const double *v, size_t n);

/* The mean and the sample variance (n - 1); NAN where undefined. */
void stats_mean_var(const double *v, size_t n, double *ret_mean, double *ret_var);

/* "95", "95%" or "97.5" into 0.95 / 0.975, within the open range above.
 * -EINVAL: not a number; -ERANGE: outside the range. */
int stats_parse_confidence(const char *s, double *ret);

/* Noise as a result (issue 28): how much TPS varies from start to start
 * and from second to second, with intervals, and whether one cell's starts
 * vary more than another's.  Pure like stats.h: no JSON, no formatting, no
 * logging; errors are -errno.
 *
 * The CV across starts is the standard deviation of log TPS over the
 * starts, which is the coefficient of variation to first order (exactly,
 * for log-normal TPS, sqrt(exp(s^2) - 1), 1.0005 s at 3%), on the scale
 * the verdicts use.  Its interval is chi-square on (n - 1) s^2, which
 * assumes log TPS normal: one slow start in five breaks it, and the
 * renderers say so.
 *
 * The ratio of two cells' noise is judged by Brown-Forsythe's test (Levene's
 * with medians) on log TPS: z = |ln TPS - median of its cell|, and the two
 * cells' mean z compared by the pooled t (the one-way ANOVA of two groups,
 * F = t^2 on 1 and n_a + n_b - 2 degrees of freedom).  It holds without
 * normality.  The ratio is of the mean z's (a cell's mean absolute
 * deviation of log TPS from its median), which is the ratio of the CVs
 * when the cells differ in scale only.  Its interval is Fieller's for that
 * ratio, got by inverting the same test: rho is in the set when the pooled
 * t of z_a against rho z_b does not reject (under rho, z_a and rho z_b
 * have one distribution, so the pooled variance is the right one).  At
 * rho = 1 that is Brown-Forsythe's test itself, so the interval excludes 1
 * exactly when p is below alpha, at any Holm step's level. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "stats/stats.h"

/* An estimate with its interval; NAN where there is none. */
struct stats_interval {
	double est, lo, hi;
	size_t n; /* the values behind it */
};

/* The standard deviation of ln v[0..n) with its chi-square interval at
 * level; est NAN with fewer than two values.  -EDOM: a value that is not
 * positive and finite; -ENOMEM. */
int stats_log_sd(const double *v, size_t n, double level, struct stats_interval *ret);

/* The mean of v[0..n) with its t interval on n - 1 degrees of freedom,
 * the lower end at least floor (a CV is not negative: 0; -INFINITY: none). */
void stats_mean_interval(const double *v, size_t n, double level, double floor, struct stats_interval *ret);

/* The fewest values a side Brown-Forsythe is computed on: with two, both
 * absolute deviations from the median are equal and say nothing. */
#define STATS_SPREAD_MIN_N 3

struct stats_spread_ratio {
	size_t n_a, n_b;
	double ratio;  /* mean z of a over that of b; NAN: a side has fewer than STATS_SPREAD_MIN_N */
	double lo, hi; /* Fieller's set at level; lo 0 and hi INFINITY when unbounded */
	bool bounded;
	double p;      /* Brown-Forsythe's two-sided p, Holm-adjusted in its family; NAN: none */
	double df;     /* n_a + n_b - 2 */
	enum stats_verdict verdict;
	size_t family;
	double p_raw, level;
	/* The smallest ratio of CVs (>= 1, either way) these starts detect
	 * with STATS_POWER at the interval's level, from the test's expected
	 * t when one side's scale is that many times the other's, with the
	 * z's pooled CV (spread.c); INFINITY: none they could. */
	double mde;
	/* What the interval is made from, again at a Holm step's level:
	 * the mean z's and their sums of squares about them. */
	double mean_a, mean_b, ss_a, ss_b;
};

/* a's noise against b's at level (0.95), on ln TPS.  -EINVAL: a level
 * outside (0, 1); -EDOM: a value without a logarithm; -ENOMEM. */
int stats_spread_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level,
		       struct stats_spread_ratio *ret);

/* The one-sided p that a[0..n_a), each times scale_a, spread wider than
 * b[0..n_b) times scale_b: values on the log scale (two fits' residuals,
 * each scaled by sqrt(n / df) so that its square estimates the variance
 * of one observation), their absolute deviations from each side's median
 * (Brown-Forsythe's) compared by the Mann-Whitney test, which assumes no
 * shape of the noise.  The F test of two variances assumes normal errors:
 * it called a hold-out of one noise law wider in 23% of data sets with a
 * start in 20 stalling, 12% with Student's t.  *ret_p NAN with fewer than
 * STATS_SPREAD_MIN_N a side; -ENOMEM. */
int stats_wider_p(const double *a, size_t n_a, double scale_a, const double *b, size_t n_b, double scale_b,
		  double *ret_p);

/* r[0..n) as one family: Holm's adjustment (stats_holm()) of each p, and
 * each interval, verdict and mde made again at its step's level. */
void stats_holm_spread_ratios(struct stats_spread_ratio *const *r, size_t n, double level);

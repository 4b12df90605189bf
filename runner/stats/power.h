/* What a test can detect: the power of the t test on an estimated
 * spread, and the smallest gap it detects with a given power, for a data
 * set (its standard error itself an estimate) and for a design (its
 * variance estimated from mean squares whose Satterthwaite degrees of
 * freedom are themselves random).  Pure, no logging; the expectations over
 * chi-squares by generalized Gauss quadrature, GSL's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The power "what could have been seen" is stated at. */
#define STATS_POWER 0.80

/* The power of the two-sided t test at level on df degrees of freedom
 * when the true difference is lambda standard errors: P(|T'| > t(1 -
 * alpha/2, df)), T' noncentral t with noncentrality lambda (its
 * expectation over the chi-square of the estimated sigma, by Gauss-
 * Laguerre quadrature). */
double stats_power(double lambda, double df, double level);

/* The smallest |log ratio| that a test at level on df degrees of freedom
 * with standard error se detects with probability power, as a ratio:
 * exp(lambda se) with stats_power(lambda, df, level) = power.  The
 * central t's t(1 - alpha/2) + t(power) overstated the power at few
 * degrees of freedom (57-73% at 3, where it said 80). */
double stats_mde(double se, double df, double level, double power);
/* The same where se itself is an estimate on se_df degrees of freedom
 * (INFINITY: known), the gap a data set prints: lambda such that the
 * power averaged over se's sampling distribution, E[stats_power(lambda
 * sqrt(V / se_df), df, level)] with V ~ chi2(se_df), is power.  The
 * estimate taken as the truth gave 69-75% where it said 80 (issue 43): a
 * data set whose spread came out low prints a gap its design misses. */
double stats_mde_estimated(double se, double df, double se_df, double level, double power);
/* A mean square of a variance estimate: its share of the estimate's
 * expectation, and its degrees of freedom. */
struct stats_ms {
	double share, df;
};
#define STATS_MS_MAX 2

/* The power of the two-sided t test at level of a difference of lambda
 * standard errors, where the variance is estimated as sum share_i MS_i
 * over n (at most STATS_MS_MAX) independent mean squares, MS_i ~ chi2(df_i)
 * / df_i, on the Satterthwaite degrees of freedom those give: the
 * expectation over the mean squares of P(|Z + lambda| > t(df^) sqrt(v^ /
 * v)).  With one mean square, stats_power(). */
double stats_power_ms(double lambda, const struct stats_ms *ms, size_t n, double level);

/* The smallest |log ratio| that test detects with probability power, as a
 * ratio: exp(lambda se) with stats_power_ms(lambda) = power.  Where the
 * degrees of freedom are few and random (a split plot's, 1 between starts
 * and 2 within), a fixed df's power (stats_mde()) overstates it: 59% where
 * it said 80 (issue 43).  Where se is itself an estimate (se_estimated),
 * the gap a data set prints: widened as stats_mde_estimated() widens
 * stats_mde() at the mean squares' Satterthwaite degrees of freedom, so
 * that data at the printed gap are detected with power on average over
 * the data sets that print it. */
double stats_mde_ms(double se, const struct stats_ms *ms, size_t n, bool se_estimated, double level, double power);

/* The Satterthwaite degrees of freedom of sum share_i MS_i at their
 * expectations. */
double stats_ms_df(const struct stats_ms *ms, size_t n);

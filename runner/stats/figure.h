/* The intervals of a figure of mechanism (oltp.h's rows): across the
 * starts of a cell, and of its correlation with TPS across explain's
 * mixes. */
#pragma once

#include <stddef.h>

/* The median of v[0..n) (sorted here) with its distribution-free interval
 * from order statistics: [v(j), v(n+1-j)] for the largest j whose coverage,
 * 1 - 2 P(Binomial(n, 1/2) < j), is at least level; with too few values
 * for that (fewer than 6 at 95%), the whole range and its coverage, which
 * *ret_cover says (3 starts: 75%).  NAN without values. */
void stats_median_interval(double *v, size_t n, double level, double *ret_median, double *ret_lo, double *ret_hi,
			   double *ret_cover);

/* Pearson's r over n pairs with Fisher's z interval at level: tanh(atanh r
 * -+ z / sqrt(n - 3)); NAN bounds with fewer than 4 pairs or |r| = 1. */
void stats_correlation_interval(double r, size_t n, double level, double *ret_lo, double *ret_hi);

/* The rank-based cross-check of a ratio: the Hodges-Lehmann estimate of
 * the shift of ln TPS (the median of every difference ln a_i - ln b_j),
 * its interval from the Mann-Whitney distribution (exact for small
 * samples, which is where a verdict most needs checking), and the
 * Mann-Whitney test's two-sided p.  It assumes nothing of the shape of the
 * noise, only that the two sides differ by a shift; with 3 repeats a side
 * it cannot reach 95% (its smallest p is 0.1), and says so.
 * Pure; errors are -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct stats_rank {
	double ratio;	 /* exp(HL shift); NAN: a side is empty */
	double lo, hi;	 /* the interval at the level asked (or the widest there is); NAN: none */
	double p;	 /* Mann-Whitney, two-sided; NAN: none */
	double p_min;	 /* the smallest p these sample sizes can give */
	bool reaches;	 /* p_min < 1 - level: the rank test can reject at all here */
	bool exact;	 /* the distribution is exact (else normal, with ties corrected) */
};

/* a against b at level, on the logarithms.  -EDOM: a value that is not
 * positive and finite; -EINVAL: a level outside (0, 1); -ENOMEM. */
int stats_rank_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level, struct stats_rank *ret);

/* The block model's noise (stats/block.h): variance components estimated
 * from the residuals by the method of moments, below the fit.  Each
 * variance group g (a column, a host's column, or one for all) has a
 * component within a start, each observation's own, and, where its starts
 * measured more than one step, a component of the start, which every step
 * of one server start shares:
 *
 *     Var(y) = sum_g w_g Z_g Z_g' + s_g S_g S_g'
 *
 * Z_g the indicators of g's observations, S_g of its starts.  Inside
 * stats/, not for callers of stats/block.h.  Pure; errors are -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "stats/block_design.h"
#include "stats/power.h"

struct block_noise {
	size_t n_comp, n_groups;
	long *obs_comp;	  /* [n]: each observation's within-start component */
	long *start_comp; /* [n_starts]: each start's component; -1: none (a start of one step) */
	bool *comp_start; /* [n_comp]: a start's component, else within */
	double *theta;	  /* [n_comp]: the variances, as used */
	double *cov;	  /* [n_comp^2]: the covariance of those estimates under normal errors */
	double *comp_df;  /* [n_comp]: each one's effective degrees of freedom */
	size_t *comp_group; /* [n_comp]: the group it is of */
	/* A variance's degrees of freedom the fewest of its groups' (Hsu's
	 * rule for Welch's t), not Satterthwaite's: groups of very few starts
	 * and unequal spreads, where Satterthwaite's are too many. */
	bool fewest_df;
};

void block_noise_done(struct block_noise *nz);

/* The components of d's residuals e[0..n), each observation in variance
 * group group[i] (0..groups-1, renumbered to those that hold
 * observations), with start components where starts have more than one
 * step.  -EDOM: the starts cannot give each group its own (singular, or
 * fewer than min_df residual degrees of freedom a group, between starts
 * and within them); -ENOMEM. */
int block_noise_fit(struct block_noise *ret, const struct block_design *d, const size_t *group, size_t groups,
		    const double *e, double min_df);

/* The variance of sum a_i y_i and its degrees of freedom:
 * Satterthwaite's (at least 1, at most the residual degrees of freedom,
 * d->n - d->p), or with nz->fewest_df the fewest of those of the groups
 * it rests on. */

void block_noise_variance(const struct block_noise *nz, const struct block_design *d, const double *a,
			  double *ret_var, double *ret_df);

/* The covariance of sum a_i y_i and sum b_i y_i. */
double block_noise_covariance(const struct block_noise *nz, const struct block_design *d, const double *a,
			      const double *b);

/* The mean squares the variance of sum a_i y_i is estimated from, as the
 * design gives them, into ms (at most STATS_MS_MAX); how many.  With start
 * components: between starts (df_starts degrees of freedom) and within
 * them (the rest of d->n - d->p), each its share at the estimates, a
 * within component counting 1 / (steps a start) between starts; else each
 * group the contrast rests on, on its share of the residual degrees of
 * freedom (sum of M_ii over its observations); else one on d->n - d->p. */
size_t block_noise_mean_squares(const struct block_noise *nz, const struct block_design *d, const double *a,
				double df_starts, struct stats_ms *ms);

/* The variance of one observation, averaged over the observations, and
 * of it the part the starts share (0 without start components). */
void block_noise_totals(const struct block_noise *nz, const struct block_design *d, double *ret_var,
			double *ret_start);

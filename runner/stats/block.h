/* The one model that report, compare, explain and calibrate share: log TPS
 * of a randomized complete block design, a cell (a context x vary value
 * of a run, a mix of explain) measured once in every block (a round, whose
 * order was drawn afresh), fitted by least squares:
 *
 *     ln TPS[obs] = cell[c] + round[b] + e,   e ~ N(0, sigma^2)
 *
 * The round term takes out what a round shares (a host warming up, a
 * neighbour that ran during one round) from every comparison, and the
 * residual variance is pooled over every cell, so that a design of many
 * cells gives its intervals many degrees of freedom even with few rounds.
 * A cell missing from a round (a failed start) leaves the design
 * unbalanced, not broken: least squares adjusts the other cells' rounds.
 *
 * What is estimated are contrasts, sum w[c] cell[c] with sum w = 0 (a log
 * ratio, a share's numerator or denominator, an interaction), each with
 * its standard error from sigma^2 w' (X'X)^-1 w and the residual degrees
 * of freedom n - cells - rounds + 1.  A ratio of two contrasts (a share)
 * gets Fieller's interval from the same covariance.
 *
 * Pure, no logging; errors are -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "stats/stats.h"

struct block_obs {
	size_t cell, block;
	double y; /* ln TPS */
};

struct block_fit {
	size_t n_cells, n_obs;
	size_t *n_in_cell; /* [n_cells] */
	/* [n_cells]: the cells' coefficients, NAN for a cell without
	 * observations; only contrasts of them mean anything. */
	double *coef;
	double *vcov;	   /* [n_cells x n_cells]: (X'X)^-1 of the coefficients, without sigma^2 */
	double sigma2, df; /* residual variance and degrees of freedom; df 0: none (sigma2 NAN) */
	/* [n_cells]: the part of the design each cell is in (cells joined
	 * through shared blocks); block_fit() has one. */
	size_t *part;
	size_t n_parts;
	/* [n_cells], at each part's first cell (part[c] == c): the part's own
	 * residual variance and degrees of freedom (NAN, 0: none). */
	double *part_sigma2, *part_df;
};

/* Fits obs[0..n) with cells 0..n_cells-1 and blocks 0..n_blocks-1 (a cell
 * or block without observations is left out).  -EINVAL: an index out of
 * range; -EDOM: a y that is not finite, or a design whose cells are not
 * connected through shared blocks (no contrast between them is
 * estimable); -ENOMEM. */
int block_fit(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret);
void block_fit_done(struct block_fit *f);

/* The same with blocks nested in groups of cells, the design in parts
 * that share no block (compare: a host's contexts and its own rounds,
 *
 *     ln TPS[obs] = cell[host, context] + round[host, r] + e,
 *
 * each host its own sigma): each part has its own reference block, and
 * only a contrast that sums to zero within every part is estimable (a
 * difference of two hosts' log ratios, an interaction).  Its variance is
 * the sum of each part's, sigma[part]^2 w_p' (X'X)^-1 w_p, on
 * Satterthwaite's degrees of freedom (block_ratio_of()): a host that is
 * noisier than another widens the interval by its own noise only. */
int block_fit_nested(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret);

/* sum w[c] coef[c]: its estimate and its standard error (NAN without
 * residual degrees of freedom).  -EDOM: w puts weight on a cell without
 * observations, or does not sum to zero within each part. */
int block_contrast(const struct block_fit *f, const double *w, double *ret_est, double *ret_se);

/* The covariance of two contrasts, sigma^2 u' (X'X)^-1 w. */
double block_covariance(const struct block_fit *f, const double *u, const double *w);

/* The ratio exp(coef[a] - coef[b]) with its interval at level and p from
 * the model's t; verdict STATS_TOO_FEW without residual degrees of freedom
 * or without a cell, STATS_NO_SPREAD when sigma is 0. */
int block_ratio(const struct block_fit *f, size_t a, size_t b, double level, struct stats_ratio *ret);

/* The same for any contrast w: exp(sum w[c] coef[c]) as a verdict (the
 * ratio of two hosts' ratios); STATS_TOO_FEW where w is not estimable. */
int block_ratio_of(const struct block_fit *f, const double *w, double level, struct stats_ratio *ret);

/* (sum num[c] coef[c]) / (sum den[c] coef[c]) with Fieller's interval at
 * level from the model's covariance and degrees of freedom. */
int block_share(const struct block_fit *f, const double *num, const double *den, double level,
		struct stats_share *ret);

/* The residual standard deviation (ln TPS, about the CV between starts);
 * NAN without degrees of freedom. */
double block_sigma(const struct block_fit *f);

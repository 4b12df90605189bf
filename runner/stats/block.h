/* The one model that report, compare, explain and calibrate share: log TPS
 * of a randomized complete block design, a cell (a context x vary value
 * of a run, a mix of explain) measured once in every block (a round, whose
 * order was drawn from a balanced square), fitted by least squares:
 *
 *     ln TPS[obs] = cell[c] + round[b] + first[k] + e,   e ~ N(0, sigma[g]^2)
 *
 * The round term takes out what a round shares (a host warming up, a
 * neighbour that ran during one round) from every comparison.  The
 * position term first[k] takes out what the first unit of every round
 * loses on a cold host (page cache, the first start after prepare): an
 * observation flagged first carries it, and the effect is reported
 * (block_position()); where the orders make it inestimable (one cell first
 * in every round) or the design is too small to spare the degree of
 * freedom, it is left out and said.
 *
 * The noise: each variance group g (a context, or a host's context; the
 * caller's choice) its own sigma, since a service held to a quota or a
 * proxy is noisier than a free shell, and a sigma pooled over both lends
 * the quiet one's confidence to the noisy one.  The least-squares
 * estimates stand as they are; their variances are sum a_i^2 sigma[g(i)]^2
 * over the observations' weights a = X (X'X)^-1 w (a contrast w), with each
 * group's variance estimated without bias from the residuals by the
 * method of moments (E[sum of g's squared residuals] = sum_h sigma_h^2
 * sum_(i in g, j in h) M_ij^2, M = I - H, solved for the sigma_h^2; a
 * negative solution falls back to that group's squared residuals over its
 * share of the residual degrees of freedom, which is conservative there),
 * and the interval's degrees of freedom are Satterthwaite's, from the
 * covariance of those estimates under normal errors (2 sum B_ij^2 over the
 * two groups' pairs, B = M Sigma M).  With one group this is the pooled
 * model exactly: sigma^2 = RSS / (n - p) on n - p degrees of freedom.
 * Where the starts cannot give each group its own (the system singular,
 * or fewer than STATS_GROUP_DF_MIN residual degrees of freedom a group),
 * each part of the design gets one sigma, and the fit says so
 * (f->pooled).
 *
 * What is estimated are contrasts, sum w[c] cell[c] with sum w = 0 (a log
 * ratio, a share's numerator or denominator, an interaction).  A ratio of
 * two contrasts (a share) gets Fieller's interval from the same
 * covariance.  A cell missing from a round (a failed start) leaves the
 * design unbalanced, not broken: least squares adjusts the other cells'
 * rounds.
 *
 * Pure, no logging; errors are -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "stats/stats.h"

struct block_obs {
	size_t cell, block;
	double y;     /* ln TPS */
	size_t group; /* its variance group; every observation in 0: one sigma */
	unsigned first; /* k > 0: the first unit of its round, under position term k (a host's); 0: not */
};

/* The position terms a fit carries at most. */
#define BLOCK_POSITIONS_MAX 16

struct block_fit {
	size_t n_cells, n_obs;
	size_t *n_in_cell; /* [n_cells] */
	/* [n_cells]: the cells' coefficients, NAN for a cell without
	 * observations; only contrasts of them mean anything. */
	double *coef;
	double sigma2, df; /* residual variance pooled over every group, and n - p; df 0: none (sigma2 NAN) */
	/* [n_cells]: the part of the design each cell is in (cells joined
	 * through shared blocks); block_fit() has one. */
	size_t *part;
	size_t n_parts;
	/* The variance groups: how many were used and asked, and pooled
	 * when those asked could not each have their own (then a group per
	 * part of the design). */
	size_t n_groups, groups_asked;
	bool pooled;
	/* The position terms: coefficient k - 1 of first = k, NAN where
	 * none; position_dropped: asked for, but the orders left them
	 * inestimable. */
	size_t n_positions;
	double position[BLOCK_POSITIONS_MAX];
	bool position_dropped;
	struct block_internal *in; /* what contrasts are computed from (stats/block_noise.h) */
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
 * report: a thread count's columns and its rounds): each part has its own
 * reference block, and only a contrast that sums to zero within every part
 * is estimable (a difference of two hosts' log ratios, an interaction).
 * The variance groups may span parts (a context's noise at every thread
 * count); a pooled fallback gives each part its own sigma. */
int block_fit_nested(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret);

/* block_fit_nested() with one sigma per part whatever the groups: what a
 * pilot that could not give each group its own fixes for the rounds after
 * it (Stein's rule takes the pilot's spread). */
int block_fit_pooled(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret);

/* dst's variances from src (the same groups, as used): the pilot's, for
 * the fit of every round.  -EDOM: src's groups are not dst's. */
int block_fit_take_variances(struct block_fit *dst, const struct block_fit *src);

/* sum w[c] coef[c]: its estimate and its standard error (NAN without
 * residual degrees of freedom).  -EDOM: w puts weight on a cell without
 * observations, or does not sum to zero within each part. */
int block_contrast(const struct block_fit *f, const double *w, double *ret_est, double *ret_se);

/* The covariance of two contrasts, sum a_i(u) a_i(w) sigma[g(i)]^2. */
double block_covariance(const struct block_fit *f, const double *u, const double *w);

/* The position term k (1..n_positions) as a ratio: the first unit of a
 * round against the rest, exp(first[k]), with its interval at level;
 * .ratio NAN where there is none. */
int block_position(const struct block_fit *f, unsigned k, double level, struct stats_ratio *ret);

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

/* The residual standard deviation pooled over every group (ln TPS, about
 * the CV between starts); NAN without degrees of freedom. */
double block_sigma(const struct block_fit *f);

/* The one model that report, compare, explain and calibrate share: log TPS
 * of a randomized complete block design, a cell (a context x vary value x
 * thread count of a run, a mix of explain) measured once in every block (a
 * round, whose order was drawn from a balanced square), fitted by least
 * squares, with the server start as the unit of replication:
 *
 *     ln TPS[obs] = cell[c] + round[b] + place[k] + u[start] + e,
 *     u ~ N(0, s[g]^2),  e ~ N(0, w[g]^2)
 *
 * One server start runs every thread count of its unit, so its steps
 * share its noise (the buffer pool's layout, where its threads landed):
 * u, a random effect of the start, which the steps of one start have in
 * common, beside e, each step's own.  A comparison at one thread count
 * rests on starts, not steps: its variance is (w^2 + s^2) per start, and
 * its degrees of freedom (Satterthwaite's, from the covariance of the
 * variance components' estimates) count starts; a comparison within
 * starts (two thread counts of one column) sheds s.
 *
 * The round term takes out what a round shares (a host warming up, a
 * neighbour that ran during one round).  The place terms take out what the
 * first unit of every round loses on a cold host (page cache, the first
 * start after prepare) and what the last gains (a warm one): an
 * observation of a recorded order carries the term of its unit's place,
 * first or last, against the units between.  They are fitted only where
 * the orders identify both (one cell first in every round, or a unit first
 * in one round and last in the other, aliases them: BLOCK_PLACES_CONFOUNDED)
 * and they leave STATS_POSITION_DF_MIN residual degrees of freedom between
 * starts to test them against (BLOCK_PLACES_TOO_FEW); a term's test is
 * against the start's error, since a place is a start's.
 *
 * The noise (stats/block_noise.h): each variance group g (a column, a
 * host's column; the caller's choice) its own w and s, since a service
 * held to a quota or a proxy is noisier than a free shell, estimated by
 * the method of moments; where the starts cannot give each group its own
 * (fewer than STATS_GROUP_DF_MIN residual degrees of freedom a group,
 * between starts and within them), each pool (a host; the caller's
 * choice) its own, else one for all, and the fit says which ran
 * (f->noise).  A pooled sigma lends a quiet column's confidence to a
 * noisy one: report and compare then take each ratio from a fit of its
 * own columns alone (report/judge/), which holds whichever is noisier.
 *
 * What is estimated are contrasts, sum w[c] cell[c] with sum w = 0 within
 * each part of the design (a log ratio, a share's numerator or
 * denominator, an interaction): block_contrast_t() gives the estimate, its
 * standard error and its degrees of freedom, what a verdict, a sequential
 * look or an equivalence test is made from (stats_ratio_from_t()).  A
 * ratio of two contrasts (a share) gets Fieller's interval from the same
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
	size_t group; /* its variance group; every observation in 0: one w and s */
	size_t pool;  /* the coarser group the fallback pools its group in (a host); every one in 0: one */
	/* The start it is a step of: observations with the same number share
	 * the start's noise; each its own number: every step a start. */
	size_t start;
	/* order k > 0: its unit's place in its round is known, slot (from 1)
	 * of slots, under the place terms of set k (a host's); 0: not. */
	unsigned order, slot, slots;
};

/* The place terms' sets a fit carries at most. */
#define BLOCK_ORDER_SETS_MAX 16

enum block_place {
	BLOCK_FIRST,
	BLOCK_LAST,
	_BLOCK_PLACE_MAX,
};

enum block_places_model {
	BLOCK_PLACES_NONE,	 /* no order recorded, or rounds of one unit */
	BLOCK_PLACES_FITTED,	 /* the first place's term, and the last's where a round has 3 units or more */
	BLOCK_PLACES_CONFOUNDED, /* the orders alias a place with a cell or with the other place */
	BLOCK_PLACES_TOO_FEW,	 /* too few residual degrees of freedom between starts to test them */
};

/* Which noise the fit's contrasts rest on. */
enum block_noise_model {
	BLOCK_NOISE_GROUPS, /* each variance group its own (one group asked: that one) */
	BLOCK_NOISE_POOLS,  /* each pool its own: too few starts for each group's */
	BLOCK_NOISE_ONE,    /* one for all */
};

struct block_places {
	enum block_places_model model;
	long col[_BLOCK_PLACE_MAX]; /* the terms' columns; -1: none */
	double coef[_BLOCK_PLACE_MAX];
};

struct block_fit {
	size_t n_cells, n_obs;
	size_t *n_in_cell; /* [n_cells] */
	/* [n_cells]: the cells' coefficients, NAN for a cell without
	 * observations; only contrasts of them mean anything. */
	double *coef;
	/* The variance of one observation (w^2 + s^2), averaged over them,
	 * and the share of it the starts have in common (NAN: none); the
	 * residual degrees of freedom, n - p (0: none, sigma2 NAN), and of
	 * them those between starts. */
	double sigma2, start_share, df, df_starts;
	/* [n_cells]: the part of the design each cell is in (cells joined
	 * through shared blocks); block_fit() has one. */
	size_t *part;
	size_t n_parts;
	/* The noise: which ran, its groups as used and as asked. */
	enum block_noise_model noise;
	size_t n_groups, groups_asked;
	/* The place terms of each order set k, at [k - 1]. */
	size_t n_order_sets;
	struct block_places places[BLOCK_ORDER_SETS_MAX];
	struct block_internal *in; /* the design and the noise (stats/block.c) */
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
 * report: a thread count's columns and its rounds): each part has its own
 * reference block, and only a contrast that sums to zero within every part
 * is estimable (a difference of two hosts' log ratios, an interaction).
 * The variance groups and the starts may span parts (a context's noise
 * at every thread count, a start's steps). */
int block_fit_nested(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret);

/* block_fit_nested() with each pool's noise whatever the groups: what a
 * pilot that could not give each group its own fixes for the rounds after
 * it (Stein's rule takes the pilot's spread). */
int block_fit_pooled(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret);

/* block_fit_nested() with each group its own noise wherever the moments
 * can be solved, however few the starts: a few groups whose spreads must
 * not be pooled (two hosts' paired columns), each interval wide where its
 * group's starts are few. */
int block_fit_groups(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret);

/* dst's variances from src (the same components): the pilot's, for the
 * fit of every round.  -EDOM: src's components are not dst's. */
int block_fit_take_variances(struct block_fit *dst, const struct block_fit *src);

/* sum w[c] coef[c]: its estimate, its standard error (NAN without residual
 * degrees of freedom) and the standard error's degrees of freedom.
 * -EDOM: w puts weight on a cell without observations, or does not sum to
 * zero within each part. */
int block_contrast_t(const struct block_fit *f, const double *w, double *ret_est, double *ret_se, double *ret_df);
int block_contrast(const struct block_fit *f, const double *w, double *ret_est, double *ret_se);

/* The covariance of two contrasts. */
double block_covariance(const struct block_fit *f, const double *u, const double *w);

/* The place term of order set k (1..n_order_sets) as a ratio: its unit
 * against the units between the first and the last, exp(term), with its
 * interval at level; .ratio NAN where there is none. */
int block_place(const struct block_fit *f, unsigned k, enum block_place place, double level, struct stats_ratio *ret);

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

/* The standard deviation of one observation (ln TPS, about the CV between
 * starts), averaged over the groups; NAN without degrees of freedom. */
double block_sigma(const struct block_fit *f);

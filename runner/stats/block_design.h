/* The block model's design (stats/block.h), below the fit and its noise:
 * each observation's columns (its cell, its block, and its unit's place
 * in the round when position terms are fitted), the least-squares
 * solution through the Cholesky factor of X'X, the hat matrix's elements,
 * and the starts (the observations one server start measured, which share
 * its noise).  Inside stats/, not for callers of stats/block.h.  Pure;
 * errors are -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The columns an observation has at most: its cell, its block, the first
 * and the last place of its round. */
#define BLOCK_DESIGN_COLS 4

struct block_design {
	size_t n, p;			  /* observations, columns */
	long (*cols)[BLOCK_DESIGN_COLS];  /* [n]: each observation's columns; -1: none */
	double *inv;			  /* [p x p]: (X'X)^-1 */
	double *beta;			  /* [p]: the coefficients */
	/* The starts, numbered from 0: each observation's, and each start's
	 * observations, start_obs[start_at[s] .. start_at[s + 1]). */
	size_t n_starts;
	size_t *start, *start_at, *start_obs;
};

void block_design_done(struct block_design *d);

/* d->start from the callers' start numbers start[0..n) (any values; equal
 * values are one start), and the starts' lists.  -ENOMEM. */
int block_design_starts(struct block_design *d, const size_t *start, size_t n);

/* Solves for y[0..n) with d->cols and d->p set: d->beta and d->inv.
 * -EDOM: X'X is singular (a column the others alias, or a design that is
 * not connected); -ENOMEM. */
int block_design_solve(struct block_design *d, const double *y);

/* x_i' (X'X)^-1 x_j: the hat matrix's element. */
double block_design_hat(const struct block_design *d, size_t i, size_t j);

/* x_i' K x_j for a p x p matrix k. */
double block_design_xkx(const struct block_design *d, const double *k, size_t i, size_t j);

/* y_i less its fitted value, into e[0..n). */
void block_design_residuals(const struct block_design *d, const double *y, double *e);

/* The residual degrees of freedom between starts: tr(M P), P the mean
 * over each start's observations and M = I - H, what the starts' means
 * leave once the columns are fitted (where every start is one
 * observation, n - p); of the starts whose first observation `in` takes
 * (NULL: every one). */
double block_design_df_starts(const struct block_design *d, const bool *in);

/* The observations' weights a = X (X'X)^-1 wp of a combination wp[0..p)
 * of the columns, into a[0..n).  -ENOMEM. */
int block_design_weights(const struct block_design *d, const double *wp, double *a);

/* The block model's variance groups (stats/block_noise.c), and the design
 * as columns that stats/block.c keeps for every contrast: inside stats/,
 * not for callers of stats/block.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct block_internal {
	size_t n, p;	   /* observations, columns */
	long *cell_col;	   /* [n_cells]: the cell's column; -1: none */
	long (*cols)[3];   /* [n]: each observation's cell, block and position columns; -1: none */
	long *pos_col;	   /* [positions]: position term k + 1's column; -1: none */
	size_t *group;	   /* [n]: each observation's variance group, as used */
	double *inv;	   /* [p x p]: (X'X)^-1 */
	double df, sigma2; /* n - p, and the residual variance pooled over every group */
	/* The groups as used: each one's sigma^2 and effective degrees of
	 * freedom, and the covariance of those estimates [n_groups^2]. */
	size_t n_groups;
	double *group_sigma2, *group_df, *group_var;
};

/* x_i' (X'X)^-1 x_j: the hat matrix's element. */
double block_hat(const struct block_internal *in, size_t i, size_t j);

/* The variance groups from the residuals e[0..n), in->group as asked
 * (0..groups-1, renumbered to those that hold observations): each group's
 * sigma^2 and effective degrees of freedom, the covariance of the
 * estimates, in->sigma2.  -EDOM: the starts cannot give each group its
 * own (singular, or fewer than min_df residual degrees of freedom a
 * group); -ENOMEM. */
int block_noise_groups(struct block_internal *in, const double *e, size_t groups, double min_df);

/* What stats/block.c and stats/block_noise.c share inside stats/: the
 * design as columns and the pieces every contrast's variance is computed
 * from.  Not for callers of stats/block.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "stats/block.h"

struct block_internal {
	size_t n, p;	   /* observations, columns */
	long *cell_col;	   /* [n_cells]: the cell's column; -1: none */
	long (*cols)[3];   /* [n]: each observation's cell, block and position columns; -1: none */
	size_t *group;	   /* [n]: each observation's variance group, as used */
	double *inv;	   /* [p x p]: (X'X)^-1 */
	double *group_var; /* [n_groups x n_groups]: the covariance of the groups' variance estimates */
	long pos_col[BLOCK_POSITIONS_MAX]; /* position term k + 1's column; -1: none */
};

/* x_i' (X'X)^-1 x_j: the hat matrix's element. */
double block_hat(const struct block_internal *in, size_t i, size_t j);

/* The variance groups of f from the residuals e[0..n): each group's
 * sigma^2 and effective degrees of freedom, the covariance of the
 * estimates; in->group as asked (0..groups-1).  -EDOM: the starts cannot
 * give each group its own (singular, or too few degrees of freedom);
 * -ENOMEM. */
int block_noise_groups(struct block_fit *f, const double *e, size_t groups);

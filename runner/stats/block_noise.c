/* The block model's variance groups (stats/block.h): each group's sigma^2
 * from the residuals by the method of moments, and the covariance of those
 * estimates under normal errors, which gives each contrast its
 * Satterthwaite degrees of freedom.  With M = I - H the residual maker and
 * D the diagonal of the observations' group variances:
 *
 *     E[q_g] = sum_h A_gh s_h,   A_gh = sum_(i in g, j in h) M_ij^2
 *     cov(q_g, q_h) = 2 sum_(i in g, j in h) B_ij^2,   B = M D M
 *
 * q_g the sum of g's squared residuals.  B's elements come from the
 * design's few columns per observation (x_i' K x_j, K = (X'X)^-1 X'DX
 * (X'X)^-1), so no n x n matrix is formed. */
#include <math.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>

#include "stats/block_noise.h"
#include "common/util.h"

/* The groups that hold observations, numbered afresh in order; how many. */
static size_t groups_compact(struct block_internal *in, size_t groups)
{
	_cleanup_free_ long *map = malloc((groups + 1) * sizeof(long));
	size_t used = 0;

	if (!map)
		return 0;
	for (size_t g = 0; g < groups; g++)
		map[g] = -1;
	for (size_t i = 0; i < in->n; i++)
		map[in->group[i]] = 0;
	for (size_t g = 0; g < groups; g++)
		if (map[g] == 0)
			map[g] = (long)used++;
	for (size_t i = 0; i < in->n; i++)
		in->group[i] = (size_t)map[in->group[i]];
	return used;
}

static int groups_alloc(struct block_internal *in, size_t g)
{
	free(in->group_sigma2);
	free(in->group_df);
	free(in->group_var);
	in->group_sigma2 = calloc(g + 1, sizeof(double));
	in->group_df = calloc(g + 1, sizeof(double));
	in->group_var = calloc(g * g + 1, sizeof(double));
	in->n_groups = g;
	return in->group_sigma2 && in->group_df && in->group_var ? 0 : -ENOMEM;
}

/* One group: the pooled model, exactly. */
static void groups_one(struct block_internal *in, double rss)
{
	double s = in->df > 0 ? rss / in->df : NAN;

	in->group_sigma2[0] = s;
	in->group_df[0] = in->df;
	in->group_var[0] = in->df > 0 ? 2 * s * s / in->df : NAN;
}

/* A, the moments' matrix, and q, the groups' sums of squared residuals. */
static void moments(const struct block_internal *in, const double *e, size_t g, double *a, double *q)
{
	for (size_t i = 0; i < in->n; i++) {
		q[in->group[i]] += e[i] * e[i];
		for (size_t j = 0; j < in->n; j++) {
			double m = (i == j) - block_hat(in, i, j);

			a[in->group[i] * g + in->group[j]] += m * m;
		}
	}
}

/* a^-1 into ainv and the solution of a s = q into s.  -EDOM: singular. */
static int moments_solve(double *a, const double *q, size_t g, double *ainv, double *s)
{
	gsl_matrix_view m = gsl_matrix_view_array(a, g, g), inv = gsl_matrix_view_array(ainv, g, g);
	gsl_vector_const_view b = gsl_vector_const_view_array(q, g);
	gsl_vector_view x = gsl_vector_view_array(s, g);
	gsl_permutation *perm = gsl_permutation_alloc(g);
	gsl_error_handler_t *old;
	int sign, r = 0;

	if (!perm)
		return -ENOMEM;
	old = gsl_set_error_handler_off();
	if (gsl_linalg_LU_decomp(&m.matrix, perm, &sign) != 0 || fabs(gsl_linalg_LU_det(&m.matrix, sign)) < 1e-12 ||
	    gsl_linalg_LU_solve(&m.matrix, perm, &b.vector, &x.vector) != 0 ||
	    gsl_linalg_LU_invert(&m.matrix, perm, &inv.matrix) != 0)
		r = -EDOM;
	gsl_set_error_handler(old);
	gsl_permutation_free(perm);
	return r;
}

/* K = (X'X)^-1 X'DX (X'X)^-1, d the observations' variances. */
static int k_matrix(const struct block_internal *in, const double *d, double *k)
{
	size_t p = in->p;
	_cleanup_free_ double *xdx = calloc(p * p + 1, sizeof(double)), *t = calloc(p * p + 1, sizeof(double));

	if (!xdx || !t)
		return -ENOMEM;
	for (size_t i = 0; i < in->n; i++)
		for (size_t a = 0; a < 3; a++)
			for (size_t b = 0; b < 3 && in->cols[i][a] >= 0; b++)
				if (in->cols[i][b] >= 0)
					xdx[(size_t)in->cols[i][a] * p + (size_t)in->cols[i][b]] += d[i];
	for (size_t i = 0; i < p; i++)
		for (size_t l = 0; l < p; l++)
			for (size_t j = 0; j < p; j++)
				t[i * p + j] += in->inv[i * p + l] * xdx[l * p + j];
	for (size_t i = 0; i < p; i++)
		for (size_t j = 0; j < p; j++) {
			k[i * p + j] = 0;
			for (size_t l = 0; l < p; l++)
				k[i * p + j] += t[i * p + l] * in->inv[l * p + j];
		}
	return 0;
}

static double xkx(const struct block_internal *in, const double *k, size_t i, size_t j)
{
	double v = 0;

	for (size_t a = 0; a < 3; a++)
		for (size_t b = 0; b < 3; b++)
			if (in->cols[i][a] >= 0 && in->cols[j][b] >= 0)
				v += k[(size_t)in->cols[i][a] * in->p + (size_t)in->cols[j][b]];
	return v;
}

/* cov(q) = 2 sum B_ij^2 by groups, then var(s) = A^-1 cov(q) A^-T. */
static int estimates_covariance(struct block_internal *in, const double *ainv, size_t g)
{
	_cleanup_free_ double *d = calloc(in->n + 1, sizeof(double)), *k = calloc(in->p * in->p + 1, sizeof(double)),
			      *c = calloc(g * g + 1, sizeof(double));
	int r = d && k && c ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < in->n; i++)
		d[i] = in->group_sigma2[in->group[i]];
	if (r >= 0)
		r = k_matrix(in, d, k);
	for (size_t i = 0; r >= 0 && i < in->n; i++)
		for (size_t j = 0; j < in->n; j++) {
			double h = block_hat(in, i, j), b = (i == j) * d[i] - h * (d[i] + d[j]) + xkx(in, k, i, j);

			c[in->group[i] * g + in->group[j]] += 2 * b * b;
		}
	for (size_t a = 0; r >= 0 && a < g; a++)
		for (size_t b = 0; b < g; b++) {
			double v = 0;

			for (size_t x = 0; x < g; x++)
				for (size_t y = 0; y < g; y++)
					v += ainv[a * g + x] * c[x * g + y] * ainv[b * g + y];
			in->group_var[a * g + b] = v;
		}
	for (size_t a = 0; r >= 0 && a < g; a++)
		in->group_df[a] = in->group_var[a * g + a] > 0
					  ? 2 * in->group_sigma2[a] * in->group_sigma2[a] / in->group_var[a * g + a]
					  : in->df;
	return r;
}

/* A group whose moment estimate is not positive (a quiet group beside a
 * noisy one, by chance): its squared residuals over its share of the
 * residual degrees of freedom, sum over its observations of M_ii, which
 * the noisy groups' residuals inflate, so errs on the safe side. */
static void groups_floor(struct block_internal *in, const double *q, size_t g)
{
	for (size_t h = 0; h < g; h++) {
		double share = 0;

		if (in->group_sigma2[h] > 0)
			continue;
		for (size_t i = 0; i < in->n; i++)
			if (in->group[i] == h)
				share += 1 - block_hat(in, i, i);
		in->group_sigma2[h] = share > 0 ? q[h] / share : 0;
	}
}

int block_noise_groups(struct block_internal *in, const double *e, size_t groups, double min_df)
{
	size_t g = groups_compact(in, groups);
	_cleanup_free_ double *a = NULL, *ainv = NULL, *q = NULL;
	double rss = 0;
	int r;

	for (size_t i = 0; i < in->n; i++)
		rss += e[i] * e[i];
	in->sigma2 = in->df > 0 ? rss / in->df : NAN;
	if (g == 0 || (g > 1 && !(in->df >= min_df * (double)g)))
		return -EDOM;
	r = groups_alloc(in, g);
	if (r < 0 || g == 1) {
		if (r >= 0)
			groups_one(in, rss);
		return r;
	}
	a = calloc(g * g + 1, sizeof(double));
	ainv = calloc(g * g + 1, sizeof(double));
	q = calloc(g + 1, sizeof(double));
	if (!a || !ainv || !q)
		return -ENOMEM;
	moments(in, e, g, a, q);
	r = moments_solve(a, q, g, ainv, in->group_sigma2);
	if (r < 0)
		return r;
	groups_floor(in, q, g);
	return estimates_covariance(in, ainv, g);
}

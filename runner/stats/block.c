/* The randomized complete block model (stats/block.h): least squares on a
 * design of cell and block indicators, solved through the Cholesky factor
 * of X'X (a few dozen columns at most, well conditioned), GSL's. */
#include <math.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "stats/block.h"
#include "common/util.h"

void block_fit_done(struct block_fit *f)
{
	free(f->n_in_cell);
	free(f->coef);
	free(f->vcov);
	free(f->part);
	free(f->part_sigma2);
	free(f->part_df);
	*f = (struct block_fit){};
}

/* Which cells and blocks hold observations, as column numbers: cells
 * first, then every block but the first used one of each connected part
 * of the design (its effect is the part's reference); -1 for none.  A
 * cell's part is the smallest index among the cells and blocks joined to
 * it through shared observations. */
struct columns {
	long *cell, *block;
	size_t *part; /* [n_cells + n_blocks]: union-find parents, then each node's part */
	size_t n_cells_used, p, n_parts;
};

static size_t part_find(size_t *up, size_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* The parts: the union of each observation's cell and block. */
static void columns_parts(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct columns *c)
{
	for (size_t i = 0; i < n_cells + n_blocks; i++)
		c->part[i] = i;
	for (size_t i = 0; i < n; i++) {
		size_t a = part_find(c->part, obs[i].cell), b = part_find(c->part, n_cells + obs[i].block);

		c->part[MAX(a, b)] = MIN(a, b);
	}
	for (size_t i = 0; i < n_cells + n_blocks; i++)
		c->part[i] = part_find(c->part, i);
}

static int columns_make(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct columns *c)
{
	c->cell = malloc((n_cells + 1) * sizeof(long));
	c->block = malloc((n_blocks + 1) * sizeof(long));
	c->part = malloc((n_cells + n_blocks + 1) * sizeof(size_t));
	if (!c->cell || !c->block || !c->part)
		return -ENOMEM;
	for (size_t i = 0; i < n_cells; i++)
		c->cell[i] = -1;
	for (size_t i = 0; i < n_blocks; i++)
		c->block[i] = -1;
	for (size_t i = 0; i < n; i++) {
		if (obs[i].cell >= n_cells || obs[i].block >= n_blocks)
			return -EINVAL;
		if (!isfinite(obs[i].y))
			return -EDOM;
		c->cell[obs[i].cell] = 0;
		c->block[obs[i].block] = 0;
	}
	columns_parts(obs, n, n_cells, n_blocks, c);
	c->p = 0;
	for (size_t i = 0; i < n_cells; i++)
		if (c->cell[i] == 0)
			c->cell[i] = (long)c->p++;
	c->n_cells_used = c->p;
	for (size_t i = 0; i < n_blocks; i++) {
		size_t root = c->part[n_cells + i];
		bool first = true;

		if (c->block[i] < 0)
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = c->block[j] == -2 ? c->part[n_cells + j] != root : true;
		/* the first block's effect of each part is folded into its cells' */
		c->block[i] = first ? -2 : (long)c->p++;
		c->n_parts += first;
	}
	return 0;
}

/* X'X and X'y of the indicator design, accumulated row by row. */
static void normal_equations(const struct block_obs *obs, size_t n, const struct columns *c, gsl_matrix *xtx,
			     gsl_vector *xty)
{
	gsl_matrix_set_zero(xtx);
	gsl_vector_set_zero(xty);
	for (size_t i = 0; i < n; i++) {
		long j[2] = { c->cell[obs[i].cell], c->block[obs[i].block] };

		for (size_t a = 0; a < 2; a++) {
			if (j[a] < 0)
				continue;
			*gsl_vector_ptr(xty, (size_t)j[a]) += obs[i].y;
			for (size_t b = 0; b < 2; b++)
				if (j[b] >= 0)
					*gsl_matrix_ptr(xtx, (size_t)j[a], (size_t)j[b]) += 1;
		}
	}
}

/* The coefficients, (X'X)^-1 and the residual sum of squares of each
 * part, rss[part] (by the part's first cell). */
static int solve(const struct block_obs *obs, size_t n, const struct columns *c, gsl_vector *beta, gsl_matrix *inv,
		 double *rss)
{
	gsl_vector *xty = gsl_vector_alloc(c->p);
	gsl_error_handler_t *old;
	int r = 0;

	if (!xty)
		return -ENOMEM;
	normal_equations(obs, n, c, inv, xty);
	/* A design that is not connected is singular: said by the return
	 * value, not by GSL's abort. */
	old = gsl_set_error_handler_off();
	if (gsl_linalg_cholesky_decomp1(inv) != 0 || gsl_linalg_cholesky_solve(inv, xty, beta) != 0 ||
	    gsl_linalg_cholesky_invert(inv) != 0)
		r = -EDOM;
	gsl_set_error_handler(old);
	gsl_vector_free(xty);
	for (size_t i = 0; r == 0 && i < n; i++) {
		long j = c->block[obs[i].block];
		double fit = gsl_vector_get(beta, (size_t)c->cell[obs[i].cell]) + (j >= 0 ? gsl_vector_get(beta, (size_t)j) : 0);

		rss[c->part[obs[i].cell]] += (obs[i].y - fit) * (obs[i].y - fit);
	}
	return r;
}

/* The cells' part of the solution, by cell index, and each cell's part. */
static int fit_store(const struct columns *c, const gsl_vector *beta, const gsl_matrix *inv, size_t n_cells,
		     struct block_fit *f)
{
	f->coef = malloc((n_cells + 1) * sizeof(double));
	f->vcov = calloc(n_cells * n_cells + 1, sizeof(double));
	f->part = calloc(n_cells + 1, sizeof(size_t));
	if (!f->coef || !f->vcov || !f->part)
		return -ENOMEM;
	for (size_t i = 0; i < n_cells; i++) {
		f->coef[i] = c->cell[i] < 0 ? NAN : gsl_vector_get(beta, (size_t)c->cell[i]);
		f->part[i] = c->part[i];
		for (size_t j = 0; j < n_cells; j++)
			if (c->cell[i] >= 0 && c->cell[j] >= 0)
				f->vcov[i * n_cells + j] = gsl_matrix_get(inv, (size_t)c->cell[i], (size_t)c->cell[j]);
	}
	return 0;
}

/* Each part's residual variance and degrees of freedom: its observations
 * less its cells and its blocks but the reference. */
static void fit_parts_sigma(const struct block_obs *obs, size_t n, const struct columns *c, size_t n_cells,
			    size_t n_blocks, const double *rss, struct block_fit *f)
{
	double total = 0;

	for (size_t i = 0; i < n_cells; i++)
		f->part_df[i] = 0;
	for (size_t i = 0; i < n; i++)
		f->part_df[c->part[obs[i].cell]]++;
	for (size_t i = 0; i < n_cells; i++)
		f->part_df[c->part[i]] -= c->cell[i] >= 0;
	for (size_t i = 0; i < n_blocks; i++)
		if (c->block[i] >= 0)
			f->part_df[c->part[n_cells + i]]--;
	for (size_t i = 0; i < n_cells; i++) {
		total += rss[i];
		f->part_sigma2[i] = f->part_df[i] > 0 ? rss[i] / f->part_df[i] : NAN;
	}
	f->df = (double)n - (double)c->p;
	f->sigma2 = f->df > 0 ? total / f->df : NAN;
}

static int fit_parts(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, bool one_part,
		     struct block_fit *ret)
{
	struct columns c = {};
	struct block_fit f = { .n_cells = n_cells, .n_obs = n, .sigma2 = NAN };
	_cleanup_free_ double *rss = calloc(n_cells + 1, sizeof(double));
	gsl_vector *beta = NULL;
	gsl_matrix *inv = NULL;
	int r = rss ? 0 : -ENOMEM;

	if (r >= 0)
		r = columns_make(obs, n, n_cells, n_blocks, &c);
	if (r >= 0 && (c.p == 0 || (one_part && c.n_parts > 1)))
		r = -EDOM;
	if (r >= 0 && (!(beta = gsl_vector_alloc(c.p)) || !(inv = gsl_matrix_alloc(c.p, c.p))))
		r = -ENOMEM;
	if (r >= 0)
		r = solve(obs, n, &c, beta, inv, rss);
	if (r >= 0)
		r = fit_store(&c, beta, inv, n_cells, &f);
	if (r >= 0 && (!(f.n_in_cell = calloc(n_cells + 1, sizeof(size_t))) ||
		       !(f.part_sigma2 = calloc(n_cells + 1, sizeof(double))) ||
		       !(f.part_df = calloc(n_cells + 1, sizeof(double)))))
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++)
		f.n_in_cell[obs[i].cell]++;
	if (r >= 0)
		fit_parts_sigma(obs, n, &c, n_cells, n_blocks, rss, &f);
	f.n_parts = c.n_parts;
	gsl_vector_free(beta);
	gsl_matrix_free(inv);
	free(c.cell);
	free(c.block);
	free(c.part);
	if (r < 0) {
		block_fit_done(&f);
		return r;
	}
	*ret = f;
	return 0;
}

int block_fit(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret)
{
	return fit_parts(obs, n, n_cells, n_blocks, true, ret);
}

int block_fit_nested(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret)
{
	return fit_parts(obs, n, n_cells, n_blocks, false, ret);
}

double block_covariance(const struct block_fit *f, const double *u, const double *w)
{
	double q = 0;

	for (size_t i = 0; i < f->n_cells; i++)
		for (size_t j = 0; j < f->n_cells; j++)
			if (u[i] != 0 && w[j] != 0)
				q += u[i] * f->vcov[i * f->n_cells + j] * w[j];
	return f->sigma2 * q;
}

/* Whether w sums to zero within each part of the design: only such a
 * contrast is free of the parts' reference blocks. */
static bool contrast_in_parts(const struct block_fit *f, const double *w)
{
	for (size_t p = 0; p < f->n_cells; p++) {
		double sum = 0, scale = 0;

		for (size_t i = 0; i < f->n_cells; i++)
			if (w[i] != 0 && f->part[i] == f->part[p]) {
				sum += w[i];
				scale += fabs(w[i]);
			}
		if (fabs(sum) > 1e-9 * MAX(scale, 1))
			return false;
	}
	return true;
}

/* The contrast, its standard error and degrees of freedom: of one part,
 * from the pooled sigma; across parts, the sum of each part's variance
 * from its own sigma, with Satterthwaite's degrees of freedom. */
static int contrast_df(const struct block_fit *f, const double *w, double *ret_est, double *ret_se, double *ret_df)
{
	_cleanup_free_ double *wp = NULL;
	double est = 0, var = 0, den = 0;

	for (size_t i = 0; i < f->n_cells; i++) {
		if (w[i] == 0)
			continue;
		if (isnan(f->coef[i]))
			return -EDOM;
		est += w[i] * f->coef[i];
	}
	if (!contrast_in_parts(f, w))
		return -EDOM;
	*ret_est = est;
	*ret_se = f->df > 0 ? sqrt(block_covariance(f, w, w)) : NAN;
	*ret_df = f->df;
	if (f->n_parts <= 1)
		return 0;
	if (!(wp = calloc(f->n_cells + 1, sizeof(double))))
		return -ENOMEM;
	for (size_t p = 0; p < f->n_cells; p++) {
		double q = 0, v;

		if (f->part[p] != p)
			continue; /* p is no part's first cell */
		for (size_t i = 0; i < f->n_cells; i++)
			wp[i] = f->part[i] == p ? w[i] : 0;
		for (size_t i = 0; i < f->n_cells; i++)
			for (size_t j = 0; j < f->n_cells; j++)
				if (wp[i] != 0 && wp[j] != 0)
					q += wp[i] * f->vcov[i * f->n_cells + j] * wp[j];
		if (q == 0)
			continue;
		v = f->part_sigma2[p] * q;
		var += v;
		den += v * v / f->part_df[p];
	}
	*ret_se = sqrt(var);
	*ret_df = den > 0 ? var * var / den : NAN;
	return 0;
}

int block_contrast(const struct block_fit *f, const double *w, double *ret_est, double *ret_se)
{
	double df;

	return contrast_df(f, w, ret_est, ret_se, &df);
}

double block_sigma(const struct block_fit *f)
{
	return f->df > 0 ? sqrt(f->sigma2) : NAN;
}

static void ratio_none(double level, struct stats_ratio *ret)
{
	*ret = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN, .verdict = STATS_TOO_FEW,
				     .se = NAN, .sigma = NAN, .family = 1, .p_raw = NAN, .level = level, .mde = NAN };
}

int block_ratio_of(const struct block_fit *f, const double *w, double level, struct stats_ratio *ret)
{
	double d, se, df;
	int r;

	ratio_none(level, ret);
	r = contrast_df(f, w, &d, &se, &df);
	if (r < 0)
		return r == -ENOMEM ? r : 0; /* a cell without observations: no ratio */
	stats_ratio_from_t(d, se, df, level, ret);
	ret->sigma = block_sigma(f);
	return 0;
}

int block_ratio(const struct block_fit *f, size_t a, size_t b, double level, struct stats_ratio *ret)
{
	_cleanup_free_ double *w = calloc(f->n_cells + 1, sizeof(double));
	int r;

	if (!w)
		return -ENOMEM;
	ratio_none(level, ret);
	if (a >= f->n_cells || b >= f->n_cells)
		return -EINVAL;
	w[a] += 1;
	w[b] -= 1;
	r = block_ratio_of(f, w, level, ret);
	ret->n_a = f->n_in_cell[a];
	ret->n_b = f->n_in_cell[b];
	return r;
}

int block_share(const struct block_fit *f, const double *num, const double *den, double level,
		struct stats_share *ret)
{
	double n, d, se_n, se_d;
	int r;

	*ret = STATS_SHARE_NONE;
	r = block_contrast(f, num, &n, &se_n);
	if (r >= 0)
		r = block_contrast(f, den, &d, &se_d);
	if (r < 0)
		return r;
	if (d == 0)
		return 0;
	ret->share = n / d;
	if (!(f->df > 0))
		return 0;
	ret->df = f->df;
	stats_fieller(n, d, se_n * se_n, se_d * se_d, block_covariance(f, num, den), stats_t_critical(level, f->df), ret);
	stats_share_test(ret, n, se_n * se_n, level);
	return 0;
}

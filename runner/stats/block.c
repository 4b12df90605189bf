/* The randomized complete block model (stats/block.h): least squares on a
 * design of cell, block and position indicators, solved through the
 * Cholesky factor of X'X (a few dozen columns at most, well conditioned),
 * GSL's; the variance groups are stats/block_noise.c's. */
#include <math.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "stats/block.h"
#include "stats/block_noise.h"
#include "common/util.h"

static void internal_free(struct block_internal *in)
{
	if (!in)
		return;
	free(in->cell_col);
	free(in->cols);
	free(in->pos_col);
	free(in->group);
	free(in->inv);
	free(in->group_sigma2);
	free(in->group_df);
	free(in->group_var);
	free(in);
}

void block_fit_done(struct block_fit *f)
{
	free(f->n_in_cell);
	free(f->coef);
	free(f->part);
	internal_free(f->in);
	*f = (struct block_fit){};
}

/* Which cells and blocks hold observations, as column numbers: cells
 * first, then every block but the first used one of each connected part
 * of the design (its effect is the part's reference), then the position
 * terms; -1 for none.  A cell's part is the smallest index among the
 * cells and blocks joined to it through shared observations. */
struct columns {
	long *cell, *block, pos[BLOCK_POSITIONS_MAX];
	size_t *part; /* [n_cells + n_blocks]: union-find parents, then each node's part */
	size_t p, n_parts, n_pos_cols;
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

static int columns_check(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct columns *c)
{
	for (size_t i = 0; i < n_cells; i++)
		c->cell[i] = -1;
	for (size_t i = 0; i < n_blocks; i++)
		c->block[i] = -1;
	for (size_t i = 0; i < BLOCK_POSITIONS_MAX; i++)
		c->pos[i] = -1;
	for (size_t i = 0; i < n; i++) {
		if (obs[i].cell >= n_cells || obs[i].block >= n_blocks || obs[i].first > BLOCK_POSITIONS_MAX)
			return -EINVAL;
		if (!isfinite(obs[i].y))
			return -EDOM;
		c->cell[obs[i].cell] = 0;
		c->block[obs[i].block] = 0;
		if (obs[i].first)
			c->pos[obs[i].first - 1] = 0;
	}
	return 0;
}

static int columns_make(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct columns *c)
{
	int r;

	c->cell = malloc((n_cells + 1) * sizeof(long));
	c->block = malloc((n_blocks + 1) * sizeof(long));
	c->part = malloc((n_cells + n_blocks + 1) * sizeof(size_t));
	if (!c->cell || !c->block || !c->part)
		return -ENOMEM;
	r = columns_check(obs, n, n_cells, n_blocks, c);
	if (r < 0)
		return r;
	columns_parts(obs, n, n_cells, n_blocks, c);
	for (size_t i = 0; i < n_cells; i++)
		if (c->cell[i] == 0)
			c->cell[i] = (long)c->p++;
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
	for (size_t k = 0; k < BLOCK_POSITIONS_MAX; k++)
		if (c->pos[k] == 0) {
			c->pos[k] = (long)c->p++;
			c->n_pos_cols++;
		}
	return 0;
}

/* The position columns left out: the orders made them inestimable. */
static void columns_drop_positions(struct columns *c)
{
	for (size_t k = 0; k < BLOCK_POSITIONS_MAX; k++)
		c->pos[k] = -1;
	c->p -= c->n_pos_cols;
	c->n_pos_cols = 0;
}

/* Each observation's columns. */
static void rows_make(const struct block_obs *obs, size_t n, const struct columns *c, long (*cols)[3])
{
	for (size_t i = 0; i < n; i++) {
		cols[i][0] = c->cell[obs[i].cell];
		cols[i][1] = c->block[obs[i].block] >= 0 ? c->block[obs[i].block] : -1;
		cols[i][2] = obs[i].first ? c->pos[obs[i].first - 1] : -1;
	}
}

/* Whether a Cholesky factor's pivots are all clear of rounding: an
 * aliased column (a position term that one cell carries in every round)
 * leaves a pivot of rounding's size rather than failing. */
static bool cholesky_full_rank(const gsl_matrix *l)
{
	double most = 0;

	for (size_t i = 0; i < l->size1; i++)
		most = MAX(most, fabs(gsl_matrix_get(l, i, i)));
	for (size_t i = 0; i < l->size1; i++)
		if (fabs(gsl_matrix_get(l, i, i)) < 1e-6 * most)
			return false;
	return true;
}

/* The coefficients and (X'X)^-1 into beta and inv.  -EDOM: singular. */
static int solve(const struct block_obs *obs, size_t n, long (*cols)[3], size_t p, double *beta, double *inv)
{
	gsl_matrix_view m = gsl_matrix_view_array(inv, p, p);
	gsl_vector_view b = gsl_vector_view_array(beta, p);
	gsl_vector *xty = gsl_vector_calloc(p);
	gsl_error_handler_t *old;
	int r = 0;

	if (!xty)
		return -ENOMEM;
	gsl_matrix_set_zero(&m.matrix);
	for (size_t i = 0; i < n; i++)
		for (size_t a = 0; a < 3; a++) {
			if (cols[i][a] < 0)
				continue;
			*gsl_vector_ptr(xty, (size_t)cols[i][a]) += obs[i].y;
			for (size_t k = 0; k < 3; k++)
				if (cols[i][k] >= 0)
					*gsl_matrix_ptr(&m.matrix, (size_t)cols[i][a], (size_t)cols[i][k]) += 1;
		}
	/* A design that is not connected is singular: said by the return
	 * value, not by GSL's abort. */
	old = gsl_set_error_handler_off();
	if (gsl_linalg_cholesky_decomp1(&m.matrix) != 0 || !cholesky_full_rank(&m.matrix) ||
	    gsl_linalg_cholesky_solve(&m.matrix, xty, &b.vector) != 0 || gsl_linalg_cholesky_invert(&m.matrix) != 0)
		r = -EDOM;
	gsl_set_error_handler(old);
	gsl_vector_free(xty);
	return r;
}

double block_hat(const struct block_internal *in, size_t i, size_t j)
{
	double h = 0;

	for (size_t a = 0; a < 3; a++)
		for (size_t b = 0; b < 3; b++)
			if (in->cols[i][a] >= 0 && in->cols[j][b] >= 0)
				h += in->inv[(size_t)in->cols[i][a] * in->p + (size_t)in->cols[j][b]];
	return h;
}

/* The design's columns, solved: positions left out where the orders make
 * them inestimable or where they would leave fewer than
 * STATS_POSITION_DF_MIN residual degrees of freedom (a pilot of two
 * contexts: t on 1 degree of freedom is 12.7, a cost no position effect
 * is worth).  *ret_beta (to free()) holds c->p coefficients. */
static int fit_solve(const struct block_obs *obs, size_t n, struct columns *c, struct block_internal *in,
		     double **ret_beta, bool *ret_dropped)
{
	int r;

	*ret_dropped = false;
	if (c->n_pos_cols && (double)n - (double)c->p < STATS_POSITION_DF_MIN) {
		columns_drop_positions(c);
		*ret_dropped = true;
	}
	for (;;) {
		free(*ret_beta);
		free(in->inv);
		*ret_beta = calloc(c->p + 1, sizeof(double));
		in->inv = calloc(c->p * c->p + 1, sizeof(double));
		if (!*ret_beta || !in->inv)
			return -ENOMEM;
		in->p = c->p;
		rows_make(obs, n, c, in->cols);
		r = c->p ? solve(obs, n, in->cols, c->p, *ret_beta, in->inv) : -EDOM;
		if (r != -EDOM || c->n_pos_cols == 0)
			return r;
		columns_drop_positions(c);
		*ret_dropped = true;
	}
}

/* The cells' coefficients by cell index, each cell's part and count, the
 * position terms. */
static int fit_store(const struct block_obs *obs, size_t n, const struct columns *c, const double *beta,
		     size_t n_cells, struct block_fit *f)
{
	f->coef = malloc((n_cells + 1) * sizeof(double));
	f->part = calloc(n_cells + 1, sizeof(size_t));
	f->n_in_cell = calloc(n_cells + 1, sizeof(size_t));
	f->in->cell_col = malloc((n_cells + 1) * sizeof(long));
	f->in->pos_col = malloc(BLOCK_POSITIONS_MAX * sizeof(long));
	if (!f->coef || !f->part || !f->n_in_cell || !f->in->cell_col || !f->in->pos_col)
		return -ENOMEM;
	for (size_t i = 0; i < n_cells; i++) {
		f->coef[i] = c->cell[i] < 0 ? NAN : beta[c->cell[i]];
		f->part[i] = c->part[i];
		f->in->cell_col[i] = c->cell[i];
	}
	for (size_t i = 0; i < n; i++) {
		f->n_in_cell[obs[i].cell]++;
		f->n_positions = MAX(f->n_positions, (size_t)obs[i].first);
	}
	for (size_t k = 0; k < BLOCK_POSITIONS_MAX; k++) {
		f->position[k] = c->pos[k] >= 0 ? beta[c->pos[k]] : NAN;
		f->in->pos_col[k] = c->pos[k];
	}
	f->n_parts = c->n_parts;
	return 0;
}

/* Each observation's group the part of its cell's, the parts numbered
 * in the order of their first cells; how many. */
static size_t groups_by_part(const struct block_obs *obs, size_t n, struct block_fit *f)
{
	size_t parts = 0;

	for (size_t i = 0; i < n; i++) {
		size_t root = f->part[obs[i].cell], k = 0;

		for (size_t c = 0; c < root; c++)
			k += f->part[c] == c && f->n_in_cell[c] > 0;
		f->in->group[i] = k;
		parts = MAX(parts, k + 1);
	}
	return parts;
}

/* The variance groups asked for (each observation's own, unless pooled),
 * else a group per part of the design, else one. */
static int fit_noise(const struct block_obs *obs, size_t n, const double *e, bool pooled, struct block_fit *f)
{
	size_t asked = 0, parts;
	int r = -EDOM;

	for (size_t i = 0; i < n; i++)
		asked = MAX(asked, obs[i].group + 1);
	f->groups_asked = asked;
	if (!pooled) {
		for (size_t i = 0; i < n; i++)
			f->in->group[i] = obs[i].group;
		r = block_noise_groups(f->in, e, asked, STATS_GROUP_DF_MIN);
	}
	if (r != -EDOM)
		return r;
	f->pooled = true;
	parts = groups_by_part(obs, n, f);
	r = block_noise_groups(f->in, e, parts, STATS_GROUP_DF_MIN);
	if (r != -EDOM || parts <= 1)
		return r;
	memset(f->in->group, 0, n * sizeof(size_t));
	return block_noise_groups(f->in, e, 1, STATS_GROUP_DF_MIN);
}

/* One piece: the steps of a fit, each a call, in the order they need. */
static int fit_parts(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, bool one_part, bool pooled,
		     struct block_fit *ret)
{
	struct columns c = {};
	struct block_fit f = { .n_cells = n_cells, .n_obs = n, .sigma2 = NAN };
	_cleanup_free_ double *beta = NULL, *e = calloc(n + 1, sizeof(double));
	int r = e && (f.in = calloc(1, sizeof(*f.in))) ? 0 : -ENOMEM;

	if (r >= 0)
		r = columns_make(obs, n, n_cells, n_blocks, &c);
	if (r >= 0 && (c.p == 0 || (one_part && c.n_parts > 1)))
		r = -EDOM;
	if (r >= 0 && (!(f.in->cols = calloc(n + 1, sizeof(*f.in->cols))) ||
		       !(f.in->group = calloc(n + 1, sizeof(size_t)))))
		r = -ENOMEM;
	if (r >= 0)
		f.in->n = n;
	if (r >= 0)
		r = fit_solve(obs, n, &c, f.in, &beta, &f.position_dropped);
	if (r >= 0)
		r = fit_store(obs, n, &c, beta, n_cells, &f);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		double fit = 0;

		for (size_t a = 0; a < 3; a++)
			fit += f.in->cols[i][a] >= 0 ? beta[f.in->cols[i][a]] : 0;
		e[i] = obs[i].y - fit;
	}
	f.df = (double)n - (double)c.p;
	if (r >= 0) {
		f.in->df = f.df;
		r = fit_noise(obs, n, e, pooled, &f);
		f.sigma2 = f.in->sigma2;
		f.n_groups = f.in->n_groups;
	}
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
	return fit_parts(obs, n, n_cells, n_blocks, true, false, ret);
}

int block_fit_nested(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret)
{
	return fit_parts(obs, n, n_cells, n_blocks, false, false, ret);
}

int block_fit_pooled(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret)
{
	return fit_parts(obs, n, n_cells, n_blocks, false, true, ret);
}

int block_fit_take_variances(struct block_fit *dst, const struct block_fit *src)
{
	size_t g = src->n_groups;

	if (g != dst->n_groups || src->pooled != dst->pooled)
		return -EDOM;
	memcpy(dst->in->group_sigma2, src->in->group_sigma2, g * sizeof(double));
	memcpy(dst->in->group_df, src->in->group_df, g * sizeof(double));
	memcpy(dst->in->group_var, src->in->group_var, g * g * sizeof(double));
	dst->sigma2 = dst->in->sigma2 = src->sigma2;
	dst->df = dst->in->df = src->df;
	return 0;
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

/* The observations' weights a = X (X'X)^-1 wp of a contrast wp of the
 * columns, into a[0..n). */
static int observation_weights(const struct block_fit *f, const double *wp, double *a)
{
	const struct block_internal *in = f->in;
	_cleanup_free_ double *t = calloc(in->p + 1, sizeof(double));

	if (!t)
		return -ENOMEM;
	for (size_t j = 0; j < in->p; j++)
		for (size_t k = 0; k < in->p; k++)
			t[j] += in->inv[j * in->p + k] * wp[k];
	for (size_t i = 0; i < in->n; i++) {
		a[i] = 0;
		for (size_t k = 0; k < 3; k++)
			a[i] += in->cols[i][k] >= 0 ? t[in->cols[i][k]] : 0;
	}
	return 0;
}

/* The variance of sum a_i e_i and its Satterthwaite degrees of freedom. */
static void weights_variance(const struct block_fit *f, const double *a, double *ret_var, double *ret_df)
{
	size_t g = f->n_groups;
	double c[g + 1], var = 0, vv = 0;

	memset(c, 0, sizeof(c));
	for (size_t i = 0; i < f->in->n; i++)
		c[f->in->group[i]] += a[i] * a[i];
	for (size_t h = 0; h < g; h++) {
		var += c[h] * f->in->group_sigma2[h];
		for (size_t k = 0; k < g; k++)
			vv += c[h] * c[k] * f->in->group_var[h * g + k];
	}
	*ret_var = var;
	/* At least 1: below it the t quantiles run off (and no design here
	 * has less than one residual degree of freedom behind a group). */
	*ret_df = vv > 0 ? MIN(f->df, MAX(1, 2 * var * var / vv)) : f->df;
}

/* A contrast of the cells: its estimate, the observations' weights into
 * a (n of them), its variance and degrees of freedom. */
static int contrast_of(const struct block_fit *f, const double *w, double *ret_est, double *a, double *ret_var,
		       double *ret_df)
{
	_cleanup_free_ double *wp = calloc(f->in->p + 1, sizeof(double));
	double est = 0;
	int r;

	if (!wp)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_cells; i++) {
		if (w[i] == 0)
			continue;
		if (isnan(f->coef[i]))
			return -EDOM;
		est += w[i] * f->coef[i];
		wp[f->in->cell_col[i]] += w[i];
	}
	if (!contrast_in_parts(f, w))
		return -EDOM;
	r = observation_weights(f, wp, a);
	if (r < 0)
		return r;
	*ret_est = est;
	weights_variance(f, a, ret_var, ret_df);
	return 0;
}

/* A contrast's estimate, standard error and degrees of freedom; the
 * standard error NAN without residual degrees of freedom. */
static int contrast_df(const struct block_fit *f, const double *w, double *ret_est, double *ret_se, double *ret_df,
		       double *ret_sum_a2)
{
	_cleanup_free_ double *a = calloc(f->n_obs + 1, sizeof(double));
	double var;
	int r;

	if (!a)
		return -ENOMEM;
	r = contrast_of(f, w, ret_est, a, &var, ret_df);
	if (r < 0)
		return r;
	*ret_se = f->df > 0 ? sqrt(var) : NAN;
	*ret_sum_a2 = 0;
	for (size_t i = 0; i < f->n_obs; i++)
		*ret_sum_a2 += a[i] * a[i];
	return 0;
}

int block_contrast(const struct block_fit *f, const double *w, double *ret_est, double *ret_se)
{
	double df, a2;

	return contrast_df(f, w, ret_est, ret_se, &df, &a2);
}

double block_covariance(const struct block_fit *f, const double *u, const double *w)
{
	_cleanup_free_ double *au = calloc(f->n_obs + 1, sizeof(double)), *aw = calloc(f->n_obs + 1, sizeof(double));
	double est, var, df, q = 0;

	if (!au || !aw || contrast_of(f, u, &est, au, &var, &df) < 0 || contrast_of(f, w, &est, aw, &var, &df) < 0)
		return NAN;
	for (size_t i = 0; i < f->n_obs; i++)
		q += au[i] * aw[i] * f->in->group_sigma2[f->in->group[i]];
	return q;
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
	double d, se, df, a2;
	int r;

	ratio_none(level, ret);
	r = contrast_df(f, w, &d, &se, &df, &a2);
	if (r < 0)
		return r == -ENOMEM ? r : 0; /* a cell without observations: no ratio */
	stats_ratio_from_t(d, se, df, level, ret);
	/* The sigma between starts behind this contrast's standard error. */
	ret->sigma = a2 > 0 && f->df > 0 ? se / sqrt(a2) : NAN;
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

int block_position(const struct block_fit *f, unsigned k, double level, struct stats_ratio *ret)
{
	_cleanup_free_ double *wp = calloc(f->in->p + 1, sizeof(double)), *a = calloc(f->n_obs + 1, sizeof(double));
	double var, df;
	int r;

	ratio_none(level, ret);
	if (!wp || !a)
		return -ENOMEM;
	if (k < 1 || k > BLOCK_POSITIONS_MAX || f->in->pos_col[k - 1] < 0)
		return 0;
	wp[f->in->pos_col[k - 1]] = 1;
	r = observation_weights(f, wp, a);
	if (r < 0)
		return r;
	weights_variance(f, a, &var, &df);
	stats_ratio_from_t(f->position[k - 1], f->df > 0 ? sqrt(var) : NAN, df, level, ret);
	return 0;
}

int block_share(const struct block_fit *f, const double *num, const double *den, double level,
		struct stats_share *ret)
{
	_cleanup_free_ double *comb = calloc(f->n_cells + 1, sizeof(double));
	double n, d, se_n, se_d, df, a2, e, se;
	int r;

	*ret = STATS_SHARE_NONE;
	if (!comb)
		return -ENOMEM;
	r = contrast_df(f, num, &n, &se_n, &df, &a2);
	if (r >= 0)
		r = contrast_df(f, den, &d, &se_d, &df, &a2);
	if (r < 0)
		return r;
	if (d == 0)
		return 0;
	ret->share = n / d;
	if (!(f->df > 0))
		return 0;
	/* The degrees of freedom of num - s den at the estimate s, the
	 * quantity Fieller's set is made from. */
	for (size_t i = 0; i < f->n_cells; i++)
		comb[i] = num[i] - ret->share * den[i];
	r = contrast_df(f, comb, &e, &se, &ret->df, &a2);
	if (r < 0)
		return r;
	stats_fieller(n, d, se_n * se_n, se_d * se_d, block_covariance(f, num, den),
		      stats_t_critical(level, ret->df), ret);
	stats_share_test(ret, n, se_n * se_n, level);
	return 0;
}

/* The randomized complete block model with the start as its unit
 * (stats/block.h): the design's columns (stats/block_design.h), the place
 * terms where the orders identify them, the noise's components
 * (stats/block_noise.h), and the contrasts. */
#include <math.h>

#include "stats/block.h"
#include "stats/block_design.h"
#include "stats/block_noise.h"
#include "common/util.h"

struct block_internal {
	struct block_design d;
	struct block_noise nz;
	long *cell_col; /* [n_cells]: each cell's column; -1: none */
};

static void internal_free(struct block_internal *in)
{
	if (!in)
		return;
	block_design_done(&in->d);
	block_noise_done(&in->nz);
	free(in->cell_col);
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
 * of the design (its effect is the part's reference), then the place
 * terms of the sets asked; -1 for none.  A cell's part is the smallest
 * index among the cells and blocks joined to it through shared
 * observations. */
struct columns {
	long *cell, *block;
	size_t *part; /* [n_cells + n_blocks]: union-find parents, then each node's part */
	size_t p, n_parts, n_sets;
	bool has_last[BLOCK_ORDER_SETS_MAX]; /* a round of the set has 3 units or more */
	struct block_places places[BLOCK_ORDER_SETS_MAX];
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
	for (size_t i = 0; i < n; i++) {
		if (obs[i].cell >= n_cells || obs[i].block >= n_blocks || obs[i].order > BLOCK_ORDER_SETS_MAX ||
		    (obs[i].order && (obs[i].slot < 1 || obs[i].slot > obs[i].slots)))
			return -EINVAL;
		if (!isfinite(obs[i].y))
			return -EDOM;
		c->cell[obs[i].cell] = 0;
		c->block[obs[i].block] = 0;
		if (obs[i].order && obs[i].slots >= 2) {
			c->n_sets = MAX(c->n_sets, (size_t)obs[i].order);
			c->places[obs[i].order - 1].model = BLOCK_PLACES_FITTED;
			c->has_last[obs[i].order - 1] |= obs[i].slots >= 3;
		}
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
	return 0;
}

static void columns_free(struct columns *c)
{
	free(c->cell);
	free(c->block);
	free(c->part);
}

/* The design's rows with the place terms of the sets whose model is
 * BLOCK_PLACES_FITTED and `with` (a set's bit) numbered after p0. */
static void rows_make(const struct block_obs *obs, size_t n, struct columns *c, size_t p0, unsigned with,
		      struct block_design *d)
{
	d->p = p0;
	for (size_t k = 0; k < c->n_sets; k++) {
		bool on = c->places[k].model == BLOCK_PLACES_FITTED && (with >> k & 1);

		c->places[k].col[BLOCK_FIRST] = on ? (long)d->p++ : -1;
		c->places[k].col[BLOCK_LAST] = on && c->has_last[k] ? (long)d->p++ : -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct block_places *pl = obs[i].order ? &c->places[obs[i].order - 1] : NULL;

		d->cols[i][0] = c->cell[obs[i].cell];
		d->cols[i][1] = c->block[obs[i].block] >= 0 ? c->block[obs[i].block] : -1;
		d->cols[i][2] = pl && obs[i].slot == 1 ? pl->col[BLOCK_FIRST] : -1;
		d->cols[i][3] = pl && obs[i].slot == obs[i].slots && obs[i].slots >= 3 ? pl->col[BLOCK_LAST] : -1;
	}
}

/* The place terms: each set tried alone with the cells and blocks, kept
 * where the orders identify its terms and they leave
 * STATS_POSITION_DF_MIN residual degrees of freedom between starts (a
 * pilot of two contexts: t on 1 degree of freedom is 12.7, a cost no
 * position effect is worth); then the kept ones together, or none. */
static int places_choose(const struct block_obs *obs, size_t n, const double *y, struct columns *c,
			 struct block_design *d)
{
	_cleanup_free_ bool *in = calloc(n + 1, sizeof(bool));
	size_t p0 = c->p;
	unsigned kept = 0;
	int r;

	if (!in)
		return -ENOMEM;
	for (size_t k = 0; k < c->n_sets; k++) {
		if (c->places[k].model != BLOCK_PLACES_FITTED)
			continue;
		rows_make(obs, n, c, p0, 1u << k, d);
		r = block_design_solve(d, y);
		if (r == -ENOMEM)
			return r;
		/* The set's own starts: another host's spare no degree of
		 * freedom to this one's places. */
		for (size_t i = 0; i < n; i++)
			in[i] = obs[i].order == k + 1;
		if (r < 0)
			c->places[k].model = BLOCK_PLACES_CONFOUNDED;
		else if (block_design_df_starts(d, in) < STATS_POSITION_DF_MIN)
			c->places[k].model = BLOCK_PLACES_TOO_FEW;
		else
			kept |= 1u << k;
	}
	rows_make(obs, n, c, p0, kept, d);
	r = block_design_solve(d, y);
	if (r != -EDOM || kept == 0)
		return r;
	for (size_t k = 0; k < c->n_sets; k++)
		if (kept >> k & 1)
			c->places[k].model = BLOCK_PLACES_CONFOUNDED;
	rows_make(obs, n, c, p0, 0, d);
	return block_design_solve(d, y);
}

/* The cells' coefficients by cell index, each cell's part and count, the
 * place terms. */
static int fit_store(const struct block_obs *obs, size_t n, const struct columns *c, size_t n_cells,
		     struct block_fit *f)
{
	const double *beta = f->in->d.beta;

	f->coef = malloc((n_cells + 1) * sizeof(double));
	f->part = calloc(n_cells + 1, sizeof(size_t));
	f->n_in_cell = calloc(n_cells + 1, sizeof(size_t));
	f->in->cell_col = malloc((n_cells + 1) * sizeof(long));
	if (!f->coef || !f->part || !f->n_in_cell || !f->in->cell_col)
		return -ENOMEM;
	for (size_t i = 0; i < n_cells; i++) {
		f->coef[i] = c->cell[i] < 0 ? NAN : beta[c->cell[i]];
		f->part[i] = c->part[i];
		f->in->cell_col[i] = c->cell[i];
	}
	for (size_t i = 0; i < n; i++)
		f->n_in_cell[obs[i].cell]++;
	f->n_order_sets = c->n_sets;
	for (size_t k = 0; k < c->n_sets; k++) {
		f->places[k] = c->places[k];
		for (size_t x = 0; x < _BLOCK_PLACE_MAX; x++)
			f->places[k].coef[x] = c->places[k].col[x] >= 0 ? beta[c->places[k].col[x]] : NAN;
	}
	f->n_parts = c->n_parts;
	return 0;
}

/* How the noise's groups are taken. */
enum fit_mode {
	FIT_GROUPS,	/* each group its own where the starts leave STATS_GROUP_DF_MIN a group */
	FIT_POOLED,	/* each pool its own, else one */
	FIT_GROUPS_ANY, /* each group its own wherever its components can be estimated */
};

/* The noise: the groups asked (unless pooled), else each pool its own,
 * else one for all. */
static int fit_noise(const struct block_obs *obs, size_t n, const double *e, enum fit_mode mode, struct block_fit *f)
{
	_cleanup_free_ size_t *g = calloc(n + 1, sizeof(size_t));
	size_t asked = 0, pools = 0;
	int r = -EDOM;

	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		asked = MAX(asked, obs[i].group + 1);
		pools = MAX(pools, obs[i].pool + 1);
	}
	f->groups_asked = asked;
	f->noise = BLOCK_NOISE_GROUPS;
	if (mode != FIT_POOLED) {
		for (size_t i = 0; i < n; i++)
			g[i] = obs[i].group;
		r = block_noise_fit(&f->in->nz, &f->in->d, g, asked, e, mode == FIT_GROUPS ? STATS_GROUP_DF_MIN : 0);
	}
	/* Each pool its own however few its starts (a host's noise is no
	 * other's): its intervals are as wide as they are. */
	if (r == -EDOM && pools > 1) {
		f->noise = BLOCK_NOISE_POOLS;
		for (size_t i = 0; i < n; i++)
			g[i] = obs[i].pool;
		r = block_noise_fit(&f->in->nz, &f->in->d, g, pools, e, 0);
	}
	if (r == -EDOM) {
		f->noise = asked > 1 || pools > 1 ? BLOCK_NOISE_ONE : BLOCK_NOISE_GROUPS;
		memset(g, 0, n * sizeof(size_t));
		r = block_noise_fit(&f->in->nz, &f->in->d, g, 1, e, STATS_GROUP_DF_MIN);
	}
	if (r < 0)
		return r;
	f->in->nz.fewest_df = mode == FIT_GROUPS_ANY || f->noise == BLOCK_NOISE_POOLS;
	f->n_groups = f->in->nz.n_groups;
	return 0;
}

/* The design: its starts, its columns and its solution. */
static int fit_design(const struct block_obs *obs, size_t n, const double *y, struct columns *c, struct block_design *d)
{
	_cleanup_free_ size_t *start = calloc(n + 1, sizeof(size_t));

	if (!start || !(d->cols = calloc(n + 1, sizeof(*d->cols))))
		return -ENOMEM;
	d->n = n;
	for (size_t i = 0; i < n; i++)
		start[i] = obs[i].start;
	return block_design_starts(d, start, n) ?: places_choose(obs, n, y, c, d);
}

static int fit_parts(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, bool one_part,
		     enum fit_mode mode, struct block_fit *ret)
{
	struct columns c = {};
	struct block_fit f = { .n_cells = n_cells, .n_obs = n, .sigma2 = NAN, .start_share = NAN };
	_cleanup_free_ double *y = calloc(n + 1, sizeof(double)), *e = calloc(n + 1, sizeof(double));
	double start_var;
	int r = y && e && (f.in = calloc(1, sizeof(*f.in))) ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < n; i++)
		y[i] = obs[i].y;
	if (r >= 0)
		r = columns_make(obs, n, n_cells, n_blocks, &c);
	if (r >= 0 && (c.p == 0 || (one_part && c.n_parts > 1)))
		r = -EDOM;
	if (r >= 0)
		r = fit_design(obs, n, y, &c, &f.in->d);
	if (r >= 0)
		r = fit_store(obs, n, &c, n_cells, &f);
	f.df = (double)n - (double)f.in->d.p;
	if (r >= 0 && f.df > 0) {
		block_design_residuals(&f.in->d, y, e);
		f.df_starts = block_design_df_starts(&f.in->d, NULL);
		r = fit_noise(obs, n, e, mode, &f);
		if (r >= 0) {
			block_noise_totals(&f.in->nz, &f.in->d, &f.sigma2, &start_var);
			f.start_share = f.sigma2 > 0 ? start_var / f.sigma2 : NAN;
		}
	}
	columns_free(&c);
	if (r < 0) {
		block_fit_done(&f);
		return r;
	}
	*ret = f;
	return 0;
}

int block_fit(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret)
{
	return fit_parts(obs, n, n_cells, n_blocks, true, FIT_GROUPS, ret);
}

int block_fit_nested(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret)
{
	return fit_parts(obs, n, n_cells, n_blocks, false, FIT_GROUPS, ret);
}

int block_fit_pooled(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret)
{
	return fit_parts(obs, n, n_cells, n_blocks, false, FIT_POOLED, ret);
}

int block_fit_groups(const struct block_obs *obs, size_t n, size_t n_cells, size_t n_blocks, struct block_fit *ret)
{
	return fit_parts(obs, n, n_cells, n_blocks, false, FIT_GROUPS_ANY, ret);
}

int block_fit_take_variances(struct block_fit *dst, const struct block_fit *src)
{
	struct block_noise *d = &dst->in->nz;
	const struct block_noise *s = &src->in->nz;
	size_t k = s->n_comp;

	if (!dst->in || !src->in || k != d->n_comp || dst->noise != src->noise ||
	    memcmp(d->comp_start, s->comp_start, k * sizeof(bool)) != 0)
		return -EDOM;
	memcpy(d->theta, s->theta, k * sizeof(double));
	memcpy(d->cov, s->cov, k * k * sizeof(double));
	memcpy(d->comp_df, s->comp_df, k * sizeof(double));
	dst->sigma2 = src->sigma2;
	dst->start_share = src->start_share;
	dst->df = src->df;
	dst->df_starts = src->df_starts;
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

/* A contrast of the cells: its estimate, and the observations' weights
 * into a (n of them). */
static int contrast_of(const struct block_fit *f, const double *w, double *ret_est, double *a)
{
	const struct block_design *d = &f->in->d;
	_cleanup_free_ double *wp = calloc(d->p + 1, sizeof(double));
	double est = 0;

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
	*ret_est = est;
	return block_design_weights(d, wp, a);
}

/* A contrast's estimate, standard error and degrees of freedom (the
 * standard error NAN without residual degrees of freedom), and the sum
 * of its observations' squared weights. */
static int contrast_t(const struct block_fit *f, const double *w, double *ret_est, double *ret_se, double *ret_df,
		      double *ret_sum_a2)
{
	_cleanup_free_ double *a = calloc(f->n_obs + 1, sizeof(double));
	double var;
	int r;

	if (!a)
		return -ENOMEM;
	r = contrast_of(f, w, ret_est, a);
	if (r < 0)
		return r;
	*ret_se = *ret_df = NAN;
	*ret_sum_a2 = 0;
	for (size_t i = 0; i < f->n_obs; i++)
		*ret_sum_a2 += a[i] * a[i];
	if (!(f->df > 0))
		return 0;
	block_noise_variance(&f->in->nz, &f->in->d, a, &var, ret_df);
	*ret_se = sqrt(MAX(var, 0));
	return 0;
}

int block_contrast_t(const struct block_fit *f, const double *w, double *ret_est, double *ret_se, double *ret_df)
{
	double a2;

	return contrast_t(f, w, ret_est, ret_se, ret_df, &a2);
}

int block_contrast(const struct block_fit *f, const double *w, double *ret_est, double *ret_se)
{
	double df;

	return block_contrast_t(f, w, ret_est, ret_se, &df);
}

double block_covariance(const struct block_fit *f, const double *u, const double *w)
{
	_cleanup_free_ double *au = calloc(f->n_obs + 1, sizeof(double)), *aw = calloc(f->n_obs + 1, sizeof(double));
	double est;

	if (!au || !aw || !(f->df > 0) || contrast_of(f, u, &est, au) < 0 || contrast_of(f, w, &est, aw) < 0)
		return NAN;
	return block_noise_covariance(&f->in->nz, &f->in->d, au, aw);
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

/* The mean squares of the contrast w's variance, for its mde. */
static int contrast_mean_squares(const struct block_fit *f, const double *w, struct stats_ratio *ret)
{
	_cleanup_free_ double *a = calloc(f->n_obs + 1, sizeof(double));
	double est;
	int r;

	if (!a)
		return -ENOMEM;
	r = contrast_of(f, w, &est, a);
	if (r >= 0 && f->df > 0)
		ret->n_ms = block_noise_mean_squares(&f->in->nz, &f->in->d, a, f->df_starts, ret->ms);
	return r;
}

int block_ratio_of(const struct block_fit *f, const double *w, double level, struct stats_ratio *ret)
{
	double d, se, df, a2;
	int r;

	ratio_none(level, ret);
	r = contrast_t(f, w, &d, &se, &df, &a2);
	if (r >= 0)
		r = contrast_mean_squares(f, w, ret);
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

int block_place(const struct block_fit *f, unsigned k, enum block_place place, double level, struct stats_ratio *ret)
{
	const struct block_design *d;
	_cleanup_free_ double *wp = NULL, *a = NULL;
	double var, df;
	long col;
	int r;

	ratio_none(level, ret);
	if (k < 1 || k > f->n_order_sets || place >= _BLOCK_PLACE_MAX || (col = f->places[k - 1].col[place]) < 0 ||
	    f->places[k - 1].model != BLOCK_PLACES_FITTED || !(f->df > 0))
		return 0;
	d = &f->in->d;
	wp = calloc(d->p + 1, sizeof(double));
	a = calloc(f->n_obs + 1, sizeof(double));
	if (!wp || !a)
		return -ENOMEM;
	wp[col] = 1;
	r = block_design_weights(d, wp, a);
	if (r < 0)
		return r;
	block_noise_variance(&f->in->nz, d, a, &var, &df);
	stats_ratio_from_t(f->places[k - 1].coef[place], sqrt(MAX(var, 0)), df, level, ret);
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
	r = contrast_t(f, num, &n, &se_n, &df, &a2);
	if (r >= 0)
		r = contrast_t(f, den, &d, &se_d, &df, &a2);
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
	r = contrast_t(f, comb, &e, &se, &ret->df, &a2);
	if (r < 0)
		return r;
	stats_fieller(n, d, se_n * se_n, se_d * se_d, block_covariance(f, num, den),
		      stats_t_critical(level, ret->df), ret);
	stats_share_test(ret, n, se_n * se_n, level);
	return 0;
}

/* The block model's noise (stats/block_noise.h) by the method of moments.
 * Each component c has its units: a within component the observations of
 * its group, a start component the starts of its group; with Z the units'
 * indicators, M = I - H the residual maker and q_c the sum over c's units
 * of (the unit's residuals summed)^2,
 *
 *     E[q_c] = sum_d A_cd theta_d,   A_cd = sum_(u in c, v in d) (Z'MZ)_uv^2
 *     cov(q_c, q_d) = 2 sum_(u in c, v in d) (Z'WZ)_uv^2,   W = M V M
 *
 * V the observations' covariance at the estimates.  The estimates are
 * unbiased; a component whose estimate is not positive (a quiet group
 * beside a noisy one, by chance) takes its own moment alone, q_c / A_cc,
 * which the other components inflate, so errs on the safe side.  W's
 * elements come from the design's few columns per observation (V - HV -
 * VH + X K X', K = (X'X)^-1 X'VX (X'X)^-1), so no n x n matrix is formed;
 * the sums over starts take n x starts. */
#include <math.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>

#include "stats/block_noise.h"
#include "common/util.h"

void block_noise_done(struct block_noise *nz)
{
	if (!nz)
		return;
	free(nz->obs_comp);
	free(nz->start_comp);
	free(nz->comp_start);
	free(nz->theta);
	free(nz->cov);
	free(nz->comp_df);
	free(nz->comp_group);
	*nz = (struct block_noise){};
}

static size_t start_size(const struct block_design *d, size_t s)
{
	return d->start_at[s + 1] - d->start_at[s];
}

/* The components: a within one per group that holds observations
 * (renumbered in order), and with starts a start one per group that has a
 * start of more than one step, which all its starts share (a start's
 * group its first step's). */
static int components_map(struct block_noise *nz, const struct block_design *d, const size_t *group, size_t groups,
			  bool starts)
{
	_cleanup_free_ long *map = malloc((groups + 1) * sizeof(long)), *start_of = malloc((groups + 1) * sizeof(long));
	size_t used = 0, comps;

	nz->obs_comp = calloc(d->n + 1, sizeof(long));
	nz->start_comp = calloc(d->n_starts + 1, sizeof(long));
	nz->comp_start = calloc(2 * groups + 1, sizeof(bool));
	nz->comp_group = calloc(2 * groups + 1, sizeof(size_t));
	if (!map || !start_of || !nz->obs_comp || !nz->start_comp || !nz->comp_start || !nz->comp_group)
		return -ENOMEM;
	for (size_t g = 0; g < groups; g++)
		map[g] = start_of[g] = -1;
	for (size_t i = 0; i < d->n; i++)
		map[group[i]] = 0;
	for (size_t g = 0; g < groups; g++)
		if (map[g] == 0) {
			nz->comp_group[used] = used;
			map[g] = (long)used++;
		}
	for (size_t i = 0; i < d->n; i++)
		nz->obs_comp[i] = map[group[i]];
	comps = used;
	for (size_t s = 0; starts && s < d->n_starts; s++) {
		size_t g = group[d->start_obs[d->start_at[s]]];

		if (start_size(d, s) >= 2 && start_of[g] < 0) {
			start_of[g] = (long)comps;
			nz->comp_group[comps] = (size_t)map[g];
			nz->comp_start[comps++] = true;
		}
	}
	/* A start of one step (the others failed) shares its group's. */
	for (size_t s = 0; s < d->n_starts; s++)
		nz->start_comp[s] = start_of[group[d->start_obs[d->start_at[s]]]];
	nz->n_groups = used;
	nz->n_comp = comps;
	return 0;
}

/* A symmetric n x n kernel, one element at a time. */
typedef double (*kernel_fn)(const void *ctx, size_t i, size_t j);

/* out[c * C + d] = sum over c's units u and d's units v of (Z' K Z)_uv^2. */
static int unit_squares(const struct block_noise *nz, const struct block_design *d, kernel_fn kernel, const void *ctx,
			double *out)
{
	size_t n = d->n, S = d->n_starts, C = nz->n_comp;
	bool any_start = false;
	_cleanup_free_ double *kz = NULL;

	for (size_t c = 0; c < C; c++)
		any_start |= nz->comp_start[c];
	if (any_start && !(kz = calloc(n * S + 1, sizeof(double))))
		return -ENOMEM;
	memset(out, 0, C * C * sizeof(double));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			double k = kernel(ctx, i, j);

			out[(size_t)nz->obs_comp[i] * C + (size_t)nz->obs_comp[j]] += k * k;
			if (kz)
				kz[i * S + d->start[j]] += k;
		}
	if (!kz)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t s = 0; s < S; s++) {
			double v = kz[i * S + s];
			long sc = nz->start_comp[s];

			if (sc < 0)
				continue;
			out[(size_t)nz->obs_comp[i] * C + (size_t)sc] += v * v;
			out[(size_t)sc * C + (size_t)nz->obs_comp[i]] += v * v;
		}
	for (size_t s = 0; s < S; s++)
		for (size_t t = 0; t < S && nz->start_comp[s] >= 0; t++) {
			double v = 0;

			if (nz->start_comp[t] < 0)
				continue;
			for (size_t a = d->start_at[s]; a < d->start_at[s + 1]; a++)
				v += kz[d->start_obs[a] * S + t];
			out[(size_t)nz->start_comp[s] * C + (size_t)nz->start_comp[t]] += v * v;
		}
	return 0;
}

static double residual_maker(const void *ctx, size_t i, size_t j)
{
	return (i == j) - block_design_hat(ctx, i, j);
}

/* q: each component's sum over its units of their residuals' sum, squared. */
static void moments_q(const struct block_noise *nz, const struct block_design *d, const double *e, double *q)
{
	memset(q, 0, nz->n_comp * sizeof(double));
	for (size_t i = 0; i < d->n; i++)
		q[nz->obs_comp[i]] += e[i] * e[i];
	for (size_t s = 0; s < d->n_starts; s++) {
		double sum = 0;

		if (nz->start_comp[s] < 0)
			continue;
		for (size_t a = d->start_at[s]; a < d->start_at[s + 1]; a++)
			sum += e[d->start_obs[a]];
		q[nz->start_comp[s]] += sum * sum;
	}
}

/* a^-1 into ainv and the solution of a x = q into x.  -EDOM: singular. */
static int moments_solve(const double *a, const double *q, size_t g, double *ainv, double *x)
{
	_cleanup_free_ double *lu = malloc(g * g * sizeof(double));
	gsl_permutation *perm = gsl_permutation_alloc(g);
	gsl_error_handler_t *old;
	int sign, r = 0;

	if (!perm || !lu) {
		gsl_permutation_free(perm);
		return -ENOMEM;
	}
	memcpy(lu, a, g * g * sizeof(double));
	gsl_matrix_view m = gsl_matrix_view_array(lu, g, g), inv = gsl_matrix_view_array(ainv, g, g);
	gsl_vector_const_view b = gsl_vector_const_view_array(q, g);
	gsl_vector_view xv = gsl_vector_view_array(x, g);
	double scale = 0;

	for (size_t i = 0; i < g; i++)
		scale = MAX(scale, fabs(a[i * g + i]));
	old = gsl_set_error_handler_off();
	if (gsl_linalg_LU_decomp(&m.matrix, perm, &sign) != 0 ||
	    fabs(gsl_linalg_LU_det(&m.matrix, sign)) < 1e-10 * pow(MAX(scale, 1e-300), (double)g) ||
	    gsl_linalg_LU_solve(&m.matrix, perm, &b.vector, &xv.vector) != 0 ||
	    gsl_linalg_LU_invert(&m.matrix, perm, &inv.matrix) != 0)
		r = -EDOM;
	gsl_set_error_handler(old);
	gsl_permutation_free(perm);
	return r;
}

/* What W's elements are made of: the observations' within and start
 * variances, each start's sum of the hat matrix's columns (n x starts),
 * and K. */
struct w_kernel {
	const struct block_design *d;
	const struct block_noise *nz;
	double *hz, *k;
};

static double obs_within(const struct block_noise *nz, size_t i)
{
	return nz->theta[nz->obs_comp[i]];
}

static double start_var(const struct block_noise *nz, size_t s)
{
	return nz->start_comp[s] < 0 ? 0 : nz->theta[nz->start_comp[s]];
}

static double w_element(const void *ctx, size_t i, size_t j)
{
	const struct w_kernel *w = ctx;
	const struct block_design *d = w->d;
	size_t S = d->n_starts, si = d->start[i], sj = d->start[j];
	double h = block_design_hat(d, i, j), v = 0;

	if (i == j)
		v += obs_within(w->nz, i);
	if (si == sj)
		v += start_var(w->nz, si);
	v -= h * (obs_within(w->nz, i) + obs_within(w->nz, j));
	v -= start_var(w->nz, sj) * w->hz[i * S + sj] + start_var(w->nz, si) * w->hz[j * S + si];
	return v + block_design_xkx(d, w->k, i, j);
}

/* hz and K = (X'X)^-1 X'VX (X'X)^-1. */
static int w_kernel_make(struct w_kernel *w)
{
	const struct block_design *d = w->d;
	size_t n = d->n, p = d->p, S = d->n_starts;
	_cleanup_free_ double *xvx = calloc(p * p + 1, sizeof(double)), *c = calloc(p + 1, sizeof(double)),
			      *t = calloc(p * p + 1, sizeof(double));

	w->hz = calloc(n * S + 1, sizeof(double));
	w->k = calloc(p * p + 1, sizeof(double));
	if (!xvx || !c || !t || !w->hz || !w->k)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			w->hz[i * S + d->start[j]] += block_design_hat(d, i, j);
	for (size_t i = 0; i < n; i++)
		for (size_t a = 0; a < BLOCK_DESIGN_COLS; a++)
			for (size_t b = 0; b < BLOCK_DESIGN_COLS && d->cols[i][a] >= 0; b++)
				if (d->cols[i][b] >= 0)
					xvx[(size_t)d->cols[i][a] * p + (size_t)d->cols[i][b]] += obs_within(w->nz, i);
	for (size_t s = 0; s < S; s++) {
		double v = start_var(w->nz, s);

		if (v == 0)
			continue;
		memset(c, 0, p * sizeof(double));
		for (size_t a = d->start_at[s]; a < d->start_at[s + 1]; a++)
			for (size_t k = 0; k < BLOCK_DESIGN_COLS; k++)
				if (d->cols[d->start_obs[a]][k] >= 0)
					c[d->cols[d->start_obs[a]][k]] += 1;
		for (size_t a = 0; a < p; a++)
			for (size_t b = 0; b < p; b++)
				xvx[a * p + b] += v * c[a] * c[b];
	}
	for (size_t i = 0; i < p; i++)
		for (size_t l = 0; l < p; l++)
			for (size_t j = 0; j < p; j++)
				t[i * p + j] += d->inv[i * p + l] * xvx[l * p + j];
	for (size_t i = 0; i < p; i++)
		for (size_t j = 0; j < p; j++)
			for (size_t l = 0; l < p; l++)
				w->k[i * p + j] += t[i * p + l] * d->inv[l * p + j];
	return 0;
}

/* cov(theta) = A^-1 cov(q) A^-T, cov(q) = 2 sum (Z'WZ)^2 by components. */
static int estimates_covariance(struct block_noise *nz, const struct block_design *d, const double *ainv)
{
	size_t C = nz->n_comp;
	struct w_kernel w = { .d = d, .nz = nz };
	_cleanup_free_ double *cq = calloc(C * C + 1, sizeof(double));
	int r = cq ? w_kernel_make(&w) : -ENOMEM;

	if (r >= 0)
		r = unit_squares(nz, d, w_element, &w, cq);
	free(w.hz);
	free(w.k);
	for (size_t a = 0; r >= 0 && a < C; a++)
		for (size_t b = 0; b < C; b++) {
			double v = 0;

			for (size_t x = 0; x < C; x++)
				for (size_t y = 0; y < C; y++)
					v += ainv[a * C + x] * 2 * cq[x * C + y] * ainv[b * C + y];
			nz->cov[a * C + b] = v;
		}
	for (size_t a = 0; r >= 0 && a < C; a++)
		nz->comp_df[a] = nz->cov[a * C + a] > 0 ? 2 * nz->theta[a] * nz->theta[a] / nz->cov[a * C + a] : INFINITY;
	return r;
}

/* Whether the design leaves min_df residual degrees of freedom a group,
 * between starts (where there are start components) and within them. */
static bool enough_df(const struct block_noise *nz, const struct block_design *d, double min_df)
{
	double df = (double)d->n - (double)d->p, between = block_design_df_starts(d, NULL);
	size_t starts = 0;

	if (nz->n_groups <= 1)
		return df > 0;
	for (size_t c = 0; c < nz->n_comp; c++)
		starts += nz->comp_start[c];
	if (starts == 0)
		return df >= min_df * (double)nz->n_groups;
	return between >= min_df * (double)starts && df - between >= min_df * (double)nz->n_groups;
}

static int components_fit(struct block_noise *nz, const struct block_design *d, const size_t *group, size_t groups,
			  const double *e, double min_df, bool starts)
{
	size_t C;
	_cleanup_free_ double *a = NULL, *ainv = NULL, *q = NULL;
	int r = components_map(nz, d, group, groups, starts);

	if (r < 0)
		return r;
	if (!enough_df(nz, d, min_df))
		return -EDOM;
	C = nz->n_comp;
	a = calloc(C * C + 1, sizeof(double));
	ainv = calloc(C * C + 1, sizeof(double));
	q = calloc(C + 1, sizeof(double));
	nz->theta = calloc(C + 1, sizeof(double));
	nz->cov = calloc(C * C + 1, sizeof(double));
	nz->comp_df = calloc(C + 1, sizeof(double));
	if (!a || !ainv || !q || !nz->theta || !nz->cov || !nz->comp_df)
		return -ENOMEM;
	r = unit_squares(nz, d, residual_maker, d, a);
	if (r < 0)
		return r;
	moments_q(nz, d, e, q);
	r = moments_solve(a, q, C, ainv, nz->theta);
	if (r < 0)
		return r;
	for (size_t c = 0; c < C; c++)
		if (!(nz->theta[c] > 0))
			nz->theta[c] = a[c * C + c] > 0 ? q[c] / a[c * C + c] : 0;
	return estimates_covariance(nz, d, ainv);
}

int block_noise_fit(struct block_noise *ret, const struct block_design *d, const size_t *group, size_t groups,
		    const double *e, double min_df)
{
	struct block_noise nz = {};
	int r = components_fit(&nz, d, group, groups, e, min_df, true);

	/* One group whose starts the design cannot tell from its steps
	 * (no residual left between starts): the steps' own spread. */
	if (r == -EDOM && groups <= 1) {
		block_noise_done(&nz);
		r = components_fit(&nz, d, group, groups, e, min_df, false);
	}
	if (r < 0) {
		block_noise_done(&nz);
		return r;
	}
	*ret = nz;
	return 0;
}

/* Each component's coefficient in the variance of sum a_i y_i. */
static void coefficients(const struct block_noise *nz, const struct block_design *d, const double *a,
			 const double *b, double *k)
{
	memset(k, 0, nz->n_comp * sizeof(double));
	for (size_t i = 0; i < d->n; i++)
		k[nz->obs_comp[i]] += a[i] * b[i];
	for (size_t s = 0; s < d->n_starts; s++) {
		double sa = 0, sb = 0;

		if (nz->start_comp[s] < 0)
			continue;
		for (size_t x = d->start_at[s]; x < d->start_at[s + 1]; x++) {
			sa += a[d->start_obs[x]];
			sb += b[d->start_obs[x]];
		}
		k[nz->start_comp[s]] += sa * sb;
	}
}

/* The fewest degrees of freedom among the groups var rests on (a group
 * with a hundredth of it or more): each group's part of it, k_c theta_c
 * over its components, on Satterthwaite's degrees of freedom. */
static double fewest_groups_df(const struct block_noise *nz, const double *k, double var)
{
	size_t C = nz->n_comp;
	double fewest = INFINITY;

	for (size_t g = 0; g < nz->n_groups; g++) {
		double v = 0, vv = 0;

		for (size_t c = 0; c < C; c++) {
			if (nz->comp_group[c] != g)
				continue;
			v += k[c] * nz->theta[c];
			for (size_t e = 0; e < C; e++)
				vv += nz->comp_group[e] == g ? k[c] * k[e] * nz->cov[c * C + e] : 0;
		}
		if (v >= 0.01 * var && vv > 0)
			fewest = MIN(fewest, 2 * v * v / vv);
	}
	return fewest;
}

void block_noise_variance(const struct block_noise *nz, const struct block_design *d, const double *a,
			  double *ret_var, double *ret_df)
{
	size_t C = nz->n_comp;
	double k[C + 1], var = 0, vv = 0, df = (double)d->n - (double)d->p;

	coefficients(nz, d, a, a, k);
	for (size_t c = 0; c < C; c++) {
		var += k[c] * nz->theta[c];
		for (size_t e = 0; e < C; e++)
			vv += k[c] * k[e] * nz->cov[c * C + e];
	}
	*ret_var = var;
	if (vv > 0)
		df = MIN(df, 2 * var * var / vv);
	if (nz->fewest_df)
		df = MIN(df, fewest_groups_df(nz, k, var));
	/* At least 1: below it the t quantiles run off. */
	*ret_df = MAX(1, df);
}

double block_noise_covariance(const struct block_noise *nz, const struct block_design *d, const double *a,
			      const double *b)
{
	double k[nz->n_comp + 1], v = 0;

	coefficients(nz, d, a, b, k);
	for (size_t c = 0; c < nz->n_comp; c++)
		v += k[c] * nz->theta[c];
	return v;
}

/* With start components: the part of k_c theta_c between starts. */
static size_t mean_squares_strata(const struct block_noise *nz, const struct block_design *d, const double *k,
				  double df_starts, struct stats_ms *ms)
{
	double between = 0, var = 0, steps = d->n_starts ? (double)d->n / (double)d->n_starts : 1,
	       df = (double)d->n - (double)d->p;

	for (size_t c = 0; c < nz->n_comp; c++) {
		var += k[c] * nz->theta[c];
		between += k[c] * nz->theta[c] / (nz->comp_start[c] ? 1 : steps);
	}
	ms[0] = (struct stats_ms){ .share = var > 0 ? between / var : 1, .df = MAX(df_starts, 1) };
	ms[1] = (struct stats_ms){ .share = 1 - ms[0].share, .df = df - df_starts };
	return ms[1].df >= 1 && ms[1].share > 1e-9 ? 2 : (ms[0].share = 1, 1);
}

size_t block_noise_mean_squares(const struct block_noise *nz, const struct block_design *d, const double *a,
				double df_starts, struct stats_ms *ms)
{
	size_t C = nz->n_comp, n = 0;
	double k[C + 1], var = 0, df = (double)d->n - (double)d->p;
	bool starts = false;

	coefficients(nz, d, a, a, k);
	for (size_t c = 0; c < C; c++) {
		starts |= nz->comp_start[c];
		var += k[c] * nz->theta[c];
	}
	if (starts)
		return mean_squares_strata(nz, d, k, df_starts, ms);
	for (size_t c = 0; c < C && var > 0; c++) {
		double share = 0;

		if (!(k[c] * nz->theta[c] > 1e-3 * var))
			continue;
		if (n == STATS_MS_MAX)
			return ms[0] = (struct stats_ms){ .share = 1, .df = df }, 1;
		for (size_t i = 0; i < d->n; i++)
			share += nz->obs_comp[i] == (long)c ? 1 - block_design_hat(d, i, i) : 0;
		ms[n++] = (struct stats_ms){ .share = k[c] * nz->theta[c] / var, .df = MAX(share, 1) };
	}
	if (n <= 1)
		ms[0] = (struct stats_ms){ .share = 1, .df = df };
	return MAX(n, 1);
}

void block_noise_totals(const struct block_noise *nz, const struct block_design *d, double *ret_var,
			double *ret_start)
{
	double w = 0, s = 0;

	for (size_t i = 0; i < d->n; i++) {
		long sc = nz->start_comp[d->start[i]];

		w += obs_within(nz, i);
		s += sc < 0 ? 0 : nz->theta[sc];
	}
	*ret_var = d->n ? (w + s) / (double)d->n : NAN;
	*ret_start = d->n ? s / (double)d->n : NAN;
}

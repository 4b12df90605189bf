/* The block model's design (stats/block_design.h): a few dozen columns at
 * most, each observation in at most BLOCK_DESIGN_COLS of them, so X'X is
 * formed directly and solved through its Cholesky factor, GSL's. */
#include <math.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "stats/block_design.h"
#include "common/util.h"

void block_design_done(struct block_design *d)
{
	if (!d)
		return;
	free(d->cols);
	free(d->inv);
	free(d->beta);
	free(d->start);
	free(d->start_at);
	free(d->start_obs);
	*d = (struct block_design){};
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = **(const size_t *const *)a, y = **(const size_t *const *)b;

	return x < y ? -1 : x > y;
}

int block_design_starts(struct block_design *d, const size_t *start, size_t n)
{
	_cleanup_free_ const size_t **sorted = calloc(n + 1, sizeof(*sorted));
	size_t s = 0;

	d->start = calloc(n + 1, sizeof(size_t));
	d->start_at = calloc(n + 2, sizeof(size_t));
	d->start_obs = calloc(n + 1, sizeof(size_t));
	if (!sorted || !d->start || !d->start_at || !d->start_obs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		sorted[i] = &start[i];
	/* Sorted by the callers' numbers, then each run of equal ones a
	 * start, its observations in the order they came (qsort is not
	 * stable: the order within a start does not matter). */
	qsort(sorted, n, sizeof(*sorted), cmp_size);
	for (size_t k = 0; k < n; k++) {
		size_t i = (size_t)(sorted[k] - start);

		if (k > 0 && *sorted[k] != *sorted[k - 1])
			d->start_at[++s] = k;
		d->start[i] = s;
		d->start_obs[k] = i;
	}
	d->n_starts = n ? s + 1 : 0;
	d->start_at[d->n_starts] = n;
	return 0;
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

int block_design_solve(struct block_design *d, const double *y)
{
	size_t p = d->p;
	gsl_vector *xty;
	gsl_error_handler_t *old;
	int r = 0;

	free(d->inv);
	free(d->beta);
	d->inv = calloc(p * p + 1, sizeof(double));
	d->beta = calloc(p + 1, sizeof(double));
	if (!d->inv || !d->beta)
		return -ENOMEM;
	if (p == 0)
		return -EDOM;
	xty = gsl_vector_calloc(p);
	if (!xty)
		return -ENOMEM;
	gsl_matrix_view m = gsl_matrix_view_array(d->inv, p, p);
	gsl_vector_view b = gsl_vector_view_array(d->beta, p);

	for (size_t i = 0; i < d->n; i++)
		for (size_t a = 0; a < BLOCK_DESIGN_COLS; a++) {
			if (d->cols[i][a] < 0)
				continue;
			*gsl_vector_ptr(xty, (size_t)d->cols[i][a]) += y[i];
			for (size_t k = 0; k < BLOCK_DESIGN_COLS; k++)
				if (d->cols[i][k] >= 0)
					*gsl_matrix_ptr(&m.matrix, (size_t)d->cols[i][a], (size_t)d->cols[i][k]) += 1;
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

double block_design_xkx(const struct block_design *d, const double *k, size_t i, size_t j)
{
	double v = 0;

	for (size_t a = 0; a < BLOCK_DESIGN_COLS; a++)
		for (size_t b = 0; b < BLOCK_DESIGN_COLS; b++)
			if (d->cols[i][a] >= 0 && d->cols[j][b] >= 0)
				v += k[(size_t)d->cols[i][a] * d->p + (size_t)d->cols[j][b]];
	return v;
}

double block_design_hat(const struct block_design *d, size_t i, size_t j)
{
	return block_design_xkx(d, d->inv, i, j);
}

void block_design_residuals(const struct block_design *d, const double *y, double *e)
{
	for (size_t i = 0; i < d->n; i++) {
		double fit = 0;

		for (size_t a = 0; a < BLOCK_DESIGN_COLS; a++)
			fit += d->cols[i][a] >= 0 ? d->beta[d->cols[i][a]] : 0;
		e[i] = y[i] - fit;
	}
}

double block_design_df_starts(const struct block_design *d, const bool *in)
{
	double df = 0;

	for (size_t s = 0; s < d->n_starts; s++) {
		size_t from = d->start_at[s], to = d->start_at[s + 1];
		double sum = 0;

		if (in && !in[d->start_obs[from]])
			continue;
		for (size_t a = from; a < to; a++)
			for (size_t b = from; b < to; b++)
				sum += (a == b) - block_design_hat(d, d->start_obs[a], d->start_obs[b]);
		df += sum / (double)(to - from);
	}
	return df;
}

int block_design_weights(const struct block_design *d, const double *wp, double *a)
{
	_cleanup_free_ double *t = calloc(d->p + 1, sizeof(double));

	if (!t)
		return -ENOMEM;
	for (size_t j = 0; j < d->p; j++)
		for (size_t k = 0; k < d->p; k++)
			t[j] += d->inv[j * d->p + k] * wp[k];
	for (size_t i = 0; i < d->n; i++) {
		a[i] = 0;
		for (size_t k = 0; k < BLOCK_DESIGN_COLS; k++)
			a[i] += d->cols[i][k] >= 0 ? t[d->cols[i][k]] : 0;
	}
	return 0;
}

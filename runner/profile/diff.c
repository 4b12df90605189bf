#include <gsl/gsl_cdf.h>
#include <math.h>

#include "profile/diff.h"
#include "stats/stats.h"
#include "common/util.h"

static double value_in(const struct profile_shares *s, enum profile_item_kind kind, const char *name,
		       const char *library)
{
	const struct profile_item *it = profile_shares_find(s, kind, name, library);

	return it ? it->value : 0.0;
}

static void values(const struct profile_shares *const *s, size_t n, const struct profile_item *it, double *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = value_in(s[i], it->kind, it->name, it->library);
}

static void side_of(const double *v, size_t n, double level, struct profile_side_figure *ret)
{
	double mean, var;

	stats_mean_var(v, n, &mean, &var);
	*ret = (struct profile_side_figure){ .n = n, .mean = mean, .lo = NAN, .hi = NAN };
	if (n >= 2) {
		double h = stats_t_critical(level, (double)(n - 1)) * sqrt(var / (double)n);

		ret->lo = MAX(mean - h, 0.0);
		ret->hi = mean + h;
	}
}

/* Welch's test of the two sides' means. */
static void welch(const double *a, size_t n_a, const double *b, size_t n_b, double level, struct profile_diff_item *d)
{
	double ma, va, mb, vb, se2, df, t;

	stats_mean_var(a, n_a, &ma, &va);
	stats_mean_var(b, n_b, &mb, &vb);
	d->diff = ma - mb;
	se2 = va / (double)n_a + vb / (double)n_b;
	if (n_a < 2 || n_b < 2 || !(se2 > 0))
		return;
	df = se2 * se2 / (va * va / ((double)n_a * n_a * (n_a - 1)) + vb * vb / ((double)n_b * n_b * (n_b - 1)));
	t = fabs(d->diff) / sqrt(se2);
	d->tested = true;
	d->se = sqrt(se2);
	d->df = df;
	d->p_raw = 2.0 * gsl_cdf_tdist_Q(t, df);
	d->lo = d->diff - stats_t_critical(level, df) * d->se;
	d->hi = d->diff + stats_t_critical(level, df) * d->se;
}

/* The items of every start of both sides, each once. */
static int collect(const struct profile_shares *const *a, size_t n_a, const struct profile_shares *const *b,
		   size_t n_b, struct profile_diff *d)
{
	for (size_t side = 0; side < 2; side++)
		for (size_t i = 0; i < (side ? n_b : n_a); i++) {
			const struct profile_shares *s = side ? b[i] : a[i];

			for (size_t k = 0; k < s->n; k++) {
				const struct profile_item *it = &s->items[k];
				struct profile_diff_item *n;
				bool seen = false;

				for (size_t j = 0; j < d->n && !seen; j++)
					seen = d->items[j].kind == it->kind && streq(d->items[j].name, it->name) &&
					       streq_ptr(d->items[j].library, it->library);
				if (seen)
					continue;
				n = realloc(d->items, (d->n + 1) * sizeof(*n));
				if (!n)
					return -ENOMEM;
				d->items = n;
				n[d->n++] = (struct profile_diff_item){ .kind = it->kind, .name = it->name,
									 .library = it->library, .lo = NAN, .hi = NAN,
									 .p_raw = NAN, .p = NAN };
			}
		}
	return 0;
}

static double p_of(void *items, size_t i)
{
	struct profile_diff_item **tested = items;

	return tested[i]->p_raw;
}

/* The adjusted p, and the interval at the level of its Holm step, so
 * that it excludes 0 exactly when the adjusted p says so. */
static void set_p(void *items, size_t i, double p, double step_level, size_t family _unused_)
{
	struct profile_diff_item *it = ((struct profile_diff_item **)items)[i];
	double h = stats_t_critical(step_level, it->df) * it->se;

	it->p = p;
	it->lo = it->diff - h;
	it->hi = it->diff + h;
	it->significant = it->lo > 0 || it->hi < 0;
}

static int cmp_diff(const void *x, const void *y)
{
	const struct profile_diff_item *a = x, *b = y;

	if (a->significant != b->significant)
		return a->significant ? -1 : 1;
	if (fabs(a->diff) != fabs(b->diff))
		return fabs(a->diff) > fabs(b->diff) ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The library holding most of a group's share across the starts. */
static const char *top_library(const struct profile_shares *const *s, size_t n, const char *group)
{
	const char *best = NULL;
	double best_v = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < s[i]->n; k++) {
			const struct profile_item *it = &s[i]->items[k];
			double v = 0;

			if (it->kind != PROFILE_ITEM_GROUP_LIBRARY || !streq(it->name, group))
				continue;
			for (size_t j = 0; j < n; j++)
				v += value_in(s[j], it->kind, it->name, it->library);
			if (v > best_v)
				best = it->library, best_v = v;
		}
	return best;
}

int profile_diff(const struct profile_shares *const *a, size_t n_a, const struct profile_shares *const *b,
		 size_t n_b, double level, struct profile_diff **ret)
{
	_cleanup_free_ struct profile_diff_item **tested = NULL, **tested_off = NULL;
	_cleanup_free_ double *va = calloc(n_a + 1, sizeof(double)), *vb = calloc(n_b + 1, sizeof(double));
	struct profile_diff *d = calloc(1, sizeof(*d));
	int r = d && va && vb ? collect(a, n_a, b, n_b, d) : -ENOMEM;

	if (r >= 0 && (!(tested = calloc(d->n + 1, sizeof(*tested))) || !(tested_off = calloc(d->n + 1, sizeof(*tested)))))
		r = -ENOMEM;
	if (r < 0) {
		profile_diff_free(d);
		return r;
	}
	d->level = level;
	for (size_t j = 0; j < d->n; j++) {
		struct profile_diff_item *it = &d->items[j];
		double min = profile_item_is_share(it->kind) ? PROFILE_TEST_MIN_SHARE : PROFILE_TEST_MIN_MS;

		values(a, n_a, &(struct profile_item){ .kind = it->kind, .name = (char *)it->name,
						       .library = (char *)it->library }, va);
		values(b, n_b, &(struct profile_item){ .kind = it->kind, .name = (char *)it->name,
						       .library = (char *)it->library }, vb);
		side_of(va, n_a, level, &it->a);
		side_of(vb, n_b, level, &it->b);
		if (it->kind == PROFILE_ITEM_GROUP)
			it->top_library_a = top_library(a, n_a, it->name), it->top_library_b = top_library(b, n_b, it->name);
		if (it->a.mean < min && it->b.mean < min) {
			it->diff = it->a.mean - it->b.mean;
			continue;
		}
		welch(va, n_a, vb, n_b, level, it);
		if (it->tested && profile_item_is_share(it->kind))
			tested[d->family++] = it;
		else if (it->tested)
			tested_off[d->family_off++] = it;
	}
	stats_holm_each(d->family, level, p_of, set_p, tested);
	stats_holm_each(d->family_off, level, p_of, set_p, tested_off);
	qsort(d->items, d->n, sizeof(*d->items), cmp_diff);
	*ret = d;
	return 0;
}

void profile_diff_free(struct profile_diff *d)
{
	if (!d)
		return;
	free(d->items);
	free(d);
}

/* Hodges-Lehmann and Mann-Whitney (stats/rank.h).  The exact null
 * distribution of U comes from the recursion
 * P(U = u; m, n) = m/(m+n) P(u - n; m-1, n) + n/(m+n) P(u; m, n-1). */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>

#include "stats/rank.h"
#include "stats/stats.h"
#include "common/util.h"

/* Up to this many a side the distribution is exact. */
#define EXACT_MAX 25

/* The null distribution of U for sample sizes m and n into dist[0..m*n]:
 * P(U = u).  work holds (m+1)(n+1)(m*n+1) doubles. */
static void u_distribution(size_t m, size_t n, double *work, double *dist)
{
	size_t w = m * n + 1;
#define P(i, j, u) work[((i) * (n + 1) + (j)) * w + (u)]

	for (size_t i = 0; i <= m; i++)
		for (size_t j = 0; j <= n; j++)
			for (size_t u = 0; u < w; u++) {
				if (i == 0 || j == 0) {
					P(i, j, u) = u == 0;
					continue;
				}
				P(i, j, u) = (double)i / (double)(i + j) * (u >= j ? P(i - 1, j, u - j) : 0) +
					     (double)j / (double)(i + j) * P(i, j - 1, u);
			}
	for (size_t u = 0; u < w; u++)
		dist[u] = P(m, n, u);
#undef P
}

/* U of a against b from their sorted differences (a tie counts a half). */
static double u_statistic(const double *d, size_t nd)
{
	double u = 0;

	for (size_t i = 0; i < nd; i++)
		u += d[i] > 0 ? 1 : d[i] == 0 ? 0.5 : 0;
	return u;
}

/* The tie correction of U's variance: sum (t^3 - t) over the groups of
 * equal values of the pooled sample v[0..n), which it sorts. */
static double tie_term(double *v, size_t n)
{
	double ties = 0;
	size_t run = 1;

	qsort(v, n, sizeof(double), stats_cmp_double);
	for (size_t i = 1; i <= n; i++) {
		if (i < n && v[i] == v[i - 1]) {
			run++;
			continue;
		}
		ties += (double)(run * run * run - run);
		run = 1;
	}
	return ties;
}

/* The exact p of u, the rank of the interval's bounds (k: the k-th
 * smallest and largest difference) and the smallest p there is. */
static int exact(size_t m, size_t n, double u, double alpha, double *ret_p, size_t *ret_k, double *ret_pmin)
{
	size_t w = m * n + 1;
	_cleanup_free_ double *work = malloc((m + 1) * (n + 1) * w * sizeof(double)), *dist = malloc(w * sizeof(double));
	double lower = 0, below = 0, upper = 0;

	if (!work || !dist)
		return -ENOMEM;
	u_distribution(m, n, work, dist);
	for (size_t k = 0; k < w; k++) {
		if ((double)k <= u + 1e-9)
			lower += dist[k];
		if ((double)k >= u - 1e-9)
			upper += dist[k];
	}
	*ret_p = MIN(1, 2 * MIN(lower, upper));
	*ret_pmin = MIN(1, 2 * dist[0]);
	/* k: the most with P(U <= k - 1) <= alpha/2. */
	*ret_k = 0;
	for (size_t k = 0; k < w && below + dist[k] <= alpha / 2 + 1e-12; k++) {
		below += dist[k];
		*ret_k = k + 1;
	}
	return 0;
}

int stats_rank_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level, struct stats_rank *ret)
{
	size_t nd = n_a * n_b, k;
	_cleanup_free_ double *la = malloc((n_a + n_b + 1) * sizeof(double)), *d = malloc((nd + 1) * sizeof(double));
	double *lb = la + n_a, u, ties, alpha = 1 - level;
	int r;

	if (!(level > 0 && level < 1))
		return -EINVAL;
	*ret = (struct stats_rank){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .p_min = NAN };
	if (!la || !d)
		return -ENOMEM;
	if (n_a == 0 || n_b == 0)
		return 0;
	r = stats_logs(a, n_a, la);
	if (r >= 0)
		r = stats_logs(b, n_b, lb);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_a; i++)
		for (size_t j = 0; j < n_b; j++)
			d[i * n_b + j] = la[i] - lb[j];
	qsort(d, nd, sizeof(double), stats_cmp_double);
	ret->ratio = exp(nd % 2 ? d[nd / 2] : (d[nd / 2 - 1] + d[nd / 2]) / 2);
	u = u_statistic(d, nd);
	ret->exact = n_a <= EXACT_MAX && n_b <= EXACT_MAX;
	if (ret->exact) {
		r = exact(n_a, n_b, u, alpha, &ret->p, &k, &ret->p_min);
		if (r < 0)
			return r;
	} else {
		double N = (ties = tie_term(la, n_a + n_b), (double)(n_a + n_b)), mu = (double)nd / 2,
		       var = (double)nd / 12 * (N + 1 - ties / (N * (N - 1))), z = gsl_cdf_ugaussian_Qinv(alpha / 2);

		ret->p = var > 0 ? MIN(1, 2 * gsl_cdf_ugaussian_Q(fabs(u - mu) / sqrt(var))) : 1;
		ret->p_min = var > 0 ? 2 * gsl_cdf_ugaussian_Q(mu / sqrt(var)) : 1;
		k = (size_t)MAX(0, floor(mu - z * sqrt((double)nd * (N + 1) / 12)));
	}
	ret->reaches = ret->p_min < alpha;
	/* Where the level cannot be reached, the widest interval there is. */
	k = MAX(k, 1);
	ret->lo = exp(d[k - 1]);
	ret->hi = exp(d[nd - k]);
	return 0;
}

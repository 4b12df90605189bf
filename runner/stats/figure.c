#include <math.h>

#include <gsl/gsl_cdf.h>

#include "stats/figure.h"
#include "stats/stats.h"

void stats_median_interval(double *v, size_t n, double level, double *ret_median, double *ret_lo, double *ret_hi,
			   double *ret_cover)
{
	size_t j = 1;

	*ret_median = *ret_lo = *ret_hi = *ret_cover = NAN;
	if (n == 0)
		return;
	*ret_median = stats_median(v, n); /* sorts v */
	/* P(Binomial(n, 1/2) <= j - 1): how often the median falls below v(j). */
	while (j + 1 <= (n + 1) / 2 && 1 - 2 * gsl_cdf_binomial_P((unsigned)j, 0.5, (unsigned)n) >= level)
		j++;
	*ret_lo = v[j - 1];
	*ret_hi = v[n - j];
	*ret_cover = n == 1 ? 0 : 1 - 2 * gsl_cdf_binomial_P((unsigned)(j - 1), 0.5, (unsigned)n);
}

void stats_correlation_interval(double r, size_t n, double level, double *ret_lo, double *ret_hi)
{
	double z, half;

	*ret_lo = *ret_hi = NAN;
	if (n < 4 || !(fabs(r) < 1))
		return;
	z = atanh(r);
	half = gsl_cdf_ugaussian_Qinv((1 - level) / 2) / sqrt((double)n - 3);
	*ret_lo = tanh(z - half);
	*ret_hi = tanh(z + half);
}

/* The median; Welch's t on log TPS for ratios, Fieller's interval on log
 * TPS for explain's shares (the method is stated in stats.h).  GSL gives
 * the t distribution. */
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>

#include "stats/stats.h"
#include "common/util.h"

int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), stats_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void stats_mean_var(const double *v, size_t n, double *ret_mean, double *ret_var)
{
	double sum = 0, sq = 0, mean;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	mean = n ? sum / (double)n : NAN;
	/* Two passes: the deviations are small next to TPS in the thousands. */
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	*ret_mean = mean;
	*ret_var = n >= 2 ? sq / (double)(n - 1) : NAN;
}

double stats_cv(const double *v, size_t n)
{
	double mean, var;

	stats_mean_var(v, n, &mean, &var);
	return n >= 2 && mean > 0 ? sqrt(var) / mean : NAN;
}

int stats_logs(const double *v, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || !(v[i] > 0))
			return -EDOM;
		out[i] = log(v[i]);
	}
	return 0;
}

/* The mean and sample variance of the logarithms of v; -EDOM for a value
 * without one. */
static int log_moments(const double *v, size_t n, double *ret_mean, double *ret_var)
{
	_cleanup_free_ double *l = calloc(n + 1, sizeof(double));
	int r;

	if (!l)
		return -ENOMEM;
	r = stats_logs(v, n, l);
	if (r < 0)
		return r;
	stats_mean_var(l, n, ret_mean, ret_var);
	return 0;
}

double stats_t_critical(double level, double df)
{
	return gsl_cdf_tdist_Qinv((1 - level) / 2, df);
}

/* Welch-Satterthwaite: the degrees of freedom of a sum of independent
 * variance terms c[i] (each var_i / n_i, times its squared coefficient)
 * with n[i] - 1 degrees of freedom each.  NAN when every term is zero. */
static double satterthwaite(const double *c, const size_t *n, size_t k)
{
	double sum = 0, den = 0;

	for (size_t i = 0; i < k; i++) {
		sum += c[i];
		den += c[i] * c[i] / (double)(n[i] - 1);
	}
	return den > 0 ? sum * sum / den : NAN;
}

void stats_ratio_from_t(double d, double se, double df, double level, struct stats_ratio *ret)
{
	double tq;

	ret->ratio = exp(d);
	ret->se = se;
	ret->df = df > 0 ? df : NAN;
	ret->level = level;
	ret->family = 1;
	ret->lo = ret->hi = ret->p = ret->p_raw = ret->mde = NAN;
	ret->verdict = STATS_TOO_FEW;
	if (isnan(se) || !(df > 0))
		return;
	if (!(se > 0)) {
		ret->verdict = STATS_NO_SPREAD;
		return;
	}
	ret->p = ret->p_raw = 2 * gsl_cdf_tdist_Q(fabs(d) / se, df);
	tq = stats_t_critical(level, df);
	ret->lo = exp(d - tq * se);
	ret->hi = exp(d + tq * se);
	/* The mean squares' own degrees of freedom may pass those the test
	 * takes (which the fewest groups and the residual bound): the gap
	 * printed is then what a test on df can find, or it would claim
	 * more than the interval beside it shows (explain's gap at 1 df
	 * printed 1.08x with an interval of 0.70-1.24). */
	ret->mde = ret->n_ms && !(stats_ms_df(ret->ms, ret->n_ms) > df * 1.01)
			   ? stats_mde_ms(se, ret->ms, ret->n_ms, true, level, STATS_POWER)
			   : stats_mde_estimated(se, df, df, level, STATS_POWER);
	ret->verdict = ret->lo > 1 || ret->hi < 1 ? STATS_SIGNIFICANT : STATS_NOT_SIGNIFICANT;
}

unsigned stats_rounds_for_width(double sigma, double df, double level, double half_width)
{
	double n;

	if (isnan(sigma) || !(df > 0) || !(half_width > 0))
		return 0;
	n = ceil(2 * pow(stats_t_critical(level, df) * sigma / half_width, 2));
	return n > 1e6 ? 1000000u : (unsigned)n;
}

/* A comparison at one thread count of a fit of two columns (a split plot,
 * each start a whole plot): (w^2 + s^2) per start from the mean squares
 * between starts, E = w^2 + T s^2 on R - 1, and within them, E = w^2 on
 * (R - 1)(T - 1), as (MS_between + (T - 1) MS_within) / T, each mean
 * square's share of that and its degrees of freedom into ms; how many. */
static size_t design_ms(unsigned rounds, size_t rows, double share, struct stats_ms *ms)
{
	double t = (double)MAX(rows, 1), c1 = share + (1 - share) / t, c2 = (1 - share) * (t - 1) / t;

	ms[0] = (struct stats_ms){ .share = c1 / (c1 + c2), .df = (double)rounds - 1 };
	ms[1] = (struct stats_ms){ .share = c2 / (c1 + c2), .df = ((double)rounds - 1) * (t - 1) };
	return rows > 1 && share < 1 ? 2 : 1;
}

double stats_design_df(unsigned rounds, size_t rows, double share)
{
	struct stats_ms ms[STATS_MS_MAX];
	size_t n;
	double num = 0, den = 0;

	if (rounds < 2)
		return 0;
	n = design_ms(rounds, rows, share, ms);
	for (size_t i = 0; i < n; i++) {
		num += ms[i].share;
		den += ms[i].share * ms[i].share / ms[i].df;
	}
	return num * num / den;
}

/* The smallest gap of a design's mean squares at sigma, at the first Holm
 * step of family; sigma estimated on sigma_df degrees of freedom widens it
 * as it widens a data set's (stats_mde_estimated() against stats_mde() on
 * df). */
static double design_mde(double sigma, double sigma_df, const struct stats_ms *ms, size_t n, double df,
			 unsigned rounds, size_t family, double level)
{
	double step = 1 - (1 - level) / (double)MAX(family, 1), se = sigma * sqrt(2.0 / rounds);
	double mde = stats_mde_ms(se, ms, n, false, step, STATS_POWER);

	if (isfinite(sigma_df) && df > 0)
		mde = exp(log(mde) * log(stats_mde_estimated(1, df, sigma_df, step, STATS_POWER)) /
			  log(stats_mde(1, df, step, STATS_POWER)));
	return mde;
}

double stats_design_mde(double sigma, double sigma_df, unsigned rounds, size_t rows, double share, size_t family,
			double level, double *ret_df)
{
	struct stats_ms ms[STATS_MS_MAX];
	size_t n;

	*ret_df = stats_design_df(rounds, rows, share);
	if (rounds < 2 || isnan(sigma))
		return NAN;
	n = design_ms(rounds, rows, share, ms);
	return design_mde(sigma, sigma_df, ms, n, *ret_df, rounds, family, level);
}

double stats_design_mde_mixes(double sigma, size_t mixes, unsigned rounds, double level, double *ret_df)
{
	double total = ((double)mixes - 1) * ((double)rounds - 1);
	struct stats_ms ms[STATS_MS_MAX] = { { 1, total } };
	size_t n = 1;

	/* The places of a round, kept where they leave STATS_POSITION_DF_MIN. */
	if (total - 2 >= STATS_POSITION_DF_MIN)
		total -= 2;
	ms[0].df = total;
	/* A and B each their own sigma where the model gives them one (3
	 * groups of STATS_GROUP_DF_MIN), each on about a mix's share of the
	 * residual degrees of freedom; else one for all. */
	if (total >= STATS_GROUP_DF_MIN * 3) {
		ms[0] = ms[1] = (struct stats_ms){ .share = 0.5, .df = total / (double)mixes };
		n = 2;
	}
	*ret_df = n == 2 ? 2 * ms[0].df : total;
	if (rounds < 2 || isnan(sigma) || !(total > 0))
		return NAN;
	return design_mde(sigma, INFINITY, ms, n, *ret_df, rounds, 1, level);
}

void stats_sigma_interval(double sigma, double df, double level, double *ret_lo, double *ret_hi)
{
	double alpha = 1 - level;

	*ret_lo = *ret_hi = NAN;
	if (isnan(sigma) || !(df > 0))
		return;
	*ret_lo = sigma * sqrt(df / gsl_cdf_chisq_Pinv(1 - alpha / 2, df));
	*ret_hi = sigma * sqrt(df / gsl_cdf_chisq_Pinv(alpha / 2, df));
}

void stats_sd_interval_robust(const double *x, size_t n, double level, double *ret_lo, double *ret_hi)
{
	_cleanup_free_ double *sorted = malloc((n + 1) * sizeof(double));
	double mean, var, nn = (double)n, z = gsl_cdf_ugaussian_Qinv((1 - level) / 2), c, trim, m = 0, m4 = 0, kurt, se;
	size_t cut, kept = 0;

	*ret_lo = *ret_hi = NAN;
	if (n < 5 || !sorted)
		return;
	stats_mean_var(x, n, &mean, &var);
	if (!(var > 0))
		return;
	/* The trimmed mean, 1 / (2 sqrt(n - 4)) off each end. */
	memcpy(sorted, x, n * sizeof(double));
	qsort(sorted, n, sizeof(double), stats_cmp_double);
	trim = 1 / (2 * sqrt(nn - 4));
	cut = (size_t)floor(trim * nn);
	for (size_t i = cut; i < n - cut; i++, kept++)
		m += sorted[i];
	m /= (double)kept;
	for (size_t i = 0; i < n; i++)
		m4 += pow(x[i] - m, 4);
	kurt = nn * m4 / pow(var * (nn - 1), 2);
	/* The sample kurtosis falls short of a heavy tail's: its small-sample
	 * correction, ((n + 1) g2 + 6) (n - 1) / ((n - 2) (n - 3)) on the
	 * excess g2, widens the interval where the tails are heavy. */
	kurt = 3 + MAX(0, ((nn + 1) * (kurt - 3) + 6) * (nn - 1) / ((nn - 2) * (nn - 3)));
	c = nn / (nn - z);
	se = c * sqrt(MAX(0, kurt - (nn - 3) / nn) / (nn - 1));
	*ret_lo = sqrt(exp(log(c * var) - z * se));
	*ret_hi = sqrt(exp(log(c * var) + z * se));
}

void stats_wilson(size_t k, size_t n, double level, double *ret_lo, double *ret_hi)
{
	double nn = (double)n, p, z, z2, centre, half;

	*ret_lo = *ret_hi = NAN;
	if (n == 0)
		return;
	p = (double)k / nn;
	z = gsl_cdf_ugaussian_Qinv((1 - level) / 2);
	z2 = z * z;
	centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
	half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / (1 + z2 / nn);
	/* The ends of none and of all are 0 and 1 exactly, not rounding's 1e-17. */
	*ret_lo = k == 0 ? 0 : MAX(0, centre - half);
	*ret_hi = k == n ? 1 : MIN(1, centre + half);
}

int stats_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level, struct stats_ratio *ret)
{
	double ma, va, mb, vb, c[2];
	size_t n[2] = { n_a, n_b };
	int r;

	if (!(level > 0 && level < 1))
		return -EINVAL;
	*ret = (struct stats_ratio){ .n_a = n_a, .n_b = n_b, .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN,
				     .verdict = STATS_TOO_FEW, .se = NAN, .sigma = NAN, .family = 1, .p_raw = NAN,
				     .level = level, .mde = NAN };
	if (n_a == 0 || n_b == 0)
		return 0;
	r = log_moments(a, n_a, &ma, &va);
	if (r >= 0)
		r = log_moments(b, n_b, &mb, &vb);
	if (r < 0)
		return r;
	ret->ratio = exp(ma - mb);
	if (n_a < 2 || n_b < 2)
		return 0;
	c[0] = va / (double)n_a;
	c[1] = vb / (double)n_b;
	stats_ratio_from_t(ma - mb, sqrt(c[0] + c[1]), c[0] + c[1] > 0 ? satterthwaite(c, n, 2) : INFINITY, level, ret);
	return 0;
}

/* Long because it is Holm's one pass: the order, the step-down, the levels. */
void stats_holm(const double *p, size_t n, double level, double *ret_p_adj, double *ret_level)
{
	_cleanup_free_ size_t *order = calloc(n + 1, sizeof(size_t));
	double alpha = 1 - level, running = 0, stop_level = level;
	size_t m = 0;
	bool stopped = false;

	for (size_t i = 0; i < n; i++) {
		ret_p_adj[i] = NAN;
		ret_level[i] = level;
	}
	if (!order)
		return; /* without memory, unadjusted: the caller's values stand */
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			order[m++] = i;
	/* Insertion sort by p: a family is a table's cells, a few dozen. */
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && p[order[j]] < p[order[j - 1]]; j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (size_t i = 0; i < m; i++) {
		size_t k = order[i];
		double step_alpha = alpha / (double)(m - i);

		running = MAX(running, MIN(1, (double)(m - i) * p[k]));
		ret_p_adj[k] = running;
		if (!stopped && p[k] > step_alpha) {
			stopped = true;
			stop_level = 1 - step_alpha;
		}
		ret_level[k] = stopped ? stop_level : 1 - step_alpha;
	}
}

void stats_holm_each(size_t n, double level, double (*p_of)(void *items, size_t i),
		     void (*apply)(void *items, size_t i, double p_adj, double step_level, size_t family), void *items)
{
	_cleanup_free_ double *p = calloc(2 * n + 1, sizeof(double)), *adj = calloc(n + 1, sizeof(double));
	size_t m = 0;

	if (!p || !adj)
		return;
	for (size_t i = 0; i < n; i++) {
		p[i] = p_of(items, i);
		m += !isnan(p[i]);
	}
	stats_holm(p, n, level, adj, p + n);
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			apply(items, i, adj[i], p[n + i], m);
}

static double ratio_p_raw(void *items, size_t i)
{
	return ((struct stats_ratio *const *)items)[i]->p_raw;
}

/* The ratio's interval, verdict and mde again at its step's level. */
static void ratio_at_step(void *items, size_t i, double p_adj, double step_level, size_t family)
{
	struct stats_ratio *r = ((struct stats_ratio *const *)items)[i];
	double p_raw = r->p_raw;

	stats_ratio_from_t(log(r->ratio), r->se, r->df, step_level, r);
	r->p = p_adj;
	r->p_raw = p_raw;
	r->family = family;
}

void stats_holm_ratios(struct stats_ratio *const *r, size_t n, double level)
{
	stats_holm_each(n, level, ratio_p_raw, ratio_at_step, (void *)r);
}

double stats_ratio_precision(const struct stats_ratio *r)
{
	if (isnan(r->lo) || !(r->ratio > 0))
		return INFINITY;
	/* Symmetric on the log scale: hi / ratio = ratio / lo. */
	return r->hi / r->ratio - 1;
}

int stats_share_of_contrast(const struct stats_term *t, size_t k, double level, struct stats_share *ret)
{
	double m[STATS_TERMS_MAX], w[STATS_TERMS_MAX], c[STATS_TERMS_MAX], num = 0, den = 0, s, v11 = 0, v22 = 0,
										      v12 = 0;
	size_t n[STATS_TERMS_MAX];
	bool spread = true;

	if (!(level > 0 && level < 1) || k > STATS_TERMS_MAX)
		return -EINVAL;
	*ret = STATS_SHARE_NONE;
	for (size_t i = 0; i < k; i++) {
		double var;
		int r;

		if (t[i].n == 0)
			return 0;
		r = log_moments(t[i].v, t[i].n, &m[i], &var);
		if (r < 0)
			return r;
		n[i] = t[i].n;
		w[i] = var / (double)t[i].n;
		spread &= t[i].n >= 2;
		num += t[i].num * m[i];
		den += t[i].den * m[i];
	}
	if (den == 0)
		return 0;
	s = ret->share = num / den;
	if (!spread)
		return 0;
	/* var(num), var(den) and their covariance, from the groups both hold. */
	for (size_t i = 0; i < k; i++) {
		v11 += t[i].num * t[i].num * w[i];
		v22 += t[i].den * t[i].den * w[i];
		v12 += t[i].num * t[i].den * w[i];
		c[i] = (t[i].num - s * t[i].den) * (t[i].num - s * t[i].den) * w[i];
	}
	ret->df = satterthwaite(c, n, k);
	if (isnan(ret->df))
		return 0;
	stats_fieller(num, den, v11, v22, v12, stats_t_critical(level, ret->df), ret);
	stats_share_test(ret, num, v11, level);
	return 0;
}

void stats_fieller(double num, double den, double v11, double v22, double v12, double tq, struct stats_share *ret)
{
	/* Every s' with (num - s' den)^2 <= t^2 var(num - s' den), a
	 * quadratic qa s'^2 - 2 qb s' + qc <= 0. */
	double qa = den * den - tq * tq * v22, qb = num * den - tq * tq * v12, qc = num * num - tq * tq * v11,
	       disc = qb * qb - qa * qc;

	ret->bounded = qa > 0 && disc >= 0;
	if (ret->bounded) {
		ret->lo = (qb - sqrt(disc)) / qa;
		ret->hi = (qb + sqrt(disc)) / qa;
	} else {
		/* The gap is not clearly away from zero at this level: the set is
		 * the whole line or all but an interval. */
		ret->lo = -INFINITY;
		ret->hi = INFINITY;
	}
}

void stats_share_test(struct stats_share *s, double num, double var_num, double level)
{
	s->level = level;
	s->family = 1;
	s->p = s->p_raw = var_num > 0 && s->df > 0 ? 2 * gsl_cdf_tdist_Q(fabs(num) / sqrt(var_num), s->df) : NAN;
}

int stats_share(const double *x, size_t n_x, const double *a, size_t n_a, const double *b, size_t n_b, double level,
		struct stats_share *ret)
{
	const struct stats_term t[] = {
		{ .v = x, .n = n_x, .num = 1, .den = 0 },
		{ .v = a, .n = n_a, .num = 0, .den = 1 },
		{ .v = b, .n = n_b, .num = -1, .den = -1 },
	};

	return stats_share_of_contrast(t, ELEMENTSOF(t), level, ret);
}

int stats_parse_confidence(const char *s, double *ret)
{
	double pct;
	int r = parse_percent(s, false, &pct);

	if (r < 0)
		return r;
	if (!(pct > STATS_CONFIDENCE_MIN_PCT && pct < STATS_CONFIDENCE_MAX_PCT))
		return -ERANGE;
	*ret = pct / 100;
	return 0;
}

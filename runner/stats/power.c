/* What a test can detect (stats/power.h). */
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_gamma.h>

#include "stats/power.h"
#include "common/util.h"

/* The two-sided critical value of the t test at level on df. */
static double t_critical(double level, double df)
{
	return gsl_cdf_tdist_Qinv((1 - level) / 2, df);
}

/* The expectation over V ~ chi2(df) by generalized Gauss-Laguerre (V =
 * 2x, weight x^(df/2 - 1) e^-x): its nodes, weights and norm. */
struct chi2_rule {
	const double *x, *w;
	size_t n;
	double norm, df;
};

/* The nodes of stats_power(), enough for its smooth integrand to 1e-6;
 * of stats_mde_estimated()'s inner and outer expectations, to a thousandth
 * of the gap's log from 2.5 degrees of freedom on and a hundredth below,
 * where the inner integrand, of sqrt(V), wants more (against 96 and 64
 * nodes). */
#define POWER_NODES 48
#define MDE_INNER_NODES 24
#define MDE_INNER_NODES_FEW_DF 48
#define MDE_OUTER_NODES 16
#define MDE_OUTER_NODES_FEW_DF 32

/* The rules made last, kept per thread and lent out: a plan asks for the
 * same few degrees of freedom thousands of times, and making a rule (its
 * nodes' eigenproblem) was 16% of t/190's CPU. */
#define RULE_CACHE 16
struct cached_rule {
	const gsl_integration_fixed_type *type;
	size_t n;
	double df;
	gsl_integration_fixed_workspace *q;
};
static __thread struct cached_rule rule_cache[RULE_CACHE];
static __thread unsigned rule_cache_next;

/* The workspace of rule with n nodes for df, made once per thread. */
static gsl_integration_fixed_workspace *cached_workspace(const gsl_integration_fixed_type *rule, double alpha,
							 double df, size_t n)
{
	struct cached_rule *c;

	for (unsigned i = 0; i < RULE_CACHE; i++)
		if (rule_cache[i].q && rule_cache[i].type == rule && rule_cache[i].n == n && rule_cache[i].df == df)
			return rule_cache[i].q;
	c = &rule_cache[rule_cache_next++ % RULE_CACHE];
	if (c->q)
		gsl_integration_fixed_free(c->q);
	*c = (struct cached_rule){ .type = rule, .n = n, .df = df, .q = gsl_integration_fixed_alloc(rule, n, 0, 1, alpha, 0) };
	return c->q;
}

/* rule: GSL's Laguerre (alpha = df / 2 - 1) or Hermite (alpha = df - 1);
 * its nodes and weights lent from the thread's cache. */
static int chi2_rule_of(struct chi2_rule *r, const gsl_integration_fixed_type *rule, double alpha, double df, size_t n)
{
	gsl_integration_fixed_workspace *q;

	/* Gamma(df / 2) overflows past 343 (GSL aborts): no rule there. */
	if (df > 340)
		return -ERANGE;
	q = cached_workspace(rule, alpha, df, n);
	if (!q)
		return -ENOMEM;
	*r = (struct chi2_rule){ .n = n, .df = df, .norm = gsl_sf_gamma(df / 2), .x = gsl_integration_fixed_nodes(q),
				 .w = gsl_integration_fixed_weights(q) };
	return 0;
}

static int chi2_rule_init(struct chi2_rule *r, double df, size_t n)
{
	return chi2_rule_of(r, gsl_integration_fixed_laguerre, df / 2 - 1, df, n);
}

/* P(|T'| > c) for T' noncentral t on in->df with noncentrality lambda:
 * E over V of P(|Z + lambda| > c sqrt(V / df)). */
static double power_at(const struct chi2_rule *in, double c, double lambda)
{
	double sum = 0;

	for (size_t i = 0; i < in->n; i++) {
		double s = c * sqrt(2 * in->x[i] / in->df);

		sum += in->w[i] * (gsl_cdf_ugaussian_Q(s - lambda) + gsl_cdf_ugaussian_P(-s - lambda));
	}
	return sum / in->norm;
}

/* Above so many degrees of freedom Gamma(df / 2), the rule's norm and the
 * scale of its weights, nears a double's range (it overflows past 343),
 * and the noncentral t is normal enough: P(T' > c) = Phi((lambda - c) /
 * sqrt(1 + c^2 / 2 df)) is within 0.0011 of the quadrature at 199. */
#define POWER_DF_QUADRATURE_MAX 200

double stats_power(double lambda, double df, double level)
{
	struct chi2_rule in;

	if (!(df > 0) || isnan(lambda))
		return NAN;
	if (df > POWER_DF_QUADRATURE_MAX) {
		double c = t_critical(level, df), s = sqrt(1 + c * c / (2 * df));

		return gsl_cdf_ugaussian_P((fabs(lambda) - c) / s) + gsl_cdf_ugaussian_P((-fabs(lambda) - c) / s);
	}
	if (chi2_rule_init(&in, df, POWER_NODES) < 0)
		return NAN;
	return power_at(&in, t_critical(level, df), fabs(lambda));
}

/* The expectation over a printed standard error's chi-square on df, by
 * V = 2 u^2: the integrand, even in u and smooth where it is not in V
 * (the power of lambda sqrt(V / df) is of sqrt(V)), on Gauss-Hermite's
 * generalized rule (weight |u|^(df - 1) e^-u^2), its nodes symmetric. */
static int chi2_root_rule_init(struct chi2_rule *r, double df, size_t n)
{
	return chi2_rule_of(r, gsl_integration_fixed_hermite, df - 1, df, n);
}

/* The power at lambda standard errors averaged over a printed standard
 * error's chi-square (out, chi2_root_rule_init(); NULL: known), lambda
 * times sqrt(V / se_df): what data at the gap a data set printed are
 * detected in. */
static double power_over_se(const struct chi2_rule *out, const struct chi2_rule *in, double c, double lambda)
{
	double sum = 0;

	if (!out)
		return power_at(in, c, lambda);
	for (size_t i = 0; i < out->n; i++)
		if (out->x[i] > 0)
			sum += 2 * out->w[i] * power_at(in, c, lambda * out->x[i] * sqrt(2 / out->df));
	return sum / out->norm;
}

/* lambda with power_over_se() = power: the power rises with lambda, so
 * regula falsi (Illinois) within a bracket that doubles until it holds,
 * to a ten-thousandth of lambda. */
static double lambda_for_power(const struct chi2_rule *out, const struct chi2_rule *in, double c, double power)
{
	double lo = 0, hi = c + 1, flo = power_over_se(out, in, c, lo) - power, fhi;

	while ((fhi = power_over_se(out, in, c, hi) - power) < 0 && hi < 1e6) {
		lo = hi;
		flo = fhi;
		hi *= 2;
	}
	for (int side = 0, i = 0; i < 100 && hi - lo > 1e-4 * hi; i++) {
		double mid = (lo * fhi - hi * flo) / (fhi - flo), f = power_over_se(out, in, c, mid) - power;

		if (f < 0) {
			lo = mid;
			flo = f;
			fhi /= side == -1 ? 2 : 1;
			side = -1;
		} else {
			hi = mid;
			fhi = f;
			flo /= side == 1 ? 2 : 1;
			side = 1;
		}
	}
	return (lo + hi) / 2;
}

double stats_mde(double se, double df, double level, double power)
{
	return stats_mde_estimated(se, df, INFINITY, level, power);
}

/* lambda known and with se estimated on se_df, on one inner rule. */
static int lambdas(double df, double se_df, double level, double power, double *ret_known, double *ret_estimated)
{
	struct chi2_rule in = {}, out = {};
	double c = t_critical(level, df);
	int r = chi2_rule_init(&in, df, df < 2.5 ? MDE_INNER_NODES_FEW_DF : MDE_INNER_NODES);

	if (r >= 0 && isfinite(se_df))
		r = chi2_root_rule_init(&out, se_df, se_df < 2.5 ? MDE_OUTER_NODES_FEW_DF : MDE_OUTER_NODES);
	if (r >= 0) {
		*ret_known = lambda_for_power(NULL, &in, c, power);
		*ret_estimated = isfinite(se_df) ? lambda_for_power(&out, &in, c, power) : *ret_known;
	}
	return r;
}

double stats_mde_estimated(double se, double df, double se_df, double level, double power)
{
	double known, estimated;

	if (isnan(se) || !(df > 0) || !(se_df > 0) || lambdas(df, se_df, level, power, &known, &estimated) < 0)
		return NAN;
	return exp(estimated * se);
}

/* The nodes of each mean square's chi-square in stats_power_ms(), more
 * where its degrees of freedom are few. */
#define MS_NODES 16
#define MS_NODES_FEW_DF 32

/* The node pairs of stats_power_ms(): each one's weight and critical
 * value in standard errors of the true spread, t(df^) sqrt(v^ / v). */
struct ms_grid {
	double w[MS_NODES_FEW_DF * MS_NODES_FEW_DF], s[MS_NODES_FEW_DF * MS_NODES_FEW_DF];
	size_t n;
};

/* Each mean square's positive nodes u (V = 2 u^2) and weights, normed. */
static int ms_nodes(const struct stats_ms *ms, double *u, double *w, size_t *ret_n)
{
	struct chi2_rule r;
	size_t k = 0;

	if (chi2_root_rule_init(&r, ms->df, ms->df < 2.5 ? MS_NODES_FEW_DF : MS_NODES) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < r.n; i++)
		if (r.x[i] > 0) {
			u[k] = r.x[i];
			w[k++] = 2 * r.w[i] / r.norm;
		}
	*ret_n = k;
	return 0;
}

static int ms_grid_make(const struct stats_ms *ms, size_t n, double level, struct ms_grid *g)
{
	double u[STATS_MS_MAX][MS_NODES_FEW_DF], w[STATS_MS_MAX][MS_NODES_FEW_DF], total_df = 0;
	size_t k[STATS_MS_MAX] = { 1, 1 }, idx[STATS_MS_MAX];

	for (size_t i = 0; i < STATS_MS_MAX; i++)
		u[i][0] = w[i][0] = 1;
	for (size_t i = 0; i < n; i++) {
		if (!(ms[i].df > 0) || ms_nodes(&ms[i], u[i], w[i], &k[i]) < 0)
			return -EDOM;
		total_df += ms[i].df;
	}
	g->n = 0;
	for (idx[0] = 0; idx[0] < k[0]; idx[0]++)
		for (idx[1] = 0; idx[1] < k[1]; idx[1]++) {
			double r = 0, rr = 0, wt = 1, df;

			for (size_t i = 0; i < n; i++) {
				double part = ms[i].share * 2 * u[i][idx[i]] * u[i][idx[i]] / ms[i].df;

				r += part;
				rr += part * part / ms[i].df;
				wt *= w[i][idx[i]];
			}
			df = rr > 0 ? MIN(total_df, MAX(1, r * r / rr)) : total_df;
			g->w[g->n] = wt;
			g->s[g->n++] = t_critical(level, df) * sqrt(r);
		}
	return 0;
}

static double ms_grid_power(const struct ms_grid *g, double lambda)
{
	double sum = 0;

	for (size_t i = 0; i < g->n; i++)
		sum += g->w[i] * (gsl_cdf_ugaussian_Q(g->s[i] - lambda) + gsl_cdf_ugaussian_P(-g->s[i] - lambda));
	return sum;
}

double stats_power_ms(double lambda, const struct stats_ms *ms, size_t n, double level)
{
	struct ms_grid g;

	if (n == 0 || n > STATS_MS_MAX || isnan(lambda) || ms_grid_make(ms, n, level, &g) < 0)
		return NAN;
	return ms_grid_power(&g, fabs(lambda));
}

double stats_ms_df(const struct stats_ms *ms, size_t n)
{
	double num = 0, den = 0;

	for (size_t i = 0; i < n; i++) {
		num += ms[i].share;
		den += ms[i].share * ms[i].share / ms[i].df;
	}
	return den > 0 ? num * num / den : NAN;
}

double stats_mde_ms(double se, const struct stats_ms *ms, size_t n, bool se_estimated, double level, double power)
{
	struct ms_grid g;
	double lo = 0, hi = 1, lambda, df, known, estimated;

	if (n == 0 || n > STATS_MS_MAX || isnan(se) || ms_grid_make(ms, n, level, &g) < 0)
		return NAN;
	while (ms_grid_power(&g, hi) < power && hi < 1e6)
		hi *= 2;
	/* The power rises with lambda: bisection to a ten-thousandth. */
	while (hi - lo > 1e-4 * hi) {
		double mid = (lo + hi) / 2;

		*(ms_grid_power(&g, mid) < power ? &lo : &hi) = mid;
	}
	lambda = (lo + hi) / 2;
	df = stats_ms_df(ms, n);
	if (se_estimated && df > 0 && lambdas(df, df, level, power, &known, &estimated) >= 0)
		lambda *= estimated / known;
	return exp(lambda * se);
}

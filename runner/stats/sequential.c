/* Group-sequential decisions (stats/sequential.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/sequential.h"
#include "stats/stats.h"
#include "common/util.h"

/* Simpson intervals on each piece of a look's continuation region: the
 * density of the statistic is smooth, and 40 give the boundaries of five
 * looks at alpha 0.05 to 1e-4 of 80's (t/190 checks the spent alpha). */
#define GRID 40
/* A piece reaches this far from the statistic's mean, in its SDs: beyond,
 * the density is below 1e-22. */
#define REACH 10.0

/* The density of the standardised statistic at the last look, on the grid
 * of its continuation region: fw[i] is the density at z[i] times its
 * Simpson weight, so that a sum over the grid is an integral. */
struct walk {
	double t, eta;
	size_t n;
	double z[2 * (GRID + 1)], fw[2 * (GRID + 1)];
};

static void walk_init(struct walk *w, double eta)
{
	*w = (struct walk){ .eta = eta, .n = 1, .fw = { 1 } };
}

/* The mean and SD of the statistic at fraction t given z at the walk's. */
static void moments(const struct walk *w, double t, double z, double *m, double *s)
{
	double dt = t - w->t;

	*m = (z * sqrt(w->t) + w->eta * dt) / sqrt(t);
	*s = sqrt(dt / t);
}

/* The chance of |Z| >= c at fraction t (and of continuing so far). */
static double exit_outer(const struct walk *w, double t, double c)
{
	double p = 0, m, s;

	if (isinf(c))
		return 0;
	for (size_t i = 0; i < w->n; i++) {
		moments(w, t, w->z[i], &m, &s);
		p += w->fw[i] * (gsl_cdf_ugaussian_Q((c - m) / s) + gsl_cdf_ugaussian_P((-c - m) / s));
	}
	return p;
}

/* The chance of |Z| <= e at fraction t. */
static double exit_inner(const struct walk *w, double t, double e)
{
	double p = 0, m, s;

	if (!(e > 0))
		return 0;
	for (size_t i = 0; i < w->n; i++) {
		moments(w, t, w->z[i], &m, &s);
		p += w->fw[i] * (gsl_cdf_ugaussian_P((e - m) / s) - gsl_cdf_ugaussian_P((-e - m) / s));
	}
	return p;
}

/* Simpson's nodes on [a, b] appended to the grid, their density from the
 * old grid's (at fraction t). */
static void add_piece(struct walk *nw, const struct walk *w, double t, double a, double b)
{
	double h = (b - a) / GRID;

	if (!(b > a))
		return;
	for (size_t i = 0; i <= GRID; i++) {
		double z = a + (double)i * h, f = 0, m, s;

		for (size_t k = 0; k < w->n; k++) {
			moments(w, t, w->z[k], &m, &s);
			f += w->fw[k] * exp(-0.5 * (z - m) * (z - m) / (s * s)) / (s * sqrt(2 * M_PI));
		}
		nw->z[nw->n] = z;
		nw->fw[nw->n++] = f * h / 3 * (i == 0 || i == GRID ? 1 : i % 2 ? 4 : 2);
	}
}

/* On to the look at t, which continues where e < |Z| < c. */
static void walk_advance(struct walk *w, double t, double c, double e)
{
	struct walk nw = { .t = t, .eta = w->eta };
	double mu = w->eta * sqrt(t), lo = mu - REACH, hi = mu + REACH;

	e = MAX(e, 0);
	if (e == 0)
		add_piece(&nw, w, t, MAX(-c, lo), MIN(c, hi));
	else {
		add_piece(&nw, w, t, MAX(-c, lo), MIN(-e, hi));
		add_piece(&nw, w, t, MAX(e, lo), MIN(c, hi));
	}
	*w = nw;
}

double seq_spent(double alpha, double t)
{
	if (!(t > 0))
		return 0;
	if (t >= 1)
		return alpha;
	return 2 * gsl_cdf_ugaussian_Q(gsl_cdf_ugaussian_Qinv(alpha / 2) / sqrt(t));
}

double seq_nominal_p(double c)
{
	return isinf(c) ? 0 : 2 * gsl_cdf_ugaussian_Q(c);
}

/* The |Z| whose crossing at t spends `target` from walk w. */
static double solve_boundary(const struct walk *w, double t, double target)
{
	double lo = 0, hi = 40;

	if (!(target > 1e-15))
		return INFINITY;
	if (exit_outer(w, t, lo) <= target)
		return 0;
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (exit_outer(w, t, mid) > target)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

static bool fractions_ok(const double *t, size_t k)
{
	if (k > SEQ_LOOKS_MAX)
		return false;
	for (size_t j = 0; j < k; j++)
		if (!(t[j] > 0 && t[j] <= 1 + 1e-12) || (j && !(t[j] > t[j - 1])))
			return false;
	return true;
}

/* The boundary of the next look at t of the walk at alpha, the walk then
 * advanced past it; spent: what the looks so far spent (by their t). */
static double next_boundary(struct walk *w, double alpha, double t, bool final)
{
	double target = (final ? alpha : seq_spent(alpha, t)) - seq_spent(alpha, w->t), c;

	c = solve_boundary(w, MIN(t, 1), target);
	walk_advance(w, MIN(t, 1), c, 0);
	return c;
}

int seq_boundaries(double alpha, const double *t, size_t k, bool final, double *ret_c)
{
	struct walk *w;

	if (!fractions_ok(t, k) || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	walk_init(w, 0);
	for (size_t j = 0; j < k; j++)
		ret_c[j] = next_boundary(w, alpha, t[j], final && j == k - 1);
	free(w);
	return 0;
}

int seq_operate(const double *t, size_t k, const double *outer, const double *inner, double eta,
		struct seq_operating *ret)
{
	struct walk *w;
	double mass = 1;

	if (!fractions_ok(t, k) || k == 0)
		return -EINVAL;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	walk_init(w, eta);
	*ret = (struct seq_operating){};
	for (size_t j = 0; j < k; j++) {
		double c = outer[j], e = inner ? MIN(inner[j], c) : 0, po = exit_outer(w, t[j], c), pi = exit_inner(w, t[j], e);

		ret->p_outer += po;
		ret->p_inner += pi;
		ret->expected_t += t[j] * (po + pi);
		mass -= po + pi;
		walk_advance(w, t[j], c, e);
	}
	ret->expected_t += t[k - 1] * MAX(mass, 0);
	free(w);
	return 0;
}

/* ---- a table's families ---- */

enum { FAMILY_DIFFERENT, FAMILY_SAME, _FAMILIES };

/* One family's boundaries at one Holm level, as far as the looks went. */
struct level_cache {
	struct walk w;
	size_t done;
	double c[SEQ_LOOKS_MAX];
};

struct seq_cache {
	struct level_cache *at[_FAMILIES]; /* [n + 1]: alpha / m for m = 1..n, allocated as needed */
	bool *made[_FAMILIES];
};

int seq_family_init(struct seq_family *f, size_t n, double level, double margin)
{
	*f = (struct seq_family){ .alpha = 1 - level, .margin = log1p(margin), .n = n };
	if (!(level > 0 && level < 1) || !(margin > 0))
		return -EINVAL;
	f->h = calloc(n + 1, sizeof(*f->h));
	f->cache = calloc(1, sizeof(*f->cache));
	for (int k = 0; f->cache && k < _FAMILIES; k++) {
		f->cache->at[k] = calloc(n + 1, sizeof(struct level_cache));
		f->cache->made[k] = calloc(n + 1, sizeof(bool));
		if (!f->cache->at[k] || !f->cache->made[k])
			break;
	}
	if (!f->h || !f->cache || !f->cache->made[_FAMILIES - 1]) {
		seq_family_done(f);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		f->h[i] = (struct seq_hypothesis){ .answer = SEQ_OPEN, .d = NAN, .se = NAN, .df = NAN, .lo = NAN,
						   .hi = NAN, .level = NAN };
	return 0;
}

void seq_family_done(struct seq_family *f)
{
	for (int k = 0; f->cache && k < _FAMILIES; k++) {
		free(f->cache->at[k]);
		free(f->cache->made[k]);
	}
	free(f->cache);
	free(f->h);
	f->cache = NULL;
	f->h = NULL;
}

/* The critical |Z| of the latest look for a family whose hypotheses not
 * rejected are m: "different" at alpha / m two-sided, "the same" each
 * one-sided test at alpha / m (two-sided boundaries at twice that, a
 * little conservative). */
static double boundary(struct seq_family *f, int family, size_t m, bool final)
{
	struct level_cache *lc = &f->cache->at[family][m];
	double a = (family == FAMILY_SAME ? 2 : 1) * f->alpha / (double)m;

	if (!f->cache->made[family][m]) {
		walk_init(&lc->w, 0);
		lc->done = 0;
		f->cache->made[family][m] = true;
	}
	while (lc->done < f->looks) {
		size_t j = lc->done;

		lc->c[j] = next_boundary(&lc->w, MIN(a, 0.999), f->t[j], final && j == f->looks - 1);
		lc->done++;
	}
	return lc->c[f->looks - 1];
}

static size_t count(const struct seq_family *f, enum seq_answer a)
{
	size_t k = 0;

	for (size_t i = 0; i < f->n; i++)
		k += f->h[i].answer == a;
	return k;
}

/* The two-sided interval of h's estimate at nominal two-sided p. */
static void interval(struct seq_hypothesis *h, double p)
{
	double q = p > 0 ? gsl_cdf_tdist_Qinv(p / 2, h->df) : INFINITY;

	h->level = 1 - p;
	h->lo = h->d - q * h->se;
	h->hi = h->d + q * h->se;
}

/* One pass of each family at the latest look; whether any was decided. */
static bool decide_pass(struct seq_family *f, bool final)
{
	size_t m_diff = f->n - count(f, SEQ_DIFFERENT), m_same = f->n - count(f, SEQ_SAME);
	double p_diff = seq_nominal_p(boundary(f, FAMILY_DIFFERENT, MAX(m_diff, 1), final));
	double p_same = seq_nominal_p(boundary(f, FAMILY_SAME, MAX(m_same, 1), final)) / 2;
	bool any = false;

	for (size_t i = 0; i < f->n; i++) {
		struct seq_hypothesis *h = &f->h[i];
		double p, pl, pu;

		if (h->answer != SEQ_OPEN || h->look != f->looks - 1 || !h->estimated || !(h->se > 0))
			continue;
		p = 2 * gsl_cdf_tdist_Q(fabs(h->d) / h->se, h->df);
		pl = gsl_cdf_tdist_Q((h->d + f->margin) / h->se, h->df);
		pu = gsl_cdf_tdist_P((h->d - f->margin) / h->se, h->df);
		if (p_diff > 0 && p <= p_diff) {
			h->answer = SEQ_DIFFERENT;
			interval(h, p_diff);
			h->within = h->lo > -f->margin && h->hi < f->margin;
			any = true;
		} else if (p_same > 0 && MAX(pl, pu) <= p_same) {
			h->answer = SEQ_SAME;
			interval(h, 2 * p_same);
			any = true;
		} else
			interval(h, p_diff);
	}
	return any;
}

int seq_family_look(struct seq_family *f, double t, bool final, const struct seq_estimate *est)
{
	if (f->looks == SEQ_LOOKS_MAX || !(t > 0) || (f->looks && !(t > f->t[f->looks - 1])))
		return -EINVAL;
	f->t[f->looks++] = MIN(t, 1);
	for (size_t i = 0; i < f->n; i++) {
		struct seq_hypothesis *h = &f->h[i];

		if (h->answer != SEQ_OPEN || isnan(est[i].se) || !(est[i].df > 0))
			continue;
		*h = (struct seq_hypothesis){ .answer = SEQ_OPEN, .look = f->looks - 1, .d = est[i].d, .se = est[i].se,
					      .df = est[i].df, .estimated = true, .lo = NAN, .hi = NAN, .level = NAN };
	}
	while (f->n && decide_pass(f, final))
		;
	return 0;
}

/* ---- the plan ---- */

bool seq_is_look(unsigned every, unsigned round)
{
	return round >= 2 && round % MAX(every, 1) == 0;
}

size_t seq_look_rounds(unsigned every, unsigned rounds, unsigned *ret)
{
	size_t n = 0;

	for (unsigned r = 2; r < rounds && n < SEQ_LOOKS_MAX - 1; r++)
		if (seq_is_look(every, r))
			ret[n++] = r;
	ret[n++] = rounds;
	return n;
}

/* The boundaries of design d over R rounds, each look's as the t
 * statistic it judges would need on its degrees of freedom: outer[j] the
 * |t| of "different", inner[j] the |d| / se of "the same" (from the
 * margin over the look's standard error, less the one-sided quantile). */
static int plan_boundaries(const struct seq_design *d, unsigned rounds, double *t, size_t *k, double *outer,
			   double *inner, double *ret_se)
{
	unsigned at[SEQ_LOOKS_MAX];
	double alpha = (1 - d->level) / (double)MAX(d->family, 1), c[SEQ_LOOKS_MAX], ce[SEQ_LOOKS_MAX];
	double se = d->sigma * sqrt(2.0 / rounds), delta = log1p(d->margin);
	int r;

	*k = seq_look_rounds(d->every, rounds, at);
	for (size_t j = 0; j < *k; j++)
		t[j] = (double)at[j] / rounds;
	r = seq_boundaries(alpha, t, *k, true, c);
	if (r >= 0)
		r = seq_boundaries(MIN(2 * alpha, 0.999), t, *k, true, ce);
	for (size_t j = 0; r >= 0 && j < *k; j++) {
		double df = stats_design_df(at[j], d->rows, STATS_PLAN_START_SHARE);
		double p = seq_nominal_p(c[j]), pe = seq_nominal_p(ce[j]) / 2;

		outer[j] = df > 0 && p > 0 ? gsl_cdf_tdist_Qinv(p / 2, df) : INFINITY;
		/* |d| <= delta - q se_j, in units of se_j = se / sqrt(t_j) */
		inner[j] = df > 0 && pe > 0 ? delta / se * sqrt(t[j]) - gsl_cdf_tdist_Qinv(pe, df) : 0;
	}
	*ret_se = se;
	return r;
}

/* What the estimated sigma costs beyond a t quantile: the noncentral t's
 * power on the last look's degrees of freedom (stats_power(), which
 * averages over the sigma's chi-square) over the normal's at the same
 * quantile, at the drift lambda; at 3 degrees of freedom a test that the
 * quantile alone gave 85% has 75% (t/190's simulations). */
static double sigma_cost(double lambda, double df, double q)
{
	double level = 1 - 2 * gsl_cdf_tdist_Q(q, df), z = q,
	       normal = gsl_cdf_ugaussian_Q(z - lambda) + gsl_cdf_ugaussian_P(-z - lambda), t = stats_power(lambda, df, level);

	return normal > 0 && t < normal ? t / normal : 1;
}

int seq_plan_operate(const struct seq_design *d, unsigned rounds, double theta, struct seq_operating *ret,
		     double *ret_rounds)
{
	double t[SEQ_LOOKS_MAX], outer[SEQ_LOOKS_MAX], inner[SEQ_LOOKS_MAX], se;
	size_t k;
	int r;

	if (rounds < 2 || !(d->sigma > 0))
		return -EINVAL;
	r = plan_boundaries(d, rounds, t, &k, outer, inner, &se);
	if (r >= 0)
		r = seq_operate(t, k, outer, inner, theta / se, ret);
	if (r >= 0 && isfinite(outer[k - 1])) {
		double df = stats_design_df(rounds, d->rows, STATS_PLAN_START_SHARE);

		ret->p_outer = MIN(1, ret->p_outer * sigma_cost(fabs(theta) / se, df, outer[k - 1]));
		ret->p_inner = MIN(1, ret->p_inner * sigma_cost(log1p(d->margin) / se, df, outer[k - 1]));
	}
	if (r >= 0 && ret_rounds)
		*ret_rounds = ret->expected_t * rounds;
	return r;
}

/* Whether R rounds of d decide both ways with d->power. */
static bool plan_enough(const struct seq_design *d, unsigned rounds)
{
	struct seq_operating at_gap, at_one;

	return seq_plan_operate(d, rounds, log1p(d->margin), &at_gap, NULL) >= 0 &&
	       seq_plan_operate(d, rounds, 0, &at_one, NULL) >= 0 && at_gap.p_outer >= d->power &&
	       at_one.p_inner >= d->power;
}

unsigned seq_plan_rounds(const struct seq_design *d)
{
	unsigned lo = 1, hi = 2;

	/* Doubling, then bisection: the chances grow with the rounds (but
	 * for the last look's rounding, a round or so). */
	while (hi <= d->max && !plan_enough(d, hi)) {
		lo = hi;
		hi *= 2;
	}
	if (hi > d->max) {
		if (!plan_enough(d, d->max))
			return d->max + 1;
		hi = d->max;
	}
	while (hi - lo > 1) {
		unsigned mid = (lo + hi) / 2;

		if (plan_enough(d, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

double seq_plan_margin(const struct seq_design *d)
{
	struct seq_design at = *d;
	double lo = d->margin, hi = 9;

	at.margin = hi;
	if (seq_plan_rounds(&at) > d->max)
		return NAN;
	/* Bisection: the rounds fall as the margin grows. */
	while (hi - lo > 0.005) {
		at.margin = (lo + hi) / 2;
		if (seq_plan_rounds(&at) > d->max)
			lo = at.margin;
		else
			hi = at.margin;
	}
	return hi;
}

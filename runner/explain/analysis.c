/* explain's analysis (explain/analysis.h): the stages' starts as
 * observations of the block model, and the gap, the shares, the pairs and
 * the set named as contrasts of its fit. */
#include <math.h>
#include <string.h>

#include "explain/analysis.h"
#include "report/judge/judge.h"
#include "stats/figure.h"
#include "common/util.h"

/* The cells of a fit: the masks of its mixes, in the order of the
 * stages. */
struct cells {
	struct design d;
};

/* The variance groups: A and B are real contexts (a service held to a
 * quota, a shell), noisier or quieter than the hybrids between them, so
 * each its own sigma and the mixes one. */
enum {
	GROUP_MIXES,
	GROUP_A,
	GROUP_B,
};

/* The stages' starts as observations, each a start of its own (a mix runs
 * one thread count), each stage's rounds blocks of their own, A (mask a)
 * and B their own variance groups, the first and the last unit of a round
 * their place terms; *ret (to free()) holds *ret_n, *ret_blocks the
 * blocks. */
static int observations(const struct stage *const *st, size_t n_st, unsigned a, struct cells *cells,
			struct block_obs **ret, size_t *ret_n, size_t *ret_blocks)
{
	size_t n = 0, cap = 0, offset = 0;
	struct block_obs *obs;

	cells->d.n = 0;
	for (size_t s = 0; s < n_st; s++)
		for (size_t i = 0; i < st[s]->n_mix; i++) {
			cap += st[s]->mix[i].n;
			if (design_index(&cells->d, st[s]->mix[i].mask) < 0 && cells->d.n < DESIGN_MIXES_MAX)
				cells->d.masks[cells->d.n++] = st[s]->mix[i].mask;
		}
	obs = calloc(cap + 1, sizeof(*obs));
	if (!obs)
		return -ENOMEM;
	for (size_t s = 0; s < n_st; offset += st[s]->n_rounds, s++)
		for (size_t i = 0; i < st[s]->n_mix; i++) {
			const struct stage_mix *m = &st[s]->mix[i];
			long c = design_index(&cells->d, m->mask);

			for (size_t r = 0; c >= 0 && !m->too_many_failed && r < m->n; r++) {
				bool placed = m->slot[r] >= 1 && m->slot[r] <= st[s]->n_mix;

				obs[n] = (struct block_obs){ .cell = (size_t)c, .block = offset + m->round[r] - 1,
							     .y = log(m->tps[r]),
							     .group = m->mask == a ? GROUP_A : m->mask == 0 ? GROUP_B : GROUP_MIXES,
							     .start = n, .order = placed, .slot = placed ? m->slot[r] : 0,
							     .slots = placed ? (unsigned)st[s]->n_mix : 0 };
				n++;
			}
		}
	*ret = obs;
	*ret_n = n;
	*ret_blocks = offset;
	return 0;
}

static int fit_stages(const struct stage *const *st, size_t n_st, unsigned a, struct cells *cells, struct block_fit *ret)
{
	_cleanup_free_ struct block_obs *obs = NULL;
	size_t n, blocks;
	int r = observations(st, n_st, a, cells, &obs, &n, &blocks);

	return r < 0 ? r : block_fit(obs, n, cells->d.n, MAX(blocks, 1), ret);
}

/* w[cell of mask] += by; false when the mask is not among the cells. */
static bool weigh(const struct cells *c, double *w, unsigned mask, double by)
{
	long i = design_index(&c->d, mask);

	if (i < 0)
		return false;
	w[i] += by;
	return true;
}

static unsigned a_mask(const struct analysis_inputs *in)
{
	return in->closure_is_a ? (1u << in->n_factors) - 1 : EXPLAIN_A;
}

/* ln T(A) - ln T(B). */
static bool gap_weights(const struct analysis_inputs *in, const struct cells *c, double *w)
{
	memset(w, 0, DESIGN_MIXES_MAX * sizeof(*w));
	return weigh(c, w, a_mask(in), 1) && weigh(c, w, 0, -1);
}

/* Factor k's Shapley value over the factors of mask `set` (the others at
 * B): sum over S of the others of |S|! (n - |S| - 1)! / n! times
 * T(S + k) - T(S). */
static bool shapley_weights(const struct cells *c, unsigned set, size_t k, double *w)
{
	unsigned others = set & ~(1u << k);
	int n = __builtin_popcount(set);
	bool all = true;

	memset(w, 0, DESIGN_MIXES_MAX * sizeof(*w));
	for (unsigned s = 0;; s = (s - others) & others) {
		int size = __builtin_popcount(s);
		double wt = tgamma(size + 1) * tgamma(n - size) / tgamma(n + 1);

		all &= weigh(c, w, s | (1u << k), wt) && weigh(c, w, s, -wt);
		if (s == others)
			break;
	}
	return all;
}

/* The interaction of j and k averaged over the other factors of set. */
static bool pair_weights(const struct cells *c, unsigned set, size_t j, size_t k, double *w)
{
	unsigned jk = (1u << j) | (1u << k), others = set & ~jk;
	double wt = 1.0 / (double)(1u << __builtin_popcount(others));
	bool all = true;

	memset(w, 0, DESIGN_MIXES_MAX * sizeof(*w));
	for (unsigned s = 0;; s = (s - others) & others) {
		all &= weigh(c, w, s | jk, wt) && weigh(c, w, s | (1u << j), -wt) && weigh(c, w, s | (1u << k), -wt) &&
		       weigh(c, w, s, wt);
		if (s == others)
			break;
	}
	return all;
}

/* What set moves: half of what it adds to B and half of what the closure
 * loses without it. */
static bool set_weights(const struct cells *c, unsigned set, unsigned closure, double *w)
{
	memset(w, 0, DESIGN_MIXES_MAX * sizeof(*w));
	return weigh(c, w, set, 0.5) && weigh(c, w, 0, -0.5) && weigh(c, w, closure, 0.5) &&
	       weigh(c, w, closure & ~set, -0.5);
}

/* The share num / gap of fit at level; none when a mix is missing. */
static struct stats_share share_of(const struct block_fit *f, const double *num, const double *den, bool have,
				   double level)
{
	struct stats_share s = STATS_SHARE_NONE;

	if (have && block_share(f, num, den, level, &s) < 0)
		s = STATS_SHARE_NONE;
	return s;
}

/* Holm across a family of shares: each made again at its step's level. */
static void holm_shares(const struct block_fit *f, double (*num)[DESIGN_MIXES_MAX], const double *den,
			struct stats_share **s, size_t n, double level)
{
	double p[FACTORS_MAX * FACTORS_MAX] = {}, adj[FACTORS_MAX * FACTORS_MAX], lev[FACTORS_MAX * FACTORS_MAX];
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		p[i] = s[i]->p_raw;
		m += !isnan(p[i]);
	}
	stats_holm(p, n, level, adj, lev);
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i]))
			continue;
		*s[i] = share_of(f, num[i], den, true, lev[i]);
		s[i]->p = adj[i];
		s[i]->p_raw = p[i];
		s[i]->family = m;
	}
}

/* The gap from every start of every stage. */
static int explain_gap(const struct analysis_inputs *in, struct explanation *x)
{
	const struct stage *st[3];
	struct cells c;
	struct block_fit f;
	size_t n = 0;
	long ia, ib;
	int r;

	if (in->fraction)
		st[n++] = in->fraction;
	st[n++] = in->screen;
	if (in->confirm)
		st[n++] = in->confirm;
	r = fit_stages(st, n, a_mask(in), &c, &f);
	if (r < 0)
		return r;
	ia = design_index(&c.d, a_mask(in));
	ib = design_index(&c.d, 0);
	r = ia < 0 || ib < 0 ? -EDOM : block_ratio(&f, (size_t)ia, (size_t)ib, in->level, &x->gap);
	x->n_a = r >= 0 ? x->gap.n_a : 0;
	x->n_b = r >= 0 ? x->gap.n_b : 0;
	x->n_starts = f.n_obs;
	block_fit_done(&f);
	return r;
}

/* The gap of a stage's fit, A against B. */
static void stage_gap(const struct analysis_inputs *in, const struct block_fit *f, const struct cells *c,
		      struct stats_ratio *ret)
{
	long ia = design_index(&c->d, a_mask(in)), ib = design_index(&c->d, 0);

	if (ia >= 0 && ib >= 0)
		block_ratio(f, (size_t)ia, (size_t)ib, in->level, ret);
}

/* The screen's shares: each factor's Shapley value and alone, the pairs,
 * the closure and its distance to A. */
static int explain_screen(const struct analysis_inputs *in, const struct block_fit *f, const struct cells *c,
			  struct explanation *x)
{
	double num[FACTORS_MAX * FACTORS_MAX][DESIGN_MIXES_MAX], den[DESIGN_MIXES_MAX], w[DESIGN_MIXES_MAX];
	struct stats_share *fam[FACTORS_MAX * FACTORS_MAX];
	unsigned set = in->screen_factors;
	size_t n = 0;
	long ia = design_index(&c->d, a_mask(in)), icl = design_index(&c->d, set);

	if (!gap_weights(in, c, den))
		return -EDOM;
	for (size_t k = 0; k < in->n_factors; k++) {
		if (!((set >> k) & 1))
			continue;
		x->shapley[k] = share_of(f, num[n], den, shapley_weights(c, set, k, num[n]), in->level);
		if (!isnan(x->shapley[k].share) && block_ratio_of(f, num[n], in->level, &x->effect[k]) < 0)
			return -ENOMEM;
		fam[n++] = &x->shapley[k];
		memset(w, 0, sizeof(w));
		x->alone[k] = share_of(f, w, den, weigh(c, w, 1u << k, 1) && weigh(c, w, 0, -1), in->level);
	}
	holm_shares(f, num, den, fam, n, in->level);
	n = 0;
	for (size_t j = 0; j < in->n_factors; j++)
		for (size_t k = j + 1; k < in->n_factors; k++)
			if ((set >> j) & 1 && (set >> k) & 1) {
				x->pair[j][k] = share_of(f, num[n], den, pair_weights(c, set, j, k, num[n]), in->level);
				fam[n++] = &x->pair[j][k];
			}
	holm_shares(f, num, den, fam, n, in->level);
	x->n_pairs = n;
	for (size_t j = 0; j < in->n_factors; j++)
		for (size_t k = j + 1; k < in->n_factors; k++)
			x->pair_claimed[j][k] = x->pair[j][k].bounded && (x->pair[j][k].lo > 0 || x->pair[j][k].hi < 0);
	memset(w, 0, sizeof(w));
	x->closure = share_of(f, w, den, weigh(c, w, set, 1) && weigh(c, w, 0, -1), in->level);
	stage_gap(in, f, c, &x->screen_gap);
	if (!in->closure_is_a && ia >= 0 && icl >= 0)
		block_ratio(f, (size_t)icl, (size_t)ia, in->level, &x->closure_to_a);
	x->sigma = block_sigma(f);
	x->df = f->df;
	return 0;
}

/* The fraction's main effects, as shares of its own gap. */
static int explain_fraction(const struct analysis_inputs *in, struct explanation *x)
{
	const struct stage *one[] = { in->fraction };
	double den[DESIGN_MIXES_MAX], w[DESIGN_MIXES_MAX], d, nv, se;
	struct cells c;
	struct block_fit f;
	int r = fit_stages(one, 1, a_mask(in), &c, &f);

	if (r < 0)
		return r;
	if (!gap_weights(in, &c, den) || block_contrast(&f, den, &d, &se) < 0 || d == 0)
		r = -EDOM;
	for (size_t k = 0; r >= 0 && k < in->n_factors; k++) {
		size_t on = 0, off = 0;

		for (size_t i = 0; i < c.d.n; i++)
			if (c.d.masks[i] != EXPLAIN_A) {
				on += c.d.masks[i] >> k & 1;
				off += !(c.d.masks[i] >> k & 1);
			}
		memset(w, 0, sizeof(w));
		for (size_t i = 0; i < c.d.n; i++)
			if (c.d.masks[i] != EXPLAIN_A)
				w[i] = c.d.masks[i] >> k & 1 ? 1.0 / (double)on : -1.0 / (double)off;
		x->main_effect[k] = block_contrast(&f, w, &nv, &se) >= 0 ? nv / d : NAN;
	}
	block_fit_done(&f);
	return r;
}

/* The correlation across the mixes of a figure of mechanism (its
 * logarithm, percentages as they are) with the mixes' mean log TPS. */
static double mechanism_correlation(const struct stage *s, size_t row, bool share, size_t *ret_n)
{
	double x[DESIGN_MIXES_MAX], y[DESIGN_MIXES_MAX], mx, vx, my, vy, cov = 0;
	size_t n = 0;

	for (size_t i = 0; i < s->n_mix; i++) {
		double v = s->mix[i].mech[row], lt = 0;

		if (isnan(v) || (!share && v <= 0) || s->mix[i].n == 0 || s->mix[i].too_many_failed)
			continue;
		for (size_t r = 0; r < s->mix[i].n; r++)
			lt += log(s->mix[i].tps[r]);
		x[n] = share ? v : log(v);
		y[n++] = lt / (double)s->mix[i].n;
	}
	stats_mean_var(x, n, &mx, &vx);
	stats_mean_var(y, n, &my, &vy);
	for (size_t i = 0; i < n; i++)
		cov += (x[i] - mx) * (y[i] - my) / (double)(n - 1);
	*ret_n = n;
	return n >= 2 && vx > 0 && vy > 0 ? cov / sqrt(vx * vy) : NAN;
}

/* Of the figures whose A and B differ by 1.5x or more, the one that
 * follows TPS across the screen's mixes most closely. */
static void explain_mechanism(const struct analysis_inputs *in, struct explanation *x)
{
	const struct stage *s = in->screen;
	size_t n_rows;
	const struct oltp_mechanism_def *defs = oltp_mechanism_table(&n_rows);
	long ia = -1, ib = -1;

	x->mechanism = -1;
	for (size_t i = 0; i < s->n_mix; i++) {
		if (s->mix[i].mask == a_mask(in))
			ia = (long)i;
		if (s->mix[i].mask == 0)
			ib = (long)i;
	}
	for (size_t k = 0; ia >= 0 && ib >= 0 && k < n_rows; k++) {
		double a = s->mix[ia].mech[k], b = s->mix[ib].mech[k], r;
		size_t n = 0;

		if (!(a > 0 && b > 0) || MAX(a, b) / MIN(a, b) < 1.5)
			continue;
		r = mechanism_correlation(s, k, streq(defs[k].unit, "%"), &n);
		if (!isnan(r) && (x->mechanism < 0 || fabs(r) > fabs(x->mech_r))) {
			x->mechanism = (long)k;
			x->mech_a = a;
			x->mech_b = b;
			x->mech_r = r;
			stats_correlation_interval(r, n, in->level, &x->mech_r_lo, &x->mech_r_hi);
		}
	}
	x->n_mixes = s->n_mix;
}

/* The named set's share and the gap it is of: from the hold-out's own fit
 * when it was measured, else from the screen's (chosen and sized on the
 * same data). */
static int explain_named(const struct analysis_inputs *in, const struct block_fit *screen, const struct cells *sc,
			 struct explanation *x)
{
	const struct stage *one[] = { in->confirm };
	double num[DESIGN_MIXES_MAX], den[DESIGN_MIXES_MAX];
	unsigned closure = in->screen_factors;
	struct cells c;
	struct block_fit f;
	int r;

	x->named = in->named;
	x->named_share = STATS_SHARE_NONE;
	if (!x->named)
		return 0;
	/* Every factor, and A their closure: all that differs, by
	 * construction; nothing to measure again, no interval to give. */
	if (x->named == closure && in->closure_is_a) {
		x->named_share = (struct stats_share){ .share = 1, .lo = NAN, .hi = NAN, .df = NAN, .p = NAN,
						       .p_raw = NAN, .level = in->level, .family = 1 };
		x->by_construction = true;
		x->named_gap = x->gap;
		return 0;
	}
	if (!in->confirm) {
		x->named_share = share_of(screen, num, den, set_weights(sc, x->named, closure, num) && gap_weights(in, sc, den),
					  in->level);
		x->named_gap = x->screen_gap;
		return 0;
	}
	r = fit_stages(one, 1, a_mask(in), &c, &f);
	if (r < 0)
		return r;
	x->named_share = share_of(&f, num, den, set_weights(&c, x->named, closure, num) && gap_weights(in, &c, den),
				  in->level);
	stage_gap(in, &f, &c, &x->named_gap);
	x->held_out = true;
	x->confirm_rounds = in->confirm->n_rounds;
	x->confirm_sigma = block_sigma(&f);
	x->confirm_df = f.df;
	x->wider_p = stats_wider_p(x->confirm_sigma, x->confirm_df, x->sigma, x->df);
	block_fit_done(&f);
	return 0;
}

static struct stats_ratio ratio_none(void)
{
	return (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN, .se = NAN, .sigma = NAN,
				     .p_raw = NAN, .mde = NAN, .verdict = STATS_TOO_FEW, .family = 1 };
}

static void explanation_clear(struct explanation *x)
{
	*x = (struct explanation){ .gap = ratio_none(), .screen_gap = ratio_none(), .closure = STATS_SHARE_NONE,
				   .closure_to_a = ratio_none(), .sigma = NAN, .df = NAN,
				   .named_share = STATS_SHARE_NONE, .named_gap = ratio_none(), .confirm_sigma = NAN,
				   .confirm_df = NAN, .wider_p = NAN, .mechanism = -1 };
	for (size_t k = 0; k < FACTORS_MAX; k++) {
		x->shapley[k] = x->alone[k] = STATS_SHARE_NONE;
		x->effect[k] = ratio_none();
		x->main_effect[k] = NAN;
		for (size_t j = 0; j < FACTORS_MAX; j++)
			x->pair[k][j] = STATS_SHARE_NONE;
	}
}

bool analysis_shown_small(const struct stats_share *s)
{
	return s->bounded && s->lo > -ANALYSIS_SMALL && s->hi < ANALYSIS_SMALL;
}

void analysis_judge_failures(struct stage *s, double level)
{
	for (size_t i = 0; i < s->n_mix; i++) {
		struct stage_mix *m = &s->mix[i];

		m->too_many_failed = report_fails_too_often(m->n, m->n_failed, level, &m->fail_lo, &m->fail_hi);
	}
}

/* The mixes that take no part, and whether A or B of the screen is one. */
static void count_excluded(const struct analysis_inputs *in, struct explanation *x)
{
	const struct stage *st[] = { in->fraction, in->screen, in->confirm };

	for (size_t s = 0; s < ELEMENTSOF(st); s++)
		for (size_t i = 0; st[s] && i < st[s]->n_mix; i++)
			if (st[s]->mix[i].too_many_failed) {
				x->n_excluded++;
				x->ends_failed |= st[s] == in->screen &&
						  (st[s]->mix[i].mask == a_mask(in) || st[s]->mix[i].mask == 0);
			}
}

/* The median TPS of one mix over every stage the gap is fitted from
 * (explain_gap()), so that the medians printed beside the gap are of the
 * same starts as its interval. */
static double gap_median(const struct analysis_inputs *in, unsigned mask)
{
	const struct stage *st[] = { in->fraction, in->screen, in->confirm };
	double x[3 * STAGE_STARTS_MAX];
	size_t n = 0;

	for (size_t s = 0; s < ELEMENTSOF(st); s++)
		for (size_t i = 0; st[s] && i < st[s]->n_mix; i++)
			if (st[s]->mix[i].mask == mask)
				for (size_t k = 0; k < st[s]->mix[i].n; k++)
					x[n++] = st[s]->mix[i].tps[k];
	return stats_median(x, n);
}

int analysis_explain(const struct analysis_inputs *in, struct explanation *ret)
{
	const struct stage *one[] = { in->screen };
	struct cells c;
	struct block_fit f;
	int r;

	explanation_clear(ret);
	ret->factors = in->screen_factors;
	ret->n_mixes = in->screen->n_mix;
	ret->med_a = gap_median(in, a_mask(in));
	ret->med_b = gap_median(in, 0);
	count_excluded(in, ret);
	if (ret->ends_failed)
		return 0; /* no gap: nothing to share out */
	r = explain_gap(in, ret);
	if (r >= 0 && in->fraction)
		r = explain_fraction(in, ret);
	if (r < 0)
		return r;
	r = fit_stages(one, 1, a_mask(in), &c, &f);
	if (r < 0)
		return r;
	r = explain_screen(in, &f, &c, ret);
	if (r >= 0)
		r = explain_named(in, &f, &c, ret);
	block_fit_done(&f);
	if (r >= 0)
		explain_mechanism(in, ret);
	return r;
}

int analysis_main_effects(const struct analysis_inputs *in, struct explanation *x)
{
	explanation_clear(x);
	return explain_fraction(in, x);
}

unsigned analysis_choose_set(const struct explanation *x)
{
	double target = ANALYSIS_SUFFICIENT * (isnan(x->closure.share) ? 1 : x->closure.share), sum = 0;
	unsigned set = 0;

	if (x->gap.verdict != STATS_SIGNIFICANT || !(target > 0))
		return 0;
	while (sum < target) {
		long best = -1;

		for (size_t k = 0; k < FACTORS_MAX; k++)
			if ((x->factors >> k) & 1 && !((set >> k) & 1) && x->shapley[k].share > 0 &&
			    (best < 0 || x->shapley[k].share > x->shapley[best].share))
				best = (long)k;
		if (best < 0)
			break;
		set |= 1u << best;
		sum += x->shapley[best].share;
	}
	return set;
}

unsigned analysis_strongest(const struct explanation *x, size_t n_factors)
{
	unsigned set = 0;

	for (size_t pick = 0; pick < DESIGN_FULL_MAX && pick < n_factors; pick++) {
		long best = -1;

		for (size_t k = 0; k < n_factors; k++)
			if (!((set >> k) & 1) && !isnan(x->main_effect[k]) &&
			    (best < 0 || fabs(x->main_effect[k]) > fabs(x->main_effect[best])))
				best = (long)k;
		if (best >= 0)
			set |= 1u << best;
	}
	return set;
}

/* sum (c_num - s c_den)^2 over the hold-out's mixes, one start each; how
 * many mixes the hold-out has in *ret_mixes. */
static double holdout_variance_factor(const struct analysis_inputs *in, const struct explanation *x,
				      size_t *ret_mixes)
{
	struct cells c;
	double num[DESIGN_MIXES_MAX], den[DESIGN_MIXES_MAX], s = 0, v = 0;

	design_holdout(x->named, in->screen_factors, in->closure_is_a, &c.d);
	*ret_mixes = c.d.n;
	for (size_t k = 0; k < FACTORS_MAX; k++)
		if ((x->named >> k) & 1 && !isnan(x->shapley[k].share))
			s += x->shapley[k].share;
	if (!set_weights(&c, x->named, in->screen_factors, num) || !gap_weights(in, &c, den))
		return NAN;
	for (size_t i = 0; i < c.d.n; i++)
		v += (num[i] - s * den[i]) * (num[i] - s * den[i]);
	return v;
}

/* The hold-out's interval rests on its own rounds: log TPS ~ mix + round
 * over them leaves (rounds - 1)(mixes - 1) degrees of freedom, and its t
 * is theirs, not the screen's (2 rounds of 3 mixes: t = 4.3 where a
 * screen's 6 gave 2.45). */
double analysis_predicted_width(const struct analysis_inputs *in, const struct explanation *x, unsigned rounds)
{
	size_t mixes = 0;
	double v = holdout_variance_factor(in, x, &mixes), g = fabs(log(x->gap.ratio));
	double df = ((double)rounds - 1) * ((double)mixes - 1);

	if (isnan(v) || isnan(x->sigma) || !(g > 0) || rounds == 0 || !(df >= 1))
		return NAN;
	return 2 * stats_t_critical(in->level, df) * x->sigma * sqrt(v / rounds) / g;
}

unsigned analysis_confirm_rounds(const struct analysis_inputs *in, const struct explanation *x, double width)
{
	unsigned rounds = 2;

	if (x->named == in->screen_factors && in->closure_is_a)
		return 0; /* A itself: nothing to hold out */
	if (isnan(analysis_predicted_width(in, x, rounds)) || !(width > 0))
		return rounds;
	/* The fewest rounds whose width, at their own t, is within width. */
	while (rounds < 1000 && analysis_predicted_width(in, x, rounds) > width)
		rounds++;
	return rounds;
}

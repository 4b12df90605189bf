/* The report's verdicts (report/model/model.h): for each thread count one fit
 * of the block model (stats/block.h) over every column whose starts did
 * not fail too often, the rounds as blocks; each column's ratio to its
 * baseline and to its context's first vary value is a contrast of that
 * fit.  Each table's ratios are one family, Holm-adjusted.  Beside each,
 * Welch's t on the two columns alone and the rank-based interval, which
 * the renderers show where they disagree with the model. */
#include <math.h>

#include "report/judge/judge.h"
#include "stats/block.h"
#include "common/util.h"

bool report_fails_too_often(size_t n_ok, size_t n_failed, double level, double *ret_lo, double *ret_hi)
{
	size_t n = n_ok + n_failed;

	*ret_lo = *ret_hi = NAN;
	if (n == 0)
		return false;
	stats_wilson(n_failed, n, level, ret_lo, ret_hi);
	return (double)n_failed > MODEL_FAIL_MAX * (double)n;
}

/* The failure rate's Wilson interval, and whether the cell fails too
 * often to be given a ratio. */
static void judge_failures(struct model *m, struct cell *c)
{
	if (c->n + c->n_failed == 0)
		return;
	c->too_many_failed = report_fails_too_often(c->n, c->n_failed, m->level, &c->fail_lo, &c->fail_hi);
	m->any_too_many_failed |= c->too_many_failed;
}

size_t model_row_size(const struct model *m, size_t row)
{
	size_t n = 0;

	for (size_t k = 0; k < m->ncols; k++)
		n += model_cell(m, row, k)->n;
	return n;
}

void model_row_append(const struct model *m, size_t row, unsigned until, struct row_obs *o)
{
	for (size_t k = 0; k < m->ncols; k++) {
		const struct cell *c = model_cell(m, row, k);

		for (size_t i = 0; cell_takes_part(c) && i < c->n; i++) {
			if (until && c->round[i] > until)
				continue;
			o->obs[o->n++] = (struct block_obs){ .cell = o->cell0 + k, .block = o->block0 + c->round[i] - 1,
							     .y = log(c->tps[i]) };
			o->blocks = MAX(o->blocks, o->block0 + c->round[i]);
		}
	}
}

/* The row's observations up to round `until` (0: all).  *ret (to free())
 * holds *ret_n of them. */
static int row_observations(const struct model *m, size_t row, unsigned until, struct block_obs **ret, size_t *ret_n,
			    size_t *ret_blocks)
{
	struct row_obs o = { .obs = calloc(model_row_size(m, row) + 1, sizeof(struct block_obs)) };

	if (!o.obs)
		return -ENOMEM;
	model_row_append(m, row, until, &o);
	*ret = o.obs;
	*ret_n = o.n;
	*ret_blocks = o.blocks;
	return 0;
}

/* Column k in the row against its baseline's column, or with first
 * against its context's at the first vary value: the model's ratio (from
 * fit, NULL when the row could not be fitted), Welch's and the rank test,
 * into the cell's verdicts of that pair. */
static int judge_pair(const struct model *m, const struct block_fit *fit, size_t row, size_t k, bool first)
{
	struct cell *c = model_cell(m, row, k);
	const struct cell *b;
	long against = first ? m->cols[k].first : m->cols[k].base;
	struct stats_ratio *model = first ? &c->vs_first : &c->vs_base, *welch = first ? &c->welch_first : &c->welch_base;
	struct stats_rank *rank = first ? &c->rank_first : &c->rank_base;
	int r;

	*model = *welch = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN, .se = NAN,
						.sigma = NAN, .p_raw = NAN, .mde = NAN, .verdict = STATS_TOO_FEW,
						.family = 1, .level = m->level };
	*rank = (struct stats_rank){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .p_min = NAN };
	if (against < 0)
		return 0;
	b = model_cell(m, row, (size_t)against);
	if (!cell_takes_part(c) || !cell_takes_part(b))
		return 0;
	r = fit ? block_ratio(fit, k, (size_t)against, m->level, model) : 0;
	if (r >= 0)
		r = stats_ratio(c->tps, c->n, b->tps, b->n, m->level, welch);
	if (r >= 0)
		r = stats_rank_ratio(c->tps, c->n, b->tps, b->n, m->level, rank);
	if (r >= 0 && !fit) {
		/* Rounds that share no column: no model, the pair's own test. */
		*model = *welch;
	}
	return r;
}

/* The row's model: every round's coefficients, and with repeat = auto the
 * pilot's spread and degrees of freedom (Stein's rule: the number of
 * rounds was chosen from that spread, and an interval from the later
 * rounds' spread would cover less than it says). */
static int fit_row(const struct model *m, size_t row, struct block_fit *ret)
{
	_cleanup_free_ struct block_obs *obs = NULL;
	struct block_fit pilot = {};
	size_t n, blocks;
	int r;

	r = row_observations(m, row, 0, &obs, &n, &blocks);
	if (r >= 0)
		r = n ? block_fit(obs, n, m->ncols, blocks, ret) : -EDOM;
	if (r < 0 || !m->pilot || blocks <= m->pilot)
		return r;
	free(obs);
	obs = NULL;
	r = row_observations(m, row, m->pilot, &obs, &n, &blocks);
	if (r >= 0)
		r = block_fit(obs, n, m->ncols, blocks, &pilot);
	if (r >= 0) {
		ret->sigma2 = pilot.sigma2;
		ret->df = pilot.df;
	}
	block_fit_done(&pilot);
	if (r < 0)
		block_fit_done(ret);
	return r;
}

static int judge_row(struct model *m, size_t row)
{
	struct block_fit fit = {};
	bool fitted;
	int r;

	for (size_t k = 0; k < m->ncols; k++)
		judge_failures(m, model_cell(m, row, k));
	r = fit_row(m, row, &fit);
	if (r == -ENOMEM)
		return r;
	fitted = r >= 0;
	r = 0;
	for (size_t k = 0; r >= 0 && k < m->ncols; k++) {
		r = judge_pair(m, fitted ? &fit : NULL, row, k, false);
		if (r >= 0)
			r = judge_pair(m, fitted ? &fit : NULL, row, k, true);
	}
	block_fit_done(&fit);
	return r == -ENOMEM ? r : 0;
}

/* One table's ratios (against the baseline, or the first value) as a
 * family: Holm across those that have a p.  Returns its size. */
static size_t adjust_family(struct model *m, bool first)
{
	_cleanup_free_ struct stats_ratio **r = calloc(m->nrows * m->ncols + 1, sizeof(*r));
	size_t n = 0;

	if (!r)
		return 0;
	for (size_t i = 0; i < m->nrows * m->ncols; i++) {
		struct stats_ratio *v = first ? &m->cells[i].vs_first : &m->cells[i].vs_base;

		if (!isnan(v->p_raw))
			r[n++] = v;
	}
	stats_holm_ratios(r, n, m->level);
	return n;
}

int model_judge(struct model *m)
{
	int r;

	for (size_t row = 0; row < m->nrows; row++) {
		r = judge_row(m, row);
		if (r < 0)
			return r;
	}
	m->family_base = adjust_family(m, false);
	m->family_first = adjust_family(m, true);
	r = noise_judge(m);
	if (r < 0)
		return r;
	m->min_df = INFINITY;
	for (size_t i = 0; i < m->nrows * m->ncols; i++) {
		const struct stats_ratio *v = &m->cells[i].vs_base, *f = &m->cells[i].vs_first;

		if (!isnan(v->ratio) && v->verdict != STATS_SIGNIFICANT)
			m->any_ns = true;
		if (!isnan(v->df))
			m->min_df = MIN(m->min_df, v->df);
		if (!isnan(f->df))
			m->min_df = MIN(m->min_df, f->df);
		m->any_vs_first = m->any_vs_first || !isnan(f->ratio);
	}
	return 0;
}

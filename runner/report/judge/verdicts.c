/* The report's verdicts (report/model/model.h): one fit of the block model
 * (stats/block.h) over every thread count and every column whose starts
 * did not fail too often, each thread count's rounds blocks of its own,
 * each start (a unit of a round, every thread count's steps) its share
 * of the noise, each column its own noise where the starts give each its
 * own, and the place terms where the orders identify them.  Each column's
 * ratio to its baseline and to its context's first vary value is a
 * contrast of that fit where it gave each column its own noise; else of a
 * fit of the ratio's own two columns (their starts paired by round),
 * which holds whichever of them is noisier, where a pooled noise would
 * lend a quiet column's confidence to a noisy one.  Each table's ratios
 * are one family, Holm-adjusted.  Beside each, Welch's t on the two
 * columns alone and the rank-based interval, each family Holm-adjusted
 * alike, which the renderers show as agreeing or disagreeing with the
 * model's verdict. */
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

unsigned model_rounds(const struct model *m)
{
	unsigned most = 0;

	for (size_t i = 0; i < m->nrows * m->ncols; i++)
		for (size_t k = 0; k < m->cells[i].n; k++)
			most = MAX(most, m->cells[i].round[k]);
	return most;
}

size_t model_starts(const struct model *m)
{
	return (size_t)model_rounds(m) * 2 * m->ncols;
}

/* A start's number: its round's, and its place in the round (the steps
 * of one unit, every thread count's; a live unit's every vary value's),
 * or where no place was recorded its column's. */
static size_t start_of(const struct model *m, const struct cell *c, size_t i, size_t k)
{
	return (size_t)(c->round[i] - 1) * 2 * m->ncols + (c->slot[i] ? c->slot[i] - 1 : m->ncols + k);
}

/* The units of round r, as its steps' places say; 0: not recorded. */
static unsigned round_units(const struct model *m, unsigned round)
{
	return round >= 1 && round <= m->n_round_slots ? m->round_slots[round - 1] : 0;
}

void model_row_append(const struct model *m, size_t row, unsigned until, struct row_obs *o)
{
	for (size_t k = 0; k < m->ncols; k++) {
		const struct cell *c = model_cell(m, row, k);

		for (size_t i = 0; cell_takes_part(c) && (!o->take || o->take[k]) && i < c->n; i++) {
			unsigned units = round_units(m, c->round[i]);
			bool placed = o->order && c->slot[i] && units >= c->slot[i];

			if (until && c->round[i] > until)
				continue;
			o->obs[o->n++] = (struct block_obs){ .cell = o->cell0 + k, .block = o->block0 + c->round[i] - 1,
							     .y = log(c->tps[i]), .group = o->group0 + k, .pool = o->pool,
							     .start = o->start0 + start_of(m, c, i, k),
							     .order = placed ? o->order : 0, .slot = placed ? c->slot[i] : 0,
							     .slots = placed ? units : 0 };
			o->blocks = MAX(o->blocks, o->block0 + c->round[i]);
		}
	}
}

/* Every row's observations of the columns take takes (NULL: all) up to
 * round `until` (0: all), row r's columns cells r * ncols.., its rounds
 * blocks of its own, each column its own variance group at every thread
 * count, one set of place terms.  *ret (to free()) holds *ret_n of
 * them. */
static int table_observations(const struct model *m, unsigned until, const bool *take, struct block_obs **ret,
			      size_t *ret_n)
{
	size_t cap = 0;
	unsigned rounds = model_rounds(m);
	struct row_obs o = { .order = 1, .take = take };

	for (size_t row = 0; row < m->nrows; row++)
		cap += model_row_size(m, row);
	o.obs = calloc(cap + 1, sizeof(*o.obs));
	if (!o.obs)
		return -ENOMEM;
	for (size_t row = 0; row < m->nrows; row++) {
		o.cell0 = row * m->ncols;
		o.block0 = row * rounds;
		model_row_append(m, row, until, &o);
	}
	*ret = o.obs;
	*ret_n = o.n;
	return 0;
}

/* The model of the columns take takes (NULL: all): every round's
 * coefficients, and with repeat = auto the pilot's variances and degrees
 * of freedom (Stein's rule: the number of rounds was chosen from that
 * spread, and an interval from the later rounds' spread would cover less
 * than it says).  A pair of columns is one variance group: a paired
 * design's pooled spread is its contrast's, whichever is noisier. */
static int fit_columns(const struct model *m, const bool *take, struct block_fit *ret)
{
	_cleanup_free_ struct block_obs *obs = NULL;
	size_t n, cells = m->nrows * m->ncols, blocks = m->nrows * model_rounds(m);
	struct block_fit pilot = {};
	int r;

	r = table_observations(m, m->pilot, take, &obs, &n);
	for (size_t i = 0; take && r >= 0 && i < n; i++)
		obs[i].group = 0;
	if (r >= 0)
		r = n ? block_fit_nested(obs, n, cells, blocks, m->pilot ? &pilot : ret) : -EDOM;
	if (r < 0 || !m->pilot)
		return r;
	free(obs);
	obs = NULL;
	r = table_observations(m, 0, take, &obs, &n);
	for (size_t i = 0; take && r >= 0 && i < n; i++)
		obs[i].group = 0;
	/* A pilot without each column's own noise fixes the pooled one. */
	if (r >= 0)
		r = (pilot.noise != BLOCK_NOISE_GROUPS ? block_fit_pooled : block_fit_nested)(obs, n, cells, blocks, ret);
	if (r >= 0 && block_fit_take_variances(ret, &pilot) < 0) {
		block_fit_done(ret);
		r = -EDOM;
	}
	block_fit_done(&pilot);
	return r;
}

/* Column k in the row against column `against`: the model's ratio (from
 * fit, NULL when it could not be fitted), Welch's and the rank test, into
 * the cell's verdicts of that pair (first: against its context's first
 * vary value, else its baseline). */
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
	r = fit ? block_ratio(fit, row * m->ncols + k, row * m->ncols + (size_t)against, m->level, model) : 0;
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

/* Column k against its baseline (or its first vary value) at every
 * thread count, from fit, or where fit is NULL from a fit of the two
 * columns alone. */
static int judge_column(struct model *m, const struct block_fit *fit, size_t k, bool first)
{
	long against = first ? m->cols[k].first : m->cols[k].base;
	_cleanup_free_ bool *take = calloc(m->ncols + 1, sizeof(bool));
	struct block_fit own = {};
	bool fitted = fit != NULL;
	int r = 0;

	if (!take)
		return -ENOMEM;
	if (!fit && against >= 0) {
		take[k] = take[against] = true;
		r = fit_columns(m, take, &own);
		if (r == -ENOMEM)
			return r;
		fitted = r >= 0;
		m->places_in_ratios &= !fitted || own.places[0].model == BLOCK_PLACES_FITTED;
	}
	r = 0;
	for (size_t row = 0; r >= 0 && row < m->nrows; row++)
		r = judge_pair(m, fit ? fit : fitted ? &own : NULL, row, k, first);
	block_fit_done(&own);
	return r;
}

/* The table's noise and its place terms, for the renderers. */
static int judge_places(struct model *m, const struct block_fit *fit)
{
	int r = 0;

	m->noise = fit->noise;
	m->start_share = fit->start_share;
	m->places = fit->n_order_sets ? fit->places[0].model : BLOCK_PLACES_NONE;
	for (size_t x = 0; r >= 0 && x < _BLOCK_PLACE_MAX; x++)
		r = block_place(fit, 1, (enum block_place)x, m->level, &m->place[x]);
	/* The two places are one family: each said only where Holm shows it. */
	if (r >= 0) {
		struct stats_ratio *both[_BLOCK_PLACE_MAX] = { &m->place[BLOCK_FIRST], &m->place[BLOCK_LAST] };

		stats_holm_ratios(both, _BLOCK_PLACE_MAX, m->level);
	}
	return r;
}

/* The table's fit, and each ratio from it where it gives each column its
 * own noise, else from a fit of the ratio's own two columns. */
static int judge_rows(struct model *m)
{
	struct block_fit fit = {};
	bool fitted, own;
	int r;

	for (size_t x = 0; x < _BLOCK_PLACE_MAX; x++)
		m->place[x] = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .p_raw = NAN };
	m->start_share = NAN;
	for (size_t i = 0; i < m->nrows * m->ncols; i++)
		judge_failures(m, &m->cells[i]);
	r = fit_columns(m, NULL, &fit);
	if (r == -ENOMEM)
		return r;
	fitted = r >= 0;
	r = fitted ? judge_places(m, &fit) : 0;
	own = fitted && (fit.noise == BLOCK_NOISE_GROUPS || m->ncols <= 2);
	m->pair_fits = fitted && !own;
	m->places_in_ratios = fitted && m->places == BLOCK_PLACES_FITTED;
	for (size_t k = 0; r >= 0 && k < m->ncols; k++) {
		r = judge_column(m, own ? &fit : NULL, k, false);
		if (r >= 0)
			r = judge_column(m, own ? &fit : NULL, k, true);
	}
	block_fit_done(&fit);
	return r == -ENOMEM ? r : 0;
}

/* The ratios of a table (against the baseline, or the first value): the
 * model's verdicts, or Welch's cross-checks. */
static struct stats_ratio *table_ratio(struct cell *c, bool first, bool welch)
{
	return welch ? (first ? &c->welch_first : &c->welch_base) : first ? &c->vs_first : &c->vs_base;
}

/* One table's ratios as a family: Holm across those that have a p.
 * Returns its size. */
static size_t adjust_family(struct model *m, bool first, bool welch)
{
	_cleanup_free_ struct stats_ratio **r = calloc(m->nrows * m->ncols + 1, sizeof(*r));
	size_t n = 0;

	if (!r)
		return 0;
	for (size_t i = 0; i < m->nrows * m->ncols; i++) {
		struct stats_ratio *v = table_ratio(&m->cells[i], first, welch);

		if (!isnan(v->p_raw))
			r[n++] = v;
	}
	stats_holm_ratios(r, n, m->level);
	return n;
}

/* The rank-based cross-checks of a table, Holm-adjusted alike: each p
 * adjusted, and whether the adjusted test could reject at all (its
 * smallest p times the family's size below alpha). */
static void adjust_ranks(struct model *m, bool first)
{
	size_t n = m->nrows * m->ncols, family = 0;
	_cleanup_free_ double *p = calloc(3 * n + 1, sizeof(double));

	if (!p)
		return;
	for (size_t i = 0; i < n; i++) {
		p[i] = (first ? &m->cells[i].rank_first : &m->cells[i].rank_base)->p;
		family += !isnan(p[i]);
	}
	stats_holm(p, n, m->level, p + n, p + 2 * n);
	for (size_t i = 0; i < n; i++) {
		struct stats_rank *k = first ? &m->cells[i].rank_first : &m->cells[i].rank_base;

		if (isnan(p[i]))
			continue;
		k->p = p[n + i];
		k->reaches = k->p_min * (double)family < 1 - m->level;
	}
}

int model_judge_ratios(struct model *m)
{
	int r = judge_rows(m);

	if (r < 0)
		return r;
	m->family_base = adjust_family(m, false, false);
	m->family_first = adjust_family(m, true, false);
	return 0;
}

int model_judge(struct model *m)
{
	int r = model_judge_ratios(m);

	if (r < 0)
		return r;
	adjust_family(m, false, true);
	adjust_family(m, true, true);
	adjust_ranks(m, false);
	adjust_ranks(m, true);
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

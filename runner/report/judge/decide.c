/* The decisions of a run with looks (repeat = decide), made again from its
 * steps: at each look the run recorded, the model of the rounds up to it
 * (built and judged as a report of those rounds alone is), and each open
 * ratio's estimate, standard error and degrees of freedom there judged by
 * the group-sequential families of stats/sequential.h.  A ratio keeps the
 * decision of the look that made it; the rounds after it are its
 * context's, which ran on only while another of its ratios was open.  A
 * run without looks gets one, after its last round. */
#include <math.h>

#include "report/judge/judge.h"
#include "stats/sequential.h"
#include "common/util.h"

/* doc with the steps of rounds up to round only: a new reference, the
 * rest shared. */
static json_t *doc_until(const json_t *doc, unsigned round)
{
	json_t *d = json_copy((json_t *)doc), *steps = json_array(), *s;
	size_t i;

	if (!d || !steps || json_object_set_new(d, "steps", steps) < 0) {
		json_decref(d);
		return NULL;
	}
	json_array_foreach(json_object_get(doc, "steps"), i, s)
		if (json_integer_value(json_object_get(s, "repeat")) <= (json_int_t)round && json_array_append(steps, s) < 0) {
			json_decref(d);
			return NULL;
		}
	return d;
}

/* The family: every cell against a baseline whose column ran at all, in
 * the table's order; their indices into idx, their number returned. */
static size_t family_cells(const struct model *m, size_t *idx)
{
	size_t n = 0;

	for (size_t k = 0; k < m->ncols; k++) {
		bool ran = false;

		for (size_t row = 0; row < m->nrows; row++)
			ran |= model_cell(m, row, k)->n + model_cell(m, row, k)->n_failed > 0;
		for (size_t row = 0; ran && m->cols[k].base >= 0 && row < m->nrows; row++)
			idx[n++] = row * m->ncols + k;
	}
	/* in the table's order, row by row */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return n;
}

/* The cell of mj at cell i of m's table: the same thread count and column. */
static const struct cell *same_cell(const struct model *m, const struct model *mj, size_t i)
{
	size_t row = i / m->ncols, col = i % m->ncols;

	for (size_t r = 0; r < mj->nrows; r++)
		for (size_t k = 0; mj->threads[r] == m->threads[row] && k < mj->ncols; k++)
			if (streq(mj->cols[k].label, m->cols[col].label))
				return model_cell(mj, r, k);
	return NULL;
}

/* Each ratio of the family at a look of `round` rounds: the model of the
 * rounds up to it (a fixed design's one look: m itself, judged already),
 * each cell's estimate (NAN where it has none: too few starts, or too
 * many failed) and its spread between starts. */
static int look_estimates(struct model *m, const json_t *doc, unsigned round, const size_t *idx, size_t n,
			  struct seq_estimate *est, bool *takes_part)
{
	struct model mj = {};
	const struct model *at = m;
	json_t *d = NULL;
	int r = 0;

	if (!m->seq.fixed) {
		d = doc_until(doc, round);
		r = d ? model_build(d, m->level, &mj) : -ENOMEM;
		if (r >= 0)
			r = model_judge_ratios(&mj);
		at = &mj;
	}
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct cell *c = same_cell(m, at, idx[i]);
		const struct stats_ratio *v = c ? &c->vs_base : NULL;
		bool ok = v && !isnan(v->ratio) && v->se > 0 && v->df > 0 &&
			  (v->verdict == STATS_SIGNIFICANT || v->verdict == STATS_NOT_SIGNIFICANT);

		est[i] = ok ? (struct seq_estimate){ .d = log(v->ratio), .se = v->se, .df = v->df }
			    : (struct seq_estimate){ .d = NAN, .se = NAN, .df = NAN };
		takes_part[i] = c && !c->too_many_failed;
		if (ok && v->n_a && v->n_b)
			m->cells[idx[i]].spread = v->se / sqrt(1.0 / (double)v->n_a + 1.0 / (double)v->n_b);
	}
	model_done(&mj);
	json_decref(d);
	return r;
}

/* The contexts a look leaves open by f's decisions: a column while one of
 * its ratios is open (and its starts do not fail too often), the baseline
 * while any other is.  Whether that is what the run recorded (look->open;
 * NULL: nothing recorded, the look being made). */
static bool open_as_recorded(const struct model *m, const struct seq_family *f, const size_t *idx,
			     const bool *takes_part, const json_t *recorded, bool *open)
{
	bool any = false, same = true;
	const json_t *v;
	size_t k;

	memset(open, 0, m->ncols * sizeof(*open));
	for (size_t i = 0; i < f->n; i++)
		if (f->h[i].answer == SEQ_OPEN && takes_part[i])
			open[idx[i] % m->ncols] = any = true;
	for (size_t c = 0; any && c < m->ncols; c++)
		open[c] |= m->cols[c].is_baseline;
	if (!recorded)
		return true;
	for (size_t c = 0; c < m->ncols; c++) {
		bool was = false;

		json_array_foreach(recorded, k, v)
			was |= streq_ptr(json_string_value(v), m->cols[c].context);
		same &= was == open[c];
	}
	return same;
}

/* For each ratio still open, what a run at its spread would need. */
static void rounds_to_decide(struct model *m, const struct seq_family *f, const size_t *idx)
{
	double spreads[f->n + 1];
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++) {
		struct cell *c = &m->cells[idx[i]];
		struct seq_design d = { .sigma = c->spread, .margin = m->seq.margin, .level = m->level,
					.power = STATS_POWER, .family = f->n, .cells = m->ncols, .rows = m->nrows,
					.every = m->seq.fixed ? SEQ_EVERY_END : m->seq.look_every,
					.max = SEQ_ROUNDS_MAX };

		if (!isnan(c->spread))
			spreads[n++] = c->spread;
		c->decidable_margin = NAN;
		if (f->h[i].answer == SEQ_OPEN && c->spread > 0)
			c->rounds_to_decide = seq_plan_rounds(&d);
		/* a fixed design's at once; a sequential one's looks each
		 * round cost a second or two a ratio (left unsaid) */
		if (c->rounds_to_decide > SEQ_ROUNDS_MAX && m->seq.fixed)
			c->decidable_margin = seq_plan_margin(&d);
	}
	m->seq.spread_seen = n ? stats_median(spreads, n) : NAN;
}

/* The looks recorded in m, then extra (NULL: none), decided into f. */
static int decide_looks(struct model *m, const json_t *doc, const struct model_look *extra, struct seq_family *f,
			const size_t *idx, bool *ret_open)
{
	_cleanup_free_ struct seq_estimate *est = calloc(f->n + 1, sizeof(*est));
	_cleanup_free_ bool *takes_part = calloc(f->n + 1, sizeof(bool));
	int r = est && takes_part ? 0 : -ENOMEM;

	m->seq.as_run = true;
	for (size_t j = 0; r >= 0 && j < m->seq.n_looks + !!extra; j++) {
		const struct model_look *l = j < m->seq.n_looks ? &m->seq.looks[j] : extra;

		r = look_estimates(m, doc, l->round, idx, f->n, est, takes_part);
		if (r >= 0)
			r = seq_family_look(f, (double)l->round / MAX(m->seq.max_rounds, l->round), l->final, est);
		for (size_t i = 0; r >= 0 && i < f->n; i++)
			if (f->h[i].answer != SEQ_OPEN && !m->cells[idx[i]].decided_round)
				m->cells[idx[i]].decided_round = l->round;
		if (r >= 0 && !open_as_recorded(m, f, idx, takes_part, l == extra ? NULL : l->open, ret_open))
			m->seq.as_run = false;
	}
	return r;
}

/* A design without looks (repeat = N or auto), answered as one look after
 * its last round: all of alpha is spent there, so "different" is the
 * table's own Holm test and "the same" two one-sided tests beside it. */
static void look_at_the_end(struct model *m, const json_t *doc)
{
	json_int_t last = 0;
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(doc, "steps"), i, s)
		last = MAX(last, json_integer_value(json_object_get(s, "repeat")));
	if (last < 1 || last > SEQ_ROUNDS_MAX)
		return;
	m->seq.fixed = true;
	m->seq.max_rounds = (unsigned)last;
	m->seq.looks[0] = (struct model_look){ .round = (unsigned)last, .final = true };
	m->seq.n_looks = 1;
}

int model_decide(struct model *m, const json_t *doc, const struct model_look *extra, bool *ret_open)
{
	_cleanup_free_ size_t *idx = NULL;
	_cleanup_free_ bool *open = NULL;
	struct seq_family f = {};
	size_t n;
	int r;

	if (!m->seq.on && !extra)
		look_at_the_end(m, doc);
	if (!model_has_decisions(m) || (!m->seq.n_looks && !extra))
		return 0;
	idx = calloc(m->nrows * m->ncols + 1, sizeof(*idx));
	open = calloc(m->ncols + 1, sizeof(*open));
	if (!idx || !open)
		return -ENOMEM;
	for (size_t i = 0; i < m->nrows * m->ncols; i++)
		m->cells[i].spread = NAN;
	n = family_cells(m, idx);
	/* a fixed design with no ratio to a baseline (a [vary] of one
	 * context): no answers to lead with */
	if (!n && m->seq.fixed) {
		m->seq.fixed = false;
		return 0;
	}
	r = seq_family_init(&f, n, m->level, m->seq.margin);
	if (r >= 0)
		r = decide_looks(m, doc, extra, &f, idx, ret_open ? ret_open : open);
	for (size_t i = 0; r >= 0 && i < f.n; i++) {
		struct cell *c = &m->cells[idx[i]];

		c->decision = f.h[i];
		c->decided_here = true;
		m->seq.n_different += f.h[i].answer == SEQ_DIFFERENT;
		m->seq.n_same += f.h[i].answer == SEQ_SAME;
		m->seq.n_open += f.h[i].answer == SEQ_OPEN;
	}
	/* What the rest would need: for a report, not for a look. */
	if (r >= 0 && !extra)
		rounds_to_decide(m, &f, idx);
	seq_family_done(&f);
	return r;
}

/* The host x context interaction (report/model/comparison.h): one block
 * model over every thread count of every host, each host's rows, columns,
 * rounds and starts offset by its place, so that no two hosts share a
 * cell, a block or a start, each host's column its own variance group;
 * where the starts cannot give each its own, each interaction from a fit
 * of its four columns alone, each host its own noise. */
#include <math.h>
#include <stdio.h>

#include "report/judge/judge.h"
#include "stats/block.h"
#include "common/util.h"

/* The n hosts' design: host d's row r is part d * nrows + r, its cells
 * from (d * nrows + r) * ncols, its rounds blocks from (d * nrows + r) *
 * nblocks, its columns' variance groups d * ncols + k at every thread
 * count, its position term d + 1: the widest host's columns, the most
 * thread counts and the most rounds; level, of the intervals. */
struct layout {
	size_t n, ncols, nrows, nblocks;
	double level;
};

static size_t layout_cell(const struct layout *l, size_t d, size_t row, size_t k)
{
	return (d * l->nrows + row) * l->ncols + k;
}

static long find_row(const struct model *m, long long threads)
{
	for (size_t r = 0; r < m->nrows; r++)
		if (m->threads[r] == threads)
			return (long)r;
	return -1;
}

static long find_col(const struct model *m, const char *label)
{
	for (size_t k = 0; k < m->ncols; k++)
		if (streq(m->cols[k].label, label))
			return (long)k;
	return -1;
}

/* The observations of every thread count of every host, each host's
 * starts numbered apart; take[d] (NULL: every column) the columns of
 * host d a fit of its own takes, each host then one variance group. */
static int hosts_observations(const struct model *m, const struct layout *l, const bool *const *take,
			      struct block_obs **ret, size_t *ret_n)
{
	struct row_obs o = {};
	size_t cap = 0, start0 = 0;

	for (size_t d = 0; d < l->n; d++)
		for (size_t row = 0; row < m[d].nrows; row++)
			cap += model_row_size(&m[d], row);
	o.obs = calloc(cap + 1, sizeof(*o.obs));
	if (!o.obs)
		return -ENOMEM;
	for (size_t d = 0; d < l->n; start0 += model_starts(&m[d]), d++)
		for (size_t row = 0; row < m[d].nrows; row++) {
			size_t from = o.n;

			o.cell0 = layout_cell(l, d, row, 0);
			o.block0 = (d * l->nrows + row) * l->nblocks;
			o.group0 = d * l->ncols;
			o.pool = d;
			o.start0 = start0;
			o.order = (unsigned)d + 1;
			o.take = take ? take[d] : NULL;
			model_row_append(&m[d], row, 0, &o);
			for (size_t i = from; take && i < o.n; i++)
				o.obs[i].group = d;
		}
	*ret = o.obs;
	*ret_n = o.n;
	return 0;
}

/* One model of every thread count of every host, or (take) of the
 * columns each host's take[d] takes, each host its own noise. */
static int fit_hosts(const struct model *m, const struct layout *l, const bool *const *take, struct block_fit *ret)
{
	_cleanup_free_ struct block_obs *obs = NULL;
	size_t n = 0, cells = l->n * l->nrows * l->ncols, blocks = l->n * l->nrows * l->nblocks;
	int r = hosts_observations(m, l, take, &obs, &n);

	if (r < 0)
		return r;
	if (n == 0)
		return -EDOM;
	return take ? block_fit_groups(obs, n, cells, blocks, ret) : block_fit_nested(obs, n, cells, blocks, ret);
}

static void ratio_none(struct stats_ratio *r, double level)
{
	*r = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN, .verdict = STATS_TOO_FEW,
				   .se = NAN, .sigma = NAN, .family = 1, .p_raw = NAN, .level = level, .mde = NAN };
}

/* The ratio of host d's ratio over the first host's, w's contrast, from
 * fit where it gives each host's column its own noise, else from a fit of
 * the four columns alone, each host its own noise. */
static int judge_differ(const struct model *m, const struct layout *l, const struct block_fit *fit, size_t d,
			size_t k0, size_t b0, size_t k, size_t b, const double *w, struct stats_ratio *ret)
{
	bool *take[COMPARE_HOSTS_MAX] = {};
	struct block_fit own = {};
	int r = 0;

	if (fit->noise == BLOCK_NOISE_GROUPS)
		return block_ratio_of(fit, w, l->level, ret);
	for (size_t e = 0; e < l->n && r >= 0; e++)
		if (!(take[e] = calloc(l->ncols + 1, sizeof(bool))))
			r = -ENOMEM;
	if (r >= 0) {
		take[0][k0] = take[0][b0] = true;
		take[d][k] = take[d][b] = true;
		r = fit_hosts(m, l, (const bool *const *)take, &own);
	}
	if (r >= 0)
		r = block_ratio_of(&own, w, l->level, ret);
	block_fit_done(&own);
	for (size_t e = 0; e < l->n; e++)
		free(take[e]);
	return r == -EDOM ? 0 : r;
}

/* Column k0 of the first host's row row0 against its baseline, on every
 * host that has the same column, baseline and thread count, and each
 * against the first.  A host's own ratio is its report's, Holm-adjusted
 * in its own table: one interval per ratio, wherever it is printed. */
static int judge_column(const struct model *m, const struct layout *l, const struct block_fit *fit, size_t row0,
			size_t k0, struct host_row *hr)
{
	size_t cells = l->n * l->nrows * l->ncols, b0 = (size_t)m[0].cols[k0].base;
	_cleanup_free_ double *w = calloc(cells + 1, sizeof(double));
	int r = 0;

	if (!w)
		return -ENOMEM;
	for (size_t d = 0; d < l->n && r >= 0; d++) {
		long k = find_col(&m[d], hr->column), row = find_row(&m[d], hr->threads), b;

		ratio_none(&hr->ratio[d], l->level);
		ratio_none(&hr->differ[d], l->level);
		if (k < 0 || row < 0 || (b = m[d].cols[k].base) < 0 || !streq(m[d].cols[b].label, hr->baseline))
			continue;
		hr->ratio[d] = model_cell(&m[d], (size_t)row, (size_t)k)->vs_base;
		if (!fit || d == 0)
			continue;
		memset(w, 0, cells * sizeof(double));
		w[layout_cell(l, d, (size_t)row, (size_t)k)] += 1;
		w[layout_cell(l, d, (size_t)row, (size_t)b)] -= 1;
		w[layout_cell(l, 0, row0, k0)] -= 1;
		w[layout_cell(l, 0, row0, b0)] += 1;
		r = judge_differ(m, l, fit, d, k0, b0, (size_t)k, (size_t)b, w, &hr->differ[d]);
	}
	return r;
}

/* Whether any host but the first has threads and column. */
static bool overlaps(const struct model *m, size_t n, long long threads, const char *column)
{
	for (size_t d = 1; d < n; d++)
		if (find_row(&m[d], threads) >= 0 && find_col(&m[d], column) >= 0)
			return true;
	return false;
}

/* Every row of one thread count: each column's contrasts. */
static int judge_threads(const struct model *m, const struct layout *l, const struct block_fit *fit, size_t row0,
			 struct host_model *h)
{
	size_t n = l->n;
	int r = 0;

	for (size_t k = 0; k < m[0].ncols && r >= 0; k++) {
		struct host_row *hr = &h->rows[h->nrows];

		if (m[0].cols[k].base < 0 || !overlaps(m, n, m[0].threads[row0], m[0].cols[k].label))
			continue;
		*hr = (struct host_row){ .threads = m[0].threads[row0], .column = m[0].cols[k].label,
					 .baseline = m[0].cols[m[0].cols[k].base].label };
		hr->ratio = calloc(n, sizeof(*hr->ratio));
		hr->differ = calloc(n, sizeof(*hr->differ));
		if (!hr->ratio || !hr->differ) {
			free(hr->ratio);
			free(hr->differ);
			r = -ENOMEM;
			break;
		}
		h->nrows++;
		r = judge_column(m, l, fit, row0, k, hr);
	}
	return r;
}

static size_t adjust(struct host_model *h)
{
	_cleanup_free_ struct stats_ratio **v = calloc(h->nrows * h->n + 1, sizeof(*v));
	size_t m = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < h->nrows; i++)
		for (size_t d = 1; d < h->n; d++)
			if (!isnan(h->rows[i].differ[d].p_raw))
				v[m++] = &h->rows[i].differ[d];
	stats_holm_ratios(v, m, h->level);
	for (size_t i = 0; i < m; i++)
		h->any_significant |= v[i]->verdict == STATS_SIGNIFICANT;
	return m;
}

/* A sentence more among the things not compared. */
static int note(struct host_model *h, char *s)
{
	char **p;

	if (!s)
		return -ENOMEM;
	p = realloc(h->not_compared, (h->n_not_compared + 1) * sizeof(*p));
	if (!p) {
		free(s);
		return -ENOMEM;
	}
	h->not_compared = p;
	h->not_compared[h->n_not_compared++] = s;
	return 0;
}

/* "WHAT: only on a, c" when has[] is not every host. */
static int note_only(struct host_model *h, const char *what, const bool *has)
{
	char *s = NULL;
	size_t count = 0, len = 0;
	FILE *f;

	for (size_t d = 0; d < h->n; d++)
		count += has[d];
	if (count == h->n)
		return 0;
	f = open_memstream(&s, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "%s: only on", what);
	for (size_t d = 0, i = 0; d < h->n; d++)
		if (has[d])
			fprintf(f, "%s %s", i++ ? "," : "", h->labels[d]);
	if (fclose(f) != 0) {
		free(s);
		return -ENOMEM;
	}
	return note(h, s);
}

/* The hosts that have thread count threads (column NULL) or column. */
static void hosts_with(const struct model *m, size_t n, long long threads, const char *column, bool *has)
{
	for (size_t d = 0; d < n; d++)
		has[d] = column ? find_col(&m[d], column) >= 0 : find_row(&m[d], threads) >= 0;
}

/* Whether d is the first host that has it: each is said once. */
static bool first_with(const bool *has, size_t d)
{
	for (size_t e = 0; e < d; e++)
		if (has[e])
			return false;
	return has[d];
}

/* "repeats: 5 on a, 3 on b" when the hosts ran different numbers of
 * rounds: compared as they are, each host's rounds its own blocks. */
static int note_repeats(const struct model *m, struct host_model *h)
{
	char *s = NULL;
	size_t len = 0;
	bool same = true;
	FILE *f;

	for (size_t d = 1; d < h->n; d++)
		same &= model_rounds(&m[d]) == model_rounds(&m[0]);
	if (same)
		return 0;
	f = open_memstream(&s, &len);
	if (!f)
		return -ENOMEM;
	fputs("repeats:", f);
	for (size_t d = 0; d < h->n; d++)
		fprintf(f, "%s %u on %s", d ? "," : "", model_rounds(&m[d]), h->labels[d]);
	fputs(" (each host's rounds compared as they are)", f);
	if (fclose(f) != 0) {
		free(s);
		return -ENOMEM;
	}
	return note(h, s);
}

/* The thread counts and columns not on every host, then the repeats. */
static int notes_make(const struct model *m, struct host_model *h)
{
	bool has[COMPARE_HOSTS_MAX];
	char what[160];
	int r = 0;

	for (size_t d = 0; d < h->n && r >= 0; d++)
		for (size_t i = 0; i < m[d].nrows && r >= 0; i++) {
			hosts_with(m, h->n, m[d].threads[i], NULL, has);
			snprintf(what, sizeof(what), "%lld threads", m[d].threads[i]);
			r = first_with(has, d) ? note_only(h, what, has) : 0;
		}
	for (size_t d = 0; d < h->n && r >= 0; d++)
		for (size_t k = 0; k < m[d].ncols && r >= 0; k++) {
			hosts_with(m, h->n, 0, m[d].cols[k].label, has);
			(void)text_copy(what, sizeof(what), m[d].cols[k].label);
			r = first_with(has, d) ? note_only(h, what, has) : 0;
		}
	return r < 0 ? r : note_repeats(m, h);
}

int host_model_build(const struct model *m, const char *const *labels, size_t n, double level, struct host_model *ret)
{
	struct host_model h = { .n = n, .labels = labels, .level = level };
	struct layout l = { .n = n, .level = level };
	struct block_fit fit = {};
	bool fitted;
	int r = 0;

	*ret = h;
	if (n < 2 || n > COMPARE_HOSTS_MAX)
		return -EINVAL;
	for (size_t d = 0; d < n; d++) {
		l.ncols = MAX(l.ncols, m[d].ncols);
		l.nrows = MAX(l.nrows, m[d].nrows);
		l.nblocks = MAX(l.nblocks, (size_t)model_rounds(&m[d]));
	}
	h.rows = calloc(m[0].nrows * m[0].ncols + 1, sizeof(*h.rows));
	if (!h.rows)
		return -ENOMEM;
	r = fit_hosts(m, &l, NULL, &fit);
	if (r == -ENOMEM) {
		host_model_done(&h);
		return r;
	}
	fitted = r >= 0;
	h.noise = fitted ? fit.noise : BLOCK_NOISE_GROUPS;
	r = 0;
	for (size_t row = 0; row < m[0].nrows && r >= 0; row++)
		r = judge_threads(m, &l, fitted ? &fit : NULL, row, &h);
	block_fit_done(&fit);
	if (r >= 0)
		h.family = adjust(&h);
	if (r >= 0)
		r = notes_make(m, &h);
	if (r < 0) {
		host_model_done(&h);
		return r;
	}
	*ret = h;
	return 0;
}

int comparison_judge(struct comparison *c, double level)
{
	int r;

	for (size_t i = 0; i < c->n; i++) {
		r = model_judge(&c->m[i]);
		if (r < 0)
			return r;
	}
	return c->n > 1 ? host_model_build(c->m, c->labels, c->n, level, &c->inter) : 0;
}

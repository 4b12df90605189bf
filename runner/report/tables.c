/* The text and Markdown renderers: a table (report/table.c) per metric,
 * then the noisy and failed steps and the placement differences.  compare
 * builds its tables with the same pieces. */
#include <math.h>
#include <stdio.h>

#include "report/render.h"
#include "common/util.h"

static void add_tps(struct table *t, const struct cell *c)
{
	if (c->n == 0)
		table_add(t, "%s", c->n_failed ? "failed" : GAP);
	else if (c->n == 1)
		table_add(t, "%.1f n=1", c->median);
	else
		table_add(t, "%.1f (%.1f..%.1f) n=%zu", c->median, c->min, c->max, c->n);
}

/* A bound of an interval: two decimals, or two digits below 0.1x and three
 * beyond 10x, so that no bound prints as 0.00. */
void report_print_bound(char *buf, size_t len, double v)
{
	snprintf(buf, len, v < 0.1 ? "%.2g" : v >= 10 ? "%.3g" : "%.2f", v);
}

const char *report_format_p(double p, char *buf, size_t len)
{
	/* Three digits near the usual levels, so that 0.0497 does not read as 0.05. */
	snprintf(buf, len, p < 0.001 ? "p<0.001" : p < 0.1 ? "p=%.3g" : "p=%.2g", p);
	return buf;
}

const char *report_format_ratio(const struct stats_ratio *r, char *buf, size_t len)
{
	char lo[16], hi[16], p[16];

	switch (r->verdict) {
	case STATS_TOO_FEW:
		snprintf(buf, len, "%.2fx (one repeat: no interval)", r->ratio);
		break;
	case STATS_NO_SPREAD:
		snprintf(buf, len, "%.2fx (no spread: no interval)", r->ratio);
		break;
	case STATS_SIGNIFICANT:
	case STATS_NOT_SIGNIFICANT:
		report_print_bound(lo, sizeof(lo), r->lo);
		report_print_bound(hi, sizeof(hi), r->hi);
		snprintf(buf, len, "%.2fx (%s-%s) %s%s", r->ratio, lo, hi, report_format_p(r->p, p, sizeof(p)),
			 r->verdict == STATS_SIGNIFICANT ? "" : " n.s.");
		break;
	}
	return buf;
}

void add_ratio(struct table *t, const struct stats_ratio *r)
{
	char buf[REPORT_RATIO_MAX];

	if (isnan(r->ratio))
		table_add(t, GAP);
	else
		table_add(t, "%s", report_format_ratio(r, buf, sizeof(buf)));
}

static void add_number(struct table *t, double v, int decimals)
{
	if (isnan(v))
		table_add(t, GAP);
	else
		table_add(t, "%.*f", decimals, v);
}

const char *report_percent(double v, char *buf, size_t len)
{
	if (isnan(v))
		return GAP;
	snprintf(buf, len, "%.1f%%", 100 * v);
	return buf;
}

/* "within | across", and " !" when a step of the cell is noisy. */
static void add_noise(struct table *t, const struct cell *c)
{
	char w[16], a[16];

	if (c->n == 0)
		table_add(t, GAP);
	else
		table_add(t, "%s | %s%s", report_percent(c->within_cv, w, sizeof(w)), report_percent(c->across_cv, a, sizeof(a)),
			  c->n_noisy ? " !" : "");
}

/* "0.8..4.1 | 2.3, 5 | 0.0, 0": the load average's range over the
 * seconds, then the running and the uninterruptible tasks, mean and max. */
static void add_load(struct table *t, const struct cell *c)
{
	const double *v = c->tel;

	if (isnan(v[TEL_LOAD1_MIN]) || isnan(v[TEL_RUNNING_MEAN]))
		table_add(t, GAP);
	else
		table_add(t, "%.1f..%.1f | %.1f, %.0f | %.1f, %.0f", v[TEL_LOAD1_MIN], v[TEL_LOAD1_MAX],
			  v[TEL_RUNNING_MEAN], v[TEL_RUNNING_MAX], v[TEL_BLOCKED_MEAN], v[TEL_BLOCKED_MAX]);
}

/* "0.82 | 0.41 | proxy 0.30 | 0.95 (812.3 TPS)": the CPUs the server, the
 * client, the proxy and the neighbours used; the proxy's and the
 * neighbours' parts only where there were some, their servers' TPS only
 * when some were oltp neighbours. */
static void add_cpu(struct table *t, const struct cell *c)
{
	const double *v = c->tel;
	char text[128];
	int n;

	if (isnan(v[TEL_SERVER_CPU]) && isnan(v[TEL_CLIENT_CPU])) {
		table_add(t, GAP);
		return;
	}
	n = snprintf(text, sizeof(text), "%.2f | %.2f", v[TEL_SERVER_CPU], v[TEL_CLIENT_CPU]);
	if (!isnan(v[TEL_PROXY_CPU]))
		n += snprintf(text + n, sizeof(text) - (size_t)n, " | proxy %.2f", v[TEL_PROXY_CPU]);
	if (!isnan(v[TEL_NEIGHBOURS_CPU]))
		n += snprintf(text + n, sizeof(text) - (size_t)n, " | %.2f", v[TEL_NEIGHBOURS_CPU]);
	if (!isnan(v[TEL_NEIGHBOURS_TPS]))
		snprintf(text + n, sizeof(text) - (size_t)n, " (%.1f TPS)", v[TEL_NEIGHBOURS_TPS]);
	table_add(t, "%s", text);
}

/* Whole microseconds and percents; a count per transaction with two decimals. */
static int mechanism_digits(size_t row)
{
	size_t n;

	return *oltp_mechanism_table(&n)[row].unit ? 0 : 2;
}

/* One cell of metric what at thread row r of column k, and beside a TPS its
 * ratio when ratio: "baseline" (or a gap) for a column without one. */
static void add_cell(struct table *t, const struct model *m, enum metric what, size_t r, size_t k, bool ratio)
{
	const struct cell *c = model_cell(m, r, k);

	switch (what) {
	case METRIC_TPS:
		add_tps(t, c);
		if (ratio && m->cols[k].base < 0)
			table_add(t, "%s", m->cols[k].is_baseline ? "baseline" : GAP);
		else if (ratio && c->too_many_failed)
			table_add(t, "no ratio: %zu of %zu failed", c->n_failed, c->n + c->n_failed);
		else if (ratio)
			add_ratio(t, &c->vs_base);
		break;
	case METRIC_P95:
		add_number(t, c->p95_ms, 2);
		break;
	case METRIC_IDLE:
		add_number(t, c->tel[TEL_IDLE_PCT], 1);
		break;
	case METRIC_LOAD:
		add_load(t, c);
		break;
	case METRIC_THROTTLED:
		add_number(t, c->tel[TEL_THROTTLED], 0);
		break;
	case METRIC_CPU:
		add_cpu(t, c);
		break;
	case METRIC_NOISE:
		add_noise(t, c);
		break;
	case METRIC_NOISE_CI:
		add_noise_interval(t, c);
		break;
	default:
		add_number(t, c->mechanism[what - METRIC_MECHANISM], mechanism_digits(what - METRIC_MECHANISM));
		break;
	}
}

/* A row per thread count and a column per context (and its ratio). */
static void build_by_threads(const struct model *m, enum metric what, struct table *t)
{
	*t = (struct table){ .ncols = 1 };
	for (size_t k = 0; k < m->ncols; k++)
		t->ncols += 1 + (what == METRIC_TPS && m->cols[k].base >= 0);
	table_add(t, "threads");
	for (size_t k = 0; k < m->ncols; k++) {
		table_add(t, "%s", m->cols[k].label);
		if (what == METRIC_TPS && m->cols[k].base >= 0)
			table_add(t, "ratio");
	}
	for (size_t r = 0; r < m->nrows; r++) {
		table_add(t, "%lld", m->threads[r]);
		for (size_t k = 0; k < m->ncols; k++)
			add_cell(t, m, what, r, k, what == METRIC_TPS && m->cols[k].base >= 0);
	}
}

/* A row per context and a column per thread count (and its ratio): what
 * fits a terminal when the contexts are many. */
static void build_by_context(const struct model *m, enum metric what, struct table *t)
{
	bool ratio = false;

	for (size_t k = 0; k < m->ncols; k++)
		ratio |= what == METRIC_TPS && m->cols[k].base >= 0;
	*t = (struct table){ .ncols = 1 + m->nrows * (1 + ratio), .left = 1 };
	table_add(t, "context");
	for (size_t r = 0; r < m->nrows; r++) {
		table_add(t, "%lld thread%s", m->threads[r], m->threads[r] == 1 ? "" : "s");
		if (ratio)
			table_add(t, "ratio");
	}
	for (size_t k = 0; k < m->ncols; k++) {
		table_add(t, "%s", m->cols[k].label);
		for (size_t r = 0; r < m->nrows; r++)
			add_cell(t, m, what, r, k, ratio);
	}
}

int report_table(const struct model *m, enum metric what, size_t width, struct table *t)
{
	build_by_threads(m, what, t);
	if (!t->error && width && table_text_width(t) > width) {
		table_done(t);
		build_by_context(m, what, t);
	}
	if (t->error) {
		table_done(t);
		return t->error;
	}
	return 0;
}

const char *report_table_caption(const struct model *m, enum metric what, char *buf, size_t len)
{
	switch (what) {
	case METRIC_TPS:
		if (m->baseline)
			snprintf(buf, len,
				 "TPS, median of the repeats (min..max) n=repeats; ratio to %s with its %g%% interval and p", 
				 m->baseline, 100 * m->level);
		else
			snprintf(buf, len, "TPS, median of the repeats (min..max) n=repeats");
		break;
	case METRIC_NOISE:
		snprintf(buf, len, "noise: CV of the per-second TPS within a start (median of the repeats) | "
				   "CV of TPS across starts");
		break;
	case METRIC_NOISE_CI:
		noise_interval_caption(m, buf, len);
		break;
	case METRIC_P95:
		snprintf(buf, len, "p95 latency (ms), median of the repeats");
		break;
	case METRIC_IDLE:
		snprintf(buf, len, "cpu idle %%, mean per step, median of the repeats");
		break;
	case METRIC_LOAD:
		snprintf(buf, len, "load average min..max | running (R) tasks mean, max | uninterruptible (D) tasks "
				   "mean, max; over the step's seconds, median of the repeats");
		break;
	case METRIC_THROTTLED:
		snprintf(buf, len, "nr_throttled delta per step, median of the repeats");
		break;
	case METRIC_CPU:
		snprintf(buf, len, "who got the CPU: CPU seconds per second of the server | the client | the proxy, "
				   "where there is one | the neighbours (the oltp neighbours' own TPS), median of the repeats");
		break;
	default: {
		size_t n;
		const struct oltp_mechanism_def *d = &oltp_mechanism_table(&n)[what - METRIC_MECHANISM];

		snprintf(buf, len, "%s%s%s%s, median of the repeats", d->label, *d->unit ? " (" : "", d->unit,
			 *d->unit ? ")" : "");
		break;
	}
	}
	return buf;
}

static bool any_base_ratio(const struct model *m)
{
	for (size_t i = 0; i < m->nrows * m->ncols; i++)
		if (!isnan(cell_ratio(&m->cells[i])))
			return true;
	return false;
}

/* Under a table of ratios: how they were computed (against the
 * baseline's column, or the first value's), across how many, and, once,
 * what few repeats mean. */
static void print_method(const struct model *m, const char *over, size_t family, bool df_note, bool markdown,
			 FILE *out)
{
	fprintf(out, "%sratio: to %s, from one model of log TPS, column + round + the first unit of a round (each round "
		     "runs every column once, in a balanced order), by least squares; %s; %g%% intervals and p on "
		     "Satterthwaite's degrees of freedom, Holm-adjusted across the %zu ratio%s of this table, each "
		     "interval at its Holm step's level; n.s.: the interval contains 1\n",
		markdown ? "\n" : "", over,
		m->pooled ? "one sigma between starts per thread count (too few starts to give each column its own, so "
			    "a noisier column's intervals are too narrow)"
			  : "each column its own sigma between starts, the same at every thread count",
		100 * m->level, family, family == 1 ? "" : "s");
	if (m->pilot)
		fprintf(out, "%srepeat = auto: the sigmas and degrees of freedom are the pilot's %u rounds', whose "
			     "spread chose the number of rounds (Stein's two-stage rule)\n",
			markdown ? "\n" : "", m->pilot);
	if (df_note && m->min_df < 3)
		fprintf(out, "%sfew repeats: an interval here rests on %.0f degree%s of freedom, where t is %.1f against "
			     "%.1f on 8; with 2 repeats a column no %g%% verdict is possible short of a very large gap\n",
			markdown ? "\n" : "", m->min_df, m->min_df == 1 ? "" : "s", stats_t_critical(m->level, m->min_df),
			stats_t_critical(m->level, 8), 100 * m->level);
}

/* The position term, where its interval excludes 1: what the first unit
 * of a round lost (or gained), which the model took out of every ratio. */
static void print_position(const struct model *m, bool markdown, FILE *out)
{
	if (isnan(m->position.ratio) || m->position.verdict != STATS_SIGNIFICANT)
		return;
	fprintf(out, "%sthe first unit of a round ran %.2fx (%.2f-%.2f) of the rest (a cold start: page cache, the first "
		     "start after prepare); the model takes it out of every ratio\n",
		markdown ? "\n" : "", m->position.ratio, m->position.lo, m->position.hi);
}

/* "1.24x (1.02-1.50) p=0.03" of a cross-check. */
static const char *crosscheck_text(double ratio, double lo, double hi, double p, char *buf, size_t len)
{
	snprintf(buf, len, "%.2fx (%.2f-%.2f) p=%.2g", ratio, lo, hi, p);
	return buf;
}

/* What a verdict's cross-checks say where they disagree with it, each
 * Holm-adjusted across its table as the verdicts are: Welch's t on the two
 * columns alone, and the rank-based test where it can reject at all with
 * these repeats.  Said as agreeing or not with the verdict, which alone
 * says whether a difference was shown. */
static void print_disagreements(const struct stats_ratio *v, const struct stats_ratio *welch,
				const struct stats_rank *rank, double level, FILE *out)
{
	bool sig = v->verdict == STATS_SIGNIFICANT;
	char buf[96];

	if (!isnan(welch->p) && (welch->verdict == STATS_SIGNIFICANT) != sig)
		fprintf(out, "; Welch's t on the two alone, Holm-adjusted alike, %s: %s",
			sig ? "does not bear it out" : "would have called a difference",
			crosscheck_text(welch->ratio, welch->lo, welch->hi, welch->p, buf, sizeof(buf)));
	if (rank->reaches && !isnan(rank->p) && (rank->p < 1 - level) != sig)
		fprintf(out, "; the rank-based test (Hodges-Lehmann, Mann-Whitney), Holm-adjusted alike, %s: %s",
			sig ? "does not bear it out" : "would have called a difference",
			crosscheck_text(rank->ratio, rank->lo, rank->hi, rank->p, buf, sizeof(buf)));
}

/* "service vs shell at 1 thread" */
static void print_pair(const struct model *m, size_t row, size_t k, long against, bool markdown, FILE *out)
{
	fprintf(out, "%s%s vs %s at %lld thread%s", markdown ? "- " : "  ", m->cols[k].label,
		m->cols[against].label, m->threads[row], m->threads[row] == 1 ? "" : "s");
}

/* One line per verdict with something to say: what a "not significant"
 * could have seen, a cross-check that disagrees, a column that failed too
 * often for a ratio. */
static void print_verdict_notes(const struct model *m, bool first, bool markdown, FILE *out)
{
	bool said = false;

	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++) {
			const struct cell *c = model_cell(m, row, k);
			const struct stats_ratio *v = first ? &c->vs_first : &c->vs_base;
			long against = first ? m->cols[k].first : m->cols[k].base;
			bool ns = !isnan(v->ratio) && v->verdict != STATS_SIGNIFICANT, welch_off, rank_off;

			if (against < 0)
				continue;
			welch_off = !isnan((first ? &c->welch_first : &c->welch_base)->p) &&
				    ((first ? &c->welch_first : &c->welch_base)->verdict == STATS_SIGNIFICANT) != !ns;
			rank_off = (first ? &c->rank_first : &c->rank_base)->reaches &&
				   ((first ? &c->rank_first : &c->rank_base)->p < 1 - m->level) != !ns;
			if (isnan(v->ratio) || !(ns || welch_off || rank_off))
				continue;
			if (!said)
				fprintf(out, "%s%s:\n%s", markdown ? "\n" : "", first ? "against the first value" : "verdicts",
					markdown ? "\n" : "");
			said = true;
			print_pair(m, row, k, against, markdown, out);
			if (ns && !isnan(v->mde))
				fprintf(out, ": n.s.; at sigma %.1f%% with %zu and %zu repeats, a gap under %.2fx cannot be told "
					     "from noise (%.0f%% power%s)",
					100 * v->sigma, v->n_a, v->n_b, v->mde, 100 * STATS_POWER,
					v->family > 1 ? ", the level of its Holm step" : "");
			else
				fprintf(out, ": %s", ns ? "n.s., and no interval" : "significant");
			print_disagreements(v, first ? &c->welch_first : &c->welch_base, first ? &c->rank_first : &c->rank_base,
					    m->level, out);
			fputs("\n", out);
		}
}

/* The cells that failed: each with failures, its count and rate with its
 * interval, and whether it got a ratio; and the stalls inside steps. */
static void print_failure_counts(const struct model *m, bool markdown, FILE *out)
{
	bool said = false;

	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++) {
			const struct cell *c = model_cell(m, row, k);
			size_t starts = c->n + c->n_failed;

			if (c->n_failed == 0 && c->n_stalled == 0)
				continue;
			if (!said)
				fprintf(out, "%sfailures:\n%s", markdown ? "\n" : "", markdown ? "\n" : "");
			said = true;
			fprintf(out, "%s%s at %lld thread%s: ", markdown ? "- " : "  ", m->cols[k].label, m->threads[row],
				m->threads[row] == 1 ? "" : "s");
			if (c->n_failed)
				fprintf(out, "%zu of %zu starts failed (%.0f%%, %.0f-%.0f%%", c->n_failed, starts,
					100.0 * (double)c->n_failed / (double)starts, 100 * c->fail_lo, 100 * c->fail_hi);
			if (c->n_zero)
				fprintf(out, "; %zu of them completed no transaction", c->n_zero);
			if (c->n_failed)
				fprintf(out, ")%s", c->too_many_failed ? ": more than a fifth, so no ratio" : "");
			if (c->n_stalled)
				fprintf(out, "%s%zu step%s with seconds at 0 TPS (%lld s in all)", c->n_failed ? "; " : "",
					c->n_stalled, c->n_stalled == 1 ? "" : "s", c->stalled_s);
			fputs("\n", out);
		}
}

/* The columns of the table against the first vary value: each context's
 * other values, context by context; *ret (to free()) holds *ret_n. */
static int vary_columns(const struct model *m, size_t **ret, size_t *ret_n)
{
	size_t *cols = calloc(m->ncols + 1, sizeof(*cols)), n = 0;

	if (!cols)
		return -ENOMEM;
	for (size_t f = 0; f < m->ncols; f++)
		for (size_t k = 0; k < m->ncols; k++)
			if (m->cols[k].first == (long)f)
				cols[n++] = k;
	*ret = cols;
	*ret_n = n;
	return 0;
}

/* With a [vary]: per context and thread count, each value's TPS against
 * the context's first value, with its interval and p. */
/* The ratios to the first value: a row per thread count and a column
 * per context and value, or, by_context, a row per context and value. */
static void vary_table(const struct model *m, const size_t *cols, size_t n, bool by_context, struct table *t)
{
	*t = (struct table){ .ncols = 1 + (by_context ? m->nrows : n), .left = by_context };
	table_add(t, by_context ? "context" : "threads");
	for (size_t i = 0; i < (by_context ? m->nrows : n); i++)
		if (by_context)
			table_add(t, "%lld thread%s", m->threads[i], m->threads[i] == 1 ? "" : "s");
		else
			table_add(t, "%s", m->cols[cols[i]].label);
	for (size_t a = 0; a < (by_context ? n : m->nrows); a++) {
		if (by_context)
			table_add(t, "%s", m->cols[cols[a]].label);
		else
			table_add(t, "%lld", m->threads[a]);
		for (size_t b = 0; b < (by_context ? m->nrows : n); b++)
			add_ratio(t, &model_cell(m, by_context ? b : a, cols[by_context ? a : b])->vs_first);
	}
}

static int print_vary_ratios(const struct model *m, bool markdown, FILE *out)
{
	_cleanup_free_ size_t *cols = NULL;
	struct table t;
	size_t n;
	int r = vary_columns(m, &cols, &n);

	if (r < 0)
		return r;
	vary_table(m, cols, n, false, &t);
	if (!t.error && !markdown && table_text_width(&t) > TEXT_WIDTH_MAX) {
		table_done(&t);
		vary_table(m, cols, n, true, &t);
	}
	if (t.error) {
		table_done(&t);
		return t.error;
	}
	fprintf(out, "TPS against the first %s%svalue (%s), per context: ratio with its %g%% interval and p\n%s",
		strempty(m->vary_property), m->vary_property ? " " : "", m->vary[0], 100 * m->level, markdown ? "\n" : "");
	markdown ? table_print_markdown(&t, out) : table_print_text(&t, out);
	table_done(&t);
	print_method(m, "the context's first value", m->family_first, !any_base_ratio(m), markdown, out);
	print_verdict_notes(m, true, markdown, out);
	fputc('\n', out);
	return 0;
}

/* The metrics whose tables the options ask for, TPS first; their count. */
size_t report_metric_list(const struct report_options *o, enum metric list[static REPORT_METRICS_MAX])
{
	size_t n = 0;

	list[n++] = METRIC_TPS;
	if (o->latency)
		list[n++] = METRIC_P95;
	if (o->telemetry) {
		list[n++] = METRIC_IDLE;
		list[n++] = METRIC_LOAD;
		list[n++] = METRIC_THROTTLED;
		list[n++] = METRIC_CPU;
		/* The evidence of mechanism: what the scheduler did per transaction. */
		size_t rows;

		oltp_mechanism_table(&rows);
		for (size_t k = 0; k < rows; k++)
			list[n++] = METRIC_MECHANISM + k;
	}
	return n;
}

static void print_failed_steps(const struct model *m, bool markdown, FILE *out)
{
	char buf[64];
	json_t *v;
	size_t i;

	if (json_array_size(m->failures) == 0)
		return;
	fprintf(out, "failed steps:\n%s", markdown ? "\n" : "");
	json_array_foreach(m->failures, i, v) {
		char vb[64];
		const char *vary = scalar_str(json_object_get(v, "vary_value"), vb, sizeof(vb));

		fprintf(out, "%s%s%s%s threads=%s repeat=%s: %s\n", markdown ? "- " : "  ",
			strempty(json_string_value(json_object_get(v, "context"))), vary ? " " : "", strempty(vary),
			strempty(scalar_str(json_object_get(v, "threads"), buf, 32)),
			strempty(scalar_str(json_object_get(v, "repeat"), buf + 32, 32)),
			json_string_value(json_object_get(v, "reason")) ?: "(no reason recorded)");
	}
	fputc('\n', out);
}

static void print_placement_diffs(const struct model *m, bool markdown, FILE *out)
{
	const char *ctx, *key;
	json_t *d, *v;

	if (json_object_size(m->diffs) == 0)
		return;
	fprintf(out, "placement differences, %s | context (vary index 0, repeat 1):\n%s", m->baseline,
		markdown ? "\n" : "");
	json_object_foreach(m->diffs, ctx, d) {
		fprintf(out, "%s%s:%s\n", markdown ? "- " : "  ", ctx, json_object_size(d) ? "" : " no difference");
		json_object_foreach(d, key, v)
			fprintf(out, "%s%s: %s | %s\n", markdown ? "  - " : "    ", key,
				json_string_value(json_array_get(v, 0)) ?: GAP,
				json_string_value(json_array_get(v, 1)) ?: GAP);
	}
}

/* A report's parts in their order: the tables, the noisy steps, the failed
 * ones, the placement differences. */
int render_tables(const struct model *m, const struct report_options *o, bool markdown, FILE *out)
{
	enum metric list[REPORT_METRICS_MAX];
	size_t n = report_metric_list(o, list), i;
	char buf[160];
	int r;

	if (markdown)
		fprintf(out, "### %s\n\n", m->name);
	for (i = 0; i < n; i++) {
		struct table t;

		r = report_table(m, list[i], markdown ? 0 : TEXT_WIDTH_MAX, &t);
		if (r < 0)
			return r;
		if (markdown) {
			fprintf(out, "%s\n\n", report_table_caption(m, list[i], buf, sizeof(buf)));
			table_print_markdown(&t, out);
		} else {
			if (i == 0)
				fprintf(out, "%s: ", m->name);
			fprintf(out, "%s\n", report_table_caption(m, list[i], buf, sizeof(buf)));
			table_print_text(&t, out);
		}
		table_done(&t);
		if (i == 0 && any_base_ratio(m)) {
			print_method(m, m->baseline, m->family_base, true, markdown, out);
			print_position(m, markdown, out);
			print_verdict_notes(m, false, markdown, out);
		}
		if (i == 0)
			print_failure_counts(m, markdown, out);
		fputc('\n', out);
		if (i == 0 && m->any_vs_first && (r = print_vary_ratios(m, markdown, out)) < 0)
			return r;
	}
	r = print_noise(m, markdown, out);
	if (r < 0)
		return r;
	print_saturated(m, NULL, markdown, out);
	print_failed_steps(m, markdown, out);
	print_placement_diffs(m, markdown, out);
	return 0;
}

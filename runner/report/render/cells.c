/* The cells that the text, Markdown and HTML renderers share: a table of
 * strings (render/table.c) per metric with their captions, the ratios,
 * p-values, bounds and percentages as the tables print them, and the noise
 * cells and sentences.  compare builds its tables with the same pieces. */
#include <math.h>
#include <stdio.h>

#include "report/render/render.h"
#include "report/render/cells.h"
#include "common/util.h"

/* A repeat's figure: TPS to a tenth; a latency in ms, often below one,
 * to three figures (whole ms from 100 up); a late share in percent. */
static const char *repeat_text(const struct model *m, double v, char *buf, size_t len)
{
	if (m->measure == MODEL_LATE_SHARE)
		snprintf(buf, len, "%.1f%%", 100 * v);
	else if (m->measure == MODEL_TPS || v >= 100)
		snprintf(buf, len, "%.*f", m->measure == MODEL_TPS ? 1 : 0, v);
	else
		snprintf(buf, len, "%.*f", v >= 10 ? 1 : v >= 1 ? 2 : 3, v);
	return buf;
}

static void add_repeats(struct table *t, const struct model *m, const struct cell *c)
{
	char med[32], lo[32], hi[32];

	if (c->n == 0)
		table_add(t, "%s", c->n_failed ? "failed" : GAP);
	else if (c->n == 1)
		table_add(t, "%s n=1", repeat_text(m, c->median, med, sizeof(med)));
	else
		table_add(t, "%s (%s..%s) n=%zu", repeat_text(m, c->median, med, sizeof(med)),
			  repeat_text(m, c->min, lo, sizeof(lo)), repeat_text(m, c->max, hi, sizeof(hi)), c->n);
}

/* A bound of an interval: two decimals, or two digits below 0.1x and three
 * beyond 10x, so that no bound prints as 0.00. */
void report_print_bound(char *buf, size_t len, double v)
{
	/* An end beyond a thousandfold says only that the starts cannot
	 * bound it (a degree of freedom at a Holm step's level): said so,
	 * not as 4e-11 or 1.85e+10; JSON keeps the number. */
	if (v < REPORT_BOUND_MIN)
		snprintf(buf, len, "<%g", REPORT_BOUND_MIN);
	else if (v > 1 / REPORT_BOUND_MIN)
		snprintf(buf, len, ">%g", 1 / REPORT_BOUND_MIN);
	else
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

/* A ratio of repeat = decide: its decision. */
static void add_decision(struct table *t, const struct cell *c)
{
	char buf[96];

	table_add(t, "%s", report_decision_cell(c, buf, sizeof(buf)));
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

/* A figure of mechanism: its median across the starts, and their interval
 * with its coverage where that is below the level (3 starts: 75%). */
static void add_mechanism(struct table *t, const struct cell *c, size_t row, double level)
{
	int d = mechanism_digits(row);

	if (isnan(c->mechanism[row]) || !(c->mechanism_cover[row] > 0))
		add_number(t, c->mechanism[row], d);
	else if (c->mechanism_cover[row] < level)
		table_add(t, "%.*f (%.*f-%.*f, %.0f%%)", d, c->mechanism[row], d, c->mechanism_lo[row], d,
			  c->mechanism_hi[row], 100 * c->mechanism_cover[row]);
	else
		table_add(t, "%.*f (%.*f-%.*f)", d, c->mechanism[row], d, c->mechanism_lo[row], d, c->mechanism_hi[row]);
}

/* One cell of metric what at thread row r of column k, and beside a TPS its
 * ratio when ratio: "baseline" (or a gap) for a column without one. */
static void add_cell(struct table *t, const struct model *m, enum metric what, size_t r, size_t k, bool ratio)
{
	const struct cell *c = model_cell(m, r, k);

	switch (what) {
	case METRIC_TPS:
		add_repeats(t, m, c);
		if (ratio && m->cols[k].base < 0)
			table_add(t, "%s", m->cols[k].is_baseline ? "baseline" : GAP);
		else if (ratio && c->too_many_failed)
			table_add(t, "no ratio: %zu of %zu failed", c->n_failed, c->n + c->n_failed);
		else if (ratio && c->decided_here && m->seq.on)
			add_decision(t, c);
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
	case METRIC_REPEATS:
		add_repeats(t, m, c);
		break;
	default:
		add_mechanism(t, c, what - METRIC_MECHANISM, m->level);
		break;
	}
}

/* A row per thread count and a column per context (and its ratio). */
static void build_by_threads(const struct model *m, enum metric what, struct table *t)
{
	*t = (struct table){ .ncols = 1 };
	for (size_t k = 0; k < m->ncols; k++)
		t->ncols += 1 + (what == METRIC_TPS && m->cols[k].base >= 0);
	table_add(t, "%s", model_unit(m, 2));
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
	*t = (struct table){ .ncols = 1 + m->nrows * (1 + ratio), .left = 1, .span = 1 + ratio };
	table_add(t, "context");
	for (size_t r = 0; r < m->nrows; r++) {
		table_add(t, "%lld %s", m->threads[r], model_unit(m, m->threads[r]));
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
		/* Turned, a row per context and one per its ratio under a
		 * column per thread count, when that fits and a row per
		 * context does not. */
		bool turn = table_turned_width(t) <= width;

		table_done(t);
		build_by_context(m, what, t);
		if (!t->error && table_text_width(t) > width && turn) {
			table_done(t);
			build_by_threads(m, what, t);
		}
	}
	if (t->error) {
		table_done(t);
		return t->error;
	}
	return 0;
}

/* The caption of the table of m's measure with its ratios: TPS, or an
 * open loop's latency percentile. */
static void repeats_caption(const struct model *m, char *buf, size_t len)
{
	if (m->measure != MODEL_TPS)
		snprintf(buf, len,
			 "%s latency (ms) %s, median of the repeats (min..max) n=repeats; ratio to %s (above 1x: "
			 "slower) with its interval (at its Holm step's level, %g%% for this table) and p, from the "
			 "TPS table's model on log %s",
			 model_latency_keys[m->measure - MODEL_LATENCY_P50],
			 m->open_loop.from_start ? "from each transaction's actual start (sysbench --rate's)"
						 : "from each transaction's intended start",
			 m->baseline ? m->baseline : "the baseline", 100 * m->level,
			 model_latency_keys[m->measure - MODEL_LATENCY_P50]);
	else if (m->baseline)
		snprintf(buf, len,
			 "TPS, median of the repeats (min..max) n=repeats; ratio to %s with its interval (at its Holm "
			 "step's level, %g%% for the table) and p",
			 m->baseline, 100 * m->level);
	else
		snprintf(buf, len, "TPS, median of the repeats (min..max) n=repeats");
}

const char *report_table_caption(const struct model *m, enum metric what, char *buf, size_t len)
{
	switch (what) {
	case METRIC_TPS:
		repeats_caption(m, buf, len);
		break;
	case METRIC_NOISE:
		snprintf(buf, len, "noise: CV of the per-second TPS within a start (median of the repeats) | "
				   "CV of TPS across starts");
		break;
	case METRIC_NOISE_CI:
		noise_interval_caption(m, buf, len);
		break;
	case METRIC_REPEATS:
		snprintf(buf, len, "late: the share of the arrivals above the latency limit of %g ms (those skipped, already "
				   "late at their turn, with them), median of the repeats (min..max) n=repeats; no ratio (a "
				   "share that is often 0 has no log)", m->open_loop.latency_limit_ms);
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

		snprintf(buf, len,
			 "%s%s%s%s, median of the repeats (their range: its interval, with its coverage where "
			 "below %.0f%%)",
			 d->label, *d->unit ? " (" : "", d->unit, *d->unit ? ")" : "", 100 * m->level);
		break;
	}
	}
	return buf;
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

/* "1.2% (0.8-2.1%)", "1.2%" without an interval, a gap without a value. */
static const char *percent_interval(const struct stats_interval *v, char *buf, size_t len)
{
	char e[16];

	if (isnan(v->est))
		return GAP;
	if (isnan(v->lo))
		return report_percent(v->est, buf, len);
	snprintf(buf, len, "%s (%.1f-%.1f%%)", report_percent(v->est, e, sizeof(e)), 100 * v->lo, 100 * v->hi);
	return buf;
}

void add_noise_interval(struct table *t, const struct cell *c)
{
	char a[48], w[48], failed[32] = "", nw[32] = "";

	if (c->n + c->n_failed == 0) {
		table_add(t, GAP);
		return;
	}
	if (c->n_failed)
		snprintf(failed, sizeof(failed), ", %zu failed", c->n_failed);
	/* The within-step figure's own count only where a step had too few
	 * seconds for a CV. */
	if (c->cv_within.n != c->n && c->cv_within.n > 0)
		snprintf(nw, sizeof(nw), " n=%zu", c->cv_within.n);
	table_add(t, "%s n=%zu%s | %s%s", percent_interval(&c->cv_starts, a, sizeof(a)), c->n, failed,
		  percent_interval(&c->cv_within, w, sizeof(w)), nw);
}

void noise_interval_caption(const struct model *m, char *buf, size_t len)
{
	snprintf(buf, len,
		 "noise with %g%% intervals: CV across starts, the SD of log TPS over the n starts that did not fail "
		 "(chi-square interval, which assumes log TPS normal) | CV within a step, the per-second TPS's CV of "
		 "each start (seconds at 0 TPS kept), mean over the starts (t interval across the starts)",
		 100 * m->level);
}

/* The place terms the model ran with, or why none, for the method line. */
static const char *places_text(const struct model *m)
{
	switch (m->places) {
	case BLOCK_PLACES_FITTED:
		return " + the first and the last place of a round (the rounds' balanced orders tell them from the "
		       "columns)";
	case BLOCK_PLACES_CONFOUNDED:
		return m->order_fixed ? " (the rounds ran in one fixed order, so a unit's place cannot be told from its "
					"column: no place term, and what drifts over a round is its later columns')"
				      : " (no place term: these rounds' orders cannot tell a place from a column)";
	case BLOCK_PLACES_TOO_FEW:
		return m->order_fixed ? " (the rounds ran in one fixed order, so a unit's place cannot be told from its "
					"column: no place term, and what drifts over a round is its later columns')"
				      : " (no place term: too few starts to test one against)";
	case BLOCK_PLACES_NONE:
	default:
		return m->order_fixed ? " (the rounds ran in one fixed order: no place term, and what drifts over a "
					"round is its later columns')"
				      : "";
	}
}

/* Which noise the intervals rest on. */
static const char *noise_text(const struct model *m)
{
	if (m->pair_fits)
		return "each ratio from a fit of its own two columns, their starts paired by round, since the starts are "
		       "too few to give every column its own noise (a noisier column widens only its own intervals)";
	if (m->noise != BLOCK_NOISE_GROUPS)
		return "one noise for the table (a noisier column's intervals are too narrow)";
	return "each column its own noise";
}

const char *ratio_method_text(const struct model *m, const char *over, size_t family, char *buf, size_t len)
{
	if (family == 0)
		snprintf(buf, len, "to %s, of one start each: with one repeat there is no spread between starts to "
				   "measure, so no interval and no verdict", over);
	else
		snprintf(buf, len,
			 "to %s, from one model of log TPS, column + round%s, each start's noise shared by its steps (one "
			 "start runs every thread count), by least squares; %s; %g%% intervals and p on Satterthwaite's "
			 "degrees of freedom, which count starts, Holm-adjusted across the %zu ratio%s of this table, "
			 "each interval at its Holm step's level; n.s.: the interval contains 1",
			 over, places_text(m), noise_text(m), 100 * m->level, family, family == 1 ? "" : "s");
	return buf;
}

void noise_verdicts_heading(const struct model *m, char *buf, size_t len)
{
	if (m->family_noise == 0) {
		snprintf(buf, len, "noise against %s: no comparison has the 3 starts a side Brown-Forsythe's test takes",
			 strempty(m->baseline));
		return;
	}
	snprintf(buf, len,
		 "noise against %s: Brown-Forsythe's test on log TPS (the absolute deviations from each column's "
		 "median, compared by t), which holds without normality; the ratio is of those mean deviations (of "
		 "the CVs, when two columns differ in scale only) with Fieller's %g%% interval from the same test; p "
		 "Holm-adjusted across the %zu comparison%s of the table; what an n.s. could have detected at %.0f%% "
		 "power",
		 strempty(m->baseline), 100 * m->level, m->family_noise, m->family_noise == 1 ? "" : "s",
		 100 * STATS_POWER);
}

/* "0.31x (0.15-0.62)", or "0.31x (0.05-unbounded)". */
static const char *spread_ratio_text(const struct stats_spread_ratio *v, char *buf, size_t len)
{
	char lo[16], hi[16] = "unbounded";

	report_print_bound(lo, sizeof(lo), v->lo);
	if (v->bounded)
		report_print_bound(hi, sizeof(hi), v->hi);
	snprintf(buf, len, "%.2fx (%s-%s)", v->ratio, lo, hi);
	return buf;
}

/* Why a pair has no noise verdict. */
static const char *no_noise_verdict(const struct cell *c, const struct cell *b, char *buf, size_t len)
{
	if (!cell_takes_part(c) || !cell_takes_part(b))
		snprintf(buf, len, "no noise verdict: a column without starts, or one that failed more than a fifth");
	else if (c->noise_base.verdict == STATS_NO_SPREAD)
		snprintf(buf, len, "no noise verdict: neither column's TPS varies");
	else
		snprintf(buf, len, "no noise verdict: %zu and %zu starts, where Brown-Forsythe takes at least %d a side",
			 c->n, b->n, STATS_SPREAD_MIN_N);
	return buf;
}

const char *noise_verdict_text(const struct model *m, size_t row, size_t k, char *buf, size_t len)
{
	const struct cell *c = model_cell(m, row, k), *b;
	const struct stats_spread_ratio *v = &c->noise_base;
	const char *A = m->cols[k].label, *B;
	char ca[48], cb[48], ratio[64], p[16], why[128], starts[48];
	int at;

	if (m->cols[k].base < 0)
		return NULL;
	b = model_cell(m, row, (size_t)m->cols[k].base);
	B = m->cols[m->cols[k].base].label;
	at = snprintf(buf, len, "at %lld %s: ", m->threads[row], model_unit(m, m->threads[row]));
	at = MAX(0, MIN(at, (int)len - 1));
	if (v->verdict == STATS_TOO_FEW || v->verdict == STATS_NO_SPREAD) {
		snprintf(buf + at, len - (size_t)at, "%s against %s, %s", A, B, no_noise_verdict(c, b, why, sizeof(why)));
		return buf;
	}
	at += snprintf(buf + at, len - (size_t)at, "%s's starts vary %.2fx as much as %s's (CV %s against %s), %s", A,
		       v->ratio, B, percent_interval(&c->cv_starts, ca, sizeof(ca)),
		       percent_interval(&b->cv_starts, cb, sizeof(cb)), spread_ratio_text(v, ratio, sizeof(ratio)));
	at = MAX(0, MIN(at, (int)len - 1));
	report_format_p(v->p, p, sizeof(p));
	if (v->verdict == STATS_SIGNIFICANT) {
		snprintf(buf + at, len - (size_t)at, ", Brown-Forsythe %s (Holm, %zu comparison%s)", p, v->family,
			 v->family == 1 ? "" : "s");
		return buf;
	}
	if (v->n_a == v->n_b)
		snprintf(starts, sizeof(starts), "%zu starts a side", v->n_a);
	else
		snprintf(starts, sizeof(starts), "%zu and %zu starts", v->n_a, v->n_b);
	at += snprintf(buf + at, len - (size_t)at, ": no significant difference in noise (Brown-Forsythe %s, Holm, %zu "
						   "comparison%s); ",
		       p, v->family, v->family == 1 ? "" : "s");
	at = MAX(0, MIN(at, (int)len - 1));
	if (isfinite(v->mde))
		snprintf(buf + at, len - (size_t)at, "these %s could have detected %.1fx either way", starts, v->mde);
	else
		snprintf(buf + at, len - (size_t)at, "at this spread of their deviations, these %s could not have "
						     "detected any ratio at %.0f%% power", starts, 100 * STATS_POWER);
	return buf;
}

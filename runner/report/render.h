/* The renderers of the report, inside report/: one per output format, each
 * reading only the model (report/model.h), and the pieces compare shares
 * with them.  Errors are negative errno; nothing here logs. */
#pragma once

#include <stdio.h>

#include <jansson.h>

#include "common/util.h"
#include "report/model.h"
#include "report/report.h"

/* ---- report/table.c: a table of strings ---- */

/* A table of strings, shared by the text, Markdown and HTML renderers. */
struct table {
	size_t ncols, n, left; /* left: how many leading columns are words, aligned left */
	char **cells; /* row-major, row 0 the header */
	int error;
};

void table_add(struct table *t, const char *fmt, ...) _printf_(2, 3);
void table_done(struct table *t);
void table_print_text(const struct table *t, FILE *out);
void table_print_markdown(const struct table *t, FILE *out);
/* The columns table_print_text() takes. */
size_t table_text_width(const struct table *t);

/* ---- report/tables.c: text and Markdown ---- */

/* The widest text table: one wider is printed a row per context (33
 * contexts of an explain stage are 1,500 columns a row per thread count).
 * 200, not 100: three contexts with their ratios at 5 repeats are about
 * 150 wide, a [vary] of two values over two contexts 103, and both read
 * better a row per thread count (t/062 and t/060 hold them so); from
 * about five contexts on, a row per context. */
#define TEXT_WIDTH_MAX 200

/* A table of the report: METRIC_MECHANISM + i is row i of oltp_mechanism_table(). */
enum metric {
	METRIC_TPS,
	METRIC_P95,
	METRIC_IDLE,
	METRIC_LOAD,
	METRIC_THROTTLED,
	METRIC_CPU,
	METRIC_NOISE,
	METRIC_NOISE_CI, /* the two CVs with their intervals (report/noise_text.c) */
	METRIC_MECHANISM,
};
/* The table of metric what: a row per thread count and a column per
 * context (with its ratio beside TPS), or, when that is wider than width
 * columns of text (0: any width), a row per context. */
int report_table(const struct model *m, enum metric what, size_t width, struct table *t);
const char *report_table_caption(const struct model *m, enum metric what, char *buf, size_t len);
/* The tables a report prints, in order: TPS, then what --latency and
 * --telemetry add.  Returns how many. */
#define REPORT_METRICS_MAX (6 + OLTP_MECHANISM_MAX)
size_t report_metric_list(const struct report_options *o, enum metric list[static REPORT_METRICS_MAX]);
/* "1.05x (0.98-1.12) p=0.11 n.s.", or a gap without a ratio. */
void add_ratio(struct table *t, const struct stats_ratio *r);
/* "3.1%", or a gap for NAN. */
const char *report_percent(double v, char *buf, size_t len);
/* A bound of an interval: two decimals, or two digits below 0.1x and three
 * beyond 10x, so that no bound prints as 0.00. */
void report_print_bound(char *buf, size_t len, double v);
/* "p=0.0497", "p=0.41", "p<0.001". */
const char *report_format_p(double p, char *buf, size_t len);

/* ---- report/noise_text.c: noise as a result, in text and the page ---- */

/* A cell of the table METRIC_NOISE_CI, and its caption. */
void add_noise_interval(struct table *t, const struct cell *c);
void noise_interval_caption(const struct model *m, char *buf, size_t len);
/* The heading of the noise verdicts: the method, and across how many. */
void noise_verdicts_heading(const struct model *m, char *buf, size_t len);
/* Column k's noise against its baseline's at thread row row, as a
 * sentence; NULL for a column without a baseline. */
#define NOISE_SENTENCE_MAX 512
const char *noise_verdict_text(const struct model *m, size_t row, size_t k, char *buf, size_t len);
/* The noise section of the text and Markdown report: both noises, with
 * intervals, the verdicts, the noisy steps and what to do about them. */
int print_noise(const struct model *m, bool markdown, FILE *out);

int render_tables(const struct model *m, const struct report_options *o, bool markdown, FILE *out);

/* ---- report/compare.c ---- */

/* The host facts a comparison across machines turns on (cpu.vendor,
 * kernel.release, ...): the key of row k, and every row's value of a
 * document's host as an owned string (NULL: absent) into ret[HOST_FACTS_N]. */
#define HOST_FACTS_N 10
const char *host_fact_key(size_t k);
int host_fact_values(const json_t *host, char **ret);

/* ---- report/csv.c ---- */

/* One field, quoted when it holds a comma, a quote or a line break. */
void csv_field(FILE *out, const char *s);
/* ",v" with decimals, or "," alone for NAN. */
void csv_number(FILE *out, double v, int decimals);
/* The verdict's fields after CSV_VERDICT_HEADER: ",ratio,lo,hi,p,df,level,significant". */
#define CSV_VERDICT_HEADER "ratio,ratio_lo,ratio_hi,p,df,level,significant,p_raw,family,mde,sigma"
/* The same against the first vary value, with the column it is against. */
#define CSV_VARY_VERDICT_HEADER                                                                            \
	"vary_first,vary_ratio,vary_ratio_lo,vary_ratio_hi,vary_p,vary_df,vary_level,vary_significant,vary_p_raw," \
	"vary_family,vary_mde,vary_sigma"
void csv_verdict(FILE *out, const struct stats_ratio *r, double level);

int render_csv(const struct model *m, const struct report_options *o, FILE *out);

/* ---- report/json.c ---- */

json_t *real_or_null(double v);
/* The verdict's keys into o: ratio, ratio_lo, ratio_hi, p, df, verdict,
 * significant, p_raw, family, interval_level, sigma, mde. */
int json_put_verdict(json_t *o, const struct stats_ratio *r);
/* Indented, with a final newline; -EIO if the write failed. */
int dump_json(json_t *j, FILE *out);

int render_json(const struct model *m, const struct report_options *o, FILE *out);

/* ---- report/plot.c: SVG and PNG ---- */

int render_plot(const struct model *m, bool png, const char *provenance, FILE *out);

/* report/figures.c: the TPS figure's band, which the page, the SVG and
 * the PNG all draw: the interval of cell (row, k)'s mean TPS from the
 * row's residual sigma and degrees of freedom (false where it has none);
 * the sentence that says so; and the figure as a standalone SVG (text as
 * <text>, the page's style), provenance (store/provenance.h) under it. */
bool figure_band(const struct model *m, size_t row, size_t k, double *lo, double *hi);
const char *figure_band_text(const struct model *m, char *buf, size_t len);
int figure_tps_svg(const struct model *m, const char *provenance, FILE *out);

/* ---- report/page.c: HTML ---- */

/* The page of a run: the model's tables and figures, with what only the
 * document holds (the experiment, the host, the per-second TPS of every
 * step, how to reproduce it). */
int render_html(const struct model *m, const json_t *doc, const struct report_options *o, FILE *out);

/* ---- report/hosts_render.c: compare's host x context interaction ---- */

struct host_model;
/* The table, a sentence per row and other host, and what was not compared. */
int hosts_text(const struct host_model *h, const char *baseline, bool markdown, FILE *out);
/* Records host_ratio and host_differ, in compare's CSV columns. */
void hosts_csv(const struct host_model *h, FILE *out);
/* doc's member "hosts". */
int hosts_json(const struct host_model *h, json_t *doc);

/* ---- report/saturation.c ---- */

/* m's saturated steps in a sentence (label: the host's, NULL for one);
 * nothing when there are none. */
void print_saturated(const struct model *m, const char *label, bool markdown, FILE *out);

/* ---- report/report.c ---- */

/* The level of the intervals o asks for. */
double report_level(const struct report_options *o);
/* r, or -EIO if out cannot be flushed. */
int render_finish(int r, FILE *out);

/* The renderers of report/, its top floor below the documents
 * (report/report.h): for each document, run's and compare's, one per
 * output format, each reading only the judged model (report/model/), and
 * the cells the text, Markdown and HTML renderers share.  Errors are
 * negative errno; nothing here logs. */
#pragma once

#include <stdio.h>

#include <jansson.h>

#include "common/text.h"
#include "common/util.h"
#include "report/model/comparison.h"
#include "report/model/model.h"
#include "report/render/format.h"

/* ---- render/table.c: a table of strings ---- */

/* A table of strings, shared by the text, Markdown and HTML renderers. */
struct table {
	size_t ncols, n, left; /* left: how many leading columns are words, aligned left */
	size_t keys; /* the leading columns repeated over each group when split; 0: the left ones */
	size_t span; /* the columns after them go together in spans of this many (a value and its ratio); 0: 1 */
	char **cells; /* row-major, row 0 the header */
	int error;
};

/* The most columns a text table has. */
#define TABLE_COLS_MAX 64

void table_add(struct table *t, const char *fmt, ...) _printf_(2, 3);
void table_done(struct table *t);
/* Aligned, within table_width() (report.h): as it is, turned, or split. */
void table_print_text(const struct table *t, FILE *out);
void table_print_markdown(const struct table *t, FILE *out);
/* The columns t takes as it is, and turned (SIZE_MAX: it cannot be). */
size_t table_text_width(const struct table *t);
size_t table_turned_width(const struct table *t);

/* Text to out laid out in table_width(): written to a memory stream
 * (tw->mem) between the two, then each line wider wrapped at its spaces
 * with a hanging indent.  text_wrap_close() returns r, or the first error. */
struct text_wrap {
	FILE *mem, *out;
	char *buf;
	size_t len;
};
int text_wrap_open(struct text_wrap *tw, FILE *out);
int text_wrap_close(struct text_wrap *tw, int r);

/* ---- render/cells.c: the cells text, Markdown and HTML share ---- */

/* A table of the report: METRIC_MECHANISM + i is row i of oltp_mechanism_table(). */
enum metric {
	METRIC_TPS,
	METRIC_P95,
	METRIC_IDLE,
	METRIC_LOAD,
	METRIC_THROTTLED,
	METRIC_CPU,
	METRIC_NOISE,
	METRIC_NOISE_CI, /* the two CVs with their intervals (render/cells.c) */
	METRIC_REPEATS,	 /* the model's measure (an open loop's late shares) without a ratio */
	METRIC_MECHANISM,
};
/* The table of metric what: a row per thread count and a column per
 * context (with its ratio beside TPS), or, when that is wider than width
 * columns of text (0: any width), a row per context (which
 * table_print_text() may still turn or split). */
int report_table(const struct model *m, enum metric what, size_t width, struct table *t);
const char *report_table_caption(const struct model *m, enum metric what, char *buf, size_t len);
/* The tables a report prints, in order: TPS, then what --latency and
 * --telemetry add.  Returns how many. */
#define REPORT_METRICS_MAX (6 + OLTP_MECHANISM_MAX)
size_t report_metric_list(const struct report_options *o, enum metric list[static REPORT_METRICS_MAX]);
/* "1.05x (0.98-1.12) p=0.11 n.s.", or a gap without a ratio. */
void add_ratio(struct table *t, const struct stats_ratio *r);

/* ---- render/decisions.c: repeat = decide's decisions ---- */

/* The decisions first (the lines the text, Markdown and the page lead
 * with), and at the end the plan's spread against the one met, when it
 * was 1.5 times or more. */
void print_decisions(const struct model *m, bool markdown, FILE *out);
void print_decisions_plan(const struct model *m, bool markdown, FILE *out);
/* A table's cell of a decided ratio: "1.18x (1.07-1.30) different". */
const char *report_decision_cell(const struct cell *c, char *buf, size_t len);

/* ---- render/starts.c: the starts as a whole ---- */

/* "3 of 12 starts left out by the rule: the warm-up failed 2, it stalled 1". */
void report_starts_sentence(const struct model *m, char *buf, size_t len);
/* "3 of 12 starts ran while the host was busy (load 55 on 2 CPUs)". */
void report_busy_sentence(const struct model *m, char *buf, size_t len);

/* A cell of the table METRIC_NOISE_CI, and its caption. */
void add_noise_interval(struct table *t, const struct cell *c);
void noise_interval_caption(const struct model *m, char *buf, size_t len);
/* How the ratios of a table were computed, against over, across family
 * of them: the sentence after "ratio: " under the text's table and the
 * page's verdicts alike. */
const char *ratio_method_text(const struct model *m, const char *over, size_t family, char *buf, size_t len);
/* The heading of the noise verdicts: the method, and across how many. */
void noise_verdicts_heading(const struct model *m, char *buf, size_t len);
/* Column k's noise against its baseline's at thread row row, as a
 * sentence; NULL for a column without a baseline. */
#define NOISE_SENTENCE_MAX 512
const char *noise_verdict_text(const struct model *m, size_t row, size_t k, char *buf, size_t len);

/* ---- the renderers of run's document: the model of its results
 * directory, the document beside it for what only it holds ---- */
typedef int render_run_fn(const struct model *m, const json_t *doc, const struct report_options *o, FILE *out);

/* render/text.c: a table per metric, the verdicts' notes, the noise,
 * the failed steps, the placement differences, the host's calibration. */
render_run_fn render_text, render_markdown;
/* render/noise_text.c: the noise section of the text and Markdown
 * report: both noises, with intervals, the verdicts, the noisy steps and
 * what to do about them. */
int print_noise(const struct model *m, bool markdown, FILE *out);
/* render/csv.c, render/json.c, render/plot.c (SVG and PNG). */
render_run_fn render_csv, render_json, render_svg, render_png;

/* render/figures.c: the TPS figure's band, which the page, the SVG and
 * the PNG all draw: the interval of cell (row, k)'s mean TPS from the
 * row's residual sigma and degrees of freedom (false where it has none);
 * the sentence that says so; and the figure as a standalone SVG (text as
 * <text>, the page's style), provenance (store/provenance.h) under it. */
bool figure_band(const struct model *m, size_t row, size_t k, double *lo, double *hi);
const char *figure_band_text(const struct model *m, char *buf, size_t len);
int figure_tps_svg(const struct model *m, const char *provenance, FILE *out);
/* render/page.c: the page of a run: the model's tables and figures, with
 * what only the document holds (the experiment, the host, the per-second
 * TPS of every step, how to reproduce it). */
render_run_fn render_html;

/* ---- the renderers of compare's document (report/model/comparison.h) ---- */
typedef int render_compare_fn(const struct comparison *c, const struct report_options *o, FILE *out);

/* render/compare.c, and render/compare_page.c the one HTML page. */
render_compare_fn compare_text, compare_markdown, compare_csv, compare_json, compare_html;

/* ---- render/csv.c ---- */

/* One field: csv_field() of common/text.h, the one CSV writer. */
/* ",v" with decimals, or "," alone for NAN. */
void csv_number(FILE *out, double v, int decimals);
/* The verdict's fields after CSV_VERDICT_HEADER: ",ratio,lo,hi,p,df,level,significant". */
#define CSV_VERDICT_HEADER "ratio,ratio_lo,ratio_hi,p,df,level,significant,p_raw,family,mde,sigma"
/* The same against the first vary value, with the column it is against. */
#define CSV_VARY_VERDICT_HEADER                                                                            \
	"vary_first,vary_ratio,vary_ratio_lo,vary_ratio_hi,vary_p,vary_df,vary_level,vary_significant,vary_p_raw," \
	"vary_family,vary_mde,vary_sigma"
void csv_verdict(FILE *out, const struct stats_ratio *r, double level);

/* ---- render/json.c ---- */

json_t *real_or_null(double v);
/* The verdict's keys into o: ratio, ratio_lo, ratio_hi, p, df, verdict,
 * significant, p_raw, family, interval_level, sigma, mde. */
int json_put_verdict(json_t *o, const struct stats_ratio *r);
/* Indented, with a final newline; -EIO if the write failed. */
int dump_json(json_t *j, FILE *out);

/* ---- render/hosts.c: compare's host x context interaction ---- */

/* "service over shell: 1.24x (1.18-1.30) on epyc-1, 0.90x (0.86-0.94) on
 * xeon-2; the hosts differ by 1.38x (1.29-1.47), p=0.001" for host d of row,
 * or what it could have detected when they do not differ. */
int host_row_sentence(const struct host_model *h, const struct host_row *row, size_t d, char **ret);
/* The table, a sentence per row and other host, and what was not compared. */
int hosts_text(const struct host_model *h, const char *baseline, bool markdown, FILE *out);
/* Records host_ratio and host_differ, in compare's CSV columns. */
void hosts_csv(const struct host_model *h, FILE *out);
/* doc's member "hosts". */
int hosts_json(const struct host_model *h, json_t *doc);

/* ---- render/saturation.c ---- */

/* m's saturated steps in a sentence (label: the host's, NULL for one);
 * nothing when there are none. */
void print_saturated(const struct model *m, const char *label, bool markdown, FILE *out);

/* ---- render/open_loop.c ---- */

/* An open-loop run's rate, its p50, p95 and p99 latencies' tables and the
 * steps whose arrivals outran the server; nothing for a closed loop. */
int render_open_loop_text(const struct model *m, bool markdown, FILE *out);

/* ---- render/profile.c, render/flame.c: the profile (report/judge/profiles.h) ---- */

struct cell_profile;
struct profile_diff;
struct profile_diff_item;
struct profile_side_figure;
/* Text and Markdown: a short table per comparison, after the tables; nothing without profiles. */
int render_profile_text(const struct model *m, bool markdown, FILE *out);
/* Every figure of every comparison; NULL without profiles (or memory). */
json_t *render_profile_json(const struct model *m);
/* The pieces the page shares: the caption, a comparison's table and the allocator's sentence. */
void profile_caption(const struct model *m, FILE *out);
int profile_table(const struct model *m, size_t col, const struct cell_profile *cp, struct table *t);
void profile_allocator_sentence(const struct model *m, size_t col, const struct cell_profile *cp, FILE *out);
/* The page's section: each comparison's table and differential flame graph (SVG, no script). */
int page_profile(FILE *out, const struct model *m);

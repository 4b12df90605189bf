/* The renderers of the report, inside report/: one per output format, each
 * reading only the model (report/model.h), and the pieces compare shares
 * with them.  Errors are negative errno; nothing here logs. */
#pragma once

#include <stdio.h>

#include <jansson.h>

#include "common/util.h"
#include "report/model.h"
#include "report/report.h"

/* ---- report/table.c: a table of strings, for text and Markdown ---- */

struct table {
	size_t ncols, n, left; /* left: how many leading columns are words, aligned left */
	char **cells; /* row-major, row 0 the header */
	int error;
};

void table_add(struct table *t, const char *fmt, ...) _printf_(2, 3);
void table_done(struct table *t);
void table_print_text(const struct table *t, FILE *out);
void table_print_markdown(const struct table *t, FILE *out);

/* ---- report/tables.c: text and Markdown ---- */

/* "1.05x (0.98-1.12) p=0.11 n.s.", or a gap without a ratio. */
void add_ratio(struct table *t, const struct stats_ratio *r);

int render_tables(const struct model *m, const struct report_options *o, bool markdown, FILE *out);

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

int render_plot(const struct model *m, bool png, FILE *out);

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

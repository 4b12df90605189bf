/* Reports from the document of record (results_load()), in three floors:
 * the model (report/model/), read once from the documents; the judge
 * (report/judge/), which adds the verdicts and the noise; the renderers
 * (report/render/), one per document and format.  The model is a table of
 * TPS: a row per thread count, a column per context (or, with a vary, per
 * context x value), each cell the median of the successful repeats with
 * its min..max and n, and a ratio to the baseline column with the same
 * vary value with its interval and p-value at the level asked for
 * (stats/stats.h), computed from the raw repeats each time, so that a
 * report at another level needs no new run.  Nothing here logs; errors
 * are negative errno.
 *
 * This floor is the documents: each a row of what it is made of and its
 * renderer in each format, NULL where it is not in that format.  run's
 * and compare's rows are here; explain's two are explain/'s, a floor up
 * (explain/explain.h), and the verbs list all four (cli/report.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "report/model/comparison.h"
#include "report/render/format.h"
#include "stats/stats.h"

/* What a document is made of. */
struct document_input {
	char *const *dirs;	   /* the directories as given: one, or 2 to COMPARE_HOSTS_MAX; NULL: not known */
	const char *const *labels; /* each one's name in a comparison; NULL: "1", "2", ... */
	json_t *const *docs;	   /* their documents of record (results_load()); NULL for explain directories */
	size_t n;
	const struct report_options *o;
	double width; /* an explain directory: the named share's interval it was to reach, a fraction of the gap; 0: its own */
};

/* A document's renderer in one format: 0, or a negative errno with, for
 * bad input, a sentence why into *ret_why (to free()). */
typedef int document_render_fn(const struct document_input *in, FILE *out, char **ret_why);

struct document {
	const char *name; /* "run", "compare", "explain", "explain-compare" */
	const char *of;	  /* what it is made of: "a results directory" */
	document_render_fn *format[_REPORT_FORMAT_MAX]; /* NULL: not in this format */
};

/* A results directory (slicebench run's), and the results of one
 * experiment from 2 to COMPARE_HOSTS_MAX hosts side by side. */
extern const struct document document_run, document_compare;

/* in rendered by d's cell of in->o->format: -EINVAL if d has none, else
 * the cell's result. */
int document_render(const struct document *d, const struct document_input *in, FILE *out, char **ret_why);
/* The formats d is in, into buf: "text, json or html" with sep ", " and
 * last_sep " or ", "text|json|html" with "|" and "|". */
const char *document_formats(const struct document *d, const char *sep, const char *last_sep, char *buf, size_t len);

/* Renders doc to out (SVG as XML, PNG as binary, HTML as one page): the
 * run row's cell of o->format.  -EINVAL: doc is not a document of record,
 * or no such format; -EPROTONOSUPPORT: an unknown format_version; -EIO: a
 * write to out failed. */
int report_render(const json_t *doc, const struct report_options *o, FILE *out);

/* The page run writes into its results directory at the end of a run. */
#define REPORT_PAGE "report.html"
/* doc's page (--format html at level) into dir/REPORT_PAGE, written whole
 * and atomically; its path into *ret_path (to free(); may be NULL). */
int report_write_page(const json_t *doc, const char *dir, double level, char **ret_path);

/* n documents of the same experiment side by side (median TPS and the ratio
 * to each document's own baseline, per thread count and column), whether
 * the hosts' ratios differ (report/judge/judge.h), then the host facts whose
 * values are not all equal.  labels[i] names docs[i] (labels may be NULL):
 * the compare row's cell of o->format; -EOPNOTSUPP where it has none (the
 * plots). */
int compare_render(json_t *const *docs, const char *const *labels, size_t n, const struct report_options *o,
		   FILE *out);

/* One ratio of a document: a column other than the baseline against the
 * baseline column of its vary value, at one thread count. */
struct report_comparison {
	char context[48], vary[64]; /* vary: "" without [vary] */
	long long threads;
	struct stats_ratio r;
};

/* Every ratio of doc at level, in the report's order; *ret (to free())
 * holds *ret_n of them.  Errors as report_render(). */
int report_comparisons(const json_t *doc, double level, struct report_comparison **ret, size_t *ret_n);

/* repeat = decide, a look after round (final: the last there will be):
 * the decisions of doc's looks so far and of this one (report/judge/
 * decide.c), and which of the contexts names[0..n) run on after it into
 * ret_open[0..n).  Errors as report_render(). */
int report_look(const json_t *doc, double level, unsigned round, bool final, const char *const *names, size_t n,
		bool *ret_open);

/* repeat = auto after the pilot: the rounds in all that the widest of
 * doc's ratios needs to be within +-until (a fraction) at level
 * (stats_rounds_for_width(), each ratio's own sigma and degrees of
 * freedom); 0 without any ratio that has an interval.  Errors as
 * report_render(). */
int report_rounds_needed(const json_t *doc, double level, double until, unsigned *ret);

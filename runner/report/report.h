/* Reports from the document of record (results_load()): one model, computed
 * once from the document, and one renderer per output format.  The model is
 * a table of TPS: a row per thread count, a column per context (or, with a
 * vary, per context x value), each cell the median of the successful repeats
 * with its min..max and n, and a ratio to the baseline column with the same
 * vary value with its interval and p-value at the level asked for
 * (stats/stats.h), computed from the raw repeats each time, so that a report
 * at another level needs no new run.  Nothing here logs; errors are negative
 * errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "common/words.h"
#include "host/calibration.h"

#include "stats/stats.h"
#include "stats/rank.h"

/* The version of the JSON that report_render() and compare_render() print:
 * 2 has the interval, the p-value and the two noises of every ratio; 3 has
 * the block model's verdicts with their family, the smallest gap they
 * could detect and the cross-checks, and each cell's failures. */
#define REPORT_FORMAT_VERSION 3

enum report_format {
	REPORT_TEXT,
	REPORT_MARKDOWN,
	REPORT_CSV,
	REPORT_JSON,
	REPORT_SVG,
	REPORT_PNG,
	REPORT_HTML,
};

/* "text", "markdown" (or "md"), "csv", "json", "svg", "png": the formats
 * of the model alone, which report and compare take; -EINVAL otherwise. */
extern const struct word report_format_words[];
int report_format_from_string(const char *s, enum report_format *ret);
/* report's: those and "html", the page, which reads the document beside
 * the model (and an explain directory, explain_report_html()). */
extern const struct word report_page_format_words[];
/* Any format's name, the page's too. */
const char *report_format_to_string(enum report_format f);

struct report_options {
	enum report_format format;
	double confidence; /* the level of the intervals; 0 means STATS_CONFIDENCE_DEFAULT */
	bool latency;	/* add the median p95 latency per cell */
	bool telemetry; /* add per cell the rows of telemetry_summaries (report/model.h) and the mechanism */
	const char *source; /* the directory reported, for the page's commands; NULL: not known */
	bool answer;	    /* text: the TPS table, its verdicts and failures only (what run ends with) */
};

/* The width text output is laid out in (report/table.c): what
 * table_set_width() set (0: unset), else the terminal's on standard
 * output, else TABLE_WIDTH_PIPE.  Tables wider are turned or split, lines
 * of prose wrapped; nothing is cut. */
#define TABLE_WIDTH_PIPE 100
#define TABLE_WIDTH_MIN 40
size_t table_width(void);
void table_set_width(size_t width);

/* Renders doc to out (SVG as XML, PNG as binary, HTML as one page).  -EINVAL: doc is not a
 * document of record; -EPROTONOSUPPORT: an unknown format_version; -EIO: a
 * write to out failed. */
int report_render(const json_t *doc, const struct report_options *o, FILE *out);

/* The page run writes into its results directory at the end of a run. */
#define REPORT_PAGE "report.html"
/* doc's page (--format html at level) into dir/REPORT_PAGE, written whole
 * and atomically; its path into *ret_path (to free(); may be NULL). */
int report_write_page(const json_t *doc, const char *dir, double level, char **ret_path);

/* The most documents (hosts) compare takes. */
#define COMPARE_HOSTS_MAX 16

/* n documents of the same experiment side by side (median TPS and the ratio
 * to each document's own baseline, per thread count and column), whether
 * the hosts' ratios differ (report/hosts.h), then the host facts whose
 * values are not all equal.  labels[i] names docs[i]
 * (labels may be NULL).  Text, Markdown, CSV and JSON; -EOPNOTSUPP for the
 * plots. */
int compare_render(json_t *const *docs, const char *const *labels, size_t n, const struct report_options *o,
		   FILE *out);

/* The host facts compare weighs (vendor, model, L3 groups, kernel,
 * mitigations, systemd, cgroup mode) that differ between host.json a and
 * b, as "kernel.release (4.15 against 5.4), ..."; *ret NULL when none. */
int compare_host_differences(const json_t *a, const json_t *b, char **ret);

/* One ratio of a document: a column other than the baseline against the
 * baseline column of its vary value, at one thread count. */
struct report_comparison {
	char context[48], vary[64]; /* vary: "" without [vary] */
	long long threads;
	struct stats_ratio r;
};

/* A step's TPS as the verdicts take it: NAN for a step that failed or
 * completed nothing, which counts as a failure (a floor in its place
 * would be a made-up number in a mean).  report and explain share it. */
double report_step_tps(const json_t *step);

/* Every ratio of doc at level, in the report's order; *ret (to free())
 * holds *ret_n of them.  Errors as report_render(). */
int report_comparisons(const json_t *doc, double level, struct report_comparison **ret, size_t *ret_n);

/* repeat = auto after the pilot: the rounds in all that the widest of
 * doc's ratios needs to be within +-until (a fraction) at level
 * (stats_rounds_for_width(), each ratio's own sigma and degrees of
 * freedom); 0 without any ratio that has an interval.  Errors as
 * report_render(). */
int report_rounds_needed(const json_t *doc, double level, double until, unsigned *ret);

/* A verdict as the tables print it: "0.27x (0.19-0.38) p=0.001",
 * "1.02x (0.95-1.10) p=0.45 n.s.", "1.02x (one repeat: no interval)". */
#define REPORT_RATIO_MAX 96
const char *report_format_ratio(const struct stats_ratio *r, char *buf, size_t len);

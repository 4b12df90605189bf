/* Reports from the document of record (results_load()): one model, computed
 * once from the document, and one renderer per output format.  The model is
 * a table of TPS: a row per thread count, a column per context (or, with a
 * vary, per context x value), each cell the median of the successful repeats
 * with its min..max and n, and a ratio to the baseline column with the same
 * vary value, marked not significant when it is within the run-to-run noise.
 * Nothing here logs; errors are negative errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* The version of the JSON that report_render() and compare_render() print. */
#define REPORT_FORMAT_VERSION 1

enum report_format {
	REPORT_TEXT,
	REPORT_MARKDOWN,
	REPORT_CSV,
	REPORT_JSON,
	REPORT_SVG,
	REPORT_PNG,
};

/* "text", "markdown" (or "md"), "csv", "json", "svg", "png"; -EINVAL otherwise. */
int report_format_from_string(const char *s, enum report_format *ret);
const char *report_format_to_string(enum report_format f);

struct report_options {
	enum report_format format;
	bool latency;	/* add the median p95 latency per cell */
	bool telemetry; /* add the mean cpu idle % and the nr_throttled delta per cell */
};

/* Renders doc to out (SVG as XML, PNG as binary).  -EINVAL: doc is not a
 * document of record; -EPROTONOSUPPORT: an unknown format_version; -EIO: a
 * write to out failed. */
int report_render(const json_t *doc, const struct report_options *o, FILE *out);

/* n documents of the same experiment side by side (median TPS and the ratio
 * to each document's own baseline, per thread count and column), then the
 * host facts whose values are not all equal.  labels[i] names docs[i]
 * (labels may be NULL).  Text, Markdown, CSV and JSON; -EOPNOTSUPP for the
 * plots. */
int compare_render(json_t *const *docs, const char *const *labels, size_t n, enum report_format format, FILE *out);

/* The output formats of slicebench's documents and the options every
 * renderer takes (report/render/); which document is in which format is
 * the table of documents (report/report.h, struct document). */
#pragma once

#include <stdbool.h>

#include "common/words.h"

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
	_REPORT_FORMAT_MAX,
};

/* "text", "markdown" (or "md"), "csv", "json", "svg", "png": the formats
 * of the model alone; -EINVAL otherwise. */
extern const struct word report_format_words[];
int report_format_from_string(const char *s, enum report_format *ret);
/* Every format's name, the page's ("html") too. */
extern const struct word report_page_format_words[];
const char *report_format_to_string(enum report_format f);

struct report_options {
	enum report_format format;
	double confidence; /* the level of the intervals; 0 means STATS_CONFIDENCE_DEFAULT */
	bool latency;	/* add the median p95 latency per cell */
	bool telemetry; /* add per cell the rows of telemetry_summaries (report/model/model.h) and the mechanism */
	const char *source; /* the directory reported, for the page's commands; NULL: not known */
	bool answer;	    /* text: the TPS table, its verdicts and failures only (what run ends with) */
};

/* The width text output is laid out in (report/render/table.c): what
 * table_set_width() set (0: unset), else the terminal's on standard
 * output, else TABLE_WIDTH_PIPE.  Tables wider are turned or split, lines
 * of prose wrapped; nothing is cut. */
#define TABLE_WIDTH_PIPE 100
#define TABLE_WIDTH_MIN 40
size_t table_width(void);
void table_set_width(size_t width);

/* The level of the intervals o asks for. */
double report_level(const struct report_options *o);

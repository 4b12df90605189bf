/* The report's model, inside report/: the document of record (results_load())
 * read once into a table of TPS, a row per thread count and a column per
 * context (or context x vary value).  Every renderer reads only this; the
 * numbers are formatted by the renderers and nowhere else. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define GAP "\u2014" /* em dash: a cell without a value, never 0 */

struct cell {
	size_t n, n_failed; /* successful and failed steps */
	double median, min, max;
	double noise;	  /* relative spread, or 2*CV of the intervals with n == 1; NAN: unknown */
	double ratio;	  /* to the baseline column; NAN: none */
	bool significant; /* |ratio - 1| beyond the noise of both cells */
	double p95_ms, idle_pct, throttled; /* medians over the repeats; NAN: none */
};

struct column {
	char *label;
	const char *context; /* borrowed from the document */
	const char *vary;    /* borrowed from the model's vary values; NULL without vary */
	size_t vary_index;
	long base; /* the baseline column with the same vary value; -1: none, or this is one */
	bool is_baseline;
};

struct model {
	const char *name, *baseline, *vary_property;
	struct column *cols;
	size_t ncols;
	long long *threads;
	size_t nrows;
	struct cell *cells; /* nrows x ncols */
	char **vary;	    /* owned vary values; a NULL entry without vary */
	size_t nvary;
	json_t *failures; /* [{context, vary_value, threads, repeat, reason}] */
	json_t *diffs;	  /* {context: {key: [baseline value, context value]}} */
	bool any_ns;
};

/* -EINVAL: doc is not a document of record; -EPROTONOSUPPORT: an unknown
 * format_version; -ENOMEM. */
int model_build(const json_t *doc, struct model *ret);
void model_done(struct model *m);

static inline struct cell *model_cell(const struct model *m, size_t row, size_t col)
{
	return &m->cells[row * m->ncols + col];
}

/* A scalar as text: strings as they are, numbers and booleans printed into
 * buf; NULL for null, absent and nested values. */
const char *scalar_str(const json_t *v, char *buf, size_t len);
/* A host or placement value as an owned string; *ret = NULL when absent. */
int value_dup(const json_t *v, char **ret);

/* qsort's comparisons of long long and of C strings, ascending. */
int cmp_ll(const void *a, const void *b);
int cmp_str(const void *a, const void *b);

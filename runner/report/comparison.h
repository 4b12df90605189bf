/* compare's model (report/compare.c), for its renderers: each document's
 * report model lined up by column label and thread count, and the host
 * facts, those that decide a comparison always and the others where they
 * differ. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "report/hosts.h"
#include "report/model.h"

struct comparison {
	size_t n;
	struct model *m;
	const char **labels;
	char **label_buf;
	const char **cols; /* union of the column labels, first document first */
	size_t ncols;
	long long *threads;
	size_t nrows;
	const char **keys; /* host keys whose values differ */
	size_t nkeys;
	char **values; /* nkeys x n, NULL: absent */
	json_t **hosts; /* [n] each document's host facts flattened to dotted keys (cpu.vendor) */
	char **facts;	/* HOST_FACTS_N x n, NULL: absent */
	struct host_model inter; /* the host x context interaction; n 0 for one document */
};

/* The cell of document doc at the comparison's row and column; NULL: the
 * document has no such column or thread count. */
const struct cell *comparison_cell(const struct comparison *c, size_t doc, size_t row, size_t col);
/* Do the n values (NULL: absent) differ? */
bool host_fact_differs(char *const *vals, size_t n);

/* report/compare_page.c: the comparison as one HTML page. */
int compare_html(const struct comparison *c, FILE *out);

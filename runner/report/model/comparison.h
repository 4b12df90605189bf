/* compare's model: each document's report model lined up by column label
 * and thread count, the host facts (report/model/facts.c), those that
 * decide a comparison always and the others where they differ, and the
 * place for the host x context interaction, which the judge fills
 * (report/judge/hosts.c) as it fills each cell's verdicts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "report/model/facts.h"
#include "report/model/model.h"
#include "stats/stats.h"

/* The most documents (hosts) compare takes. */
#define COMPARE_HOSTS_MAX 16

/* compare's question: is a difference between hosts real?  For each
 * thread count and context, each host's ratio to its own baseline and the
 * ratio of that ratio to the first host's (report/judge/hosts.c). */
struct host_row {
	long long threads;
	const char *column, *baseline; /* borrowed from the first host's model */
	struct stats_ratio *ratio;     /* [n]: each host's ratio to its baseline, its report's (Holm in its table) */
	struct stats_ratio *differ;    /* [n]: host d's ratio over the first's, Holm-adjusted; [0] none */
};

struct host_model {
	size_t n;
	const char *const *labels; /* borrowed */
	struct host_row *rows;
	size_t nrows;
	size_t family; /* the ratios of ratios Holm's adjustment is across */
	double level;
	char **not_compared; /* sentences: what one host has and another has not */
	size_t n_not_compared;
	bool any_significant;
	/* The noise the fit of every host ran on (stats/block.h): where it
	 * is not each host's column its own, each ratio of ratios came from
	 * a fit of its four columns alone, each host its own noise. */
	enum block_noise_model noise;
};

void host_model_done(struct host_model *h);

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

/* n documents' models (labels[i] names docs[i]; labels may be NULL) at
 * level, lined up, with their host facts; not judged.  -EINVAL: no
 * documents; errors of model_build(). */
int comparison_build(json_t *const *docs, const char *const *labels, size_t n, double level, struct comparison *c);
void comparison_done(struct comparison *c);

/* The cell of document doc at the comparison's row and column; NULL: the
 * document has no such column or thread count. */
const struct cell *comparison_cell(const struct comparison *c, size_t doc, size_t row, size_t col);

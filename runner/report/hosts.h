/* compare's question, inside report/: is a difference between hosts real?
 * For each thread count and context, each host's ratio to its own
 * baseline and the ratio of that ratio to the first host's (the host x
 * context interaction), all from one model of log TPS per thread count
 * (stats/block.h, block_fit_nested()):
 *
 *     ln TPS = cell[host, context] + round[host, r] + e
 *
 * one model of every thread count of every host, each host's rounds its
 * own blocks, each host's column its own sigma at every thread count (a
 * noisier host or context widens an interval by its own noise, on
 * Satterthwaite's degrees of freedom), each host its own term for the
 * first unit of a round, and the interaction the contrast
 * (l[h,c] - l[h,base]) - (l[1,c] - l[1,base]), Holm-adjusted across the
 * table.  Compared where the hosts overlap (the
 * thread counts and columns both have); the rest is listed.  Pure, no
 * formatting beyond the sentences' numbers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "report/model.h"
#include "report/report.h"
#include "stats/stats.h"

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
	bool pooled; /* the starts could not give each host's column its own sigma: one per host and thread count */
};

/* The interaction of models m[0..n) (the same experiment from n hosts) at
 * level.  -ENOMEM; a design that cannot be fitted leaves its rows without
 * ratios. */
int host_model_build(const struct model *m, const char *const *labels, size_t n, double level, struct host_model *ret);
void host_model_done(struct host_model *h);

/* "service over shell: 1.24x (1.18-1.30) on epyc-1, 0.90x (0.86-0.94) on
 * xeon-2; the hosts differ by 1.38x (1.29-1.47), p=0.001" for host d of row,
 * or what it could have detected when they do not differ. */
int host_row_sentence(const struct host_model *h, const struct host_row *row, size_t d, char **ret);

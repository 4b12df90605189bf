/* Runs of repeat = decide written in memory as the engine writes them
 * (t/190, t/191): each round the contexts the last look left open, in the
 * engine's balanced order, a look after each round that is one, judged by
 * the engine's own callback (report_look()), schedule.json's design and
 * looks beside the steps; then the decisions as report reads them back. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define SEQSIM_CONTEXTS_MAX 8
#define SEQSIM_RATIOS_MAX 64

/* Log TPS of a start: the context's true log ratio to the baseline (the
 * same at every thread count), the start's noise shared by its thread
 * counts (start_share of sigma^2) and each step's own. */
struct seqsim_truth {
	size_t n; /* contexts, the first the baseline */
	double log_ratio[SEQSIM_CONTEXTS_MAX];
	double sigma, start_share;
	unsigned threads; /* each start runs 1, 2, 4, ...: so many; 0: 1 */
};

struct seqsim_design {
	double margin, level;
	unsigned max_rounds, every;
	bool fixed; /* no looks: every context every round, as repeat = N, answered at the end */
};

/* What a run came to: its rounds and starts, and each ratio (thread count
 * by thread count, the contexts in order within each) decided 'd'ifferent,
 * 's'ame or 'o'pen, with its ratio and interval, and whether the table
 * called it significant; the most rounds an open one would need; what
 * the report said of the decisions' agreement with the run's looks. */
struct seqsim_result {
	unsigned rounds, rounds_to_decide;
	size_t starts, n;
	char answer[SEQSIM_RATIOS_MAX];
	bool significant[SEQSIM_RATIOS_MAX];
	double ratio[SEQSIM_RATIOS_MAX], lo[SEQSIM_RATIOS_MAX], hi[SEQSIM_RATIOS_MAX];
	bool as_run;
	json_t *doc; /* the document of record (to json_decref()), when kept */
};

void seqsim_run(const struct seqsim_truth *t, const struct seqsim_design *d, bool keep, struct seqsim_result *ret);

/* The run's profiles beside the model (doc/profile.md), built by the
 * document that judges it (report/report.c): in each cell, the
 * shares of every kept start that was profiled (profile/shares.h, from
 * the folded stacks results_load() read back), and against the cell of
 * the baseline column the figures that differ (profile/diff.h, Holm
 * across the figures of that comparison), with the two sides' merged
 * stacks as a tree for the differential flame graph. */
#pragma once

#include <stddef.h>

#include <jansson.h>

#include "profile/diff.h"

/* A frame of the merged stacks: its inclusive share of the server's
 * on-CPU samples in the cell (a) and in its baseline's (b), each the mean
 * over the starts. */
struct flame_node {
	char *name;
	double a, b;
	size_t n;
	struct flame_node *kids;
};

struct cell_profile {
	size_t n; /* profiled starts that count */
	struct profile_shares **starts;
	double samples_mean; /* the server's on-CPU samples a start */
	struct profile_diff *vs_base; /* NULL: the baseline itself, or a side without a start */
	struct flame_node flame;      /* "all": its kids the roots of the stacks; a: this cell, b: the baseline's */
};

struct model;
struct model_profiles {
	size_t n_profiled; /* steps with stacks */
	struct cell_profile *cells; /* nrows x ncols, as the model's */
	const char *why; /* a step's, when none could be read (borrowed from the document) */
};

/* A step's shares, from the stacks results_load() read back into its
 * record; *ret NULL for a step without, or one that does not count. */
int judge_step_shares(const json_t *step, struct profile_shares **ret);

/* m's profiles from doc's steps into m->profiles (NULL when no step was
 * profiled); judge_profiles_free() frees them and sets it NULL. */
int judge_profiles_build(struct model *m, const json_t *doc);
void judge_profiles_free(struct model *m);

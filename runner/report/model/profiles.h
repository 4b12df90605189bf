/* The run's profiles in the model (doc/profile.md): in each cell, the
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

/* m's profiles from doc's steps; *ret NULL when no step was profiled. */
int model_profiles_build(const struct model *m, const json_t *doc, struct model_profiles **ret);
void model_profiles_free(struct model_profiles *p, size_t n_cells);

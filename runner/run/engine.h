/* The run engine: an experiment's plan, and the run of that plan, unit by
 * unit, into a results directory.  run and explain are built on it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "run/experiment.h"

/* Which contexts run, and what that costs. */
struct run_plan {
	const struct experiment *e;
	bool selected[EXP_CONTEXTS_MAX];
	size_t n_units, n_steps;
	double estimate_s;
};

/* only: NULL for every context, or a comma-separated list of context names
 * (-EINVAL, logged, for a name e does not have). */
int run_plan_make(const struct experiment *e, const char *only, struct run_plan *ret);

/* Runs the plan into the results directory out (NULL:
 * results/NAME-YYYYmmdd-HHMMSS), created, or with resume reopened and only
 * what is missing run.  Returns the number of failed steps, or -errno
 * (logged): -EINTR when a signal ended the run (interrupt_signal says
 * which), -ECANCELED when on-error = stop did. */
int run_experiment(const struct experiment *e, const struct run_plan *plan, const char *out, bool resume);

/* Every context of e, into the results directory out (created; refused if
 * it holds results).  Returns as run_experiment(). */
int run_whole_experiment(const struct experiment *e, const char *out);

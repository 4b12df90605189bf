/* The run engine: an experiment's plan, and the run of that plan, unit by
 * unit, into a results directory.  run and explain are built on it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

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

/* repeat = auto: the rounds before the first look at the intervals (with
 * two repeats a side an interval rests on about one degree of freedom and
 * a lucky pair would stop the run). */
#define RUN_AUTO_MIN_REPEATS 3

enum run_stop {
	RUN_STOP_NONE,	  /* a fixed count of repeats, or the run did not finish */
	RUN_STOP_SETTLED, /* next_round asked for no more */
	RUN_STOP_MAX,	  /* repeat-max reached */
	RUN_STOP_BUDGET,  /* the next round would not fit in the budget */
};

/* What a run takes beyond its plan. */
struct run_options {
	double confidence; /* of the intervals that judge the rounds; 0: the default */
	/* repeat = auto: after every round from RUN_AUTO_MIN_REPEATS on, which
	 * units (vary value, context) the next round runs again, from the
	 * document of record so far; returns >= 0, or -errno (logged).  Only
	 * selected contexts run; none asked for ends the rounds. */
	int (*next_round)(void *userdata, const json_t *doc, bool more[EXP_VARY_MAX][EXP_CONTEXTS_MAX]);
	void *userdata;
	/* A run that finished (or stopped cleanly): its document of record,
	 * for the caller to report; NULL: nothing. */
	void (*finished)(void *userdata, const json_t *doc);
	uint64_t budget_ns; /* repeat = auto: no round is begun that would end past it; 0: none */
	/* set by the run */
	bool refused; /* bad --out or --resume, or results files not as run writes them: nothing started */
	enum run_stop stopped;
	unsigned rounds; /* rounds begun */
};

/* Runs the plan into the results directory out (NULL:
 * results/NAME-YYYYmmdd-HHMMSS), created, or with resume reopened and only
 * what is missing run.  o may be NULL (the defaults; repeat = auto then runs
 * every repeat up to its maximum).  Returns the number of failed steps, or
 * -errno (logged): -EINTR when a signal ended the run (interrupt_signal says
 * which), -ECANCELED when on-error = stop did. */
int run_experiment(const struct experiment *e, const struct run_plan *plan, const char *out, bool resume,
		   struct run_options *o);

/* Every context of e, into the results directory out (created; refused if
 * it holds results).  Returns as run_experiment(). */
int run_whole_experiment(const struct experiment *e, const char *out, struct run_options *o);

/* The run engine's interface (run/engine.c), all that is outside run/ may
 * use: an experiment's plan, and the run of that plan, unit by unit, into
 * a results directory.  run, explain and calibrate are built on it.  (Not
 * engine.h: engine.c includes the engine's inside, run/runner.h, which
 * includes this; one name for both would be a circle.) */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "experiment/experiment.h"
#include "common/words.h"

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

/* repeat = auto: the pilot's rounds, from whose spread the number of
 * rounds is computed (with two a side an interval rests on about one
 * degree of freedom). */
#define RUN_AUTO_PILOT 3

enum run_stop {
	RUN_STOP_NONE,	  /* a fixed count of repeats, or the run did not finish */
	RUN_STOP_SETTLED, /* the rounds the target needs were run */
	RUN_STOP_MAX,	  /* it needs more than repeat-max */
	RUN_STOP_BUDGET,  /* the rounds it needs would not fit in the budget */
};

/* The order of the units within a round. */
enum run_order {
	RUN_ORDER_RANDOM, /* each round a row of a Williams square drawn from the seed (run/order.h) */
	RUN_ORDER_FIXED,  /* A B C D in every round, as the file lists them */
};
extern const struct word run_order_words[];

/* What a run takes beyond its plan. */
struct run_options {
	const char *verb; /* what logs say is running: "run" (NULL), "explain", "calibrate" */
	enum run_order order;
	uint64_t seed; /* of the rounds' orders; with seed_given, else one is drawn (a resumed run keeps its own) */
	bool seed_given;
	double confidence; /* of the intervals that judge the rounds; 0: the default */
	/* repeat = auto: after the pilot, how many rounds in all the target
	 * needs, from the document of record so far; returns >= 0, or -errno
	 * (logged). */
	int (*rounds_needed)(void *userdata, const json_t *doc, unsigned *ret);
	void *userdata;
	/* A run that finished (or stopped cleanly): its document of record
	 * and its results directory, for the caller to report; NULL: nothing. */
	void (*finished)(void *userdata, const json_t *doc, const char *dir);
	uint64_t budget_ns; /* repeat = auto: no round is begun that would end past it; 0: none */
	/* set by the run */
	bool refused; /* bad --out or --resume, or results files not as run writes them: nothing started */
	enum run_stop stopped;
	unsigned rounds;	/* rounds begun */
	unsigned rounds_wanted; /* repeat = auto: what rounds_needed asked for */
	uint64_t seed_used;
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

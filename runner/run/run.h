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

/* How much of a run's progress reaches the terminal (run/progress.c):
 * -q none, the default a unit at a time (on a terminal one line that each
 * unit and step replaces), -v every unit and step as a line.  The journal
 * and the results directory's log (RUN_LOG) take every line either way. */
enum run_verbosity {
	RUN_QUIET,
	RUN_NORMAL,
	RUN_VERBOSE,
};
void run_set_verbosity(enum run_verbosity v);

/* The command line that runs it again (run/reproduce.c): words (NULL
 * ended) shell-quoted, after "taskset -c LIST" when slicebench runs on
 * fewer CPUs than are online. */
int run_reproduce_line(const char *const *words, char **ret);
/* The experiment's word in it: the name as given when it was found by
 * name, else the file's absolute path (path as experiment_find() gave it). */
int run_reproduce_experiment(const char *given, const char *path, char **ret);

/* The results directory's log: the progress, the warnings and errors,
 * and what the servers slicebench forks print (start-up warnings). */
#define RUN_LOG "run.log"

/* Which contexts run, and what that costs. */
struct run_plan {
	const struct experiment *e;
	bool selected[EXP_CONTEXTS_MAX];
	size_t n_units, n_steps;
	/* The dataset: its rows, about what they take on disk, and at most how
	 * long preparing them takes where they are not made yet (in
	 * estimate_s). */
	uint64_t dataset_rows, dataset_bytes;
	double prepare_s;
	double estimate_s;
};

/* only: NULL for every context, or a comma-separated list of context names
 * (-EINVAL, logged, for a name e does not have). */
int run_plan_make(const struct experiment *e, const char *only, struct run_plan *ret);

/* Whether the state directory's filesystem holds the plan's dataset: its
 * free space and what the state directory holds already (a dataset made
 * before) against the dataset's bytes.  -ENOSPC, logged as verb's, before
 * anything starts (a plan of 1e11 rows said "about 1 min"). */
int run_check_space(const char *verb, const struct run_plan *p);

/* repeat = auto: the pilot's rounds, from whose spread the number of
 * rounds is computed (with two a side an interval rests on about one
 * degree of freedom). */
#define RUN_AUTO_PILOT 3

enum run_stop {
	RUN_STOP_NONE,	  /* a fixed count of repeats, or the run did not finish */
	RUN_STOP_SETTLED, /* the rounds the target needs were run */
	RUN_STOP_MAX,	  /* it needs more than repeat-max */
	RUN_STOP_BUDGET,  /* the rounds it needs would not fit in the budget */
	RUN_STOP_DECIDED, /* repeat = decide: every ratio was decided at a look */
};

/* repeat = decide: a look after a round, and the contexts still open after
 * it (schedule.json's "looks"), which alone run in the rounds after. */
struct run_look {
	unsigned round;
	bool final; /* the last look: the plan's last round, or the last the budget left */
	bool open[EXP_CONTEXTS_MAX];
};
#define RUN_LOOKS_MAX 100

/* The order of the units within a round. */
enum run_order {
	RUN_ORDER_RANDOM, /* each round a row of a Williams square drawn from the seed (run/order.h) */
	RUN_ORDER_FIXED,  /* A B C D in every round, as the file lists them */
};
extern const struct word run_order_words[];

/* What a run takes beyond its plan. */
struct run_options {
	const char *verb; /* what logs say is running: "run" (NULL), "explain", "calibrate" */
	/* The command that runs it again, but for its --order and --seed,
	 * which the run adds (schedule.json's "command"); NULL: none. */
	const char *command;
	enum run_order order;
	uint64_t seed; /* of the rounds' orders; with seed_given, else one is drawn (a resumed run keeps its own) */
	bool seed_given;
	double confidence; /* of the intervals that judge the rounds; 0: the default */
	/* repeat = auto: after the pilot, how many rounds in all the target
	 * needs, from the document of record so far; returns >= 0, or -errno
	 * (logged). */
	int (*rounds_needed)(void *userdata, const json_t *doc, unsigned *ret);
	/* repeat = decide: after a round that is a look (stats/sequential.h's
	 * seq_is_look(), or the last), which contexts the rounds after must
	 * run (ret_open[c], the baseline while any other does), from the
	 * document of record so far, whose schedule holds the looks before
	 * this one; returns >= 0, or -errno (logged). */
	int (*look)(void *userdata, const json_t *doc, unsigned round, bool final, bool *ret_open);
	/* The spread between starts the plan of repeat = decide assumed, and
	 * where it came from ("assumed", "calibrate"); 0: none recorded. */
	double planned_sigma;
	const char *planned_from;
	void *userdata;
	/* A run that finished (or stopped cleanly): its document of record
	 * and its results directory, for the caller to report; NULL: nothing. */
	void (*finished)(void *userdata, const json_t *doc, const char *dir);
	/* The budget's end, on now_ns()'s clock: no round after the first is
	 * begun that would end past it at the longest round's time so far;
	 * 0: none. */
	uint64_t deadline_ns;
	/* set by the run */
	bool refused; /* bad --out or --resume, or results files not as run writes them: nothing started */
	enum run_stop stopped;
	unsigned rounds;	/* rounds begun */
	unsigned rounds_wanted; /* repeat = auto: what rounds_needed asked for */
	unsigned looks;		/* repeat = decide: the looks taken */
	uint64_t seed_used;
	double unit_s; /* what a unit (its start and steps) took here on average; 0: none ran */
};

/* Runs the plan into the results directory out (NULL:
 * results/NAME-YYYYmmdd-HHMMSS), created, or with resume reopened and only
 * what is missing run.  o may be NULL (the defaults; repeat = auto then runs
 * every repeat up to its maximum).  Returns the number of failed steps, or
 * -errno (logged): -EINTR when a signal ended the run (interrupt_signal says
 * which), -ECANCELED when on-error = stop did. */
int run_experiment(const struct experiment *e, const struct run_plan *plan, const char *out, bool resume,
		   struct run_options *o);

/* In the container sandbox, a results directory dir that would vanish
 * with it (store/reach.c): -EXDEV, logged; 0 when it lands on the host. */
int run_check_reaches_host(const char *verb, const char *dir);

/* Every context of e, into the results directory out (created; refused if
 * it holds results).  Returns as run_experiment(). */
int run_whole_experiment(const struct experiment *e, const char *out, struct run_options *o);

/* Inside the run engine (run/run.h): the state of one run, shared by
 * its parts: the plan (plan.c), the units and their steps (unit.c), the
 * neighbours beside a step (neighbours.c), live changes (live.c) and the
 * rounds (rounds.c).  Not for use outside run/. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "run/run.h"
#include "experiment/experiment.h"
#include "managed/unit.h"
#include "oltp/oltp.h"
#include "store/results.h"
#include "common/util.h"

/* [vary] mode; an experiment not read from a file (explain's) restarts. */
static inline unsigned runner_vary_modes(const struct experiment *e)
{
	return e->vary_modes ? e->vary_modes : VARY_RESTART;
}

struct runner {
	const char *verb; /* the log prefix: run, explain, calibrate */
	const char *command; /* run_options' */
	char *kept_command;  /* a resumed run's schedule.json "command", kept as it is */
	enum run_order order;
	uint64_t seed;
	unsigned slot; /* the running unit's place in its round's order, from 1 */
	const struct experiment *e;
	const struct run_plan *plan;
	struct results *res;
	struct managed_servers servers;
	struct oltp_options o;
	size_t units_done, steps_done, steps_failed;
	size_t steps_run;		/* of steps_done, those measured by this process (not found recorded) */
	size_t n_units, n_steps;	/* the plan's, or repeat = auto's once its rounds are chosen */
	uint64_t start_ns, work_start_ns; /* the run's start, and its first unit's in this process */
	/* repeat = decide: the looks so far (a resumed run's from its
	 * schedule.json), and the plan behind them */
	struct run_look looks[RUN_LOOKS_MAX];
	size_t n_looks;
	double planned_sigma;
	const char *planned_from;
	double copy_s; /* the units' pristine datadirs' copies (managed_servers.template), added up */
};

/* What a line of progress is: a note (a run's start and end, the budget's
 * word), a unit's start, or a step. */
enum progress_kind {
	PROGRESS_NOTE,
	PROGRESS_UNIT,
	PROGRESS_STEP,
};
/* Progress on the terminal as the verbosity and the kind say, and every
 * line in the journal and the results directory's log. */
void runner_progress(enum progress_kind kind, const char *fmt, ...) _printf_(2, 3);

/* The plan's own time of a server start and of a step of e (run/plan.c). */
double run_plan_unit_s(const struct experiment *e);
double run_plan_step_s(const struct experiment *e);
/* "12m05s" into buf: the time left at this process's measured pace (the
 * plan's times of the work it ran against the time it took), the plan's
 * times before it ran any; steps found recorded (--resume) take none. */
void runner_eta(const struct runner *rn, char *buf, size_t len);

/* Has every step of the unit named unit been recorded? */
bool runner_unit_done(const struct runner *rn, const char *unit);
/* The unit's steps from thread index `from` on, recorded as failed by
 * `why` with reason, so that the report shows a gap and not a zero. */
int runner_put_failed_steps(struct runner *rn, const struct managed_unit *u, size_t from, enum oltp_rule why,
			    const char *reason);
/* The unit's placement (managed_unit_placement()) recorded under its name. */
int runner_put_placement(struct runner *rn, const struct managed_unit *u, const struct oltp_options *o);
/* A unit of the run (its context, vary value, repeat and live given):
 * made with the run's servers and progress lines, its names made. */
int runner_unit_init(struct runner *rn, struct managed_unit *u);
/* A unit's start is counted, for the progress lines and the ETA. */
void runner_unit_begins(struct runner *rn);
/* The steps of a unit whose server runs, those not yet recorded.
 * Returns <0 for what must end the run. */
int runner_unit_steps(struct runner *rn, struct managed_unit *u, const struct oltp_options *o);
/* One unit: a fresh server in the context, its steps, the server stopped.
 * Returns <0 only for what must end the run. */
int runner_run_unit(struct runner *rn, size_t ctx, size_t v, unsigned repeat);

/* One step of unit u with the experiment's neighbours beside it
 * (neighbours.c).  o is the step's own copy of the unit's options, which
 * must live as long as *s. */
int runner_step(struct runner *rn, const struct managed_unit *u, struct oltp_options *o, unsigned threads,
		struct step_result *s);

/* The units of one repeat of a context in mode = live (live.c). */
int runner_run_live_unit(struct runner *rn, size_t ctx, unsigned repeat);

/* Every round of the plan (rounds.c). */
int runner_run_rounds(struct runner *rn, struct run_options *o);
/* A resumed run's looks, from its schedule.json: -EBADMSG when not as
 * run writes them. */
int runner_resume_looks(struct runner *rn, const json_t *sched);

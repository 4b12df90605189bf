/* A run's progress: a line on the terminal for what a user follows, the
 * same in the journal and in the results directory's log.  On a terminal
 * the units and their steps share one line that each replaces; elsewhere
 * (a pipe, a file) each unit is a line of its own and its steps are
 * left to -v; -q leaves the terminal to the answer and the warnings. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-journal.h>

#include "run/runner.h"
#include "common/util.h"

static enum run_verbosity verbosity = RUN_NORMAL;

void run_set_verbosity(enum run_verbosity v)
{
	verbosity = v;
}

void runner_progress(enum progress_kind kind, const char *fmt, ...)
{
	_cleanup_free_ char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		return;
	log_copy_line(line);
	sd_journal_send("MESSAGE=slicebench: %s", line, "SYSLOG_IDENTIFIER=slicebench", "PRIORITY=6", NULL);
	if (verbosity == RUN_QUIET)
		return;
	if (kind != PROGRESS_NOTE && verbosity == RUN_NORMAL && terminal_columns(STDERR_FILENO)) {
		status_show(line);
		return;
	}
	if (kind == PROGRESS_STEP && verbosity == RUN_NORMAL)
		return;
	status_clear();
	fprintf(stderr, "slicebench: %s\n", line);
}

void runner_eta(const struct runner *rn, char *buf, size_t len)
{
	const struct experiment *e = rn->e;
	double per_unit = rn->n_units ? (double)rn->n_steps / (double)rn->n_units : 1;
	size_t steps_left = rn->n_steps > rn->steps_done ? rn->n_steps - rn->steps_done : 0;
	double units_left = ceil((double)steps_left / per_unit);
	double planned_done = (double)rn->units_done * run_plan_unit_s(e) + (double)rn->steps_run * run_plan_step_s(e);
	double left = units_left * run_plan_unit_s(e) + (double)steps_left * run_plan_step_s(e);
	double took = rn->work_start_ns ? (double)(now_ns() - rn->work_start_ns) / 1e9 : 0;

	/* The pace once a unit's worth has run: before, a start's ping and
	 * warm-up alone would say the run takes many times the plan. */
	if (planned_done >= run_plan_unit_s(e) + run_plan_step_s(e) && took > 0)
		left *= took / planned_done;
	snprintf(buf, len, "%ldm%02lds", (long)left / 60, (long)left % 60);
}

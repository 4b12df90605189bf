/* A run's progress: a line on the terminal for what a user follows, the
 * same in the journal and in the results directory's log.  On a terminal
 * the units and their steps share one line that each replaces; elsewhere
 * (a pipe, a file) each unit is a line of its own and its steps are
 * left to -v; -q leaves the terminal to the answer and the warnings. */
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

/* A run's progress: on the terminal, and the same line in the journal. */
#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-journal.h>

#include "run/runner.h"
#include "common/util.h"

/* Progress on the terminal, and the same line in the journal when one is
 * reachable, so that a run can be lined up with the system's logs. */
void runner_progress(const char *fmt, ...)
{
	_cleanup_free_ char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		return;
	fprintf(stderr, "slicebench: %s\n", line);
	sd_journal_send("MESSAGE=slicebench: %s", line, "SYSLOG_IDENTIFIER=slicebench", "PRIORITY=6", NULL);
}

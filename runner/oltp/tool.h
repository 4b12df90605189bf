/* A real load generator run as a child (sysbench, pgbench) for the
 * cross-check drivers: its argv built option by option, its client CPUs,
 * its output read to the end while the host and its threads are sampled
 * once a second, a deadline and a signal that kill it, and the sentence
 * for a run that gave no report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "oltp/oltp.h"
#include "common/util.h"

#define TOOL_ARGS_MAX 48

struct tool_argv {
	char *argv[TOOL_ARGS_MAX + 1]; /* NULL-terminated; every entry is owned */
	size_t n;
	bool oom; /* an entry could not be made (or there were too many) */
};

/* The pgbench that runs: Debian's own binary rather than the pg_wrapper in
 * PATH, which would pick the version of whatever cluster it finds. */
const char *tool_pgbench(const struct oltp_options *o);

/* Appends one formatted argument. */
void tool_arg(struct tool_argv *a, const char *fmt, ...) _printf_(2, 3);
void tool_argv_done(struct tool_argv *a);

/* One run of a tool for a step: size threads (or clients) for time_s
 * seconds, or events transactions in all when not 0; with samples, its
 * telemetry into samples->samples; its output (to free()) and wait status
 * back in out and status. */
struct tool_step {
	unsigned size;
	uint64_t time_s, events;
	struct step_result *samples;
	char *out;
	int status;
};

/* Runs a->argv once, for at most timeout_s; its stdout and stderr in
 * *ret_out, its wait status in *ret_status.  With samples, its telemetry
 * (its threads as the client) in samples->samples.  -EINTR if a signal
 * came, -ETIMEDOUT if it overran (it is killed either way). */
int tool_run(const struct oltp_options *o, const struct tool_argv *a, uint64_t timeout_s, struct step_result *samples,
	     char **ret_out, int *ret_status);

/* After tool_run(): 1 with ret->failed and ret->reason set if the run gave
 * no report (interrupted, overran, could not start, exited non-zero: then
 * the first line of out holding `marker` is quoted), 0 if it did, r if r
 * is another error. */
int tool_failed(const char *tool, int r, int status, const char *out, const char *marker, struct step_result *ret);

/* In a tool's report: the number after the first `key` ("tps = 4530.1"),
 * and the whole count after it ("processed: 13590"), which a report that
 * is not the tool's may spell out of range: a count is digits only, up to
 * a space or pgbench's "/" of the planned total. */
bool tool_report_number(const char *text, const char *key, double *ret);
bool tool_report_count(const char *text, const char *key, uint64_t *ret);

/* The per-second lines of a tool's report, the first that holds `prefix`
 * and those after it that begin with it: each rate that rate() reads from
 * a line appended to ret->intervals, a line it refuses passed over. */
int tool_report_intervals(const char *text, const char *prefix,
			  bool (*rate)(const char *line, const void *userdata, double *ret_tps), const void *userdata,
			  struct step_result *ret);

/* The OLTP engine over the servers' client libraries: connections, the
 * dataset, a step of each driver, the background load, the telemetry
 * sampler.  What needs no client library is apart: the workloads and the
 * options (oltp/options.h), the step record (oltp/record.h), so that
 * the report and the results store read steps without <mysql.h>. */
#pragma once

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <mysql.h>

#include "oltp/record.h"
#include "oltp/options.h"

static inline void mysql_closep(MYSQL **m)
{
	if (*m)
		mysql_close(*m);
}
#define _cleanup_mysql_ __attribute__((cleanup(mysql_closep)))

/* A connection over o->socket as o->user with no password, timeouts set,
 * to database db (NULL: none).  On failure *ret_msg says why. */
int oltp_connect_flags(const struct oltp_options *o, const char *db, unsigned flags, MYSQL **ret, char **ret_msg);
#define OLTP_CONNECT_LOCAL_INFILE 1u /* allow LOAD DATA LOCAL (prepare's loader) */
/* No read or write timeout: a step's worker, whose socket the step frame
 * shuts down if it still waits after the step (oltp/frame.h). */
#define OLTP_CONNECT_WATCHED 2u
static inline int oltp_connect(const struct oltp_options *o, const char *db, MYSQL **ret, char **ret_msg)
{
	return oltp_connect_flags(o, db, 0, ret, ret_msg);
}

/* The workload's row, for o->workload: the dataset made or checked, the
 * buffers warmed. */
int oltp_prepare(const struct oltp_options *o, char **ret_msg);
int oltp_prewarm(const struct oltp_options *o, char **ret_msg);

/* oltp_read_only's row: sbtest1..N created and loaded, or checked and
 * reused; the buffer pool warmed through the PK and through k, each query
 * given OLTP_PREWARM_TIMEOUT_S. */
#define OLTP_PREWARM_TIMEOUT_S 600
int sbtest_prepare(const struct oltp_options *o, char **ret_msg);
int sbtest_prewarm(const struct oltp_options *o, char **ret_msg);

/* A signal caught (common/interrupt.h) ends the running step as failed,
 * "interrupted", and prepare with -EINTR. */

/* One step.  Returns 0 with *ret filled, also for a failed step (ret->failed,
 * ret->reason); <0 only if the step could not be set up (no threads started). */
int oltp_run_step(const struct oltp_options *o, unsigned threads, struct step_result *ret);
int sysbench_run_step(const struct oltp_options *o, unsigned threads, struct step_result *ret);
/* The step of o->workload with o->driver. */
int oltp_step(const struct oltp_options *o, unsigned threads, struct step_result *ret);
/* A native oltp_read_only client of `threads` connections that runs in a
 * process of its own beside a step, until stopped: an oltp neighbour's.
 * Its threads are not the step's client's in the step's telemetry. */
struct oltp_background;
int oltp_background_start(const struct oltp_options *o, unsigned threads, struct oltp_background **ret);
/* Stops and reaps it; *ret holds its TPS in the measured seconds of the
 * step `beside` (its whole run's if beside does not say when they were),
 * and failed with the reason if a connection failed or its server went
 * away (-EPIPE: it ended without saying).  NULL b: nothing. */
int oltp_background_stop(struct oltp_background *b, const struct step_result *beside, struct step_result *ret);
/* The mean of per-second rates, the first second from start_ns and the
 * last ending at end_ns, over [from_ns, to_ns), each second weighted by
 * its overlap; NAN when none overlaps. */
double oltp_rate_within(const double *rates, size_t n, uint64_t start_ns, uint64_t end_ns, uint64_t from_ns,
			uint64_t to_ns);
/* Parse sysbench 1.0.20's run output into *ret (exposed for the tests). */
int sysbench_parse_report(const char *text, struct step_result *ret);

/* Telemetry, sampled about once a second by the step's main thread
 * (oltp/telemetry.c).  Client threads are this process's other threads. */
struct oltp_telemetry;
int oltp_telemetry_new(const struct oltp_options *o, struct oltp_telemetry **ret);
/* The next sample's CPU shares count from now (new() starts them too): the
 * measured phase's first second is not mixed with the warmup. */
void oltp_telemetry_restart(struct oltp_telemetry *t);
void oltp_telemetry_free(struct oltp_telemetry *t);
int oltp_telemetry_sample(struct oltp_telemetry *t, double t_s, struct oltp_telemetry_sample *ret);
/* The server's profile since the measured phase began (o->profile_hz)
 * into ret->profile, the sampler stopped: its folded stacks, or why none
 * were taken.  Nothing where none was asked for; NULL t: nothing. */
void oltp_telemetry_profile(struct oltp_telemetry *t, struct step_result *ret);
/* The client's threads are those of pid (sysbench) rather than ours. */
void oltp_telemetry_set_client(struct oltp_telemetry *t, int pid);
/* One more sample at t_s into ret->samples; an unreadable one is left out. */
int oltp_telemetry_append(struct oltp_telemetry *t, double t_s, struct step_result *ret);

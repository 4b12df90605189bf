/* The step record all drivers fill alike (oltp/record.c), with its JSON
 * form, the telemetry samples in it and the evidence of mechanism the
 * report reads from it.  No client library here. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "oltp/mechanism.h"
#include "oltp/options.h"
#include "oltp/sample.h"
#include "profile/folded.h"

/* The one rule of which starts count, which run, report and explain
 * apply alike (oltp/rule.c): a row per reason to leave one out, in the
 * order they are tried.  A step that failed says why (its record's
 * "failure_class"); one that ran is left out when it completed no
 * transaction, or stalled: for OLTP_STALL_MIN_S seconds or more in a row
 * it completed under a tenth of its pace (the median of its seconds with
 * a transaction), and at that pace those seconds should have held
 * OLTP_STALL_MIN_TXNS transactions or more: a steady server leaves such a
 * gap less than once in a hundred starts (e^-5), a server too slow to fill
 * a second (CPUQuota=1%) does not trip it, and a start at 1.0 TPS whose
 * seconds were 0, 0, 3 does.  One silent second is not a stall: on a
 * loaded machine a descheduled client or server shows one, and the report
 * flags it as noise within a start. */
enum oltp_rule {
	OLTP_RULE_KEPT,
	OLTP_RULE_FAILED,      /* failed otherwise: its set-up, a query, the tool, a signal */
	OLTP_RULE_CONNECTION,  /* a client could not connect, or lost its connection and could not reconnect */
	OLTP_RULE_WARMUP,      /* the warm-up failed, so it ran on a cold buffer pool */
	OLTP_RULE_SERVER_GONE, /* the server or its proxy was no longer running */
	OLTP_RULE_ZERO,        /* it ran and completed no transaction */
	OLTP_RULE_STALLED,
	_OLTP_RULE_MAX,
};
struct oltp_rule_def {
	const char *key;   /* the record's "failure_class" */
	const char *label; /* "the warm-up failed": what removed it, in the report's words */
};
extern const struct oltp_rule_def oltp_rules[_OLTP_RULE_MAX];
#define OLTP_STALL_MIN_S 2
#define OLTP_STALL_MIN_TXNS 5.0
#define OLTP_STALL_NEAR_ZERO 0.1 /* of the pace */
struct step_result;
/* The rule over a step's per-second TPS intervals[0..n) (a missing one
 * counts as silent up to n_seconds), its TPS and whether it failed and
 * why (OLTP_RULE_FAILED when not said).  *ret_from and *ret_len: the
 * longest near-silent run, *ret_pace the mean of the other seconds. */
enum oltp_rule oltp_step_rule(bool failed, enum oltp_rule failed_as, double tps, const double *intervals, size_t n,
			      size_t n_seconds, unsigned *ret_from, unsigned *ret_len, double *ret_pace);
/* The same over a step's record (report, explain). */
enum oltp_rule oltp_step_rule_of_json(const json_t *step);

/* The server's profile in the measured phase (profile/, doc/profile.md):
 * its folded stacks (NULL: none taken) and what the sampler counted, or
 * why it could not sample when one was asked for. */
struct step_profile {
	struct profile *folded;
	unsigned hz;
	bool off_cpu_stacks;
	double seconds;
	uint64_t samples, server_samples, lost, switches;
	double throttled_ms; /* the server's cgroup's throttled time; <0 unknown */
	const char *why;     /* static */
};

/* An open-loop step's (oltp_options.rate): the rate asked for; whether
 * the step's latencies count from each transaction's intended start (the
 * open loop's own figure: the native drivers' and pgbench's) or from its
 * actual start (sysbench --rate's, which leaves out the wait in its
 * queue); the service time from the actual start and the lag between
 * the two, where the driver says them; and the arrivals due by the
 * step's end that had not started then (an overloaded step's backlog,
 * the warm-up's too).  A negative figure,
 * or UINT64_MAX, is not reported. */
struct step_open_loop {
	unsigned rate; /* 0: a closed loop, nothing else here */
	bool constant; /* arrivals every 1/rate, not a Poisson stream */
	bool latency_from_start;
	double service_p50_ms, service_p95_ms, service_p99_ms;
	double lag_avg_ms, lag_max_ms;
	uint64_t backlog_at_end;
	/* With a latency limit (0: none): the measured phase's transactions
	 * above it, and its arrivals skipped, already later than it when their
	 * turn came */
	double latency_limit_ms;
	uint64_t late, skipped;
};

struct histogram;
/* l's service-time percentiles from the histogram of the transactions
 * counted, and its mean and largest lag from their sum and maximum (ns);
 * nothing where none was counted. */
void step_open_loop_service(struct step_open_loop *l, const struct histogram *service, uint64_t lag_sum_ns,
			    uint64_t lag_max_ns);

struct step_result {
	char driver[16];
	unsigned threads;
	double duration_s;
	uint64_t transactions, queries;
	double tps, qps;
	/* ms; a negative value means "not reported" (null in JSON) */
	double lat_avg_ms, lat_p50_ms, lat_p95_ms, lat_p99_ms, lat_max_ms;
	uint64_t errors[_OLTP_ERR_MAX];
	uint64_t reconnects;
	size_t n_intervals;
	double *intervals; /* per-second tps, one per second of the measured phase */
	/* Seconds of the measured phase in which no transaction completed
	 * (the longest run of them from stalled_from_s), and transactions
	 * still in flight at its end, whose latency counts (not their
	 * transaction). */
	unsigned stalled_s, stalled_from_s;
	uint64_t in_flight_at_end;
	/* The initial connection time, as pgbench reports it: from the step's
	 * start until every client was connected (natively, and had prepared
	 * its statements), all of it before the clock of the warm-up and the
	 * measured phase starts; 0: not reported (sysbench's report has none). */
	double connect_s;
	/* CLOCK_MONOTONIC when the measured phase began (a native driver's; 0:
	 * not known), so that what ran beside the step is cut to its seconds */
	uint64_t measured_from_ns;
	size_t n_samples;
	struct oltp_telemetry_sample *samples;
	/* The oltp neighbours' own TPS in the step's measured seconds (over
	 * their clients' whole run when the step's driver does not say when
	 * they were), named as the telemetry names them */
	size_t n_neighbour_tps;
	const char *neighbour_tps_names[OLTP_NEIGHBOURS_MAX];
	double neighbour_tps[OLTP_NEIGHBOURS_MAX];
	/* The CPUs the server's context may use during the step (its
	 * affinity, which its cpuset bounds, and its CPU quota when less); 0:
	 * not known.  The step is saturated when its client threads and the
	 * server threads serving them (one per connection, as both MySQL's
	 * thread-per-connection and PostgreSQL's backends serve them) are more
	 * than that. */
	double cpus;
	/* The client threads were pinned to CPUs the server's context may not
	 * use (client-cpus apart from its affinity): they do not count. */
	bool client_apart;
	struct step_profile profile;
	struct step_open_loop open_loop;
	bool failed;
	enum oltp_rule rule; /* the rule that left it out (OLTP_RULE_KEPT: none); failed ones: why */
	char reason[256];
};

/* The client threads that share the context's CPUs with the server's. */
static inline unsigned step_result_client_threads_in(const struct step_result *r)
{
	return r->client_apart ? 0 : r->threads;
}

/* Whether r's client and server threads are more than its context's
 * CPUs; false when those are not known. */
static inline bool step_result_saturated(const struct step_result *r)
{
	return r->cpus > 0 && (double)(r->threads + step_result_client_threads_in(r)) > r->cpus;
}

/* An empty record of a step by driver at that size; the latencies "not reported". */
void step_result_start(struct step_result *r, enum oltp_driver driver, unsigned threads);
void step_result_done(struct step_result *r); /* frees the arrays and the profile; NULL ok */
/* The step's "profile" object: what the sampler counted, or why not; NULL
 * if none was asked for. */
json_t *step_profile_to_json(const struct step_profile *p);
int step_result_to_json(const struct step_result *r, json_t **ret);
/* What else ran on the host during the step (common/load.h): the CPUs
 * busy (/proc/stat's, the host's even in a container), the part outside
 * slicebench's server, client, proxy and neighbours, whether that makes
 * the host busy, and the load average at its highest (NAN: unknown).
 * -ENODATA without telemetry. */
struct step_host {
	unsigned cpus;
	double busy_cpus, other_cpus, load1_max;
	bool busy;
};
int step_result_host(const struct step_result *r, struct step_host *ret);
/* The rule applied to a step that ran: one that completed nothing or
 * stalled is failed, with the reason; stalled_s counts its seconds without
 * a transaction in any case. */
void step_result_judge(const struct oltp_options *o, struct step_result *r);


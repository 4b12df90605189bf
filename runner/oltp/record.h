/* The step record all drivers fill alike (oltp/record.c), with its JSON
 * form, the telemetry samples in it and the evidence of mechanism the
 * report reads from it.  No client library here. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "oltp/options.h"

/* Where the threads were at one instant, and the host's load (oltp/telemetry.c).
 * Counters marked cumulative are since the process or cgroup started; the
 * report takes deltas. */
struct oltp_telemetry_sample {
	double t_s;                   /* since the start of the measured phase */
	double cpu_user_pct, cpu_sys_pct, cpu_idle_pct; /* host, /proc/stat delta since the previous sample; NAN unknown */
	double load1;
	unsigned procs_running, procs_blocked; /* tasks in R and in D state (/proc/stat), now, the sampler among the R */
	double ctxt_per_s; /* NAN unknown */
	double server_cpu_s;          /* utime+stime of the server (cgroup or /proc/PID/stat), cumulative; <0 unknown */
	double client_cpu_s;          /* utime+stime of the client's process, cumulative; <0 unknown */
	double proxy_cpu_s;           /* utime+stime of the proxy's process, cumulative; <0 unknown or none */
	/* each neighbour's cgroup usage, cumulative (<0 unknown), named as the
	 * options name them (the names are the options' own) */
	size_t n_neighbours;
	double neighbour_cpu_s[OLTP_NEIGHBOURS_MAX];
	const char *const *neighbour_names;
	int64_t nr_throttled, throttled_usec; /* cpu.stat of server_cpu_cgroup, cumulative; -1 unknown */
	/* The last CPU (field 39 of /proc/PID/task/TID/stat) of every server and
	 * client thread, counted per L3 cache group and per NUMA node. */
	unsigned n_l3, n_nodes;
	unsigned *server_per_l3, *client_per_l3;     /* [n_l3] */
	unsigned *server_per_node, *client_per_node; /* [n_nodes] */
	/* Cumulative, summed over every thread seen so far (one that ended with
	 * its last counts); 0 if the kernel does not say. */
	uint64_t server_migrations, client_migrations;
	uint64_t server_nonvol_ctxt, client_nonvol_ctxt; /* cumulative nonvoluntary_ctxt_switches */
	/* Time runnable but not running (schedstat's second field), summed
	 * over threads, cumulative; and the server's run time since the first
	 * sample, all of it and the part whose thread last ran on a CPU where a
	 * client thread last ran (each interval credited to the CPU seen at its
	 * end: an estimate, sharp for a pinned pair, rough for roaming threads). */
	uint64_t server_runq_wait_ns, client_runq_wait_ns;
	uint64_t server_run_ns, server_run_on_client_cpu_ns;
};

/* The evidence of mechanism a step carries beside its TPS (its
 * "mechanism" object): a row per figure, derived from the first and last
 * telemetry samples, so that a step's record, report and explain say the
 * same thing in the same words. */
enum oltp_mechanism_per {
	OLTP_PER_TRANSACTION, /* the counter's growth per second over the step's TPS */
	OLTP_PER_COUNTER,     /* a share: the counter's growth over another's, in % */
};

struct oltp_mechanism_def {
	const char *key;   /* in the step's "mechanism" object */
	const char *label; /* "server run-queue wait per transaction" */
	const char *unit;  /* "us", "%", or "" for a count */
	double scale;      /* counter units per unit shown */
	size_t counter;    /* offsetof(struct oltp_telemetry_sample, the cumulative counter) */
	enum oltp_mechanism_per per;
	size_t of;         /* OLTP_PER_COUNTER: offsetof the denominator */
};

#define OLTP_MECHANISM_MAX 8
/* The rows; *ret_n of them. */
const struct oltp_mechanism_def *oltp_mechanism_table(size_t *ret_n);
/* The figure of row d over a step's samples; NAN without two samples, a
 * transaction or a denominator that grew. */
double oltp_mechanism_value(const struct oltp_mechanism_def *d, const struct step_result *r);

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
	bool failed;
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
void step_result_done(struct step_result *r); /* frees the arrays; NULL ok */
int step_result_to_json(const struct step_result *r, json_t **ret);
/* A stall fails a step: OLTP_STALL_MIN_S seconds in a row of its measured
 * phase without a completed transaction (for the native driver, a missing
 * interval counts), from a server that completed at least
 * OLTP_STALL_MIN_PACE a second in its other seconds; the reason names the
 * gap.  One silent second is not a stall: on a loaded machine a
 * descheduled client or server shows one, and the report flags it as noise
 * within a start.  Nor is the silence of a server too slow for a second to
 * hold a transaction (CPUQuota=1%), or of one that completed nothing at all
 * (its result is 0 TPS).  stalled_s counts the silent seconds in any case. */
#define OLTP_STALL_MIN_S 2
#define OLTP_STALL_MIN_PACE 10.0
void step_result_check_stall(const struct oltp_options *o, struct step_result *r);

/* A sample's arrays freed, and a sample as JSON (oltp/telemetry.c). */
void oltp_telemetry_sample_done(struct oltp_telemetry_sample *s);
json_t *oltp_telemetry_sample_to_json(const struct oltp_telemetry_sample *s);

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
<<<<<<< HEAD
#include "oltp/sample.h"
=======
#include "profile/folded.h"

/* Where the threads were at one instant, and the host's load (oltp/telemetry.c).
 * Counters marked cumulative are since the process or cgroup started; the
 * report takes deltas. */
struct oltp_telemetry_sample {
	double t_s;                   /* since the start of the measured phase */
	double wall_s;                /* when it was taken, seconds since the epoch: an outside tool's same seconds */
	/* host, /proc/stat delta since the previous sample as vmstat reads it
	 * (common/load.h); busy CPUs: the CPUs' worth of user and sys; NAN unknown */
	double cpu_user_pct, cpu_sys_pct, cpu_idle_pct, cpu_iowait_pct, host_busy_cpus;
	unsigned n_cpus; /* /proc/stat's */
	double load1;    /* NAN unknown */
	/* /proc/stat's tasks runnable (the host's, the sampler among them) and
	 * waiting on I/O, now; and the threads in R and in D state as `ps
	 * -eLo stat` counts them (those this PID namespace sees) */
	unsigned procs_running, procs_blocked;
	unsigned tasks_running, tasks_uninterruptible;
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
	uint64_t server_vol_ctxt, client_vol_ctxt;       /* cumulative voluntary_ctxt_switches */
	/* Time runnable but not running (schedstat's second field), summed
	 * over threads, cumulative; and the server's run time since the first
	 * sample, all of it and the part whose thread last ran on a CPU where a
	 * client thread last ran (each interval credited to the CPU seen at its
	 * end: an estimate, sharp for a pinned pair, rough for roaming threads). */
	uint64_t server_runq_wait_ns, client_runq_wait_ns;
	uint64_t server_run_ns, server_run_on_client_cpu_ns;
	/* The server threads' hardware counters, cumulative (oltp/pmu.h);
	 * OLTP_PMU_UNKNOWN without a PMU, and then pmu_why (static) says why. */
	uint64_t server_instructions, server_cycles, server_llc_misses;
	const char *pmu_why;
	/* Where the server's wake-ups landed (oltp/wakeups.h), cumulative:
	 * those seen, those in another L3 group than the waker's, the records
	 * dropped; UINT64_MAX when not sampled, and then wakeups_why (static)
	 * says why if they were asked for. */
	uint64_t server_wakeups, server_wakeups_cross_l3, wakeups_lost;
	const char *wakeups_why;
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

#define OLTP_MECHANISM_MAX 12
/* The rows; *ret_n of them. */
const struct oltp_mechanism_def *oltp_mechanism_table(size_t *ret_n);
/* The figure of row d over a step's samples; NAN without two samples, a
 * transaction or a denominator that grew. */
double oltp_mechanism_value(const struct oltp_mechanism_def *d, const struct step_result *r);
>>>>>>> main

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


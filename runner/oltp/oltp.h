/* The OLTP workloads: sysbench's oltp_read_only over the MySQL protocol,
 * pgbench's select-only and tpcb-like over PostgreSQL's (oltp/pg.h), each a
 * row of one table with its dataset preparation, its native driver and
 * the real tool that runs the same step; and the step record with its
 * JSON form, which all drivers fill alike. */
#pragma once

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <mysql.h>

#include "oltp/sbrand.h"

#define OLTP_MAX_CPUS 1024
#define OLTP_NEIGHBOURS_MAX 4

enum oltp_pin {
	OLTP_PIN_INHERIT,     /* leave the client threads where the scheduler puts them */
	OLTP_PIN_ROUND_ROBIN, /* worker i pinned to cpus[i % n] */
	OLTP_PIN_ALL,         /* every worker allowed on the whole list */
};

enum oltp_driver {
	OLTP_DRIVER_NATIVE,   /* "slicebench" */
	OLTP_DRIVER_SYSBENCH, /* the real sysbench 1.0.20 */
	OLTP_DRIVER_PGBENCH,  /* the real pgbench */
	_OLTP_DRIVER_MAX,
};

enum oltp_workload {
	OLTP_WORKLOAD_READ_ONLY,   /* sysbench's oltp_read_only */
	OLTP_WORKLOAD_SELECT_ONLY, /* pgbench -b select-only */
	OLTP_WORKLOAD_TPCB_LIKE,   /* pgbench -b tpcb-like */
	OLTP_WORKLOAD_POINT_SELECT, /* sysbench's oltp_point_select */
	_OLTP_WORKLOAD_MAX,
};

/* The words of the drivers (slicebench, its alias native, sysbench, pgbench) and of
 * the pinning modes a user names (all, round-robin). */
extern const struct word oltp_driver_words[];
extern const struct word oltp_pin_words[];

struct oltp_options {
	enum oltp_workload workload; /* oltp_read_only */
	const char *socket; /* required; PostgreSQL: the socket's directory, or its .s.PGSQL.PORT */
	const char *user;   /* "root" */
	const char *password; /* NULL: none (the socket's peer); a proxy's that has one (ProxySQL) */
	const char *db;     /* NULL: the workload's ("sbtest", "pgbench") */
	unsigned tables;    /* 1 */
	unsigned table_size; /* 10000 */
	unsigned scale;      /* pgbench's scale factor: 100000 accounts each (1) */
	unsigned client_threads; /* threads driving the connections (pgbench -j); 0: the workload's way */
	unsigned prepare_threads; /* 0: one per table, at most 16 */
	unsigned range_size;      /* 100 */
	uint64_t duration_ns;     /* measured time; 10 s */
	uint64_t warmup_ns;       /* not counted; 0 */
	uint64_t events;          /* stop after this many transactions (0: time only) */
	struct sbrand_params rand;
	uint64_t seed;            /* 0: from the clock */
	enum oltp_driver driver;
	enum oltp_pin pin;
	unsigned n_client_cpus;
	unsigned client_cpus[OLTP_MAX_CPUS];
	int server_pid;                /* for telemetry; 0 if unknown */
	int proxy_pid;                 /* the proxy between client and server, for telemetry; 0: none */
	const char *server_cpu_cgroup; /* directory holding cpu.stat, or NULL */
	const char *server_usage_cgroup; /* the server's own cgroup counting its CPU time (v2's cpu.stat, v1's
					    cpuacct.usage); NULL: its processes' times, with their reaped children's */
	/* The experiment's neighbours beside the step, for telemetry: their
	 * names, the directories counting their cgroups' CPU time (NULL: the
	 * process's own is read) and their PIDs */
	size_t n_neighbours;
	const char *neighbour_names[OLTP_NEIGHBOURS_MAX];
	const char *neighbour_cpu_cgroups[OLTP_NEIGHBOURS_MAX];
	int neighbour_pids[OLTP_NEIGHBOURS_MAX];
	unsigned max_reconnects;       /* per worker; 3 */
	unsigned timeout_s;            /* connect/read/write timeout; 10 */
	bool prewarm;                  /* warm the buffer pool before the step */
	const char *sysbench_path;     /* "sysbench" */
	const char *pgbench_path;      /* "pgbench" */
	bool progress;                 /* a line per second on stderr */
	/* A client in the background (an oltp neighbour's): it runs until
	 * *until is set rather than for duration_ns, and samples no
	 * telemetry; NULL: a step of its own. */
	const atomic_bool *until;
};

/* The workload's defaults, here for oltp_options_default() and for the
 * experiment keys of the same name. */
#define OLTP_DEFAULT_TABLES 1
#define OLTP_DEFAULT_TABLE_SIZE 10000
#define OLTP_DEFAULT_DURATION_S 10
#define OLTP_DEFAULT_THREADS "1,2,4" /* the thread counts of a sweep */

void oltp_options_default(struct oltp_options *o);

struct step_result;
struct placement;
/* A workload is its row: everything that differs between them; its name
 * is its word in oltp_workload_words. */
struct oltp_workload_def {
	const char *protocol; /* the servers it runs against: "mysql" or "postgresql" */
	const char *db;       /* the default database */
	const char *unit;     /* what a step's size counts: "threads" or "clients" */
	const char *unit_one; /* and one of them: "thread", "client" */
	/* "pgbench's scale 10 (1000000 accounts)", "1 x 10000 rows" */
	void (*data_size)(const struct oltp_options *o, char *buf, size_t len);
	enum oltp_driver tool; /* the real tool that --driver may name besides slicebench */
	/* sysbench's: its script, and what an event of it runs (point selects
	 * on one table drawn per event; with ranges, BEGIN, the four ranges,
	 * each on a table of its own, and COMMIT around them) */
	const char *script;
	unsigned point_selects;
	bool ranges;
	/* The dataset made or checked; a mismatching one is -EEXIST with the
	 * table named in *ret_msg (never NULL here: oltp_prepare() hands
	 * the message on only if its caller asked). */
	int (*prepare)(const struct oltp_options *o, char **ret_msg);
	/* The server's buffers warmed with the dataset (*ret_msg as above). */
	int (*prewarm)(const struct oltp_options *o, char **ret_msg);
	/* One step with `size` threads or clients: 0 with *ret filled, also
	 * for a failed step; <0 only if it could not be set up. */
	int (*run_native)(const struct oltp_options *o, unsigned size, struct step_result *ret);
	int (*run_tool)(const struct oltp_options *o, unsigned size, struct step_result *ret);
};

/* oltp_read_only, select-only, tpcb-like: as --workload and experiment
 * files spell them. */
extern const struct word oltp_workload_words[];
const struct oltp_workload_def *oltp_workload_def(enum oltp_workload w);
const char *oltp_workload_name(enum oltp_workload w);
/* "client" or "clients", "thread" or "threads": n of what w's step counts. */
const char *oltp_size_unit(enum oltp_workload w, long long n);
/* "select-only or tpcb-like": the workloads of a protocol (NULL: all), for messages. */
const char *oltp_workload_list(const char *protocol);
/* Can this driver run this workload?  0, or -EINVAL with *ret_why (static)
 * saying which drivers can. */
int oltp_driver_check(enum oltp_workload w, enum oltp_driver d, const char **ret_why);
/* o->db, or the workload's default. */
const char *oltp_db(const struct oltp_options *o);

enum oltp_err_class { OLTP_ERR_IGNORABLE, OLTP_ERR_RECONNECT, OLTP_ERR_FATAL, _OLTP_ERR_MAX };
enum oltp_err_class oltp_classify_error(unsigned mysql_errno);

/* Where the threads were at one instant, and the host's load (oltp/telemetry.c).
 * Counters marked cumulative are since the process or cgroup started; the
 * report takes deltas. */
struct oltp_telemetry_sample {
	double t_s;                   /* since the start of the measured phase */
	double wall_s;                /* when it was taken, seconds since the epoch: an outside tool's same seconds */
	/* host, /proc/stat delta since the previous sample as vmstat reads it
	 * (host/load.h); busy CPUs: the CPUs' worth of user and sys; NAN unknown */
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
void step_result_done(struct step_result *r); /* frees the arrays; NULL ok */
int step_result_to_json(const struct step_result *r, json_t **ret);
/* What else ran on the host during the step (host/load.h): the CPUs
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
void oltp_telemetry_sample_done(struct oltp_telemetry_sample *s);
/* The client's threads are those of pid (sysbench) rather than ours. */
void oltp_telemetry_set_client(struct oltp_telemetry *t, int pid);
/* One more sample at t_s into ret->samples; an unreadable one is left out. */
int oltp_telemetry_append(struct oltp_telemetry *t, double t_s, struct step_result *ret);
json_t *oltp_telemetry_sample_to_json(const struct oltp_telemetry_sample *s);

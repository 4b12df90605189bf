/* The options of an OLTP step and the workloads' types: sysbench's
 * oltp_read_only over the MySQL protocol, pgbench's select-only and
 * tpcb-like over PostgreSQL's (oltp/pg.h), each a row of one table
 * (oltp/workload.c, which names each one's dataset preparation, native
 * driver and real tool, and so includes the engine: not this header's
 * name).  No client library here: an experiment, the report and the
 * store include this, and only the engine (oltp/oltp.h) <mysql.h>. */
#pragma once

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/words.h"
#include "oltp/sbrand.h"

#define OLTP_MAX_CPUS 1024
/* The most threads (or clients) of one step: the experiment file's limit
 * and the results store's. */
#define OLTP_STEP_THREADS_MAX 100000
#define OLTP_NEIGHBOURS_MAX 4
/* The highest open-loop rate, transactions a second: the experiment
 * file's limit and the results store's. */
#define OLTP_RATE_MAX 10000000

enum oltp_pin {
	OLTP_PIN_INHERIT,     /* leave the client threads where the scheduler puts them */
	OLTP_PIN_ROUND_ROBIN, /* worker i pinned to cpus[i % n] */
	OLTP_PIN_ALL,         /* every worker allowed on the whole list */
};

/* How an open loop's arrivals are spaced. */
enum oltp_arrivals {
	OLTP_ARRIVALS_POISSON,	/* exponential gaps, as sysbench's and pgbench's --rate */
	OLTP_ARRIVALS_CONSTANT, /* every 1/rate exactly: no burst of the stream's own */
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
	OLTP_WORKLOAD_READ_WRITE,   /* sysbench's oltp_read_write */
	OLTP_WORKLOAD_WRITE_ONLY,   /* sysbench's oltp_write_only */
	OLTP_WORKLOAD_UPDATE_INDEX, /* sysbench's oltp_update_index */
	OLTP_WORKLOAD_INSERT,       /* sysbench's oltp_insert */
	OLTP_WORKLOAD_LUA_SCRIPT,   /* the user's sysbench script (oltp_options.scripts) */
	OLTP_WORKLOAD_PGBENCH_SCRIPT, /* the user's pgbench scripts, each FILE[@WEIGHT] */
	_OLTP_WORKLOAD_MAX,
};

/* The figures a native step can go without, to measure what each costs
 * the client (sweep --without): none is off in a run. */
enum oltp_figure {
	OLTP_FIGURE_LATENCY = 1u << 0,	/* the latency histogram: a bucket per transaction */
	OLTP_FIGURE_SECONDS = 1u << 1,	/* the per-second counts, and the stall rule on them */
	OLTP_FIGURE_SAMPLES = 1u << 2,	/* the once-a-second telemetry sampler, all of it */
	OLTP_FIGURE_THREADS = 1u << 3,	/* of the sampler, every thread's counters from /proc */
};
/* latency, per-second, telemetry, thread-counters */
extern const struct word oltp_figure_words[];

/* The words of the drivers (slicebench, its alias native, sysbench, pgbench) and of
 * the pinning modes a user names (all, round-robin). */
extern const struct word oltp_driver_words[];
extern const struct word oltp_pin_words[];
/* poisson, constant */
extern const struct word oltp_arrivals_words[];

struct oltp_options {
	enum oltp_workload workload; /* oltp_read_only */
	/* The user's scripts (OLTP_WORKLOAD_*_SCRIPT): absolute paths,
	 * blank-separated, a pgbench script's with its @WEIGHT. */
	const char *scripts;
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
	/* An open loop: transactions arrive at this many a second (a Poisson
	 * stream, as sysbench's and pgbench's --rate make it) whatever the
	 * server's pace, and a latency counts from each one's intended start;
	 * 0: a closed loop, each connection's next transaction sent when its
	 * last one is answered. */
	unsigned rate;
	/* With rate: a transaction whose latency is above this counts late,
	 * and one already later than this when its turn comes is skipped (as
	 * pgbench --latency-limit); 0: none. */
	uint64_t latency_limit_ns;
	enum oltp_arrivals arrivals;
	struct sbrand_params rand;
	uint64_t seed;            /* 0: from the clock */
	enum oltp_driver driver;
	enum oltp_pin pin;
	unsigned n_client_cpus;
	unsigned client_cpus[OLTP_MAX_CPUS];
	int server_pid;                /* for telemetry; 0 if unknown */
	int proxy_pid;                 /* the proxy between client and server, for telemetry; 0: none */
	const char *server_cpu_cgroup; /* directory holding cpu.stat, or NULL */
	bool wakeups;                  /* sample where the server's wake-ups land (oltp/wakeups.h), at a cost */
	bool profile;                  /* sample the server's stacks (profile/sampler.h), at profile_hz */
	unsigned profile_hz;
	bool profile_off_cpu;          /* and the stack of each of its switches (the reasons it waited), at a cost */
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
	unsigned figures_off;          /* enum oltp_figure's bits: what a cost measurement goes without */
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
	/* sysbench's: its script, and what an event of it runs, in the
	 * script's order, each block on a table drawn for it (oltp_common's
	 * defaults): BEGIN first and COMMIT last (transaction), point selects,
	 * one of each of the four ranges, index updates, non-index updates,
	 * DELETE and INSERT pairs of one id, and oltp_insert's INSERT of a new
	 * row (a text query, as the script sends it). */
	const char *script;
	bool user_script; /* the user's file (oltp_options.scripts): the tool's driver only */
	bool transaction;
	unsigned point_selects;
	bool ranges;
	unsigned index_updates, non_index_updates, delete_inserts;
	bool insert;
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
/* Can this driver run this workload?  0, or -EINVAL with *ret_why (to free())
 * saying which drivers can. */
int oltp_driver_check(enum oltp_workload w, enum oltp_driver d, char **ret_why);
/* o->db, or the workload's default. */
const char *oltp_db(const struct oltp_options *o);

enum oltp_err_class { OLTP_ERR_IGNORABLE, OLTP_ERR_RECONNECT, OLTP_ERR_FATAL, _OLTP_ERR_MAX };
enum oltp_err_class oltp_classify_error(unsigned mysql_errno);

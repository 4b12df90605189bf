/* A telemetry sample (sample.c): where the threads were at one instant,
 * and its record. */
#pragma once

#include <stdint.h>

#include <jansson.h>

#include "oltp/options.h"

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

/* A figure as JSON, null where the record says it is unknown: by NaN, or
 * (a time, a latency, a CPU rate) by a negative value. */
json_t *oltp_json_real_unless_nan(double v);
json_t *oltp_json_real_unless_negative(double v);

/* A sample's arrays freed, and a sample as JSON. */
void oltp_telemetry_sample_done(struct oltp_telemetry_sample *s);
json_t *oltp_telemetry_sample_to_json(const struct oltp_telemetry_sample *s);

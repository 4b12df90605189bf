/* The host's load, as a container sees it too (the kernel is shared): the
 * CPU times of /proc/stat's "cpu " line, the load average, the threads in
 * R and D state as `ps -eLo stat` counts them, and the one rule of a busy
 * host, which run, the step record and report apply alike.  Each figure
 * and the independent tool it is tested against: doc/figures.md. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* /proc/stat's sum over all CPUs, in USER_HZ ticks, and its counters. */
struct host_cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
	uint64_t ctxt;
	unsigned procs_running, procs_blocked; /* kernel-wide: runnable, and waiting on I/O (not D state) */
	unsigned n_cpus;                       /* its per-CPU lines */
};
int host_cpu_times_read(struct host_cpu_times *ret);

/* From a to b, as vmstat reads them: user (user+nice), sys
 * (system+irq+softirq), idle, iowait and steal in % of all CPU time, and
 * busy_cpus, the CPUs' worth of user and sys.  -ERANGE if no tick passed. */
struct host_cpu_use {
	double user_pct, sys_pct, idle_pct, iowait_pct, steal_pct;
	double busy_cpus;
};
int host_cpu_use_between(const struct host_cpu_times *a, const struct host_cpu_times *b, struct host_cpu_use *ret);

/* The 1-minute load average of /proc/loadavg. */
int host_load1(double *ret);

/* The threads in R and in D state, as `ps -eLo stat` counts them: every
 * thread this PID namespace sees, kernel threads among them (a container
 * sees its own; /proc/stat's procs_running counts the host's). */
int host_task_states(unsigned *ret_running, unsigned *ret_uninterruptible);

/* A host is busy beside a measurement when processes outside slicebench's
 * own (its server, client, proxy and neighbours, itself) use this many
 * CPUs or more: a quarter of a CPU taken from a step is a competitor the
 * step measures, not noise. */
#define HOST_BUSY_OTHER_CPUS 0.25
static inline bool host_is_busy(double other_cpus)
{
	return other_cpus >= HOST_BUSY_OTHER_CPUS;
}

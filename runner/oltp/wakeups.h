/* Where the server's threads are woken: how many of their wake-ups land on
 * a CPU of another group (an L3's) than the waker's CPU.  The sched_wakeup
 * tracepoint cannot say it: the kernel queues a wake-up across caches to
 * its target and the event fires there.  sched_waking fires on the waker's
 * CPU with the wakee's previous CPU, and sched_migrate_task right after it,
 * on the same CPU, when the wake-up moves the wakee: both sampled into one
 * ring per CPU (perf_event_open, filtered by the wakee's command in the
 * kernel) and paired in order.  Needs tracefs for the events' ids and
 * layouts; where it is not mounted it says why. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct oltp_wakeups;

/* Sampling of the wake-ups of threads named comm on each of n_cpus CPUs,
 * group_of_cpu[c] the group of CPU c (copied).  -EOPNOTSUPP with *ret_why
 * (static) when the tracepoints cannot be used here. */
int oltp_wakeups_open(const char *comm, unsigned n_cpus, const int *group_of_cpu, struct oltp_wakeups **ret,
		      const char **ret_why);
/* The wake-ups seen so far, those that landed in another group than the
 * waker's, and the records the kernel dropped (a ring full between two
 * reads): the share of the seen is the figure. */
void oltp_wakeups_read(struct oltp_wakeups *w, uint64_t *ret_seen, uint64_t *ret_cross, uint64_t *ret_lost);
void oltp_wakeups_free(struct oltp_wakeups *w);

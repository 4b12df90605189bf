/* The server's stacks while a step is measured, sampled by the kernel
 * (perf_event_open(2), one ring per CPU, read by a thread of the
 * sampler's own):
 *
 * - on-CPU: the software cpu-clock event, which needs no PMU, every
 *   1/hz seconds of each CPU's time, with the user and kernel call chain
 *   (frame pointers: a binary built without them gives its leaf and little
 *   more), kept when the task is one of the server's processes (the
 *   server's PID and its descendants, so PostgreSQL's backends too);
 * - off-CPU: the context switches of those tasks (PERF_RECORD_SWITCH,
 *   cheap): a task switched out while runnable waits on the run queue or,
 *   its cgroup's CPU quota spent, throttled (the cgroup's cpu.stat says
 *   how long it was throttled: profile/folded.h splits the wait by it); a
 *   task that blocked waits on
 *   something, which the kernel stack at the switch names (futex, I/O, a
 *   socket, a sleep) when stacks at switches are asked for: every switch
 *   of every task then unwinds its stack, which costs the server time.
 *
 * The stacks are kept as addresses, aggregated; profile/folded.h names
 * them.  Root, or perf_event_paranoid -1, is needed for the events of
 * every CPU; where they cannot be opened the why says so. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The default rate: 199 samples a second of each CPU (a prime, so that
 * the samples do not beat with a periodic load). */
#define PROFILE_DEFAULT_HZ 199
#define PROFILE_HZ_MAX 10000
#define PROFILE_STACK_MAX 64

enum profile_kind {
	PROFILE_ON_CPU,	     /* weight: samples */
	PROFILE_RUN_QUEUE,   /* off-CPU, weight: ns; preempted while runnable (or throttled) */
	PROFILE_BLOCKED,     /* it blocked: the reason is its stack's (profile/folded.h) */
	_PROFILE_KIND_MAX,
};

/* One distinct stack of one process, leaf first as the kernel gives it
 * (PERF_CONTEXT_KERNEL and PERF_CONTEXT_USER mark which part is which),
 * with its weight. */
struct profile_stack {
	pid_t pid;
	enum profile_kind kind;
	uint64_t weight;
	unsigned nr;
	uint64_t ips[];
};

struct profile_symbols;
/* What one sampler saw: its stacks, the server's processes' memory maps
 * read as each was first seen (for profile/folded.h), and its counts. */
struct profile_raw {
	size_t n;
	struct profile_stack **stacks;
	struct profile_symbols *symbols;
	unsigned hz;
	bool off_cpu_stacks;
	double seconds;		  /* from start to stop */
	uint64_t samples, server_samples; /* on-CPU samples of any task (not idle), of the server's */
	uint64_t lost;		  /* records the kernel dropped (a ring full between two reads) */
	uint64_t switches;	  /* the server's switches out */
	int64_t throttled_ns;	  /* its cgroup's throttled time meanwhile (cpu.stat); -1 unknown */
};
void profile_raw_free(struct profile_raw *r);

struct profile_sampler;
/* Starts sampling the processes of server (its PID and descendants) at hz
 * on every online CPU; with off_cpu_stacks the stack of each switch too;
 * cpu_cgroup, the directory of the server's cgroup's cpu.stat (NULL:
 * none), says how long it was throttled.
 * -EOPNOTSUPP with *ret_why (static) when the events cannot be opened
 * here; another -errno else. */
int profile_sampler_start(pid_t server, const char *cpu_cgroup, unsigned hz, bool off_cpu_stacks,
			  struct profile_sampler **ret, const char **ret_why);
/* Stops it and hands over what it saw (*ret to profile_raw_free()). */
int profile_sampler_stop(struct profile_sampler *s, struct profile_raw **ret);
/* Stops it and drops what it saw; NULL ok. */
void profile_sampler_free(struct profile_sampler *s);

/* What every native driver's step shares, after sysbench's core: worker
 * threads start behind a gate and count into counters of their own (cache
 * line padded, written by their thread only), the calling thread samples
 * and reports on absolute one-second deadlines until the step ends or a
 * worker fails, and the record is built from the counters after the join.
 * A driver supplies the worker (one thread, however many connections it
 * drives) and calls step_frame_count() for each finished transaction. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "oltp/histogram.h"
#include "oltp/oltp.h"
#include "oltp/sbrand.h"
#include "common/util.h"

struct step_counters {
	/* written by the owning thread only; read after the join */
	uint64_t errors[_OLTP_ERR_MAX], reconnects, queries;
	uint64_t in_flight_at_end; /* transactions the step's end found running */
	uint64_t *per_second; /* counted transactions by second of the measured phase */
	size_t n_seconds;
	uint64_t last_counted_ns;
	struct histogram latency;
	/* An open loop's: each counted transaction's time from its actual
	 * start (its latency counts from its intended one), the lag between
	 * the two, and the arrivals it took that the step's end found not
	 * yet started */
	struct histogram service;
	uint64_t lag_sum_ns, lag_max_ns, backlog_at_end;
	uint64_t late, skipped; /* with a latency limit */
	/* The socket of the worker's connection (-1: none), which the step's
	 * end shuts down if the worker is still waiting on it then. */
	atomic_int socket;
	/* also read by the reporter while the step runs */
	_Alignas(64) atomic_uint_fast64_t transactions;
};

/* An open loop's arrivals (o->rate): one Poisson stream from the gate on,
 * taken in order by whichever worker is free, as a queue in front of the
 * connections would hand them out (sysbench's --rate generator, without
 * its thread). */
struct step_arrivals {
	pthread_mutex_t lock;
	struct sbrand rand;
	uint64_t next_ns; /* the first arrival no worker has taken */
	double mean_gap_ns;
	bool constant; /* every mean_gap_ns, not exponential gaps */
};

struct step_frame {
	const struct oltp_options *o;
	unsigned n_threads;
	struct step_counters *counters; /* [n_threads], one per worker thread */
	uint64_t measure_ns, end_ns;	/* set before the gate opens; end_ns UINT64_MAX: events only, or until o->until */
	uint64_t until_ns;		/* when o->until was seen set (the reporter's, read after the join); 0: not */
	atomic_bool stop;
	atomic_uint_fast64_t events_done;
	atomic_uint connected; /* clients connected so far, for the progress while they connect */
	unsigned n_exited;     /* workers returned, under lock */
	pthread_mutex_t lock; /* the gate, and the first failure */
	pthread_cond_t cond;
	unsigned n_ready;
	bool go;
	char reason[256];
	enum oltp_rule rule; /* the first failure's class */
	struct step_arrivals arrivals; /* o->rate > 0 only */
};

/* Records the first failure with its class (later ones are dropped) and
 * stops the step; step_fail() for one of no class of its own. */
void step_fail_as(struct step_frame *f, enum oltp_rule why, const char *fmt, ...) _printf_(3, 4);
#define step_fail(f, ...) step_fail_as((f), OLTP_RULE_FAILED, __VA_ARGS__)

/* In a worker, for each of its clients as it is connected: counted for
 * --progress, which says while they connect how many are. */
static inline void step_frame_connected(struct step_frame *f)
{
	atomic_fetch_add_explicit(&f->connected, 1, memory_order_relaxed);
}

/* In a worker: the socket its client now waits on (-1: none).  A step
 * waits for its answers without a read timeout (libmariadb's makes every
 * read a non-blocking one and a poll): once the step is over, a worker
 * still waiting o->timeout_s later has its socket shut down. */
static inline void step_frame_watch(struct step_counters *c, int fd)
{
	atomic_store_explicit(&c->socket, fd, memory_order_relaxed);
}

/* In a worker, once it is connected (or failed to): counts it ready and
 * waits until the gate opens. */
void step_frame_ready(struct step_frame *f);

static inline bool step_frame_stopped(struct step_frame *f)
{
	return atomic_load_explicit(&f->stop, memory_order_relaxed);
}

/* One transaction that was to start at t0 (an open loop's arrival; in a
 * closed loop when it did), started at `started` and finished at t1 with
 * `queries` statements.  Returns 1 if it was counted, 0 if it started
 * outside the measured phase (one that was in flight at its end counts in
 * the latency only), -1 if the step is over (the event count is reached,
 * or out of memory: the step has failed). */
int step_frame_count(struct step_frame *f, struct step_counters *c, uint64_t t0, uint64_t started, uint64_t t1,
		     uint64_t queries);

/* In a worker of an open-loop step: the next arrival, taken and waited
 * for; its intended start, or 0 once the step is over (stopped, or the
 * arrival is due after the measured phase, or the phase ended while it
 * waited in the queue: counted in c's backlog). */
uint64_t step_frame_arrival(struct step_frame *f, struct step_counters *c);
/* In an event loop driving several clients: the next arrival taken, not
 * waited for (0 once it is due after the measured phase). */
uint64_t step_frame_take_arrival(struct step_frame *f);
/* Whether an arrival intended at t, its turn come at now, is skipped:
 * later than the latency limit already (counted in c's skipped when it
 * was due in the measured phase). */
bool step_frame_skip(struct step_frame *f, struct step_counters *c, uint64_t t, uint64_t now);

/* The CPUs of o's client placement for worker `id`: 0, or -errno. */
int step_frame_pin(const struct oltp_options *o, unsigned id);

/* Runs a step of n_threads workers: worker i runs fn(args + i * arg_size)
 * and finds its counters at f->counters[i] (the frame is set in *f before
 * the first thread starts, so the worker may keep a pointer to it).  The
 * calling thread opens the gate once all are ready, samples telemetry,
 * prints progress and watches the server until the end, then joins and
 * fills *ret.  0 with *ret filled (also for a failed step); <0 if no
 * thread could be set up. */
int step_frame_run(struct step_frame *f, const struct oltp_options *o, unsigned n_threads, unsigned clients,
		   void *(*fn)(void *), void *args, size_t arg_size, struct step_result *ret);

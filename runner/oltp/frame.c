/* The step frame the native drivers share (see frame.h): the gate, the
 * counting, the reporter on absolute deadlines and the record. */
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "oltp/frame.h"
#include "common/interrupt.h"

void step_fail_as(struct step_frame *f, enum oltp_rule why, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&f->lock);
	if (!f->reason[0]) {
		f->rule = why;
		va_start(ap, fmt);
		vsnprintf(f->reason, sizeof(f->reason), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&f->lock);
	atomic_store(&f->stop, true);
}

void step_frame_ready(struct step_frame *f)
{
	pthread_mutex_lock(&f->lock);
	f->n_ready++;
	pthread_cond_broadcast(&f->cond);
	while (!f->go)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

int step_frame_pin(const struct oltp_options *o, unsigned id)
{
	cpu_set_t set;

	if (o->pin == OLTP_PIN_INHERIT || o->n_client_cpus == 0)
		return 0;
	CPU_ZERO(&set);
	if (o->pin == OLTP_PIN_ROUND_ROBIN)
		CPU_SET(o->client_cpus[id % o->n_client_cpus], &set);
	else
		for (unsigned i = 0; i < o->n_client_cpus; i++)
			CPU_SET(o->client_cpus[i], &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int count_second(struct step_frame *f, struct step_counters *c, uint64_t end_ns)
{
	size_t slot = (end_ns - f->measure_ns) / NSEC_PER_SEC;

	if (slot >= c->n_seconds) {
		size_t n = MAX(slot + 1, c->n_seconds * 2);
		uint64_t *p = realloc(c->per_second, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + c->n_seconds, 0, (n - c->n_seconds) * sizeof(*p));
		c->per_second = p;
		c->n_seconds = n;
	}
	c->per_second[slot]++;
	return 0;
}

int step_frame_count(struct step_frame *f, struct step_counters *c, uint64_t t0, uint64_t started, uint64_t t1,
		     uint64_t queries)
{
	/* In the measured phase by its actual start: an overloaded open loop's
	 * backlog from the warm-up is served, and waited for, in it. */
	if (started < f->measure_ns)
		return 0;
	if (t1 > f->end_ns) {
		/* In flight when the step ended (a stalled server answers late):
		 * its latency counts, its transaction does not. */
		if (!(f->o->figures_off & OLTP_FIGURE_LATENCY))
			histogram_add(&c->latency, t1 - t0);
		c->in_flight_at_end++;
		return 0;
	}
	/* An event-count step counts exactly o->events transactions. */
	if (f->o->events) {
		uint64_t n = atomic_fetch_add(&f->events_done, 1);

		if (n >= f->o->events)
			return -1;
		if (n + 1 == f->o->events)
			atomic_store(&f->stop, true);
	}
	if (!(f->o->figures_off & OLTP_FIGURE_LATENCY))
		histogram_add(&c->latency, t1 - t0);
	if (f->o->rate) {
		c->late += f->o->latency_limit_ns && t1 - t0 > f->o->latency_limit_ns;
		histogram_add(&c->service, t1 - started);
		c->lag_sum_ns += started - t0;
		c->lag_max_ns = MAX(c->lag_max_ns, started - t0);
	}
	c->last_counted_ns = t1;
	c->queries += queries;
	atomic_store_explicit(&c->transactions, atomic_load_explicit(&c->transactions, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	if (!(f->o->figures_off & OLTP_FIGURE_SECONDS) && count_second(f, c, t1) < 0) {
		step_fail(f, "out of memory");
		return -1;
	}
	return 1;
}

/* The time to the stream's next arrival: exponential of mean 1/rate, or
 * 1/rate itself. */
static uint64_t arrival_gap(struct step_arrivals *a)
{
	return (uint64_t)((a->constant ? 1 : -log1p(-sbrand_double(&a->rand))) * a->mean_gap_ns);
}

uint64_t step_frame_take_arrival(struct step_frame *f)
{
	struct step_arrivals *a = &f->arrivals;
	uint64_t t;

	pthread_mutex_lock(&a->lock);
	t = a->next_ns;
	if (t < f->end_ns)
		a->next_ns += MAX(arrival_gap(a), 1u);
	pthread_mutex_unlock(&a->lock);
	return t < f->end_ns ? t : 0;
}

bool step_frame_skip(struct step_frame *f, struct step_counters *c, uint64_t t, uint64_t now)
{
	if (!f->o->latency_limit_ns || now - MIN(now, t) <= f->o->latency_limit_ns)
		return false;
	c->skipped += t >= f->measure_ns && t < f->end_ns;
	return true;
}

uint64_t step_frame_arrival(struct step_frame *f, struct step_counters *c)
{
	for (uint64_t t; (t = step_frame_take_arrival(f));) {
		uint64_t now;

		/* woken every 100 ms to notice a stop */
		while (!step_frame_stopped(f) && (now = now_ns()) < t) {
			uint64_t wake = MIN(t, now + 100 * NSEC_PER_MSEC);
			struct timespec ts = { .tv_sec = wake / NSEC_PER_SEC, .tv_nsec = wake % NSEC_PER_SEC };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		if (step_frame_stopped(f))
			return 0;
		now = now_ns();
		if (now >= f->end_ns) {
			c->backlog_at_end++;
			return 0;
		}
		if (!step_frame_skip(f, c, t, now))
			return t;
	}
	return 0;
}

/* The arrivals due before the step's end that no worker took: the stream
 * drawn on past the last one taken, after the join. */
static uint64_t arrivals_untaken(struct step_frame *f)
{
	struct step_arrivals *a = &f->arrivals;
	uint64_t n = 0;

	if (f->end_ns == UINT64_MAX)
		return 0;
	for (uint64_t t = a->next_ns; t < f->end_ns; t += MAX(arrival_gap(a), 1u))
		n++;
	return n;
}

static uint64_t sum_transactions(const struct step_frame *f)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < f->n_threads; i++)
		sum += atomic_load_explicit(&f->counters[i].transactions, memory_order_relaxed);
	return sum;
}

/* Gone, or dead and not yet reaped (a zombie answers kill(pid, 0)); the
 * step does not reap it: the PID stays its starter's to account for. */
static bool server_gone(pid_t pid)
{
	_cleanup_free_ char *stat = NULL;
	char path[64];
	const char *p;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return read_file_str(path, &stat) >= 0 && (p = strrchr(stat, ')')) && p[1] == ' ' && p[2] == 'Z';
}

/* A background client's owner has said stop: the measured phase ends now. */
static bool until_reached(struct step_frame *f)
{
	if (!f->o->until || !atomic_load(f->o->until))
		return false;
	if (!f->until_ns)
		f->until_ns = now_ns();
	return true;
}

/* Sleeps to an absolute deadline, waking every 100 ms to notice a stop. */
static void sleep_until(struct step_frame *f, uint64_t deadline)
{
	for (uint64_t now; !atomic_load(&f->stop) && !interrupt_signal && !until_reached(f) && (now = now_ns()) < deadline;) {
		uint64_t t = MIN(deadline, now + 100 * NSEC_PER_MSEC);
		struct timespec ts = { .tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* sysbench's progress line, and what the seed's shell loop printed beside
 * it: the load average and the running (R) and uninterruptible (D) tasks. */
static void print_progress(uint64_t second, unsigned clients, double tps, const struct step_result *r)
{
	const struct oltp_telemetry_sample *s = r->n_samples ? &r->samples[r->n_samples - 1] : NULL;

	fprintf(stderr, "[ %" PRIu64 "s ] thds: %u tps: %.2f", second, clients, tps);
	if (s && fabs(s->t_s - (double)second) < 0.5)
		fprintf(stderr, " idle: %.0f%% load: %.2f R: %u D: %u", s->cpu_idle_pct, s->load1, s->procs_running,
			s->tasks_uninterruptible);
	fputc('\n', stderr);
}

/* The calling thread's part: samples once a second on absolute deadlines
 * and watches the server, until the time is up or the step stops. */
static void report(struct step_frame *f, unsigned clients, struct oltp_telemetry *tel, struct step_result *ret)
{
	const struct oltp_options *o = f->o;
	uint64_t last = 0;

	sleep_until(f, f->measure_ns);
	if (interrupt_signal)
		step_fail(f, "interrupted by a signal");
	if (tel)
		oltp_telemetry_restart(tel);
	for (uint64_t k = 1; !atomic_load(&f->stop); k++) {
		uint64_t tick = f->measure_ns + k * NSEC_PER_SEC, txns;

		sleep_until(f, MIN(tick, f->end_ns));
		if (interrupt_signal)
			step_fail(f, "interrupted by a signal");
		if (atomic_load(&f->stop) || until_reached(f))
			break;
		if (tel && oltp_telemetry_append(tel, (double)(MIN(tick, f->end_ns) - f->measure_ns) / NSEC_PER_SEC, ret) < 0)
			step_fail(f, "out of memory");
		txns = sum_transactions(f);
		if (o->progress)
			print_progress(k, clients, (double)(txns - last), ret);
		last = txns;
		if (o->server_pid > 0 && server_gone(o->server_pid))
			step_fail_as(f, OLTP_RULE_SERVER_GONE, "the server (PID %d) is gone", o->server_pid);
		if (tick >= f->end_ns)
			break;
	}
	atomic_store(&f->stop, true);
}

/* With f->lock held, until the started workers are ready; with --progress
 * a line a second says how many clients are connected, so that 800 of
 * them connecting for half a minute do not look like a hang. */
static void wait_ready(struct step_frame *f, unsigned started, unsigned clients, uint64_t start_ns)
{
	uint64_t next = start_ns + NSEC_PER_SEC;
	bool said = false;

	while (f->n_ready < started) {
		struct timespec deadline;
		uint64_t now = now_ns();

		if (!f->o->progress) {
			pthread_cond_wait(&f->cond, &f->lock);
			continue;
		}
		if (now >= next) {
			fprintf(stderr, "connecting: %u of %u clients\n", atomic_load(&f->connected), clients);
			said = true;
			next += NSEC_PER_SEC * (1 + (now - next) / NSEC_PER_SEC);
		}
		/* The condition variable's clock is the realtime one. */
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += (long)(next - now);
		deadline.tv_sec += deadline.tv_nsec / (long)NSEC_PER_SEC;
		deadline.tv_nsec %= (long)NSEC_PER_SEC;
		pthread_cond_timedwait(&f->cond, &f->lock, &deadline);
	}
	if (said)
		fprintf(stderr, "connected: %u of %u clients in %.1f s\n", atomic_load(&f->connected), clients,
			(double)(now_ns() - start_ns) / NSEC_PER_SEC);
}

/* An open loop's service time, lag and backlog from the workers' counters. */
static int collect_open_loop(struct step_frame *f, struct step_result *ret)
{
	_cleanup_free_ struct histogram *service = malloc(sizeof(*service));
	struct step_open_loop *l = &ret->open_loop;
	uint64_t lag_sum = 0, lag_max = 0, backlog = 0;

	if (!service)
		return -ENOMEM;
	l->latency_limit_ms = (double)f->o->latency_limit_ns / 1e6;
	histogram_init(service);
	for (unsigned i = 0; i < f->n_threads; i++) {
		const struct step_counters *c = &f->counters[i];

		histogram_merge(service, &c->service);
		lag_sum += c->lag_sum_ns;
		lag_max = MAX(lag_max, c->lag_max_ns);
		backlog += c->backlog_at_end;
		l->late += c->late;
		l->skipped += c->skipped;
	}
	l->rate = f->o->rate;
	l->constant = f->arrivals.constant;
	l->backlog_at_end = backlog + arrivals_untaken(f);
	step_open_loop_service(l, service, lag_sum, lag_max);
	return 0;
}

static int collect(struct step_frame *f, struct step_result *ret)
{
	_cleanup_free_ struct histogram *all = malloc(sizeof(*all));
	uint64_t last_end = f->measure_ns;
	size_t n_seconds = 0;

	if (!all)
		return -ENOMEM;
	histogram_init(all);
	for (unsigned i = 0; i < f->n_threads; i++) {
		const struct step_counters *c = &f->counters[i];

		histogram_merge(all, &c->latency);
		ret->queries += c->queries;
		ret->reconnects += c->reconnects;
		ret->transactions += atomic_load(&c->transactions);
		ret->in_flight_at_end += c->in_flight_at_end;
		for (unsigned e = 0; e < _OLTP_ERR_MAX; e++)
			ret->errors[e] += c->errors[e];
		n_seconds = MAX(n_seconds, c->n_seconds);
	}
	/* An event-count step ends with its last transaction; a timed one at
	 * its deadline; a background one when its owner said stop. */
	if (f->until_ns)
		last_end = MAX(f->measure_ns, MIN(f->until_ns, f->end_ns));
	else if (f->end_ns != UINT64_MAX)
		last_end = f->end_ns;
	else
		for (unsigned i = 0; i < f->n_threads; i++)
			last_end = MAX(last_end, f->counters[i].last_counted_ns);
	ret->duration_s = (double)(last_end - f->measure_ns) / NSEC_PER_SEC;
	ret->measured_from_ns = f->measure_ns;
	/* Every second of the measured phase has its interval, also one in
	 * which nothing completed: a stall shows as a zero, not as a gap. */
	n_seconds = (size_t)ceil(ret->duration_s - 1e-9);
	ret->intervals = calloc(MAX(n_seconds, 1), sizeof(double));
	if (!ret->intervals)
		return -ENOMEM;
	ret->n_intervals = n_seconds;
	for (size_t s = 0; s < n_seconds; s++) {
		double len = MIN(1.0, ret->duration_s - (double)s);

		for (unsigned i = 0; i < f->n_threads; i++)
			if (s < f->counters[i].n_seconds)
				ret->intervals[s] += (double)f->counters[i].per_second[s];
		ret->intervals[s] /= len > 0 ? len : 1.0;
	}
	if (ret->duration_s > 0) {
		ret->tps = (double)ret->transactions / ret->duration_s;
		ret->qps = (double)ret->queries / ret->duration_s;
	}
	if (all->count > 0) {
		ret->lat_avg_ms = histogram_mean(all) / 1e6;
		ret->lat_p50_ms = (double)histogram_percentile(all, 50) / 1e6;
		ret->lat_p95_ms = (double)histogram_percentile(all, 95) / 1e6;
		ret->lat_p99_ms = (double)histogram_percentile(all, 99) / 1e6;
		ret->lat_max_ms = (double)histogram_max(all) / 1e6;
	}
	return f->o->rate ? collect_open_loop(f, ret) : 0;
}

static void counters_free(struct step_frame *f)
{
	for (unsigned i = 0; f->counters && i < f->n_threads; i++)
		free(f->counters[i].per_second);
	if (f->counters)
		munmap(f->counters, f->n_threads * sizeof(*f->counters));
	f->counters = NULL;
}

/* Each thread's counters and histogram, padded to a cache line each, so
 * that no two threads' counters share one.  Fresh anonymous pages read as
 * zeros and take no memory until written: a thread's histogram makes
 * resident only the pages of the latencies it sees (one or two of its
 * four), which at 512 threads is 4 MB of the client's memory. */
static int counters_new(struct step_frame *f, unsigned n_threads)
{
	void *p = mmap(NULL, n_threads * sizeof(*f->counters), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	f->counters = p;
	for (unsigned i = 0; i < n_threads; i++) {
		/* histogram_init()'s, without its memset */
		f->counters[i].latency.min = f->counters[i].service.min = UINT64_MAX;
		atomic_init(&f->counters[i].socket, -1);
	}
	return 0;
}

/* A worker thread: the driver's function, then counted as returned. */
struct frame_thread {
	struct step_frame *f;
	void *(*fn)(void *);
	void *arg;
};

static void *frame_thread_main(void *arg)
{
	struct frame_thread *t = arg;

	t->fn(t->arg);
	pthread_mutex_lock(&t->f->lock);
	t->f->n_exited++;
	pthread_cond_broadcast(&t->f->cond);
	pthread_mutex_unlock(&t->f->lock);
	return NULL;
}

/* Waits (with f->lock held) until the started workers returned or the
 * deadline passed; true if they all did. */
static bool wait_exited(struct step_frame *f, unsigned started, uint64_t deadline_ns)
{
	while (f->n_exited < started) {
		struct timespec ts;
		uint64_t now = now_ns();

		if (now >= deadline_ns)
			return false;
		/* The condition variable's clock is the realtime one. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += (long)MIN(deadline_ns - now, 100 * NSEC_PER_MSEC);
		ts.tv_sec += ts.tv_nsec / (long)NSEC_PER_SEC;
		ts.tv_nsec %= (long)NSEC_PER_SEC;
		pthread_cond_timedwait(&f->cond, &f->lock, &ts);
	}
	return true;
}

/* After the step: the workers get o->timeout_s to finish what they wait
 * for (a transaction in flight, a slow server's answer); then the sockets
 * of those still waiting are shut down, which ends their reads. */
static void end_workers(struct step_frame *f, unsigned started)
{
	pthread_mutex_lock(&f->lock);
	if (!wait_exited(f, started, now_ns() + (uint64_t)MAX(f->o->timeout_s, 1u) * NSEC_PER_SEC))
		for (unsigned i = 0; i < f->n_threads; i++) {
			int fd = atomic_load(&f->counters[i].socket);

			if (fd >= 0)
				(void)shutdown(fd, SHUT_RDWR);
		}
	pthread_mutex_unlock(&f->lock);
}

/* The start barrier: the started threads ready, the phases' clock set and
 * all let go at once; told to stop at once if not all of them started. */
static void open_gate(struct step_frame *f, unsigned started, unsigned clients, uint64_t start_ns, bool stop,
		      struct step_result *ret)
{
	const struct oltp_options *o = f->o;
	uint64_t gate_ns;

	pthread_mutex_lock(&f->lock);
	wait_ready(f, started, clients, start_ns);
	/* Connecting is over: the warm-up's and the measured phase's clock
	 * starts here, so that 800 clients' connecting is reported apart. */
	gate_ns = now_ns();
	ret->connect_s = (double)(gate_ns - start_ns) / NSEC_PER_SEC;
	f->measure_ns = gate_ns + o->warmup_ns;
	f->end_ns = o->duration_ns ? f->measure_ns + o->duration_ns : UINT64_MAX;
	/* the stream of arrivals starts with the warm-up */
	if (o->rate)
		f->arrivals.next_ns = gate_ns + arrival_gap(&f->arrivals);
	if (stop)
		atomic_store(&f->stop, true);
	f->go = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

int step_frame_run(struct step_frame *f, const struct oltp_options *o, unsigned n_threads, unsigned clients,
		   void *(*fn)(void *), void *args, size_t arg_size, struct step_result *ret)
{
	struct oltp_telemetry *tel = NULL;
	_cleanup_free_ pthread_t *threads = calloc(n_threads, sizeof(pthread_t));
	_cleanup_free_ struct frame_thread *starts = calloc(n_threads, sizeof(*starts));
	unsigned started = 0;
	uint64_t start_ns;
	int r;

	*f = (struct step_frame){ .o = o, .n_threads = n_threads, .lock = PTHREAD_MUTEX_INITIALIZER,
				  .cond = PTHREAD_COND_INITIALIZER,
				  .arrivals = { .lock = PTHREAD_MUTEX_INITIALIZER, .mean_gap_ns = o->rate ? 1e9 / o->rate : 0,
						.constant = o->arrivals == OLTP_ARRIVALS_CONSTANT } };
	/* the stream's own seed, apart from the workers' row ids */
	sbrand_init(&f->arrivals.rand, &o->rand, (o->seed ? o->seed : now_ns()) ^ 0x6f70656e6c6f6f70ull);
	step_result_start(ret, OLTP_DRIVER_NATIVE, clients);
	r = threads && starts ? counters_new(f, n_threads) : -ENOMEM;
	if (r < 0)
		return r;
	/* Telemetry is an extra: a step still runs where /proc cannot be read.
	 * A background client's would sample the step's threads twice. */
	if (!o->until && !(o->figures_off & OLTP_FIGURE_SAMPLES))
		(void)oltp_telemetry_new(o, &tel);

	start_ns = now_ns();
	for (; started < n_threads; started++) {
		starts[started] = (struct frame_thread){ .f = f, .fn = fn, .arg = (char *)args + started * arg_size };
		r = -pthread_create(&threads[started], NULL, frame_thread_main, &starts[started]);
		if (r < 0)
			break;
	}
	open_gate(f, started, clients, start_ns, r < 0, ret);

	if (r == 0)
		report(f, clients, tel, ret);
	/* the measured phase is over: the profile ends here, not at the join */
	oltp_telemetry_profile(tel, ret);
	end_workers(f, started);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	if (r >= 0)
		r = collect(f, ret);
	if (r >= 0 && f->reason[0]) {
		ret->failed = true;
		ret->rule = f->rule;
		(void)text_copy(ret->reason, sizeof(ret->reason), f->reason);
	}
	if (r < 0)
		step_result_done(ret);
	oltp_telemetry_free(tel);
	counters_free(f);
	return r;
}

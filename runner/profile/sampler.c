#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <time.h>

#include "profile/ring.h"
#include "profile/sampler.h"
#include "profile/symbols.h"
#include "common/util.h"

/* 2 MiB of ring per CPU, less where the CPUs are many (64 MiB in all at
 * most); read every DRAIN_NS, it holds a second of 50,000 switches. */
#define RING_PAGES_MAX 512
#define RINGS_BYTES_MAX (64u << 20)
#define DRAIN_NS (100 * NSEC_PER_MSEC)
/* Records younger than this are held to the next read (see handle_held()). */
#define HOLD_NS (20 * NSEC_PER_MSEC)

/* A small map of int keys (PIDs, TIDs) to values, open addressing. */
struct idmap {
	size_t cap, n;
	struct idmap_entry {
		int32_t key; /* 0: free (PID 0, the idle task, is never kept) */
		void *val;
	} *e;
};

static struct idmap_entry *idmap_slot(struct idmap *m, int32_t key)
{
	size_t i = ((uint32_t)key * 2654435761u) & (m->cap - 1);

	while (m->e[i].key && m->e[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return &m->e[i];
}

/* The entry of key, made (its value NULL) if new; NULL: out of memory. */
static struct idmap_entry *idmap_get(struct idmap *m, int32_t key)
{
	struct idmap_entry *e;

	if ((m->n + 1) * 2 > m->cap) {
		struct idmap bigger = { .cap = m->cap ? m->cap * 2 : 256 };

		bigger.e = calloc(bigger.cap, sizeof(*bigger.e));
		if (!bigger.e)
			return NULL;
		for (size_t i = 0; i < m->cap; i++)
			if (m->e[i].key)
				*idmap_slot(&bigger, m->e[i].key) = m->e[i];
		bigger.n = m->n;
		free(m->e);
		*m = bigger;
	}
	e = idmap_slot(m, key);
	if (!e->key) {
		e->key = key;
		m->n++;
	}
	return e;
}

/* A task of the server switched out, waiting to come back. */
struct off_cpu {
	uint64_t since_ns;
	enum profile_kind kind;
	unsigned nr;
	uint64_t ips[PROFILE_STACK_MAX];
};

/* The stack sampled at a switch on a CPU, for the switch record that follows it. */
struct pending {
	int32_t tid;
	unsigned nr;
	uint64_t ips[PROFILE_STACK_MAX];
};

struct cpu_events {
	int fd_clock, fd_switch;
	uint64_t id_clock, id_switch;
	struct perf_ring ring;
	struct pending pending;
};

/* The records of every ring, held until they can be handled in time
 * order: a task switched out on one CPU comes back on another, and the
 * rings are read one after the other. */
struct held {
	uint64_t time;
	unsigned cpu;
	size_t seq, off, size;
};

struct holding {
	uint8_t *bytes;
	size_t len, cap;
	struct held *recs;
	size_t n, cap_recs, seq;
};

/* A PID's membership: the server's or not. */
#define MEMBER ((void *)1)
#define STRANGER ((void *)2)

struct profile_sampler {
	pid_t server;
	char *cpu_cgroup; /* NULL: none */
	int64_t throttled_ns_at_start;
	unsigned n_cpus;
	size_t pages;
	struct profile_raw *raw;
	size_t cap; /* the distinct stacks, open addressing on their hash */
	struct profile_stack **table;
	struct idmap pids; /* MEMBER or STRANGER */
	struct idmap offs; /* TID: its struct off_cpu while switched out */
	uint64_t start_ns;
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;
	struct holding holding;
	int error; /* the first failure while reading (out of memory) */
	struct cpu_events cpus[];
};

static uint64_t stack_hash(pid_t pid, enum profile_kind kind, unsigned nr, const uint64_t *ips)
{
	uint64_t h = 1469598103934665603u ^ (uint64_t)pid ^ ((uint64_t)kind << 32);

	for (unsigned i = 0; i < nr; i++)
		h = (h ^ ips[i]) * 1099511628211u;
	return h;
}

static bool stack_is(const struct profile_stack *s, pid_t pid, enum profile_kind kind, unsigned nr, const uint64_t *ips)
{
	return s->pid == pid && s->kind == kind && s->nr == nr && memcmp(s->ips, ips, nr * sizeof(*ips)) == 0;
}

static int grow_table(struct profile_sampler *s)
{
	size_t cap = s->cap ? s->cap * 2 : 4096;
	struct profile_stack **t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < s->raw->n; i++) {
		const struct profile_stack *k = s->raw->stacks[i];
		size_t j = stack_hash(k->pid, k->kind, k->nr, k->ips) & (cap - 1);

		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = s->raw->stacks[i];
	}
	free(s->table);
	s->table = t;
	s->cap = cap;
	return 0;
}

/* weight more to the stack (pid, kind, ips), added if new. */
static int add_stack(struct profile_sampler *s, pid_t pid, enum profile_kind kind, unsigned nr, const uint64_t *ips,
		     uint64_t weight)
{
	struct profile_stack *k, **list;
	size_t j;

	if ((s->raw->n + 1) * 2 > s->cap && grow_table(s) < 0)
		return -ENOMEM;
	for (j = stack_hash(pid, kind, nr, ips) & (s->cap - 1); s->table[j]; j = (j + 1) & (s->cap - 1))
		if (stack_is(s->table[j], pid, kind, nr, ips)) {
			s->table[j]->weight += weight;
			return 0;
		}
	k = malloc(sizeof(*k) + nr * sizeof(*ips));
	list = realloc(s->raw->stacks, (s->raw->n + 1) * sizeof(*list));
	if (!k || !list) {
		free(k);
		if (list)
			s->raw->stacks = list;
		return -ENOMEM;
	}
	*k = (struct profile_stack){ .pid = pid, .kind = kind, .weight = weight, .nr = nr };
	memcpy(k->ips, ips, nr * sizeof(*ips));
	s->raw->stacks = list;
	list[s->raw->n++] = k;
	s->table[j] = k;
	return 0;
}

/* Whether pid is one of the server's processes; its maps are read as it
 * is first seen. */
static bool is_server(struct profile_sampler *s, int32_t pid)
{
	struct idmap_entry *e;

	if (pid <= 0)
		return false;
	e = idmap_get(&s->pids, pid);
	if (!e)
		return false;
	if (!e->val) {
		e->val = pid == s->server || proc_descends_from(pid, s->server) ? MEMBER : STRANGER;
		if (e->val == MEMBER)
			(void)profile_symbols_add_process(s->raw->symbols, pid);
	}
	return e->val == MEMBER;
}

/* The fields of a sample or of a record's sample_id, as sample_type asks
 * for them (PERF_SAMPLE_IDENTIFIER first in a sample, last in an id). */
struct fields {
	uint64_t id, time;
	int32_t pid, tid;
	uint32_t cpu;
	unsigned nr;
	const uint64_t *ips;
};

static bool take(const uint8_t **p, const uint8_t *end, void *v, size_t n)
{
	if ((size_t)(end - *p) < n)
		return false;
	memcpy(v, *p, n);
	*p += n;
	return true;
}

static bool parse_sample(const uint8_t *p, const uint8_t *end, struct fields *f)
{
	uint64_t nr, cpu_res;

	if (!take(&p, end, &f->id, 8) || !take(&p, end, &f->pid, 4) || !take(&p, end, &f->tid, 4) ||
	    !take(&p, end, &f->time, 8) || !take(&p, end, &cpu_res, 8) || !take(&p, end, &nr, 8))
		return false;
	f->cpu = (uint32_t)cpu_res;
	if (nr > (uint64_t)(end - p) / 8)
		return false;
	f->nr = (unsigned)MIN(nr, (uint64_t)PROFILE_STACK_MAX);
	f->ips = (const uint64_t *)(const void *)p;
	return true;
}

static bool parse_id(const uint8_t *p, const uint8_t *end, struct fields *f)
{
	uint64_t cpu_res;

	if (!take(&p, end, &f->pid, 4) || !take(&p, end, &f->tid, 4) || !take(&p, end, &f->time, 8) ||
	    !take(&p, end, &cpu_res, 8) || !take(&p, end, &f->id, 8))
		return false;
	f->cpu = (uint32_t)cpu_res;
	return true;
}

static void note_error(struct profile_sampler *s, int r)
{
	if (r < 0 && !s->error)
		s->error = r;
}

/* A server task switched out: remembered until it comes back, with the
 * stack its CPU sampled at the switch. */
static void switched_out(struct profile_sampler *s, struct cpu_events *c, const struct fields *f, bool preempted)
{
	struct idmap_entry *e = idmap_get(&s->offs, f->tid);
	struct off_cpu *o;

	if (!e)
		return note_error(s, -ENOMEM);
	o = e->val ? e->val : (e->val = malloc(sizeof(*o)));
	if (!o)
		return note_error(s, -ENOMEM);
	s->raw->switches++;
	*o = (struct off_cpu){ .since_ns = f->time,
			       .kind = preempted ? PROFILE_RUN_QUEUE : PROFILE_BLOCKED };
	if (c->pending.tid == f->tid && c->pending.nr) {
		o->nr = c->pending.nr;
		memcpy(o->ips, c->pending.ips, o->nr * sizeof(o->ips[0]));
	}
	c->pending.nr = 0;
}

/* A server task back on a CPU: its time away counted under its reason. */
static void switched_in(struct profile_sampler *s, const struct fields *f)
{
	struct idmap_entry *e = s->offs.cap ? idmap_slot(&s->offs, f->tid) : NULL;
	struct off_cpu *o = e && e->key ? e->val : NULL;

	if (!o || !o->since_ns)
		return;
	if (f->time > o->since_ns)
		note_error(s, add_stack(s, f->pid, o->kind, o->nr, o->ips, f->time - o->since_ns));
	o->since_ns = 0;
}

static void on_switch(struct profile_sampler *s, struct cpu_events *c, const struct perf_event_header *h,
		      const uint8_t *rec)
{
	const uint8_t *p = rec + sizeof(*h), *end = rec + h->size;
	struct fields f;

	/* next_prev_pid and _tid, the other task, are not needed */
	if ((size_t)(end - p) < 8 || !parse_id(p + 8, end, &f) ||
	    !is_server(s, f.pid))
		return;
	if (h->misc & PERF_RECORD_MISC_SWITCH_OUT)
		switched_out(s, c, &f, h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	else
		switched_in(s, &f);
}

static void on_sample(struct profile_sampler *s, struct cpu_events *c, const struct perf_event_header *h,
		      const uint8_t *rec)
{
	struct fields f;

	if (!parse_sample(rec + sizeof(*h), rec + h->size, &f))
		return;
	if (f.id == c->id_switch) {
		c->pending.tid = f.tid;
		c->pending.nr = f.nr;
		memcpy(c->pending.ips, f.ips, f.nr * sizeof(f.ips[0]));
		return;
	}
	s->raw->samples++;
	if (!is_server(s, f.pid))
		return;
	s->raw->server_samples++;
	note_error(s, add_stack(s, f.pid, PROFILE_ON_CPU, f.nr, f.ips, 1));
}

struct drain_ctx {
	struct profile_sampler *s;
	unsigned cpu;
};

/* A record's time: a sample's, or a switch record's sample_id's. */
static bool record_time(const struct perf_event_header *h, const uint8_t *rec, uint64_t *ret)
{
	const uint8_t *p = rec + sizeof(*h), *end = rec + h->size;
	struct fields f;

	if (h->type == PERF_RECORD_SAMPLE && parse_sample(p, end, &f))
		return *ret = f.time, true;
	if (h->type == PERF_RECORD_SWITCH_CPU_WIDE && h->size >= sizeof(*h) + 8 && parse_id(p + 8, end, &f))
		return *ret = f.time, true;
	return false;
}

static void on_record(const struct perf_event_header *h, const uint8_t *rec, void *userdata)
{
	struct drain_ctx *d = userdata;
	struct holding *k = &d->s->holding;
	uint64_t time;

	if (!record_time(h, rec, &time))
		return;
	if (k->len + h->size > k->cap) {
		uint8_t *n = realloc(k->bytes, k->cap = (k->len + h->size) * 2);

		if (!n)
			return note_error(d->s, -ENOMEM);
		k->bytes = n;
	}
	if (k->n == k->cap_recs) {
		struct held *n = realloc(k->recs, (k->cap_recs = k->cap_recs ? k->cap_recs * 2 : 4096) * sizeof(*n));

		if (!n)
			return note_error(d->s, -ENOMEM);
		k->recs = n;
	}
	memcpy(k->bytes + k->len, rec, h->size);
	k->recs[k->n++] = (struct held){ .time = time, .cpu = d->cpu, .seq = k->seq++, .off = k->len, .size = h->size };
	k->len += h->size;
}

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The held records up to `until` (their clock's, CLOCK_MONOTONIC) handled
 * in order; the later ones kept for the next read, for a ring read
 * earlier may still get records older than them. */
static void handle_held(struct profile_sampler *s, uint64_t until)
{
	struct holding *k = &s->holding;
	size_t done = 0, len = 0;

	qsort(k->recs, k->n, sizeof(*k->recs), cmp_held);
	for (; done < k->n && k->recs[done].time <= until; done++) {
		const struct held *r = &k->recs[done];
		const struct perf_event_header *h = (const void *)(k->bytes + r->off);

		if (h->type == PERF_RECORD_SAMPLE)
			on_sample(s, &s->cpus[r->cpu], h, k->bytes + r->off);
		else
			on_switch(s, &s->cpus[r->cpu], h, k->bytes + r->off);
	}
	/* the rest kept, bytes and all, in a buffer of their own: sorted by
	 * time, their bytes are in another order, and moving them in place
	 * would overwrite some */
	if (done < k->n) {
		uint8_t *rest = malloc(k->len);

		if (!rest) {
			note_error(s, -ENOMEM);
			done = k->n;
		}
		for (size_t i = done; rest && i < k->n; i++) {
			memcpy(rest + len, k->bytes + k->recs[i].off, k->recs[i].size);
			k->recs[i - done] = k->recs[i];
			k->recs[i - done].off = len;
			len += k->recs[i].size;
		}
		if (rest) {
			free(k->bytes);
			k->bytes = rest;
			k->cap = k->len;
		}
	}
	k->n -= done;
	k->len = len;
}

/* Every ring read; what is older than a margin handled (all of it at the end). */
static void drain_all(struct profile_sampler *s, bool last)
{
	uint64_t now = now_ns();

	for (unsigned i = 0; i < s->n_cpus; i++)
		if (s->cpus[i].ring.meta)
			perf_ring_drain(&s->cpus[i].ring, on_record, &(struct drain_ctx){ .s = s, .cpu = i });
	handle_held(s, last ? UINT64_MAX : now - HOLD_NS);
}

static void *reader(void *userdata)
{
	struct profile_sampler *s = userdata;

	while (!atomic_load(&s->stop)) {
		struct timespec ts = { .tv_nsec = (long)DRAIN_NS };

		nanosleep(&ts, NULL);
		drain_all(s, false);
	}
	return NULL;
}

/* CPU i's events: the clock, with the switch records, and the switches'
 * stacks if asked, both into one ring. */
static int open_cpu(struct profile_sampler *s, unsigned i, unsigned hz, bool off_cpu_stacks)
{
	struct cpu_events *c = &s->cpus[i];
	const uint64_t fields = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				PERF_SAMPLE_CALLCHAIN;
	struct perf_event_attr clock = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(clock), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = NSEC_PER_SEC / hz, .sample_type = fields, .disabled = 1, .exclude_idle = 1,
		.exclude_hv = 1, .context_switch = 1, .sample_id_all = 1, .watermark = 1, .use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.wakeup_watermark = (uint32_t)(s->pages * 4096 / 2), .sample_max_stack = PROFILE_STACK_MAX,
	};
	struct perf_event_attr sw = clock;
	int r;

	c->fd_clock = perf_open(&clock, -1, (int)i, -1, PERF_FLAG_FD_CLOEXEC);
	if (c->fd_clock < 0)
		return c->fd_clock;
	if (ioctl(c->fd_clock, PERF_EVENT_IOC_ID, &c->id_clock) < 0)
		return -errno;
	r = perf_ring_map(c->fd_clock, s->pages, &c->ring);
	if (r < 0 || !off_cpu_stacks)
		return r;
	sw.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	sw.sample_period = 1;
	sw.context_switch = 0;
	sw.exclude_idle = 0;
	c->fd_switch = perf_open(&sw, -1, (int)i, -1, PERF_FLAG_FD_CLOEXEC);
	if (c->fd_switch < 0)
		return c->fd_switch;
	if (ioctl(c->fd_switch, PERF_EVENT_IOC_ID, &c->id_switch) < 0 ||
	    ioctl(c->fd_switch, PERF_EVENT_IOC_SET_OUTPUT, c->fd_clock) < 0)
		return -errno;
	return 0;
}

static void set_enabled(struct profile_sampler *s, bool on)
{
	for (unsigned i = 0; i < s->n_cpus; i++) {
		if (s->cpus[i].fd_clock >= 0)
			(void)ioctl(s->cpus[i].fd_clock, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
		if (s->cpus[i].fd_switch >= 0)
			(void)ioctl(s->cpus[i].fd_switch, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	}
}

/* The throttled time of the cgroup whose cpu.stat is in dir, in ns: v1's
 * throttled_time, v2's throttled_usec; -1 unknown. */
static int64_t throttled_ns(const char *dir)
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[PATH_MAX], key[64];
	long long v;

	if (!dir || snprintf(path, sizeof(path), "%s/cpu.stat", dir) >= (int)sizeof(path) || !(f = fopen(path, "re")))
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2) {
		if (streq(key, "throttled_time"))
			return v;
		if (streq(key, "throttled_usec"))
			return v * 1000;
	}
	return -1;
}

static int sampler_new(pid_t server, unsigned hz, bool off_cpu_stacks, struct profile_sampler **ret)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	struct profile_sampler *s;

	if (n < 1 || hz < 1 || hz > PROFILE_HZ_MAX || server <= 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s) + (size_t)n * sizeof(struct cpu_events));
	if (!s)
		return -ENOMEM;
	*ret = s;
	s->server = server;
	s->n_cpus = (unsigned)n;
	for (s->pages = RING_PAGES_MAX; s->pages > 8 && (size_t)n * (s->pages + 1) * 4096 > RINGS_BYTES_MAX;)
		s->pages /= 2;
	for (unsigned i = 0; i < s->n_cpus; i++)
		s->cpus[i] = (struct cpu_events){ .fd_clock = -EBADF, .fd_switch = -EBADF };
	s->raw = calloc(1, sizeof(*s->raw));
	if (!s->raw || profile_symbols_new(&s->raw->symbols) < 0)
		return -ENOMEM;
	s->raw->hz = hz;
	s->raw->off_cpu_stacks = off_cpu_stacks;
	return grow_table(s);
}

int profile_sampler_start(pid_t server, const char *cpu_cgroup, unsigned hz, bool off_cpu_stacks,
			  struct profile_sampler **ret, const char **ret_why)
{
	struct profile_sampler *s = NULL;
	int r = sampler_new(server, hz, off_cpu_stacks, &s);

	if (r >= 0 && cpu_cgroup && !(s->cpu_cgroup = strdup(cpu_cgroup)))
		r = -ENOMEM;

	*ret_why = NULL;
	/* An offline CPU has no events: ENODEV is passed over. */
	for (unsigned i = 0; r >= 0 && i < s->n_cpus; i++)
		if ((r = open_cpu(s, i, hz, off_cpu_stacks)) == -ENODEV)
			r = 0;
	if (r == -EACCES || r == -EPERM || r == -ENOENT || r == -ENOSYS)
		*ret_why = "perf_event_open() of the CPU clock on every CPU is refused here (root, or "
			   "kernel.perf_event_paranoid -1, is needed)";
	if (r >= 0) {
		s->start_ns = now_ns();
		s->throttled_ns_at_start = throttled_ns(s->cpu_cgroup);
		set_enabled(s, true);
		r = -pthread_create(&s->thread, NULL, reader, s);
		s->thread_started = r >= 0;
	}
	if (r < 0) {
		profile_sampler_free(s);
		return *ret_why ? -EOPNOTSUPP : r;
	}
	*ret = s;
	return 0;
}

static void close_events(struct profile_sampler *s)
{
	if (s->thread_started) {
		atomic_store(&s->stop, true);
		pthread_join(s->thread, NULL);
		s->thread_started = false;
	}
	set_enabled(s, false);
	if (s->raw)
		drain_all(s, true);
	for (unsigned i = 0; i < s->n_cpus; i++) {
		struct cpu_events *c = &s->cpus[i];

		if (s->raw)
			s->raw->lost += c->ring.lost;
		perf_ring_unmap(&c->ring);
		if (c->fd_switch >= 0)
			close(c->fd_switch);
		if (c->fd_clock >= 0)
			close(c->fd_clock);
		c->fd_switch = c->fd_clock = -EBADF;
	}
}

int profile_sampler_stop(struct profile_sampler *s, struct profile_raw **ret)
{
	int r;

	int64_t throttled;

	set_enabled(s, false);
	s->raw->seconds = (double)(now_ns() - s->start_ns) / NSEC_PER_SEC;
	throttled = throttled_ns(s->cpu_cgroup);
	s->raw->throttled_ns = throttled >= 0 && s->throttled_ns_at_start >= 0 ? throttled - s->throttled_ns_at_start : -1;
	close_events(s);
	r = s->error;
	if (r >= 0) {
		*ret = s->raw;
		s->raw = NULL;
	}
	profile_sampler_free(s);
	return r;
}

void profile_sampler_free(struct profile_sampler *s)
{
	if (!s)
		return;
	close_events(s);
	for (size_t i = 0; i < s->offs.cap; i++)
		if (s->offs.e[i].key)
			free(s->offs.e[i].val);
	free(s->offs.e);
	free(s->pids.e);
	free(s->table);
	free(s->cpu_cgroup);
	free(s->holding.bytes);
	free(s->holding.recs);
	profile_raw_free(s->raw);
	free(s);
}

void profile_raw_free(struct profile_raw *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->stacks[i]);
	free(r->stacks);
	profile_symbols_free(r->symbols);
	free(r);
}

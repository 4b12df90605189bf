#include <linux/perf_event.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "oltp/wakeups.h"
#include "profile/ring.h"
#include "common/util.h"

/* A ring of 2^k pages per CPU, 1 MiB, less where the CPUs are many: all of
 * them at most 64 MiB.  A second of 50,000 wake-ups overflows one; what is
 * dropped is counted, and the share of the seen is the figure. */
#define RING_PAGES_MAX 256
#define RINGS_BYTES_MAX (64u << 20)

/* The fields read of a tracepoint's raw record, their offsets from its format. */
struct event_layout {
	uint16_t id;
	int pid, cpu_a, cpu_b; /* waking: pid, target_cpu; migrate: pid, orig_cpu, dest_cpu */
};

struct ring {
	int fd_waking, fd_migrate;
	struct perf_ring ring;
	bool pending; /* a wake-up seen, its landing CPU not yet final */
	int pending_pid, pending_cpu;
};

struct oltp_wakeups {
	unsigned n_cpus;
	int *group;
	size_t pages;
	struct event_layout waking, migrate;
	uint64_t seen, cross;
	struct ring rings[];
};

static const char *tracefs_dir(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		char path[96];

		snprintf(path, sizeof(path), "%s/events/sched/sched_waking/format", dirs[i]);
		if (access(path, R_OK) == 0)
			return dirs[i];
	}
	return NULL;
}

/* The offset of field `name` in a format file's text; -1 if absent. */
static int field_offset(const char *format, const char *name)
{
	char want[64];
	const char *p;
	int off;

	snprintf(want, sizeof(want), " %s;", name);
	p = strstr(format, want);
	return p && (p = strstr(p, "offset:")) && sscanf(p, "offset:%d;", &off) == 1 ? off : -1;
}

static int read_layout(const char *dir, const char *event, const char *a, const char *b, struct event_layout *ret)
{
	_cleanup_free_ char *path = NULL, *format = NULL;
	const char *id;
	int r;

	if (xasprintf(&path, "%s/events/sched/%s/format", dir, event) < 0)
		return -ENOMEM;
	r = read_file_str(path, &format);
	if (r < 0)
		return r;
	id = strstr(format, "\nID: ");
	*ret = (struct event_layout){ .id = id ? (uint16_t)atoi(id + 5) : 0, .pid = field_offset(format, "pid"),
				      .cpu_a = field_offset(format, a), .cpu_b = b ? field_offset(format, b) : 0 };
	return ret->id && ret->pid >= 0 && ret->cpu_a >= 0 && ret->cpu_b >= 0 ? 0 : -EBADMSG;
}

static int open_event(const struct event_layout *e, unsigned cpu, const char *filter)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(a),
		.config = e->id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
	};
	int fd = perf_open(&a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* CPU c's ring: sched_waking's, with sched_migrate_task's written into it. */
static int open_ring(struct oltp_wakeups *w, unsigned c, const char *filter)
{
	struct ring *g = &w->rings[c];
	int r;

	g->fd_waking = open_event(&w->waking, c, filter);
	if (g->fd_waking < 0)
		return g->fd_waking;
	g->fd_migrate = open_event(&w->migrate, c, filter);
	if (g->fd_migrate < 0)
		return g->fd_migrate;
	r = perf_ring_map(g->fd_waking, w->pages, &g->ring);
	if (r < 0)
		return r;
	return ioctl(g->fd_migrate, PERF_EVENT_IOC_SET_OUTPUT, g->fd_waking) < 0 ? -errno : 0;
}

int oltp_wakeups_open(const char *comm, unsigned n_cpus, const int *group_of_cpu, struct oltp_wakeups **ret,
		      const char **ret_why)
{
	const char *dir = tracefs_dir();
	struct oltp_wakeups *w;
	char filter[64];
	int r = 0;

	*ret_why = NULL;
	if (!dir) {
		*ret_why = "tracefs is not mounted (/sys/kernel/tracing): the scheduler's tracepoints cannot be named";
		return -EOPNOTSUPP;
	}
	w = calloc(1, sizeof(*w) + n_cpus * sizeof(struct ring));
	if (!w)
		return -ENOMEM;
	w->n_cpus = n_cpus;
	for (w->pages = RING_PAGES_MAX;
	     w->pages > 8 && n_cpus * (w->pages + 1) * (size_t)sysconf(_SC_PAGESIZE) > RINGS_BYTES_MAX;)
		w->pages /= 2;
	w->group = malloc(n_cpus * sizeof(int));
	for (unsigned c = 0; c < n_cpus; c++)
		w->rings[c] = (struct ring){ .fd_waking = -EBADF, .fd_migrate = -EBADF };
	if (!w->group)
		r = -ENOMEM;
	else
		memcpy(w->group, group_of_cpu, n_cpus * sizeof(int));
	if (r >= 0)
		r = read_layout(dir, "sched_waking", "target_cpu", NULL, &w->waking);
	if (r >= 0)
		r = read_layout(dir, "sched_migrate_task", "orig_cpu", "dest_cpu", &w->migrate);
	/* The wakee's command: a quote in it could not be said in the filter. */
	if (r >= 0 && (strchr(comm, '"') || strchr(comm, '\\')))
		r = -EINVAL;
	snprintf(filter, sizeof(filter), "comm == \"%s\"", comm);
	for (unsigned c = 0; r >= 0 && c < n_cpus; c++)
		r = open_ring(w, c, filter);
	if (r < 0) {
		oltp_wakeups_free(w);
		*ret_why = r == -ENOENT || r == -EACCES || r == -EPERM ? "the scheduler's tracepoints cannot be opened here"
								       : NULL;
		return *ret_why ? -EOPNOTSUPP : r;
	}
	*ret = w;
	return 0;
}

static int32_t field(const uint8_t *raw, uint32_t size, int offset)
{
	int32_t v;

	if (offset < 0 || (uint32_t)offset + sizeof(v) > size)
		return -1;
	memcpy(&v, raw + offset, sizeof(v));
	return v;
}

/* The wake-up pending on ring g, counted where it landed. */
static void settle(struct oltp_wakeups *w, unsigned c, struct ring *g)
{
	if (!g->pending)
		return;
	g->pending = false;
	w->seen++;
	if (g->pending_cpu >= 0 && (unsigned)g->pending_cpu < w->n_cpus && w->group[g->pending_cpu] != w->group[c])
		w->cross++;
}

/* One raw record of CPU c: a wake-up begun there, or its move. */
static void take_record(struct oltp_wakeups *w, unsigned c, const uint8_t *raw, uint32_t size)
{
	struct ring *g = &w->rings[c];
	uint16_t type;

	if (size < sizeof(type))
		return;
	memcpy(&type, raw, sizeof(type));
	if (type == w->waking.id) {
		settle(w, c, g);
		g->pending = true;
		g->pending_pid = field(raw, size, w->waking.pid);
		g->pending_cpu = field(raw, size, w->waking.cpu_a);
	} else if (type == w->migrate.id && g->pending && field(raw, size, w->migrate.pid) == g->pending_pid) {
		/* The move of the wake-up just begun (one of a load balance is another task's). */
		g->pending_cpu = field(raw, size, w->migrate.cpu_b);
		settle(w, c, g);
	}
}

struct drain_ctx {
	struct oltp_wakeups *w;
	unsigned c;
};

/* A record of CPU c's ring: a sample's raw tracepoint data taken. */
static void on_record(const struct perf_event_header *h, const uint8_t *rec, void *userdata)
{
	struct drain_ctx *d = userdata;
	uint32_t size;

	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + sizeof(size))
		return;
	memcpy(&size, rec + sizeof(*h), sizeof(size));
	if (sizeof(*h) + sizeof(size) + size <= h->size)
		take_record(d->w, d->c, rec + sizeof(*h) + sizeof(size), size);
}

void oltp_wakeups_read(struct oltp_wakeups *w, uint64_t *ret_seen, uint64_t *ret_cross, uint64_t *ret_lost)
{
	uint64_t lost = 0;

	for (unsigned c = 0; w && c < w->n_cpus; c++) {
		perf_ring_drain(&w->rings[c].ring, on_record, &(struct drain_ctx){ .w = w, .c = c });
		lost += w->rings[c].ring.lost;
	}
	*ret_seen = w ? w->seen : UINT64_MAX;
	*ret_cross = w ? w->cross : UINT64_MAX;
	*ret_lost = w ? lost : UINT64_MAX;
}

void oltp_wakeups_free(struct oltp_wakeups *w)
{
	if (!w)
		return;
	for (unsigned c = 0; c < w->n_cpus; c++) {
		struct ring *g = &w->rings[c];

		perf_ring_unmap(&g->ring);
		if (g->fd_migrate >= 0)
			close(g->fd_migrate);
		if (g->fd_waking >= 0)
			close(g->fd_waking);
	}
	free(w->group);
	free(w);
}

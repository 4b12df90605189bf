#include <fcntl.h>
#include <linux/perf_event.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <zlib.h>

#include "profile/folded.h"
#include "profile/symbols.h"
#include "common/util.h"

static const char *const io_prefixes[] = { "io_schedule", "folio_wait", "wait_on_page", "__wait_on_buffer",
					   "blk_", "jbd2_", "submit_bio", "filemap_fault", NULL };
static const char *const futex_prefixes[] = { "futex_", "do_futex", "__x64_sys_futex", NULL };
static const char *const socket_prefixes[] = { "sk_wait", "unix_stream_", "unix_dgram_", "tcp_recvmsg", "sock_",
					       "ep_poll", "do_epoll_wait", "do_sys_poll", "do_select",
					       "core_sys_select", "wait_woken", "pipe_read", NULL };
static const char *const sleep_prefixes[] = { "do_nanosleep", "hrtimer_nanosleep", "schedule_hrtimeout",
					      "common_nsleep", NULL };

const struct profile_reason profile_reasons[_PROFILE_REASON_MAX] = {
	[PROFILE_REASON_RUN_QUEUE] = { .key = "run-queue", .label = "waiting on the run queue (preempted while runnable)" },
	[PROFILE_REASON_THROTTLED] = { .key = "throttled",
				       .label = "throttled (runnable, its CPU idle: the cgroup's quota spent)" },
	[PROFILE_REASON_IO] = { .key = "io", .label = "waiting on I/O", .prefixes = io_prefixes },
	[PROFILE_REASON_FUTEX] = { .key = "futex", .label = "futex waits (locks, condition variables)",
				   .prefixes = futex_prefixes },
	[PROFILE_REASON_SOCKET] = { .key = "socket", .label = "waiting on a socket or poll (the client)",
				    .prefixes = socket_prefixes },
	[PROFILE_REASON_SLEEP] = { .key = "sleep", .label = "sleeping on a timer", .prefixes = sleep_prefixes },
	[PROFILE_REASON_BLOCKED] = { .key = "blocked",
				     .label = "blocked for another reason, or without its stack (profile-off-cpu = no)" },
};

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->lines[i].stack);
	free(p->lines);
	free(p);
}

static bool starts_with_any(const char *s, const char *const *prefixes)
{
	for (size_t i = 0; prefixes && prefixes[i]; i++)
		if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* A blocked stack's reason, by its kernel functions. */
static size_t blocked_reason(const char *const *kernel_syms, size_t n)
{
	for (size_t k = PROFILE_REASON_IO; k < PROFILE_REASON_BLOCKED; k++)
		for (size_t i = 0; i < n; i++)
			if (starts_with_any(kernel_syms[i], profile_reasons[k].prefixes))
				return k;
	return PROFILE_REASON_BLOCKED;
}

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void buf_add(struct buf *b, const char *a, const char *sep, const char *c)
{
	size_t n = strlen(a) + strlen(sep) + strlen(c);

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		char *s = realloc(b->s, b->cap = (b->len + n + 1) * 2);

		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
	}
	b->len += (size_t)sprintf(b->s + b->len, "%s%s%s", a, sep, c);
}

/* The line of one stack: its frames named, root first. */
static int fold_stack(struct profile_symbols *sym, const struct profile_stack *k, size_t *ret_reason, char **ret)
{
	const char *dsos[PROFILE_STACK_MAX], *syms[PROFILE_STACK_MAX], *kernel_syms[PROFILE_STACK_MAX];
	size_t n = 0, n_kernel = 0, reason = PROFILE_REASON_RUN_QUEUE;
	struct buf b = {};
	bool kernel = false, first = true;

	for (unsigned i = 0; i < k->nr && n < ELEMENTSOF(dsos); i++) {
		if (k->ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = k->ips[i] == (uint64_t)PERF_CONTEXT_KERNEL;
			first = true;
			continue;
		}
		profile_symbols_frame(sym, k->pid, first ? k->ips[i] : k->ips[i] - 1, kernel, &dsos[n], &syms[n]);
		if (kernel)
			kernel_syms[n_kernel++] = syms[n];
		first = false;
		n++;
	}
	if (k->kind == PROFILE_BLOCKED)
		reason = blocked_reason(kernel_syms, n_kernel);
	*ret_reason = reason;
	buf_add(&b, k->kind == PROFILE_ON_CPU ? "on-cpu" : "off-cpu:", "",
		k->kind == PROFILE_ON_CPU ? "" : profile_reasons[reason].key);
	while (n--) {
		buf_add(&b, ";", dsos[n], "`");
		buf_add(&b, syms[n], "", "");
		/* A name is the server's file's: no separator of the format in it. */
		for (char *c = b.oom ? NULL : b.s + b.len - strlen(dsos[n]) - 1 - strlen(syms[n]); c && *c; c++)
			if (*c == ';' || *c == ' ' || (unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
				*c = '_';
	}
	if (b.oom) {
		free(b.s);
		return -ENOMEM;
	}
	*ret = b.s;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct profile_line *)a)->stack, ((const struct profile_line *)b)->stack);
}

/* Lines of the same stack (two PIDs, two addresses in one function) merged. */
static void merge_lines(struct profile *p)
{
	size_t out = 0;

	qsort(p->lines, p->n, sizeof(*p->lines), cmp_line);
	for (size_t i = 0; i < p->n; i++) {
		if (out && streq(p->lines[out - 1].stack, p->lines[i].stack)) {
			p->lines[out - 1].weight += p->lines[i].weight;
			free(p->lines[i].stack);
			continue;
		}
		p->lines[out++] = p->lines[i];
	}
	p->n = out;
}

/* The part of the runnable waits that was throttled: the cgroup's
 * throttled time over the waits, at most all of them. */
static double throttled_part(const struct profile_raw *raw)
{
	uint64_t waits = 0;

	for (size_t i = 0; i < raw->n; i++)
		if (raw->stacks[i]->kind == PROFILE_RUN_QUEUE)
			waits += raw->stacks[i]->weight;
	return raw->throttled_ns > 0 && waits ? MIN(1.0, (double)raw->throttled_ns / (double)waits) : 0.0;
}

/* Line `at` of p: the stack's text and its weight; a runnable wait's
 * throttled part a line of its own.  One more line's room is made. */
static int add_line(struct profile *p, char *stack, uint64_t weight, size_t reason, double throttled)
{
	struct profile_line *n = realloc(p->lines, (p->n + 2) * sizeof(*n));
	uint64_t part;

	if (!n) {
		free(stack);
		return -ENOMEM;
	}
	p->lines = n;
	if (reason != PROFILE_REASON_RUN_QUEUE || throttled <= 0) {
		p->lines[p->n++] = (struct profile_line){ .stack = stack, .weight = weight };
		return 0;
	}
	part = (uint64_t)llround((double)weight * throttled);
	p->lines[p->n] = (struct profile_line){ .stack = NULL, .weight = part };
	if (xasprintf(&p->lines[p->n].stack, "off-cpu:%s%s", profile_reasons[PROFILE_REASON_THROTTLED].key,
		      stack + strcspn(stack, ";")) < 0) {
		free(stack);
		return -ENOMEM;
	}
	p->n += part > 0;
	if (!part)
		free(p->lines[p->n].stack);
	if (weight > part)
		p->lines[p->n++] = (struct profile_line){ .stack = stack, .weight = weight - part };
	else
		free(stack);
	return 0;
}

int profile_fold(struct profile_raw *raw, struct profile **ret)
{
	struct profile *p = calloc(1, sizeof(*p));
	double throttled = throttled_part(raw);
	int r = p ? 0 : -ENOMEM;

	for (size_t i = 0; i < raw->n && r >= 0; i++) {
		const struct profile_stack *k = raw->stacks[i];
		size_t reason = 0;
		char *stack;

		r = fold_stack(raw->symbols, k, &reason, &stack);
		/* off-CPU time in microseconds, at least 1 for a wait seen */
		if (r >= 0)
			r = add_line(p, stack, k->kind == PROFILE_ON_CPU ? k->weight : MAX(k->weight / 1000, 1u),
				     k->kind == PROFILE_ON_CPU ? _PROFILE_REASON_MAX : reason, throttled);
	}
	if (r < 0) {
		profile_free(p);
		return r;
	}
	merge_lines(p);
	*ret = p;
	return 0;
}

int profile_write(const struct profile *p, const char *path)
{
	_cleanup_free_ char *tmp = NULL;
	gzFile z;
	int fd, r = 0;

	if (xasprintf(&tmp, "%s.tmp", path) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	z = gzdopen(fd, "wb6");
	if (!z) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (gzprintf(z, "%s %" PRIu64 "\n", p->lines[i].stack, p->lines[i].weight) <= 0)
			r = -EIO;
	if (gzclose(z) != Z_OK && r >= 0)
		r = -EIO;
	if (r >= 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int profile_parse_line(char *line, struct profile_line *ret)
{
	char *blank = strrchr(line, ' '), *end;
	size_t reason;
	uint64_t w;

	if (!blank || blank == line || !blank[1])
		return -EBADMSG;
	errno = 0;
	w = strtoull(blank + 1, &end, 10);
	if (errno || *end || blank[1] == '-')
		return -EBADMSG;
	*blank = '\0';
	if (!profile_line_on_cpu(line, &reason) && reason == _PROFILE_REASON_MAX)
		return -EBADMSG;
	*ret = (struct profile_line){ .stack = line, .weight = w };
	return 0;
}

static int read_lines(gzFile z, const char *path, struct profile *p, char **ret_why)
{
	_cleanup_free_ char *line = malloc(PROFILE_LINE_MAX);
	size_t cap = 0;

	if (!line)
		return -ENOMEM;
	for (size_t no = 1; gzgets(z, line, PROFILE_LINE_MAX); no++) {
		size_t len = strlen(line);
		struct profile_line l;

		if (!len || line[len - 1] != '\n' || p->n >= PROFILE_LINES_MAX)
			return xasprintf(ret_why, "%s: line %zu: longer than %d bytes, or past %d lines", path, no,
					 PROFILE_LINE_MAX, PROFILE_LINES_MAX) < 0 ? -ENOMEM : -EBADMSG;
		line[len - 1] = '\0';
		if (profile_parse_line(line, &l) < 0)
			return xasprintf(ret_why, "%s: line %zu: not a folded stack (\"on-cpu;...\" or "
					 "\"off-cpu:REASON;...\", a blank, a count)", path, no) < 0 ? -ENOMEM : -EBADMSG;
		if (p->n == cap) {
			struct profile_line *n = realloc(p->lines, (cap = cap ? cap * 2 : 1024) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			p->lines = n;
		}
		if (!(l.stack = strdup(l.stack)))
			return -ENOMEM;
		p->lines[p->n++] = l;
	}
	return 0;
}

int profile_read(const char *path, struct profile **ret, char **ret_why)
{
	struct profile *p;
	gzFile z;
	int fd, r;

	*ret_why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	z = gzdopen(fd, "rb");
	p = calloc(1, sizeof(*p));
	if (!z || !p) {
		if (z)
			gzclose(z);
		else
			close(fd);
		free(p);
		return -ENOMEM;
	}
	r = read_lines(z, path, p, ret_why);
	gzclose(z);
	if (r < 0) {
		profile_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

const char *profile_leaf(const char *stack)
{
	const char *semi = strrchr(stack, ';');

	return semi ? semi + 1 : stack;
}

bool profile_line_on_cpu(const char *stack, size_t *ret_reason)
{
	size_t len = strcspn(stack, ";");

	*ret_reason = _PROFILE_REASON_MAX;
	if (len == 6 && strncmp(stack, "on-cpu", 6) == 0)
		return true;
	if (len < 8 || strncmp(stack, "off-cpu:", 8) != 0)
		return false;
	for (size_t k = 0; k < _PROFILE_REASON_MAX; k++)
		if (strlen(profile_reasons[k].key) == len - 8 && strncmp(stack + 8, profile_reasons[k].key, len - 8) == 0)
			*ret_reason = k;
	return false;
}

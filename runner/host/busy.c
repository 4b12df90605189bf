#include <dirent.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <math.h>

#include "host/busy.h"
#include "common/load.h"
#include "common/util.h"

#define BUSY_MAX 4096

struct sample {
	pid_t pid, ppid;
	uint64_t ticks; /* utime + stime */
	char comm[32];
};

static int read_stat(pid_t pid, struct sample *s)
{
	_cleanup_free_ char *stat = NULL;
	char path[64];
	const char *open, *close;
	unsigned long long ut, st;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file_str(path, &stat) < 0 || !(open = strchr(stat, '(')) || !(close = strrchr(stat, ')')))
		return -ENOENT;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(close + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ppid, &ut, &st) != 3)
		return -EINVAL;
	s->pid = pid;
	s->ppid = ppid;
	s->ticks = ut + st;
	snprintf(s->comm, sizeof(s->comm), "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

static size_t sample_all(struct sample *out, size_t cap)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	while (d && n < cap && (e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && read_stat(atoi(e->d_name), &out[n]) >= 0)
			n++;
	if (d)
		closedir(d);
	return n;
}

static pid_t parent_in(const struct sample *s, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].pid == pid)
			return s[i].ppid;
	return 0;
}

/* This process, its ancestors, and its descendants. */
static bool ours(const struct sample *s, size_t n, pid_t pid)
{
	pid_t self = getpid();

	for (pid_t p = getppid(); p > 1; p = parent_in(s, n, p))
		if (p == pid)
			return true;
	for (unsigned depth = 0; depth < 64 && pid > 1; depth++, pid = parent_in(s, n, pid))
		if (pid == self)
			return true;
	return false;
}

/* b's process i against its sample in a, in % of a CPU; -1 if new. */
static int percent_of(const struct sample *a, size_t na, const struct sample *bi, long hz, unsigned interval_ms)
{
	for (size_t j = 0; j < na; j++)
		if (a[j].pid == bi->pid)
			return bi->ticks < a[j].ticks ? 0
						       : (int)((bi->ticks - a[j].ticks) * 100 * 1000 / ((uint64_t)hz * interval_ms));
	return -1;
}

/* Ours summed into ret->ours_cpus, the others above min_percent listed. */
static int tell_processes(const struct sample *a, size_t na, const struct sample *b, size_t nb, unsigned interval_ms,
			  unsigned min_percent, struct host_busy *ret)
{
	long hz = sysconf(_SC_CLK_TCK);
	int r = 0;

	for (size_t i = 0; i < nb && r >= 0; i++) {
		int pct = percent_of(a, na, &b[i], hz, interval_ms);
		char *longer = NULL;

		if (pct < 0)
			continue;
		if (ours(b, nb, b[i].pid)) {
			ret->ours_cpus += pct / 100.0;
			continue;
		}
		if ((unsigned)pct < min_percent)
			continue;
		r = xasprintf(&longer, "%s%s%s (PID %d, %d%% of a CPU)", strempty(ret->processes), ret->processes ? ", " : "",
			      b[i].comm, (int)b[i].pid, pct);
		free(ret->processes);
		ret->processes = longer;
	}
	return r;
}

int host_busy_sample(unsigned interval_ms, unsigned min_percent, struct host_busy *ret)
{
	_cleanup_free_ struct sample *a = calloc(BUSY_MAX, sizeof(*a)), *b = calloc(BUSY_MAX, sizeof(*b));
	struct host_cpu_times before, after;
	struct host_cpu_use use;
	size_t na, nb;
	int r;

	*ret = (struct host_busy){ .load1 = NAN };
	if (!a || !b)
		return -ENOMEM;
	r = host_cpu_times_read(&before);
	if (r < 0)
		return r;
	na = sample_all(a, BUSY_MAX);
	usleep(interval_ms * 1000);
	nb = sample_all(b, BUSY_MAX);
	r = host_cpu_times_read(&after);
	if (r >= 0)
		r = host_cpu_use_between(&before, &after, &use);
	if (r >= 0)
		r = tell_processes(a, na, b, nb, interval_ms, min_percent, ret);
	if (r < 0) {
		host_busy_done(ret);
		return r;
	}
	(void)host_load1(&ret->load1);
	ret->n_cpus = after.n_cpus;
	ret->busy_cpus = use.busy_cpus;
	ret->other_cpus = MAX(use.busy_cpus - ret->ours_cpus, 0.0);
	return 0;
}

void host_busy_done(struct host_busy *b)
{
	free(b->processes);
	b->processes = NULL;
}

int host_busy_describe(const struct host_busy *b, char **ret)
{
	return xasprintf(ret, "load %.2f on %u CPU%s, %.2f CPUs in use outside slicebench's processes%s%s%s", b->load1,
			 b->n_cpus, b->n_cpus == 1 ? "" : "s", b->other_cpus, b->processes ? " (" : "",
			 b->processes ? b->processes : "; none of those processes is visible here, as in a container",
			 b->processes ? ")" : "");
}

void host_warn_if_busy(const char *verb, const char *consequence)
{
	_cleanup_free_ char *text = NULL;
	struct host_busy b;

	if (host_busy_sample(500, 5, &b) < 0)
		return; /* an extra: a host whose /proc cannot be read still runs */
	if (host_is_busy(b.other_cpus) && host_busy_describe(&b, &text) >= 0)
		log_warning("%s: the host is busy, and %s: %s", verb, consequence, text);
	host_busy_done(&b);
}

#include <dirent.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "host/busy.h"
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

int host_busy_processes(unsigned interval_ms, unsigned min_percent, char **ret)
{
	_cleanup_free_ struct sample *a = calloc(BUSY_MAX, sizeof(*a)), *b = calloc(BUSY_MAX, sizeof(*b));
	_cleanup_free_ char *list = NULL;
	long hz = sysconf(_SC_CLK_TCK);
	size_t na, nb;
	int r = 0;

	*ret = NULL;
	if (!a || !b)
		return -ENOMEM;
	na = sample_all(a, BUSY_MAX);
	usleep(interval_ms * 1000);
	nb = sample_all(b, BUSY_MAX);
	for (size_t i = 0; i < nb && r >= 0; i++)
		for (size_t j = 0; j < na; j++) {
			uint64_t used;
			unsigned pct;

			if (a[j].pid != b[i].pid || b[i].ticks < a[j].ticks)
				continue;
			used = b[i].ticks - a[j].ticks;
			pct = (unsigned)(used * 100 * 1000 / ((uint64_t)hz * interval_ms));
			if (pct >= min_percent && !ours(b, nb, b[i].pid)) {
				char *longer = NULL;

				r = xasprintf(&longer, "%s%s%s (PID %d, %u%% of a CPU)", strempty(list), list ? ", " : "",
					      b[i].comm, (int)b[i].pid, pct);
				free(list);
				list = longer;
			}
			break;
		}
	if (r >= 0) {
		*ret = list;
		list = NULL;
	}
	return r < 0 ? r : 0;
}

/* The command line that runs a run or an explain again (run/engine.h):
 * recorded in its directory, shown on its page, and run dry by t/142. */
#include <limits.h>
#include <sched.h>
#include <stdio.h>

#include "run/run.h"
#include "common/topology.h"
#include "common/util.h"

/* Appends s to *buf at *used, growing it; -ENOMEM. */
static int append(char **buf, size_t *used, size_t *cap, const char *s, size_t n)
{
	if (*used + n + 1 > *cap) {
		size_t want = MAX(2 * *cap, *used + n + 1);
		char *p = realloc(*buf, want);

		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = want;
	}
	memcpy(*buf + *used, s, n);
	*used += n;
	(*buf)[*used] = 0;
	return 0;
}

/* A word as a POSIX shell reads it back: as it is when it is plain,
 * else in single quotes. */
static int append_word(char **buf, size_t *used, size_t *cap, const char *w)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,%+@";
	int r = *used ? append(buf, used, cap, " ", 1) : 0;

	if (r >= 0 && *w && strspn(w, plain) == strlen(w))
		return append(buf, used, cap, w, strlen(w));
	r = r < 0 ? r : append(buf, used, cap, "'", 1);
	for (const char *p = w; r >= 0 && *p; p++)
		r = *p == '\'' ? append(buf, used, cap, "'\\''", 4) : append(buf, used, cap, p, 1);
	return r < 0 ? r : append(buf, used, cap, "'", 1);
}

/* "taskset -c 1 " when this process may run on fewer CPUs than are
 * online (a run under taskset measures that), else "". */
static int taskset_prefix(char *buf, size_t len)
{
	long cpus[CPU_SETSIZE];
	char list[512];
	cpu_set_t set;
	size_t n = 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	*buf = 0;
	if (sched_getaffinity(0, sizeof(set), &set) < 0 || online <= 0 || CPU_COUNT(&set) >= online)
		return 0;
	for (long c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	if (cpu_list_format(cpus, n, list, sizeof(list)) < 0)
		return -ENAMETOOLONG;
	return snprintf(buf, len, "taskset -c %s ", list) < (int)len ? 0 : -ENAMETOOLONG;
}

int run_reproduce_line(const char *const *words, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	char prefix[600];
	size_t used = 0, cap = 0;
	int r = taskset_prefix(prefix, sizeof(prefix));

	if (r >= 0 && *prefix)
		r = append(&buf, &used, &cap, prefix, strlen(prefix) - 1);
	for (size_t i = 0; r >= 0 && words[i]; i++)
		r = append_word(&buf, &used, &cap, words[i]);
	if (r < 0)
		return r;
	*ret = buf;
	buf = NULL;
	return 0;
}

int run_reproduce_experiment(const char *given, const char *path, char **ret)
{
	char real[PATH_MAX];

	/* A name (found in the experiments' directories) stays a name; a file
	 * is named by its absolute path, which works from any directory. */
	if (!strchr(given, '/') && !(strlen(given) > 4 && streq(given + strlen(given) - 4, ".ini")))
		*ret = strdup(given);
	else
		*ret = strdup(realpath(path, real) ? real : path);
	return *ret ? 0 : -ENOMEM;
}

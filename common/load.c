/* The host's load from /proc: one reader per figure (common/load.h). */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "common/load.h"
#include "common/util.h"

/* The "cpu " line only: "cpu0 ..." is a line of its own, and a blank in a
 * scanf format also matches none, so the prefix is compared first (the
 * bug that read the last CPU's line, shifted by a field). */
static int parse_cpu_line(const char *line, struct host_cpu_times *ret)
{
	if (strncmp(line, "cpu ", 4) != 0)
		return 0;
	if (sscanf(line + 4, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			     " %" SCNu64,
		   &ret->user, &ret->nice, &ret->system, &ret->idle, &ret->iowait, &ret->irq, &ret->softirq,
		   &ret->steal) != 8)
		return -EBADMSG;
	return 1;
}

int host_cpu_times_read(struct host_cpu_times *ret)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/stat", "re");
	struct host_cpu_times t = {};
	char line[1024];
	int found = 0, r;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned cpu;

		r = parse_cpu_line(line, &t);
		if (r < 0)
			return r;
		found |= r;
		if (r == 0 && sscanf(line, "cpu%u ", &cpu) == 1)
			t.n_cpus++;
		else if (r == 0)
			(void)(sscanf(line, "ctxt %" SCNu64, &t.ctxt) == 1 ||
			       sscanf(line, "procs_running %u", &t.procs_running) == 1 ||
			       sscanf(line, "procs_blocked %u", &t.procs_blocked) == 1);
	}
	if (!found || t.n_cpus == 0)
		return -EBADMSG;
	*ret = t;
	return 0;
}

static uint64_t ticks_total(const struct host_cpu_times *t)
{
	return t->user + t->nice + t->system + t->idle + t->iowait + t->irq + t->softirq + t->steal;
}

/* b's counter less a's; 0 if it went back (a CPU taken offline). */
static double grew(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) : 0;
}

int host_cpu_use_between(const struct host_cpu_times *a, const struct host_cpu_times *b, struct host_cpu_use *ret)
{
	double total = grew(ticks_total(a), ticks_total(b)), user, sys;

	if (!(total > 0))
		return -ERANGE;
	user = grew(a->user, b->user) + grew(a->nice, b->nice);
	sys = grew(a->system, b->system) + grew(a->irq, b->irq) + grew(a->softirq, b->softirq);
	*ret = (struct host_cpu_use){
		.user_pct = 100.0 * user / total,
		.sys_pct = 100.0 * sys / total,
		.idle_pct = 100.0 * grew(a->idle, b->idle) / total,
		.iowait_pct = 100.0 * grew(a->iowait, b->iowait) / total,
		.steal_pct = 100.0 * grew(a->steal, b->steal) / total,
		.busy_cpus = (user + sys) / total * (double)b->n_cpus,
	};
	return 0;
}

int host_load1(double *ret)
{
	_cleanup_free_ char *s = NULL;
	char *end;
	int r;

	r = read_file_str("/proc/loadavg", &s);
	if (r < 0)
		return r;
	*ret = strtod(s, &end);
	return end == s ? -EBADMSG : 0;
}

/* The state letter of a /proc stat file (after the command's ")") and,
 * if asked, its field 20: the process's threads.  0: not readable.  A
 * read into the stack: the sampler reads hundreds of these a second. */
static char stat_state(const char *path, long *ret_threads)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	char buf[1024];
	const char *p;
	ssize_t n;

	if (fd < 0 || (n = loop_read(fd, buf, sizeof(buf) - 1)) <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return 0;
	if (ret_threads) {
		const char *f = p + 2;

		/* from field 3, the state, to field 20 */
		for (int field = 3; field < 20 && f; field++)
			f = strchr(f + 1, ' ');
		*ret_threads = f ? strtol(f + 1, NULL, 10) : 0;
	}
	return p[2];
}

/* A process of one thread is counted by its own stat (ps -eLo lists the
 * one thread with the process's state); one of more by each thread's. */
static void count_process(const char *pid, unsigned *running, unsigned *blocked)
{
	char path[64 + 2 * 256], state;
	struct dirent *t;
	long threads = 0;
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	state = stat_state(path, &threads);
	if (threads == 1) {
		*running += state == 'R';
		*blocked += state == 'D';
		return;
	}
	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	tasks = opendir(path);
	while (tasks && (t = readdir(tasks))) {
		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid, t->d_name);
		state = stat_state(path, NULL);
		*running += state == 'R';
		*blocked += state == 'D';
	}
	if (tasks)
		closedir(tasks);
}

int host_task_states(unsigned *ret_running, unsigned *ret_uninterruptible)
{
	DIR *proc = opendir("/proc");
	unsigned running = 0, blocked = 0;
	struct dirent *e;

	if (!proc)
		return -errno;
	while ((e = readdir(proc)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
			count_process(e->d_name, &running, &blocked);
	closedir(proc);
	*ret_running = running;
	*ret_uninterruptible = blocked;
	return 0;
}

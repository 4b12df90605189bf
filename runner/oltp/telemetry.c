/* What the host and the threads do while a step runs: /proc/stat deltas,
 * load, the server's CPU time and throttling (its processes', PostgreSQL's
 * backends with its postmaster), where every server and
 * client thread last ran, counted per L3 group and NUMA node (on AMD Zen an
 * L3 spans one core complex, so piling up there is the first suspect), and
 * the threads' scheduling: run-queue wait, migrations, involuntary
 * switches, and how much of the server's run time was on a client's CPU. */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <sys/syscall.h>

#include "oltp/oltp.h"
#include "oltp/pmu.h"
#include "oltp/wakeups.h"
#include "profile/sampler.h"
#include "common/load.h"
#include "common/util.h"

/* The server's processes followed: PostgreSQL's postmaster, its 850
 * backends at most in the shipped experiments, and its helpers. */
#define SERVER_PROCESSES_MAX 2048

struct oltp_telemetry {
	bool threads_off; /* OLTP_FIGURE_THREADS: no thread's counters read */
	int server_pid;
	int proxy_pid; /* 0: no proxy */
	int client_pid; /* 0: this process, less the sampling thread */
	char *cpu_cgroup;
	char *usage_cgroup; /* the server's own cgroup counting its CPU time; NULL: its processes' */
	double server_cpu_floor; /* the last server CPU time given: a sum over processes never goes back */
	size_t n_neighbours;
	const char *const *neighbour_names;   /* the options' */
	char *neighbour_cgroups[OLTP_NEIGHBOURS_MAX]; /* NULL: its process's own time */
	int neighbour_pids[OLTP_NEIGHBOURS_MAX];
	unsigned n_cpus;
	int *l3_of_cpu, *node_of_cpu; /* group index per CPU */
	unsigned n_l3, n_nodes;
	struct host_cpu_times prev;
	uint64_t prev_ns;
	uint8_t *client_cpus; /* [n_cpus]: where a client thread last ran, at the latest sample that saw one */
	/* Every thread seen, as last read: a thread that ends keeps its counts
	 * in the totals, which therefore never shrink. */
	struct thread_memory {
		int tid;
		bool server;
		uint64_t run_ns, wait_ns, migrations, vol, nonvol;
		int cpu; /* the last CPU it ran on, as last read */
	} *threads;
	size_t n_threads, cap_threads;
	size_t hint; /* where remember() looks first */
	uint64_t server_run_ns, server_run_on_client_cpu_ns; /* since the first sample */
	struct oltp_pmu *pmu; /* NULL: pmu_why says why not */
	const char *pmu_why;
	struct oltp_wakeups *wakeups; /* asked for and opened; else wakeups_why says why not, if asked */
	const char *wakeups_why;
	unsigned profile_hz; /* the profile asked for (0: none), its sampler, or why it could not start */
	bool profile_off_cpu;
	struct profile_sampler *sampler;
	const char *profile_why;
};

/* The index of the group whose first CPU is `first`, added if new. */
static int group_index(int *firsts, unsigned *n, int first)
{
	for (unsigned i = 0; i < *n; i++)
		if (firsts[i] == first)
			return (int)i;
	firsts[*n] = first;
	return (int)(*n)++;
}

static int first_cpu_of_list(const char *path)
{
	_cleanup_free_ char *s = NULL;

	if (read_file_str(path, &s) < 0)
		return -1;
	return atoi(s);
}

static void read_topology(struct oltp_telemetry *t)
{
	_cleanup_free_ int *l3_firsts = calloc(t->n_cpus, sizeof(int));
	char path[128];

	if (!l3_firsts)
		return;
	for (unsigned c = 0; c < t->n_cpus; c++) {
		int first;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/cache/index3/shared_cpu_list", c);
		first = first_cpu_of_list(path);
		t->l3_of_cpu[c] = group_index(l3_firsts, &t->n_l3, first < 0 ? 0 : first);
	}
	for (unsigned node = 0; node < OLTP_MAX_CPUS; node++) {
		_cleanup_free_ char *list = NULL;
		long cpus[CPU_LIST_MAX];
		size_t n = 0;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", node);
		if (read_file_str(path, &list) < 0)
			break;
		if (parse_int_list(list, 0, CPU_LIST_MAX - 1, cpus, ELEMENTSOF(cpus), &n) < 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if ((unsigned long)cpus[i] < t->n_cpus)
				t->node_of_cpu[cpus[i]] = (int)node;
		t->n_nodes = node + 1;
	}
	t->n_nodes = MAX(t->n_nodes, 1u);
}

static size_t server_processes(int pid, int *pids, size_t n);

/* The server's hardware counters, or why there are none. */
static void open_pmu(struct oltp_telemetry *t)
{
	int pids[SERVER_PROCESSES_MAX];
	size_t n = server_processes(t->server_pid, pids, ELEMENTSOF(pids));
	int r;

	if (!n) {
		t->pmu_why = "no server to count";
		return;
	}
	r = oltp_pmu_open(pids, n, &t->pmu, &t->pmu_why);
	if (r < 0 && !t->pmu_why)
		t->pmu_why = r == -EACCES || r == -EPERM ? "perf_event_open is not allowed here (perf_event_paranoid)"
							 : "perf_event_open failed";
}

/* Where the server's wake-ups land, by its command's name, or why not. */
static void open_wakeups(struct oltp_telemetry *t)
{
	_cleanup_free_ char *comm = NULL;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", t->server_pid);
	if (t->server_pid <= 0 || read_file_str(path, &comm) < 0) {
		t->wakeups_why = "no server to follow";
		return;
	}
	comm[strcspn(comm, "\n")] = 0;
	if (oltp_wakeups_open(comm, t->n_cpus, t->l3_of_cpu, &t->wakeups, &t->wakeups_why) < 0 && !t->wakeups_why)
		t->wakeups_why = "the scheduler's tracepoints could not be sampled";
}

int oltp_telemetry_new(const struct oltp_options *o, struct oltp_telemetry **ret)
{
	struct oltp_telemetry *t = calloc(1, sizeof(*t));
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (!t)
		return -ENOMEM;
	t->threads_off = o->figures_off & OLTP_FIGURE_THREADS;
	t->server_pid = o->server_pid;
	t->proxy_pid = o->proxy_pid;
	t->n_cpus = (unsigned)MAX(1L, MIN(n, (long)OLTP_MAX_CPUS));
	t->cpu_cgroup = o->server_cpu_cgroup ? strdup(o->server_cpu_cgroup) : NULL;
	t->usage_cgroup = o->server_usage_cgroup ? strdup(o->server_usage_cgroup) : NULL;
	t->server_cpu_floor = -1;
	t->l3_of_cpu = calloc(t->n_cpus, sizeof(int));
	t->node_of_cpu = calloc(t->n_cpus, sizeof(int));
	t->client_cpus = calloc(t->n_cpus, 1);
	if ((o->server_cpu_cgroup && !t->cpu_cgroup) || (o->server_usage_cgroup && !t->usage_cgroup) || !t->l3_of_cpu ||
	    !t->node_of_cpu || !t->client_cpus) {
		oltp_telemetry_free(t);
		return -ENOMEM;
	}
	t->neighbour_names = o->neighbour_names;
	for (size_t i = 0; i < o->n_neighbours; i++) {
		const char *dir = o->neighbour_cpu_cgroups[i];

		t->n_neighbours++;
		t->neighbour_pids[i] = o->neighbour_pids[i];
		if (dir && !(t->neighbour_cgroups[i] = strdup(dir))) {
			oltp_telemetry_free(t);
			return -ENOMEM;
		}
	}
	read_topology(t);
	open_pmu(t);
	if (o->wakeups)
		open_wakeups(t);
	t->profile_hz = o->profile ? o->profile_hz : 0;
	t->profile_off_cpu = o->profile && o->profile_off_cpu;
	oltp_telemetry_restart(t);
	*ret = t;
	return 0;
}

/* The profile's sampler started afresh: what it saw of the warm-up is dropped. */
static void start_profile(struct oltp_telemetry *t)
{
	profile_sampler_free(t->sampler);
	t->sampler = NULL;
	if (!t->profile_hz)
		return;
	if (t->server_pid <= 0)
		t->profile_why = "no server to sample";
	else if (profile_sampler_start(t->server_pid, t->cpu_cgroup, t->profile_hz, t->profile_off_cpu, &t->sampler,
				       &t->profile_why) < 0 && !t->profile_why)
		t->profile_why = "the profile's sampler could not be started";
}

void oltp_telemetry_restart(struct oltp_telemetry *t)
{
	t->prev_ns = host_cpu_times_read(&t->prev) < 0 ? 0 : now_ns();
	start_profile(t);
}

void oltp_telemetry_profile(struct oltp_telemetry *t, struct step_result *ret)
{
	struct step_profile *p = &ret->profile;
	struct profile_raw *raw = NULL;

	if (!t || !t->profile_hz)
		return;
	*p = (struct step_profile){ .hz = t->profile_hz, .off_cpu_stacks = t->profile_off_cpu, .why = t->profile_why };
	if (!t->sampler)
		return;
	if (profile_sampler_stop(t->sampler, &raw) < 0 || profile_fold(raw, &p->folded) < 0)
		p->why = "out of memory while sampling the profile";
	t->sampler = NULL;
	if (raw) {
		p->seconds = raw->seconds;
		p->samples = raw->samples;
		p->server_samples = raw->server_samples;
		p->lost = raw->lost;
		p->switches = raw->switches;
		p->throttled_ms = raw->throttled_ns >= 0 ? (double)raw->throttled_ns / 1e6 : -1;
	}
	profile_raw_free(raw);
}

void oltp_telemetry_free(struct oltp_telemetry *t)
{
	if (!t)
		return;
	free(t->cpu_cgroup);
	free(t->usage_cgroup);
	for (size_t i = 0; i < t->n_neighbours; i++)
		free(t->neighbour_cgroups[i]);
	oltp_pmu_free(t->pmu);
	oltp_wakeups_free(t->wakeups);
	profile_sampler_free(t->sampler);
	free(t->l3_of_cpu);
	free(t->node_of_cpu);
	free(t->client_cpus);
	free(t->threads);
	free(t);
}

/* The value of key in text of "key value" lines (cpu.stat, status,
 * sched); -1 if absent. */
static int64_t value_of_key(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (strncmp(line, key, klen) == 0 && (line[klen] == ' ' || line[klen] == ':' || line[klen] == '\t'))
			return strtoll(line + klen + 1 + strspn(line + klen + 1, " \t:"), NULL, 10);
	return -1;
}

/* A "key value" line of a small file; -1 if absent or unreadable. */
static int64_t keyed_value(const char *path, const char *key)
{
	_cleanup_free_ char *text = NULL;

	return read_file_str(path, &text) < 0 ? -1 : value_of_key(text, key);
}

/* A cgroup's CPU time in seconds, cumulative; -1 if it cannot be read. */
static double cgroup_cpu_seconds(const char *dir)
{
	_cleanup_free_ char *s = NULL;
	char path[512];
	int64_t v;

	if (snprintf_whole(path, sizeof(path), "%s/cpu.stat", dir) < 0)
		return -1;
	v = keyed_value(path, "usage_usec"); /* v2 */
	if (v >= 0)
		return (double)v / 1e6;
	if (snprintf_whole(path, sizeof(path), "%s/cpuacct.usage", dir) >= 0 && read_file_str(path, &s) >= 0)
		return (double)strtoull(s, NULL, 10) / 1e9;
	return -1;
}

/* A process's utime+stime in seconds, all its threads, and with
 * children those of its children that ended and it reaped (cutime and
 * cstime); -1 if gone. */
static double process_cpu_seconds_of(int pid, bool children)
{
	_cleanup_free_ char *s = NULL;
	unsigned long long utime, stime, cutime, cstime;
	char path[64];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file_str(path, &s) < 0 || !(p = strrchr(s, ')')))
		return -1;
	/* utime, stime, cutime and cstime are fields 14 to 17; p points at field 2's end. */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &utime, &stime, &cutime,
		   &cstime) == 4)
		return (double)(utime + stime + (children ? cutime + cstime : 0)) / (double)sysconf(_SC_CLK_TCK);
	return -1;
}

static double process_cpu_seconds(int pid)
{
	return process_cpu_seconds_of(pid, false);
}

/* The server's processes: the server and its descendants, which are
 * where PostgreSQL does its work (a backend per connection; mysqld's is
 * threads), from /proc/PID/task/TID/children.  At most n into pids; how
 * many. */
static size_t server_processes(int pid, int *pids, size_t n)
{
	size_t k = 0;

	if (pid <= 0 || n == 0)
		return 0;
	pids[k++] = pid;
	for (size_t i = 0; i < k && k < n; i++) {
		char dir[64];
		DIR *d;
		struct dirent *e;

		snprintf(dir, sizeof(dir), "/proc/%d/task", pids[i]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((e = readdir(d)) && k < n) {
			_cleanup_free_ char *children = NULL;
			char path[64 + 256 + 16];
			const char *p;

			if (e->d_name[0] == '.')
				continue;
			if (snprintf_whole(path, sizeof(path), "%s/%s/children", dir, e->d_name) < 0 ||
			    read_file_str(path, &children) < 0)
				continue;
			for (p = children; *p && k < n; p += strcspn(p, " "), p += strspn(p, " "))
				if (atoi(p) > 0)
					pids[k++] = atoi(p);
		}
		closedir(d);
	}
	return k;
}

/* The server's CPU seconds, cumulative: its own cgroup's count, else
 * those of its processes pids[0..n) with the children they reaped.
 * PostgreSQL's backends come and go: a backend that ended counts in its
 * postmaster's cutime once reaped, and one that ends between the two
 * reads of a sample counts in neither, so the sum may dip for a sample;
 * it is given as the largest seen, never less (-1: none readable). */
static double server_cpu_seconds(struct oltp_telemetry *t, const int *pids, size_t n)
{
	double v = t->usage_cgroup ? cgroup_cpu_seconds(t->usage_cgroup) : -1;

	if (v >= 0)
		return v;
	for (size_t i = 0; i < n; i++) {
		double c = process_cpu_seconds_of(pids[i], true);

		if (c >= 0)
			v = MAX(v, 0) + c;
	}
	if (v >= 0)
		t->server_cpu_floor = v = MAX(v, t->server_cpu_floor);
	return v;
}

/* Field 39 of a thread's stat: the CPU it last ran on. */
static int last_cpu(const char *task_dir)
{
	_cleanup_free_ char *s = NULL;
	char path[600];
	const char *p;
	int cpu = -1;

	if (snprintf_whole(path, sizeof(path), "%s/stat", task_dir) < 0 || read_file_str(path, &s) < 0 ||
	    !(p = strrchr(s, ')')))
		return -1;
	/* Fields 3..38 are skipped, 39 is read. */
	p += 2;
	for (int field = 3; field < 39 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		cpu = atoi(p);
	return cpu;
}

/* schedstat: time on the CPU and time waiting on a run queue, in ns. */
static int read_schedstat(const char *task_dir, uint64_t *ret_run, uint64_t *ret_wait)
{
	_cleanup_free_ char *s = NULL;
	char path[600];

	if (snprintf_whole(path, sizeof(path), "%s/schedstat", task_dir) < 0 || read_file_str(path, &s) < 0 || sscanf(s, "%" SCNu64 " %" SCNu64, ret_run, ret_wait) != 2)
		return -EIO;
	return 0;
}

/* The entry of thread tid on one side, added (zeroed, *ret_new set) if
 * not seen before; NULL when out of memory. */
static struct thread_memory *remember(struct oltp_telemetry *t, int tid, bool server, bool *ret_new)
{
	*ret_new = false;
	/* /proc lists the threads in the same order every sample: the one
	 * after the last found is nearly always the next (512 clients and
	 * their 512 server threads were a million comparisons a sample). */
	for (size_t k = 0; k < t->n_threads; k++) {
		size_t i = (t->hint + k) % t->n_threads;

		if (t->threads[i].tid == tid && t->threads[i].server == server) {
			t->hint = i + 1;
			return &t->threads[i];
		}
	}
	if (t->n_threads == t->cap_threads) {
		size_t cap = t->cap_threads ? 2 * t->cap_threads : 64;
		struct thread_memory *p = realloc(t->threads, cap * sizeof(*p));

		if (!p)
			return NULL;
		t->threads = p;
		t->cap_threads = cap;
	}
	*ret_new = true;
	t->threads[t->n_threads] = (struct thread_memory){ .tid = tid, .server = server };
	return &t->threads[t->n_threads++];
}

/* What a thread's stat, sched and status say: its last CPU (-1: not
 * known), its migrations and its context switches (-1: not known). */
struct thread_reading {
	int cpu;
	int64_t migrations, vol, nonvol;
};

static void read_thread(const char *task, struct thread_reading *ret)
{
	_cleanup_free_ char *status = NULL;
	char path[512 + 16];

	ret->cpu = last_cpu(task);
	ret->migrations = snprintf_whole(path, sizeof(path), "%s/sched", task) < 0 ? -1
			  : keyed_value(path, "se.nr_migrations");
	/* status once for both of its counts */
	ret->nonvol = ret->vol = -1;
	if (snprintf_whole(path, sizeof(path), "%s/status", task) >= 0 && read_file_str(path, &status) >= 0) {
		ret->nonvol = value_of_key(status, "nonvoluntary_ctxt_switches");
		ret->vol = value_of_key(status, "voluntary_ctxt_switches");
	}
}

/* Counts the threads of /proc/PID/task per L3 and node, skipping thread
 * `skip`, and remembers their counters.  A client thread that ran marks
 * its last CPU in seen_cpus; a server thread's run time since the previous sample is
 * credited to whether its last CPU is in t->client_cpus. */
static void count_threads(struct oltp_telemetry *t, int pid, int skip, bool server, unsigned *per_l3,
			  unsigned *per_node, uint8_t *seen_cpus)
{
	char dir[64], task[512];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct thread_memory *m;
		struct thread_reading rd;
		uint64_t run, wait;
		bool in_range, fresh;

		if (e->d_name[0] == '.' || atoi(e->d_name) == skip)
			continue;
		if (snprintf_whole(task, sizeof(task), "%s/%s", dir, e->d_name) < 0)
			continue;
		if (read_schedstat(task, &run, &wait) < 0)
			run = wait = 0;
		m = remember(t, atoi(e->d_name), server, &fresh);
		if (!m)
			continue;
		/* A thread that has not run since the previous sample has not
		 * moved, switched or migrated: its last reading stands, and three
		 * of its four files go unread (most of a server's threads, idle,
		 * every second). */
		if (!fresh && run && run == m->run_ns && wait == m->wait_ns)
			rd = (struct thread_reading){ .cpu = m->cpu, .migrations = (int64_t)m->migrations,
						      .vol = (int64_t)m->vol, .nonvol = (int64_t)m->nonvol };
		else
			read_thread(task, &rd);
		in_range = rd.cpu >= 0 && (unsigned)rd.cpu < t->n_cpus;
		if (in_range) {
			per_l3[t->l3_of_cpu[rd.cpu]]++;
			per_node[t->node_of_cpu[rd.cpu]]++;
		}
		/* Only a client thread that ran since the previous sample says
		 * where the client is (the process has idle threads too); a
		 * thread's first interval is not credited: it may have begun
		 * before the step. */
		if (!server && in_range && !fresh && run > m->run_ns)
			seen_cpus[rd.cpu] = 1;
		if (server && !fresh && run > m->run_ns) {
			t->server_run_ns += run - m->run_ns;
			if (in_range && t->client_cpus[rd.cpu])
				t->server_run_on_client_cpu_ns += run - m->run_ns;
		}
		*m = (struct thread_memory){ .tid = m->tid, .server = server, .run_ns = MAX(run, m->run_ns),
					     .wait_ns = MAX(wait, m->wait_ns),
					     .migrations = MAX(rd.migrations > 0 ? (uint64_t)rd.migrations : 0, m->migrations),
					     .vol = MAX(rd.vol > 0 ? (uint64_t)rd.vol : 0, m->vol),
					     .nonvol = MAX(rd.nonvol > 0 ? (uint64_t)rd.nonvol : 0, m->nonvol), .cpu = rd.cpu };
	}
	closedir(d);
}

/* The counters of every thread seen on each side, also of those that have
 * ended, into the sample. */
static void sum_threads(const struct oltp_telemetry *t, struct oltp_telemetry_sample *s)
{
	for (size_t i = 0; i < t->n_threads; i++) {
		const struct thread_memory *m = &t->threads[i];

		*(m->server ? &s->server_migrations : &s->client_migrations) += m->migrations;
		*(m->server ? &s->server_nonvol_ctxt : &s->client_nonvol_ctxt) += m->nonvol;
		*(m->server ? &s->server_vol_ctxt : &s->client_vol_ctxt) += m->vol;
		*(m->server ? &s->server_runq_wait_ns : &s->client_runq_wait_ns) += m->wait_ns;
	}
	s->server_run_ns = t->server_run_ns;
	s->server_run_on_client_cpu_ns = t->server_run_on_client_cpu_ns;
}

/* /proc/stat's shares of CPU time and context switches since the previous
 * sample (at now), its running and blocked tasks, and the threads in R
 * and D as ps counts them. */
static int sample_proc_stat(struct oltp_telemetry *t, uint64_t now, struct oltp_telemetry_sample *ret)
{
	struct host_cpu_times cur;
	struct host_cpu_use use;
	int r;

	r = host_cpu_times_read(&cur);
	if (r < 0)
		return r;
	/* The seed's loop: R and D tasks beside the load average, whose jumps
	 * they explain. */
	ret->procs_running = cur.procs_running;
	ret->procs_blocked = cur.procs_blocked;
	ret->n_cpus = cur.n_cpus;
	(void)host_task_states(&ret->tasks_running, &ret->tasks_uninterruptible);
	(void)host_load1(&ret->load1);
	if (t->prev_ns && host_cpu_use_between(&t->prev, &cur, &use) >= 0) {
		ret->cpu_user_pct = use.user_pct;
		ret->cpu_sys_pct = use.sys_pct;
		ret->cpu_idle_pct = use.idle_pct;
		ret->cpu_iowait_pct = use.iowait_pct;
		ret->host_busy_cpus = use.busy_cpus;
		ret->ctxt_per_s = (double)(cur.ctxt - t->prev.ctxt) * 1e9 / (double)(now - t->prev_ns);
	}
	t->prev = cur;
	t->prev_ns = now;
	return 0;
}

/* The CPU controller's throttling of the server's cgroup, if it has one. */
static void sample_throttling(const struct oltp_telemetry *t, struct oltp_telemetry_sample *ret)
{
	char path[512];

	if (!t->cpu_cgroup || snprintf_whole(path, sizeof(path), "%s/cpu.stat", t->cpu_cgroup) < 0)
		return;
	ret->nr_throttled = keyed_value(path, "nr_throttled");
	ret->throttled_usec = keyed_value(path, "throttled_usec"); /* v2 */
	if (ret->throttled_usec < 0) {
		int64_t ns = keyed_value(path, "throttled_time"); /* v1, in ns */
		ret->throttled_usec = ns < 0 ? -1 : ns / 1000;
	}
}

/* Where the threads of each side are, per L3 and per node. */
static int sample_threads(struct oltp_telemetry *t, const int *server_pids, size_t n_server,
			  struct oltp_telemetry_sample *ret)
{
	_cleanup_free_ uint8_t *seen_cpus = NULL;

	ret->server_per_l3 = calloc(t->n_l3, sizeof(unsigned));
	ret->client_per_l3 = calloc(t->n_l3, sizeof(unsigned));
	ret->server_per_node = calloc(t->n_nodes, sizeof(unsigned));
	ret->client_per_node = calloc(t->n_nodes, sizeof(unsigned));
	if (!ret->server_per_l3 || !ret->client_per_l3 || !ret->server_per_node || !ret->client_per_node)
		return -ENOMEM;
	/* The client first: where its threads are is what the server's run
	 * time is credited against.  Once they have ended (a tool's process
	 * gone, the workers joined) the last CPUs seen stay. */
	seen_cpus = calloc(t->n_cpus, 1);
	if (!seen_cpus)
		return -ENOMEM;
	if (t->threads_off)
		return 0;
	count_threads(t, t->client_pid ? t->client_pid : getpid(), t->client_pid ? 0 : (int)syscall(SYS_gettid), false,
		      ret->client_per_l3, ret->client_per_node, seen_cpus);
	if (memchr(seen_cpus, 1, t->n_cpus))
		memcpy(t->client_cpus, seen_cpus, t->n_cpus);
	for (size_t i = 0; i < n_server; i++)
		count_threads(t, server_pids[i], 0, true, ret->server_per_l3, ret->server_per_node, NULL);
	sum_threads(t, ret);
	return 0;
}

int oltp_telemetry_sample(struct oltp_telemetry *t, double t_s, struct oltp_telemetry_sample *ret)
{
	uint64_t now = now_ns();
	int server_pids[SERVER_PROCESSES_MAX];
	size_t n_server;
	int r;

	*ret = (struct oltp_telemetry_sample){ .t_s = t_s, .wall_s = wall_clock_s(), .cpu_user_pct = NAN, .cpu_sys_pct = NAN, .cpu_idle_pct = NAN,
					       .cpu_iowait_pct = NAN, .host_busy_cpus = NAN, .load1 = NAN, .ctxt_per_s = NAN, .server_cpu_s = -1, .client_cpu_s = -1, .proxy_cpu_s = -1, .nr_throttled = -1,
					       .throttled_usec = -1, .n_l3 = t->n_l3, .n_nodes = t->n_nodes };
	r = sample_proc_stat(t, now, ret);
	if (r < 0)
		return r;
	/* The server's processes once a sample, for its CPU time and its threads. */
	n_server = server_processes(t->server_pid, server_pids, ELEMENTSOF(server_pids));
	ret->server_cpu_s = server_cpu_seconds(t, server_pids, n_server);
	ret->client_cpu_s = process_cpu_seconds(t->client_pid ? t->client_pid : getpid());
	if (t->proxy_pid > 0)
		ret->proxy_cpu_s = process_cpu_seconds(t->proxy_pid);
	ret->n_neighbours = t->n_neighbours;
	ret->neighbour_names = t->neighbour_names;
	for (size_t i = 0; i < t->n_neighbours; i++)
		ret->neighbour_cpu_s[i] = t->neighbour_cgroups[i] ? cgroup_cpu_seconds(t->neighbour_cgroups[i])
								  : process_cpu_seconds(t->neighbour_pids[i]);
	sample_throttling(t, ret);
	oltp_pmu_read(t->pmu, &ret->server_instructions, &ret->server_cycles, &ret->server_llc_misses);
	ret->pmu_why = t->pmu_why;
	oltp_wakeups_read(t->wakeups, &ret->server_wakeups, &ret->server_wakeups_cross_l3, &ret->wakeups_lost);
	ret->wakeups_why = t->wakeups_why;
	return sample_threads(t, server_pids, n_server, ret);
}

void oltp_telemetry_set_client(struct oltp_telemetry *t, int pid)
{
	t->client_pid = pid;
}

int oltp_telemetry_append(struct oltp_telemetry *t, double t_s, struct step_result *ret)
{
	struct oltp_telemetry_sample *p;

	p = realloc(ret->samples, (ret->n_samples + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	ret->samples = p;
	p += ret->n_samples;
	*p = (struct oltp_telemetry_sample){};
	if (oltp_telemetry_sample(t, t_s, p) < 0) {
		oltp_telemetry_sample_done(p);
		return 0; /* a sample that cannot be read is left out, not fatal */
	}
	ret->n_samples++;
	return 0;
}

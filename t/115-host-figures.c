/* The figures telemetry reads about the host and the server, each against
 * an independent tool on the same seconds, while the CPUs are loaded in
 * known ways: a busy loop pinned to CPU 0 (the "server" of the first
 * part), a sleeping process, a process in D state (a vfork() parent
 * waiting for its child), and a server whose children come and go as
 * PostgreSQL's backends do.  The tools and tolerances are doc/figures.md's:
 *   user, sys, idle, iowait %    vmstat 1, the same seconds     4 points a second sampled on time, 2 on the mean
 *   busy CPUs                    vmstat's us+sy                 0.1 CPU on the mean
 *   load1                        /proc/loadavg around the read  equal to one of them
 *   R, D threads                 ps -eLo stat, right after      R 4, D 1 (medians); D >= 1
 *   server CPU                   perf stat task-clock -p        0.03 s + 5%, the same window
 *   server switches, migrations  perf stat's software events    5% + 20, the same window
 *   client and proxy CPU         the same, pointed at the loop  0.03 s + 5%
 *   a coming-and-going server    its own cpuacct cgroup         10% + 0.03 CPU, never going back
 * The machine is shared, so nothing is asserted of the load itself beyond
 * what the known processes make certain.
 * Prerequisites: ROOT (the cgroup), vmstat and ps (procps); perf for its
 * part, else that part skips. */
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "common/load.h"
#include "oltp/oltp.h"
#include "tap.h"
#include "testperf.h"
#include "common/util.h"

#define SECONDS 6

static void pclosep_(FILE **f)
{
	if (*f)
		pclose(*f);
}

static pid_t children[8];
static size_t n_children;

static void kill_children(void *unused)
{
	(void)unused;
	for (size_t i = 0; i < n_children; i++) {
		kill(children[i], SIGKILL);
		waitpid(children[i], NULL, 0);
	}
}

static pid_t child(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fn();
		_exit(0);
	}
	if (pid > 0)
		children[n_children++] = pid;
	return pid;
}

static void spin_on_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (volatile unsigned long i = 0;; i++)
		;
}

static void sleep_long(void)
{
	pause();
}

/* Stays in D state: a vfork() parent is in an uninterruptible (killable)
 * sleep until its child execs or exits, and its child sleeps. */
static void stay_in_d(void)
{
	if (vfork() == 0) {
		struct timespec ts = { .tv_sec = 600 };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		nanosleep(&ts, NULL);
		_exit(0);
	}
}

/* Like PostgreSQL's postmaster: a backend every 20 ms that burns about
 * 10 ms of CPU and exits, reaped by its parent. */
static void churn(void)
{
	for (;;) {
		pid_t b = fork();

		if (b == 0) {
			uint64_t end = now_ns() + 10 * NSEC_PER_MSEC;

			while (now_ns() < end)
				;
			_exit(0);
		}
		usleep(20000);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

/* The count of threads whose state begins with c in `ps -eLo stat`. */
static int ps_count(char c)
{
	_cleanup_(pclosep_) FILE *p = NULL;
	char line[64];
	int n = 0;

	p = popen("ps -eLo stat=", "re");
	while (p && fgets(line, sizeof(line), p))
		n += line[strspn(line, " ")] == c;
	return p ? n : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : NAN;
}

/* A line of vmstat's: us sy id wa st, the last five fields. */
static int vmstat_cpu(const char *line, double ret[5])
{
	double v[17];
	int n = sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2],
		       &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14], &v[15],
		       &v[16]);

	if (n < 17)
		return -EBADMSG;
	memcpy(ret, &v[12], 5 * sizeof(double));
	return 0;
}

struct second {
	struct oltp_telemetry_sample s;
	double vm[5], load_before, load_after;
	int ps_r, ps_d;
};

static double load_now(void)
{
	double v = NAN;

	(void)host_load1(&v);
	return v;
}

/* vmstat's seconds and ours, sampled when each of its lines arrives. */
static int sample_with_vmstat(struct oltp_telemetry *t, FILE *vm, struct second *sec)
{
	char line[512];
	int header = 0;

	/* Two header lines, then the averages since boot: the first second starts there. */
	while (header < 3 && fgets(line, sizeof(line), vm))
		header++;
	if (header < 3 || oltp_telemetry_sample(t, 0, &sec[0].s) < 0)
		return -EIO;
	for (int i = 1; i <= SECONDS; i++) {
		if (!fgets(line, sizeof(line), vm))
			return -EIO;
		sec[i].load_before = load_now();
		if (oltp_telemetry_sample(t, i, &sec[i].s) < 0 || vmstat_cpu(line, sec[i].vm) < 0)
			return -EIO;
		sec[i].load_after = load_now();
		sec[i].ps_r = ps_count('R');
		sec[i].ps_d = ps_count('D');
	}
	return 0;
}

/* A second whose sample came 1 s after the one before, within 30 ms: on
 * a loaded host the sampler may run late after vmstat's line, and then
 * its second and the next straddle vmstat's boundary (their sum agrees). */
static bool aligned(const struct second *sec, int i)
{
	return fabs(sec[i].s.wall_s - sec[i - 1].s.wall_s - 1.0) < 0.03;
}

static void check_shares(const struct second *sec)
{
	static const char *const names[] = { "user", "sys", "idle", "iowait" };
	double worst[4] = {}, mean[4] = {}, busy_diff = 0;
	int n_aligned = 0;

	for (int i = 1; i <= SECONDS; i++) {
		const struct oltp_telemetry_sample *s = &sec[i].s;
		double ours[4] = { s->cpu_user_pct, s->cpu_sys_pct, s->cpu_idle_pct, s->cpu_iowait_pct };

		diag("second %d: user %.1f/%g sys %.1f/%g idle %.1f/%g iowait %.1f/%g busy %.2f CPUs (ours/vmstat's)%s", i,
		     ours[0], sec[i].vm[0], ours[1], sec[i].vm[1], ours[2], sec[i].vm[2], ours[3], sec[i].vm[3],
		     s->host_busy_cpus, aligned(sec, i) ? "" : ", sampled late");
		n_aligned += aligned(sec, i);
		for (int k = 0; k < 4; k++) {
			if (aligned(sec, i))
				worst[k] = MAX(worst[k], fabs(ours[k] - sec[i].vm[k]));
			mean[k] += (ours[k] - sec[i].vm[k]) / SECONDS;
		}
		busy_diff += (s->host_busy_cpus - (sec[i].vm[0] + sec[i].vm[1]) / 100.0 * s->n_cpus) / SECONDS;
	}
	for (int k = 0; k < 4; k++) {
		cmp_ok(n_aligned >= 3 ? worst[k] : 0, "<=", 4.0, "%s %%: within 4 points of vmstat's in each of the %d seconds sampled on time",
		       names[k], n_aligned);
		cmp_ok(fabs(mean[k]), "<=", 2.0, "%s %%: within 2 points of vmstat's on the mean of %d seconds", names[k],
		       SECONDS);
	}
	cmp_ok(fabs(busy_diff), "<=", 0.1, "busy CPUs: within 0.1 of vmstat's us+sy on the mean");
	/* The known load: the loop holds CPU 0 when it runs, the sampler runs. */
	cmp_ok(sec[SECONDS].s.host_busy_cpus, ">", 0.0, "busy CPUs: some, with a busy loop running");
}

static void check_load_and_states(const struct second *sec)
{
	double r_diff[SECONDS], d_diff[SECONDS];
	int load_ok = 0, d_seen = 0, procs_r_ok = 0;

	for (int i = 1; i <= SECONDS; i++) {
		const struct oltp_telemetry_sample *s = &sec[i].s;

		load_ok += s->load1 == sec[i].load_before || s->load1 == sec[i].load_after;
		r_diff[i - 1] = (double)s->tasks_running - sec[i].ps_r;
		d_diff[i - 1] = (double)s->tasks_uninterruptible - sec[i].ps_d;
		d_seen += s->tasks_uninterruptible >= 1 && sec[i].ps_d >= 1;
		procs_r_ok += s->procs_running >= 1;
		diag("second %d: load %.2f (/proc/loadavg %.2f, %.2f) R %u ps %d, D %u ps %d; /proc/stat R %u blocked %u", i,
		     s->load1, sec[i].load_before, sec[i].load_after, s->tasks_running, sec[i].ps_r,
		     s->tasks_uninterruptible, sec[i].ps_d, s->procs_running, s->procs_blocked);
	}
	is_int(load_ok, SECONDS, "load1: /proc/loadavg's, read around it, in every second");
	cmp_ok(fabs(median(r_diff, SECONDS)), "<=", 4, "R threads: within 4 of ps -eLo stat's (median)");
	cmp_ok(fabs(median(d_diff, SECONDS)), "<=", 1, "D threads: within 1 of ps -eLo stat's (median)");
	is_int(d_seen, SECONDS, "D threads: the vfork() parent counted in every second, by ps too");
	is_int(procs_r_ok, SECONDS, "procs_running: the sampler at least, in every second");
}

/* The server's figures between a and b against perf stat's counts over
 * exactly that window. */
static void check_server(const struct oltp_telemetry_sample *a, const struct oltp_telemetry_sample *b,
			 const double *perf)
{
	double ours_cpu = b->server_cpu_s - a->server_cpu_s;
	double ours_sw = (double)(b->server_vol_ctxt + b->server_nonvol_ctxt - a->server_vol_ctxt - a->server_nonvol_ctxt);
	double ours_mig = (double)(b->server_migrations - a->server_migrations);

	diag("server over %.2f s: %.3f CPU s, %.0f switches, %.0f migrations; perf stat: %.3f, %.0f, %.0f", b->wall_s - a->wall_s,
	     ours_cpu, ours_sw, ours_mig, perf[0] / 1e3, perf[1], perf[2]);
	cmp_ok(fabs(ours_cpu - perf[0] / 1e3), "<=", 0.03 + 0.05 * ours_cpu,
	       "server CPU: within 0.03 s + 5%% of perf stat's task-clock over the same window");
	cmp_ok(fabs(ours_sw - perf[1]), "<=", 20 + 0.05 * ours_sw,
	       "server switches: within 5%% + 20 of perf stat's context-switches");
	cmp_ok(fabs(ours_mig - perf[2]), "<=", 20 + 0.05 * ours_mig,
	       "server migrations: within 5%% + 20 of perf stat's cpu-migrations");
	/* The client's and the proxy's readers, pointed at the same loop. */
	cmp_ok(fabs(b->client_cpu_s - a->client_cpu_s - perf[0] / 1e3), "<=", 0.03 + 0.05 * ours_cpu,
	       "client CPU: within 0.03 s + 5%% of perf stat's task-clock");
	cmp_ok(fabs(b->proxy_cpu_s - a->proxy_cpu_s - perf[0] / 1e3), "<=", 0.03 + 0.05 * ours_cpu,
	       "proxy CPU: within 0.03 s + 5%% of perf stat's task-clock");
}

static void part_loaded_host(void)
{
	static const char *const events[] = { "task-clock", "context-switches", "cpu-migrations" };
	struct oltp_options o;
	struct oltp_telemetry *t = NULL;
	struct oltp_telemetry_sample a = {}, b = {};
	struct second sec[SECONDS + 1] = {};
	_cleanup_(pclosep_) FILE *vm = NULL;
	struct test_perf perf;
	bool with_perf = test_perf_usable();
	double counts[3];
	char cmd[256];
	pid_t spinner = child(spin_on_cpu0);

	child(sleep_long);
	child(stay_in_d);
	oltp_options_default(&o);
	o.server_pid = o.proxy_pid = spinner;
	if (spinner < 0 || oltp_telemetry_new(&o, &t) < 0)
		bail_out("cannot start the loads or the telemetry");
	oltp_telemetry_set_client(t, spinner);
	usleep(300 * 1000); /* the loads settle, the vfork() happens */
	snprintf(cmd, sizeof(cmd), "vmstat -n 1 %d", SECONDS + 1);
	vm = popen(cmd, "re");
	snprintf(cmd, sizeof(cmd), "-e task-clock,context-switches,cpu-migrations -p %d", (int)spinner);
	if (with_perf)
		test_perf_open(&perf, cmd);
	if (!vm || oltp_telemetry_sample(t, 0, &a) < 0 || sample_with_vmstat(t, vm, sec) < 0 ||
	    oltp_telemetry_sample(t, SECONDS + 1, &b) < 0)
		bail_out("cannot read vmstat's seconds");
	if (with_perf)
		test_perf_close(&perf, events, counts, 3);
	check_shares(sec);
	check_load_and_states(sec);
	if (with_perf)
		check_server(&a, &b, counts);
	else
		skip(5, "perf stat does not run here");
	for (int i = 0; i <= SECONDS; i++)
		oltp_telemetry_sample_done(&sec[i].s);
	oltp_telemetry_sample_done(&a);
	oltp_telemetry_sample_done(&b);
	oltp_telemetry_free(t);
	kill_children(NULL);
	n_children = 0;
}

/* The CPU time of a cgroup the test made, in seconds (v1's cpuacct.usage
 * or v2's usage_usec); NAN if unreadable. */
static double cgroup_seconds(const char *dir)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	const char *p;

	if (xasprintf(&path, "%s/cpuacct.usage", dir) >= 0 && read_file_str(path, &text) >= 0)
		return (double)strtoull(text, NULL, 10) / 1e9;
	free(path);
	path = NULL;
	if (xasprintf(&path, "%s/cpu.stat", dir) >= 0 && read_file_str(path, &text) >= 0 &&
	    (p = strstr(text, "usage_usec ")))
		return (double)strtoull(p + 11, NULL, 10) / 1e6;
	return NAN;
}

static char cgroup_dir[128];

/* The server's children it had not reaped yet may still be in the cgroup
 * when the server is gone: each is killed, and the removal retried until
 * the kernel lets it go (EBUSY while a process is in it). */
static void remove_cgroup(void *unused)
{
	char path[192];

	(void)unused;
	kill_children(NULL);
	if (!cgroup_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_dir);
	for (int tries = 0; rmdir(cgroup_dir) < 0 && errno == EBUSY && tries < 200; tries++) {
		_cleanup_fclose_ FILE *f = fopen(path, "re");
		int pid;

		while (f && fscanf(f, "%d", &pid) == 1)
			kill(pid, SIGKILL);
		usleep(10 * 1000);
	}
}

/* A cgroup of the test's own, in the hierarchy that counts CPU time. */
static int make_cgroup(pid_t pid)
{
	char path[192], text[32];
	FILE *f;

	snprintf(cgroup_dir, sizeof(cgroup_dir), "%s/slicebench-t115-%d",
		 access("/sys/fs/cgroup/cpuacct/cpuacct.usage", R_OK) == 0 ? "/sys/fs/cgroup/cpuacct" : "/sys/fs/cgroup",
		 (int)getpid());
	if (mkdir(cgroup_dir, 0755) < 0) {
		cgroup_dir[0] = 0;
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup_dir);
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -errno;
}

/* A server whose children come and go: its CPU time from its processes
 * never goes back, and is its cgroup's. */
static void part_coming_and_going(void)
{
	struct oltp_options o;
	struct oltp_telemetry *procs = NULL, *cg = NULL;
	struct oltp_telemetry_sample s = {}, first = {};
	double c0, c1, prev = -1, before;
	int back = 0, cg_match = 0;
	pid_t server = child(churn);

	oltp_options_default(&o);
	o.server_pid = server;
	if (server < 0 || make_cgroup(server) < 0) {
		skip(4, "cannot put a server in a cgroup of its own here");
		return;
	}
	o.server_usage_cgroup = cgroup_dir;
	if (oltp_telemetry_new(&o, &cg) < 0)
		bail_out("cannot start the telemetry");
	o.server_usage_cgroup = NULL;
	if (oltp_telemetry_new(&o, &procs) < 0)
		bail_out("cannot start the telemetry");
	usleep(200 * 1000);
	c0 = cgroup_seconds(cgroup_dir);
	(void)oltp_telemetry_sample(procs, 0, &first);
	for (int i = 1; i <= 4 * SECONDS; i++) {
		usleep(250 * 1000);
		if (oltp_telemetry_sample(procs, i, &s) >= 0) {
			back += s.server_cpu_s < prev;
			prev = s.server_cpu_s;
		}
		oltp_telemetry_sample_done(&s);
		before = cgroup_seconds(cgroup_dir);
		if (oltp_telemetry_sample(cg, i, &s) >= 0) {
			/* Read between two reads of the cgroup: between them. */
			cg_match += before - 1e-9 <= s.server_cpu_s && s.server_cpu_s <= cgroup_seconds(cgroup_dir) + 1e-9;
		}
		oltp_telemetry_sample_done(&s);
	}
	c1 = cgroup_seconds(cgroup_dir);
	diag("coming and going: %.3f CPU s from its processes, %.3f from its cgroup", prev - first.server_cpu_s, c1 - c0);
	is_int(back, 0, "server CPU from its processes: never less than at the sample before");
	cmp_ok(fabs((prev - first.server_cpu_s) - (c1 - c0)), "<=", 0.1 * (c1 - c0) + 0.03 * SECONDS,
	       "server CPU from its processes, with the children they reaped: within 10%% + 0.03 CPU of its cgroup's");
	cmp_ok(c1 - c0, ">", 0.1, "the server used CPU (%.2f s)", c1 - c0);
	is_int(cg_match, 4 * SECONDS, "server CPU from its own cgroup: the cgroup's count, between two reads of it, in every sample");
	oltp_telemetry_sample_done(&first);
	oltp_telemetry_free(procs);
	oltp_telemetry_free(cg);
}

int main(void)
{
	require("ROOT");
	if (system("vmstat 1 1 >/dev/null 2>&1 && ps -eLo stat= >/dev/null 2>&1") != 0)
		plan_skip_all("vmstat and ps (procps) are needed");
	on_exit_run(remove_cgroup, NULL);
	plan(24);
	part_loaded_host();
	part_coming_and_going();
	return done_testing();
}

/* The profile's sampler on processes of known behaviour, each its own
 * child of this test (re-executed as "burn MODE SECONDS"), needing ROOT
 * (the CPU clock of every CPU):
 *
 * - on-CPU: a child that spends a known part of its CPU time in a spin
 *   function (its own thread CPU clock says how much) and the rest in
 *   malloc and free: the share of samples whose leaf is the spin function
 *   is that part, within 6 points; with LD_PRELOAD of libjemalloc2 and of
 *   libtcmalloc-minimal4 the allocator's samples lie in that library, and
 *   without in libc.so.6; the difference between glibc's three starts and
 *   jemalloc's names the library, Holm-adjusted;
 * - off-CPU: two spinning children pinned to one CPU wait on its run
 *   queue about half their time, as /proc/PID/schedstat says over the same
 *   seconds (within 15% of it); a child in a cgroup of CPU quota 20% is
 *   throttled about 80% of the time, and not on the run queue; a child
 *   that sleeps on a timer and one that waits on a futex are off their CPU
 *   for those reasons when stacks at switches are sampled;
 * - the folded stacks written, read back alike, and hostile files refused
 *   with their line. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "profile/diff.h"
#include "profile/folded.h"
#include "profile/sampler.h"
#include "profile/shares.h"
#include "tap.h"
#include "common/util.h"

static const char *self_name;
static char cgroup_dir[128];

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

__attribute__((noinline)) static void burn_spin(uint64_t ns)
{
	uint64_t until = thread_cpu_ns() + ns;

	/* the clock, a system call, read seldom: the samples' leaf is this function */
	while (thread_cpu_ns() < until)
		for (int i = 0; i < 200000; i++)
			sink += (uint64_t)i * 2654435761u;
}

__attribute__((noinline)) static void burn_alloc(uint64_t ns)
{
	uint64_t until = thread_cpu_ns() + ns;
	void *keep[64] = {};
	unsigned k = 0;

	while (thread_cpu_ns() < until)
		for (int i = 0; i < 5000; i++, k++) {
			free(keep[k % 64]);
			keep[k % 64] = malloc(16 + (k * 7919) % 4000);
		}
	for (size_t i = 0; i < 64; i++)
		free(keep[i]);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int turn;

static void *pong(void *arg _unused_)
{
	for (;;) {
		struct timespec ts = { .tv_nsec = 2 * NSEC_PER_MSEC };

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&lock);
		turn = 1;
		pthread_cond_signal(&cond);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* The child's part: MODE for SECONDS, then what it measured on stdout. */
static int burn(const char *mode, double seconds)
{
	uint64_t end = now_ns() + (uint64_t)(seconds * NSEC_PER_SEC), spin = 0, alloc = 0;
	pthread_t t;

	if (streq(mode, "futex"))
		pthread_create(&t, NULL, pong, NULL);
	while (now_ns() < end) {
		if (streq(mode, "alloc")) {
			uint64_t a = thread_cpu_ns();

			burn_spin(3 * NSEC_PER_MSEC);
			spin += thread_cpu_ns() - a;
			a = thread_cpu_ns();
			burn_alloc(3 * NSEC_PER_MSEC);
			alloc += thread_cpu_ns() - a;
		} else if (streq(mode, "sleep")) {
			struct timespec ts = { .tv_nsec = NSEC_PER_MSEC };

			nanosleep(&ts, NULL);
		} else if (streq(mode, "futex")) {
			pthread_mutex_lock(&lock);
			while (!turn)
				pthread_cond_wait(&cond, &lock);
			turn = 0;
			pthread_mutex_unlock(&lock);
		} else
			burn_spin(10 * NSEC_PER_MSEC);
	}
	printf("%" PRIu64 " %" PRIu64 "\n", spin, alloc);
	return 0;
}

struct child {
	pid_t pid;
	FILE *out;
};

/* A child in mode for seconds, with preload (NULL: none) and on cpu (-1: any). */
static struct child start_child(const char *mode, double seconds, const char *preload, int cpu)
{
	int fd[2];
	struct child c;
	char secs[32];

	snprintf(secs, sizeof(secs), "%g", seconds);
	if (pipe(fd) < 0)
		bail_out("pipe: %m");
	c.pid = fork();
	if (c.pid == 0) {
		char *argv[] = { (char *)self_name, "burn", (char *)mode, secs, NULL };

		dup2(fd[1], STDOUT_FILENO);
		if (preload)
			setenv("LD_PRELOAD", preload, 1);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(fd[1]);
	c.out = fdopen(fd[0], "r");
	return c;
}

static void end_child(struct child *c, uint64_t *ret_spin, uint64_t *ret_alloc)
{
	uint64_t spin = 0, alloc = 0;
	int status;

	if (fscanf(c->out, "%" SCNu64 " %" SCNu64, &spin, &alloc) != 2)
		diag("child %d said nothing", (int)c->pid);
	fclose(c->out);
	waitpid(c->pid, &status, 0);
	if (ret_spin)
		*ret_spin = spin, *ret_alloc = alloc;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9) };

	nanosleep(&ts, NULL);
}

/* The sampler over pid for `seconds` from now, folded and made shares. */
static struct profile_shares *sample(pid_t pid, double seconds, bool stacks, struct profile **ret_profile)
{
	struct profile_sampler *s;
	struct profile_raw *raw;
	struct profile *p;
	struct profile_shares *sh;
	const char *why;
	int r = profile_sampler_start(pid, cgroup_dir[0] ? cgroup_dir : NULL, 499, stacks, &s, &why);

	if (r < 0)
		bail_out("profile_sampler_start: %s (%d)", why ? why : "failed", r);
	sleep_s(seconds);
	if (profile_sampler_stop(s, &raw) < 0 || profile_fold(raw, &p) < 0 || profile_shares_of(p, raw->seconds, &sh) < 0)
		bail_out("the sampler's profile could not be made");
	diag("%" PRIu64 " samples of the child's, %" PRIu64 " in all, %" PRIu64 " lost, %zu stacks", raw->server_samples,
	     raw->samples, raw->lost, p->n);
	profile_raw_free(raw);
	if (ret_profile)
		*ret_profile = p;
	else
		profile_free(p);
	return sh;
}

static double share(const struct profile_shares *s, enum profile_item_kind k, const char *name, const char *lib)
{
	const struct profile_item *it = profile_shares_find(s, k, name, lib);

	return it ? it->value : 0;
}

static char *spin_frame(void)
{
	static char frame[256];

	snprintf(frame, sizeof(frame), "%s`burn_spin", strrchr(self_name, '/') ? strrchr(self_name, '/') + 1 : self_name);
	return frame;
}

/* The allocator's starts of one allocator: its library, and the spin share against the child's clock. */
static void check_allocator(const char *label, const char *preload, const char *library, struct profile_shares **starts,
			    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct child c = start_child("alloc", 4.0, preload, -1);
		uint64_t spin, alloc;
		double want, got;

		sleep_s(0.3);
		starts[i] = sample(c.pid, 3.0, false, NULL);
		end_child(&c, &spin, &alloc);
		want = (double)spin / (double)(spin + alloc);
		got = share(starts[i], PROFILE_ITEM_FUNCTION, spin_frame(), NULL);
		if (i == 0)
			ok(fabs(got - want) < 0.06, "%s: the spin function's share is its part of the child's CPU time "
			   "(%.1f%% sampled, %.1f%% by its clock)", label, 100 * got, 100 * want);
		if (i == 0)
			ok(share(starts[i], PROFILE_ITEM_GROUP_LIBRARY, "the allocator", library) > 0.05,
			   "%s: the allocator's samples are in %s (%.1f%% of the CPU)", label, library,
			   100 * share(starts[i], PROFILE_ITEM_GROUP_LIBRARY, "the allocator", library));
	}
}

static const struct profile_diff_item *find_item(const struct profile_diff *d, enum profile_item_kind k,
						 const char *name, const char *lib)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->items[i].kind == k && streq(d->items[i].name, name) && streq_ptr(d->items[i].library, lib))
			return &d->items[i];
	return NULL;
}

static void check_allocators(void)
{
	struct profile_shares *glibc[3], *jemalloc[3], *tcmalloc[1];
	const struct profile_diff_item *it;
	struct profile_diff *d;

	check_allocator("glibc", NULL, "libc.so.6", glibc, 3);
	check_allocator("jemalloc", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "libjemalloc.so.2", jemalloc, 3);
	check_allocator("tcmalloc", "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4", "libtcmalloc_minimal.so.4.5.10",
			tcmalloc, 1);
	if (profile_diff((const struct profile_shares *const *)jemalloc, 3, (const struct profile_shares *const *)glibc,
			 3, 0.95, &d) < 0)
		bail_out("profile_diff");
	it = find_item(d, PROFILE_ITEM_LIBRARY, "libjemalloc.so.2", NULL);
	ok(it && it->significant && it->lo > 0,
	   "jemalloc against glibc: libjemalloc.so.2's share differs, Holm-adjusted across %zu (%.1f%% against %.1f%%, "
	   "difference %.1f (%.1f to %.1f) points, p %.3g)", d->family, it ? 100 * it->a.mean : NAN,
	   it ? 100 * it->b.mean : NAN, it ? 100 * it->diff : NAN, it ? 100 * it->lo : NAN, it ? 100 * it->hi : NAN,
	   it ? it->p : NAN);
	it = find_item(d, PROFILE_ITEM_GROUP, "the allocator", NULL);
	ok(it && it->top_library_a && it->top_library_b && streq(it->top_library_a, "libjemalloc.so.2") &&
	   streq(it->top_library_b, "libc.so.6"), "the allocator's library in each side: %s against %s",
	   it && it->top_library_a ? it->top_library_a : "none", it && it->top_library_b ? it->top_library_b : "none");
	profile_diff_free(d);
	for (size_t i = 0; i < 3; i++)
		profile_shares_free(glibc[i]), profile_shares_free(jemalloc[i]);
	profile_shares_free(tcmalloc[0]);
}

static uint64_t run_delay_ns(pid_t pid)
{
	_cleanup_free_ char *s = NULL;
	char path[64];
	uint64_t run = 0, wait = 0;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if (read_file_str(path, &s) < 0 || sscanf(s, "%" SCNu64 " %" SCNu64, &run, &wait) != 2)
		return 0;
	return wait;
}

static void check_run_queue(void)
{
	struct child a = start_child("spin", 4.0, NULL, 0), b = start_child("spin", 4.0, NULL, 0);
	struct profile_sampler *s;
	struct profile_raw *raw;
	struct profile *p;
	struct profile_shares *sh;
	const char *why;
	uint64_t w0, w1;
	double got, want;

	sleep_s(0.3);
	w0 = run_delay_ns(a.pid);
	if (profile_sampler_start(a.pid, NULL, 499, false, &s, &why) < 0)
		bail_out("profile_sampler_start");
	sleep_s(3.0);
	w1 = run_delay_ns(a.pid);
	if (profile_sampler_stop(s, &raw) < 0 || profile_fold(raw, &p) < 0 || profile_shares_of(p, raw->seconds, &sh) < 0)
		bail_out("profile");
	got = share(sh, PROFILE_ITEM_OFF_CPU, "run-queue", NULL);
	want = (double)(w1 - w0) / 1e6 / raw->seconds;
	ok(want > 300 && fabs(got - want) < 0.15 * want,
	   "two spinners on one CPU: run-queue wait %.0f ms a second, /proc/PID/schedstat %.0f", got, want);
	ok(share(sh, PROFILE_ITEM_OFF_CPU, "throttled", NULL) < 0.1 * got,
	   "and little of it throttled (%.0f ms a second)", share(sh, PROFILE_ITEM_OFF_CPU, "throttled", NULL));
	profile_raw_free(raw);
	profile_free(p);
	profile_shares_free(sh);
	end_child(&a, NULL, NULL);
	end_child(&b, NULL, NULL);
}

static void remove_cgroup(void *arg _unused_)
{
	if (cgroup_dir[0])
		rmdir(cgroup_dir);
}

static int write_str(const char *dir, const char *file, const char *value)
{
	char path[256];
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	if (fputs(value, f) < 0)
		r = -EIO;
	if (fclose(f) != 0)
		r = -errno;
	return r;
}

static uint64_t cgroup_throttled_ns(void)
{
	_cleanup_free_ char *s = NULL, *path = NULL;
	const char *p;

	if (xasprintf(&path, "%s/cpu.stat", cgroup_dir) < 0 || read_file_str(path, &s) < 0 ||
	    !(p = strstr(s, "throttled_time ")))
		return 0;
	return strtoull(p + strlen("throttled_time "), NULL, 10);
}

static void check_throttled(void)
{
	struct child c;
	struct profile_shares *sh;
	char pid[32];
	double got, waited, want, throttled;
	uint64_t w0, t0;

	snprintf(cgroup_dir, sizeof(cgroup_dir), "/sys/fs/cgroup/cpu/t210-%d", (int)getpid());
	if (access("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", F_OK) != 0 || mkdir(cgroup_dir, 0755) < 0) {
		cgroup_dir[0] = '\0';
		skip(2, "no v1 cpu controller to make a cgroup of a quota in");
		return;
	}
	on_exit_run(remove_cgroup, NULL);
	if (write_str(cgroup_dir, "cpu.cfs_period_us", "100000") < 0 || write_str(cgroup_dir, "cpu.cfs_quota_us", "20000") < 0)
		bail_out("the cgroup's quota: %m");
	c = start_child("spin", 4.0, NULL, 1);
	snprintf(pid, sizeof(pid), "%d", (int)c.pid);
	if (write_str(cgroup_dir, "cgroup.procs", pid) < 0)
		bail_out("moving the child");
	sleep_s(0.3);
	w0 = run_delay_ns(c.pid);
	t0 = cgroup_throttled_ns();
	sh = sample(c.pid, 3.0, false, NULL);
	throttled = (double)(cgroup_throttled_ns() - t0) / 1e6 / 3.0;
	got = share(sh, PROFILE_ITEM_OFF_CPU, "throttled", NULL);
	waited = got + share(sh, PROFILE_ITEM_OFF_CPU, "run-queue", NULL);
	want = (double)(run_delay_ns(c.pid) - w0) / 1e6 / 3.0;
	ok(fabs(waited - want) < 0.15 * want && want > 600,
	   "a spinner under a 20%% quota waits runnable %.0f ms a second, /proc/PID/schedstat %.0f (800 due on an idle host)",
	   waited, want);
	ok(got > 100 && fabs(got - throttled) <= 0.1 * throttled + 5,
	   "of which throttled %.0f ms a second, the cgroup's cpu.stat %.0f (the rest on the run queue)", got, throttled);
	profile_shares_free(sh);
	end_child(&c, NULL, NULL);
	write_str("/sys/fs/cgroup/cpu", "cgroup.procs", "0");
	rmdir(cgroup_dir);
	cgroup_dir[0] = '\0';
}

static void check_blocked(const char *mode, const char *reason, bool stacks)
{
	struct child c = start_child(mode, 4.0, NULL, -1);
	struct profile_shares *sh;

	struct profile *p;

	sleep_s(0.3);
	sh = sample(c.pid, 2.0, stacks, &p);
	for (size_t i = 0; getenv("T210_DUMP") && i < p->n; i++)
		diag("%s %lu", p->lines[i].stack, (unsigned long)p->lines[i].weight);
	profile_free(p);
	ok(share(sh, PROFILE_ITEM_OFF_CPU, reason, NULL) > 500,
	   "a child in %s, %s stacks at switches: off its CPU for '%s' %.0f ms a second", mode, stacks ? "with" : "without",
	   reason, share(sh, PROFILE_ITEM_OFF_CPU, reason, NULL));
	profile_shares_free(sh);
	end_child(&c, NULL, NULL);
}

static void check_folded_file(void)
{
	struct child c = start_child("alloc", 2.0, NULL, -1);
	struct profile *p, *back = NULL;
	char path[256], *why = NULL;
	size_t same = 0;
	FILE *f;
	int r;

	sleep_s(0.2);
	profile_shares_free(sample(c.pid, 1.0, true, &p));
	end_child(&c, NULL, NULL);
	snprintf(path, sizeof(path), "%s/p.folded.gz", scratch_dir());
	ok(profile_write(p, path) >= 0 && profile_read(path, &back, &why) >= 0 && back->n == p->n,
	   "the folded stacks written and read back: %zu lines", p->n);
	for (size_t i = 0; back && i < back->n && i < p->n; i++)
		same += streq(back->lines[i].stack, p->lines[i].stack) && back->lines[i].weight == p->lines[i].weight;
	ok(back && same == p->n, "each line alike (%zu of %zu)", same, p->n);
	profile_free(back);
	profile_free(p);
	snprintf(path, sizeof(path), "%s/bad.folded.gz", scratch_dir());
	f = fopen(path, "we");
	fputs("on-cpu;a`b 3\nnot a stack\n", f);
	fclose(f);
	back = NULL;
	r = profile_read(path, &back, &why);
	ok(r == -EBADMSG && why && strstr(why, "line 2"), "a hostile file is refused with its line: %s", why ? why : "(none)");
	free(why);
	profile_free(back);
}

int main(int argc, char **argv)
{
	self_name = argv[0];
	if (argc == 4 && streq(argv[1], "burn"))
		return burn(argv[2], atof(argv[3]));
	require("ROOT");
	plan(18);
	check_folded_file();
	check_blocked("sleep", "sleep", true);
	check_blocked("futex", "futex", true);
	check_blocked("sleep", "blocked", false);
	check_run_queue();
	check_throttled();
	check_allocators();
	return done_testing();
}

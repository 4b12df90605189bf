/* The figures of mechanism and their intervals.  The intervals on values
 * of known truth, no prerequisites: a median's order-statistic interval
 * across starts (10 starts: the 2nd to the 9th value, 97.85%; 3 starts:
 * the range, 75%), its coverage over 1000 seeded data sets; and the
 * correlation's Fisher interval (r 0.9 over 10 mixes: 0.624 to 0.976, as
 * SciPy-free arithmetic gives it), its coverage over 1000 seeded data sets
 * of a known correlation.  Then, with ROOT and two CPUs, the share of the
 * server's run time on a client's CPU, the server a busy loop pinned to
 * CPU 0 and this process's client thread pinned to CPU 0 (at least 80%)
 * or CPU 1 (at most 20%); and the hardware counters: where the CPU has no
 * PMU (this project's VM) the step's record says why and IPC is null,
 * where it has one the server's IPC is perf stat's within 10%. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "common/rng.h"
#include "oltp/oltp.h"
#include "oltp/pmu.h"
#include "oltp/wakeups.h"
#include "stats/figure.h"
#include "sim.h"
#include "tap.h"
#include "testperf.h"
#include "common/util.h"

#define SETS 1000

static void check_median_interval(void)
{
	double v[10] = { 5, 1, 9, 3, 7, 2, 8, 4, 10, 6 }, med, lo, hi, cover;
	double three[3] = { 120, 95, 105 };
	unsigned covered = 0;

	sim_gen = rng_seeded(118, 1);
	stats_median_interval(v, 10, 0.95, &med, &lo, &hi, &cover);
	ok(med == 5.5 && lo == 2 && hi == 9 && fabs(cover - 0.978515625) < 1e-9,
	   "10 starts: median 5.5, the 2nd to the 9th value, 97.85%% (%g, %g-%g, %.4f)", med, lo, hi, cover);
	stats_median_interval(three, 3, 0.95, &med, &lo, &hi, &cover);
	ok(med == 105 && lo == 95 && hi == 120 && fabs(cover - 0.75) < 1e-9,
	   "3 starts: the range, whose coverage is 75%% (%g, %g-%g, %.2f)", med, lo, hi, cover);
	for (unsigned s = 0; s < SETS; s++) {
		double x[10];

		for (size_t i = 0; i < 10; i++)
			x[i] = 100 * exp(0.3 * sim_gauss()); /* median 100 */
		stats_median_interval(x, 10, 0.95, &med, &lo, &hi, &cover);
		covered += lo <= 100 && 100 <= hi;
	}
	ok(covered >= 965 && covered <= 992, "the median's interval covers the true median in %u of %u sets (97.85%% due)",
	   covered, SETS);
}

static void check_correlation_interval(void)
{
	unsigned covered = 0;
	double lo, hi;

	sim_gen = rng_seeded(118, 2);
	stats_correlation_interval(0.9, 10, 0.95, &lo, &hi);
	ok(fabs(lo - 0.62393) < 1e-4 && fabs(hi - 0.97636) < 1e-4, "r 0.9 over 10 mixes: 0.624 to 0.976 (%.5f to %.5f)",
	   lo, hi);
	stats_correlation_interval(0.9, 3, 0.95, &lo, &hi);
	ok(isnan(lo) && isnan(hi), "3 mixes: too few for an interval");
	for (unsigned s = 0; s < SETS; s++) {
		double x[20], y[20], mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0, r;

		for (size_t i = 0; i < 20; i++) {
			x[i] = sim_gauss();
			y[i] = 0.6 * x[i] + 0.8 * sim_gauss(); /* rho 0.6 */
			mx += x[i] / 20;
			my += y[i] / 20;
		}
		for (size_t i = 0; i < 20; i++) {
			sxy += (x[i] - mx) * (y[i] - my);
			sxx += (x[i] - mx) * (x[i] - mx);
			syy += (y[i] - my) * (y[i] - my);
		}
		r = sxy / sqrt(sxx * syy);
		stats_correlation_interval(r, 20, 0.95, &lo, &hi);
		covered += lo <= 0.6 && 0.6 <= hi;
	}
	ok(covered >= 930 && covered <= 970, "Fisher's interval covers rho 0.6 in %u of %u sets of 20 (95%% due)", covered,
	   SETS);
}

static pid_t server;
static atomic_int client_cpu = -1;
static atomic_bool client_stop;

static void kill_server(void *unused)
{
	(void)unused;
	if (server > 0) {
		kill(server, SIGKILL);
		waitpid(server, NULL, 0);
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* This process's client thread: busy on its CPU half of each 10 ms. */
static void *client_main(void *unused)
{
	int on = -1;

	(void)unused;
	while (!atomic_load(&client_stop)) {
		uint64_t end = now_ns() + 5 * NSEC_PER_MSEC;

		if (atomic_load(&client_cpu) != on)
			pin(on = atomic_load(&client_cpu));
		while (now_ns() < end)
			;
		usleep(5000);
	}
	return NULL;
}

static const struct oltp_mechanism_def *row_of(const char *key)
{
	size_t n;
	const struct oltp_mechanism_def *d = oltp_mechanism_table(&n);

	for (size_t k = 0; k < n; k++)
		if (streq(d[k].key, key))
			return &d[k];
	bail_out("no mechanism row %s", key);
}

/* The share over 3 s with the client on CPU cpu. */
static double share_with_client_on(int cpu, struct oltp_telemetry_sample *first, struct oltp_telemetry_sample *last)
{
	struct oltp_options o;
	struct oltp_telemetry *t = NULL;
	struct step_result r = { .tps = 1 };
	double v;

	atomic_store(&client_cpu, cpu);
	usleep(200 * 1000);
	oltp_options_default(&o);
	o.server_pid = server;
	if (oltp_telemetry_new(&o, &t) < 0)
		bail_out("oltp_telemetry_new");
	for (int i = 0; i <= 6; i++) {
		if (oltp_telemetry_append(t, i * 0.5, &r) < 0)
			bail_out("oltp_telemetry_append");
		usleep(500 * 1000);
	}
	oltp_telemetry_free(t);
	*first = r.samples[0];
	*last = r.samples[r.n_samples - 1];
	v = oltp_mechanism_value(row_of("server_on_client_cpu_pct"), r.samples, r.n_samples, r.tps);
	/* The samples' arrays stay with r; the copies keep only the counters. */
	first->server_per_l3 = first->client_per_l3 = first->server_per_node = first->client_per_node = NULL;
	last->server_per_l3 = last->client_per_l3 = last->server_per_node = last->client_per_node = NULL;
	step_result_done(&r);
	return v;
}

static void check_share_and_counters(void)
{
	struct oltp_telemetry_sample a, b;
	pthread_t client;
	const char *why = NULL;
	struct oltp_pmu *pmu = NULL;
	double together, apart;
	int r;

	server = fork();
	if (server == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin(0);
		for (volatile unsigned long i = 0;; i++)
			;
	}
	on_exit_run(kill_server, NULL);
	if (server < 0 || pthread_create(&client, NULL, client_main, NULL) != 0)
		bail_out("cannot start the server or the client");
	together = share_with_client_on(0, &a, &b);
	apart = share_with_client_on(1, &a, &b);
	atomic_store(&client_stop, true);
	pthread_join(client, NULL);
	cmp_ok(together, ">=", 80, "the server's run time on a client's CPU, both pinned to CPU 0: %.0f%%", together);
	cmp_ok(apart, "<=", 20, "and with the client on CPU 1: %.0f%%", apart);

	r = oltp_pmu_open(&server, 1, &pmu, &why);
	if (r == -EOPNOTSUPP) {
		ok(why && b.pmu_why && b.server_instructions == OLTP_PMU_UNKNOWN,
		   "no PMU here: the sample says why (%s), its counters unknown, not 0", why);
		skip(1, "no PMU: no IPC to set against perf stat's");
	} else {
		const char *const events[] = { "instructions", "cycles" };
		uint64_t i0, c0, l0, i1, c1, l1;
		struct test_perf perf;
		char args[64];
		double v[2];

		snprintf(args, sizeof(args), "-e instructions,cycles -p %d", (int)server);
		test_perf_open(&perf, args);
		oltp_pmu_read(pmu, &i0, &c0, &l0);
		sleep(2);
		oltp_pmu_read(pmu, &i1, &c1, &l1);
		test_perf_close(&perf, events, v, 2);
		ok(r >= 0 && !b.pmu_why, "a PMU: the counters open");
		cmp_ok(fabs((double)(i1 - i0) / (double)(c1 - c0) - v[0] / v[1]), "<=", 0.1 * v[0] / v[1],
		       "the server's IPC, %.3f, within 10%% of perf stat's, %.3f", (double)(i1 - i0) / (double)(c1 - c0),
		       v[0] / v[1]);
	}
	oltp_pmu_free(pmu);
}

/* A wakee named t118-wakee pinned to CPU `on` reading a pipe that this
 * thread, pinned to CPU 0, writes to every 2 ms for a second; the wake-ups
 * seen with each CPU a group of its own, and perf stat's count of them. */
static void wake_across(int on, uint64_t *ret_seen, uint64_t *ret_cross, double *ret_perf)
{
	int fds[2], groups[2] = { 0, 1 };
	struct oltp_wakeups *w = NULL;
	struct test_perf perf;
	const char *const event[] = { "sched:sched_waking" };
	uint64_t lost, seen0, cross0;
	const char *why;
	pid_t wakee;

	if (pipe(fds) < 0)
		bail_out("pipe: %m");
	wakee = fork();
	if (wakee == 0) {
		char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "t118-wakee");
		pin(on);
		close(fds[1]);
		while (read(fds[0], &c, 1) == 1)
			;
		_exit(0);
	}
	close(fds[0]);
	pin(0);
	usleep(100 * 1000);
	if (oltp_wakeups_open("t118-wakee", 2, groups, &w, &why) < 0)
		bail_out("oltp_wakeups_open: %s", why ? why : "failed");
	test_perf_open(&perf, "-a -e sched:sched_waking --filter 'comm == \"t118-wakee\"'");
	oltp_wakeups_read(w, &seen0, &cross0, &lost);
	for (int i = 0; i < 500; i++) {
		if (write(fds[1], "x", 1) != 1)
			break;
		usleep(2000);
	}
	usleep(10 * 1000);
	oltp_wakeups_read(w, ret_seen, ret_cross, &lost);
	test_perf_close(&perf, event, ret_perf, 1);
	*ret_seen -= seen0;
	*ret_cross -= cross0;
	oltp_wakeups_free(w);
	close(fds[1]);
	waitpid(wakee, NULL, 0);
}

static void check_wakeups(void)
{
	int groups[1] = { 0 };
	struct oltp_wakeups *w = NULL;
	uint64_t seen, cross;
	const char *why = NULL;
	double perf;

	if (!test_perf_usable() || oltp_wakeups_open("t118-wakee", 1, groups, &w, &why) < 0) {
		skip(3, "%s", why ? why : "perf stat does not run here");
		return;
	}
	oltp_wakeups_free(w);
	wake_across(1, &seen, &cross, &perf);
	diag("wakee on CPU 1: %llu wake-ups seen, %llu across; perf stat %.0f over its window", (unsigned long long)seen,
	     (unsigned long long)cross, perf);
	ok(seen >= 250 && cross >= seen * 95 / 100, "woken from CPU 0 on CPU 1: the wake-ups land in another group (%llu of %llu)",
	   (unsigned long long)cross, (unsigned long long)seen);
	cmp_ok(fabs((double)seen - perf), "<=", 0.05 * perf + 10, "as many as perf stat's sched_waking counts (%.0f)", perf);
	wake_across(0, &seen, &cross, &perf);
	ok(seen >= 250 && cross <= seen / 20, "woken from CPU 0 on CPU 0: none lands elsewhere (%llu of %llu)",
	   (unsigned long long)cross, (unsigned long long)seen);
}

int main(void)
{
	/* A tool that died is a failed test, not a silent end. */
	signal(SIGPIPE, SIG_IGN);
	plan(13);
	check_median_interval();
	check_correlation_interval();
	if (geteuid() != 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		skip(7, "the share on a client's CPU and the wake-ups need ROOT and two CPUs");
		return done_testing();
	}
	check_share_and_counters();
	check_wakeups();
	return done_testing();
}

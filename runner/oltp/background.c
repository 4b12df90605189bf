/* The native oltp_read_only client run beside a step, as an oltp
 * neighbour's: the same driver as a step's (oltp_run_step), measuring from
 * its gate until its owner says stop, and handing back its per-second TPS
 * so that the owner takes the seconds of its own step's measured phase
 * (the client runs from before the step's warm-up to after its end).  It runs in a process of its own, so
 * that the step's telemetry, which counts this process's threads as the
 * client's (their CPU time, run-queue wait, migrations), does not count the
 * neighbour's client with them. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "oltp/oltp.h"
#include "common/util.h"

/* The seconds a neighbour's client hands back: an hour and then some. */
#define BACKGROUND_SECONDS_MAX 4096

/* What the child hands back through its pipe, its per-second TPS after it
 * (n_intervals of them), so that its owner can take the seconds of its
 * own step's measured phase. */
struct background_record {
	int r;
	bool failed;
	double tps, duration_s;
	uint64_t measured_from_ns;
	uint32_t n_intervals;
	char reason[256];
};

struct oltp_background {
	pid_t pid;
	int fd; /* the pipe's read end */
};

static atomic_bool child_until;

/* SIGUSR1 in the child: its owner said stop.  A lock-free atomic store is
 * async-signal-safe. */
static void on_stop(int sig)
{
	(void)sig;
	atomic_store(&child_until, true);
}

static _Noreturn void child_main(const struct oltp_options *base, unsigned threads, int fd, const sigset_t *old)
{
	struct sigaction sa = { .sa_handler = on_stop };
	struct oltp_options o = *base;
	struct step_result res = {};
	struct background_record rec = {};

	/* Never outlive the run, even one killed with SIGKILL. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigaction(SIGUSR1, &sa, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
	o.until = &child_until;
	o.duration_ns = o.warmup_ns = o.events = 0;
	o.progress = false;
	rec.r = oltp_run_step(&o, threads, &res);
	rec.failed = res.failed;
	rec.tps = res.tps;
	rec.duration_s = res.duration_s;
	rec.measured_from_ns = res.measured_from_ns;
	rec.n_intervals = (uint32_t)MIN(res.n_intervals, BACKGROUND_SECONDS_MAX);
	(void)text_copy(rec.reason, sizeof(rec.reason), res.reason);
	_exit(loop_write(fd, &rec, sizeof(rec)) < 0 ||
			      loop_write(fd, res.intervals, rec.n_intervals * sizeof(double)) < 0
		      ? 1
		      : 0);
}

int oltp_background_start(const struct oltp_options *o, unsigned threads, struct oltp_background **ret)
{
	_cleanup_free_ struct oltp_background *b = calloc(1, sizeof(*b));
	sigset_t usr1, old;
	int p[2];

	if (!b)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	/* Blocked until the child's handler is in place: a stop that came
	 * sooner would kill it. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	b->pid = fork();
	if (b->pid == 0) {
		close(p[0]);
		child_main(o, threads, p[1], &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(p[1]);
	if (b->pid < 0) {
		close(p[0]);
		return -errno;
	}
	b->fd = p[0];
	*ret = b;
	b = NULL;
	return 0;
}

double oltp_rate_within(const double *rates, size_t n, uint64_t start_ns, uint64_t end_ns, uint64_t from_ns,
			uint64_t to_ns)
{
	double sum = 0, covered = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = start_ns + i * NSEC_PER_SEC, b = MIN(a + NSEC_PER_SEC, end_ns);
		uint64_t lo = MAX(a, from_ns), hi = MIN(b, to_ns);

		if (hi > lo) {
			sum += rates[i] * (double)(hi - lo);
			covered += (double)(hi - lo);
		}
	}
	return covered > 0 ? sum / covered : NAN;
}

int oltp_background_stop(struct oltp_background *b, const struct step_result *beside, struct step_result *ret)
{
	double rates[BACKGROUND_SECONDS_MAX], within = NAN;
	struct background_record rec = {};
	ssize_t n, m = 0;

	if (!b)
		return 0;
	(void)kill(b->pid, SIGUSR1);
	n = loop_read(b->fd, &rec, sizeof(rec));
	if (n == (ssize_t)sizeof(rec) && rec.n_intervals <= BACKGROUND_SECONDS_MAX)
		m = loop_read(b->fd, rates, rec.n_intervals * sizeof(double));
	close(b->fd);
	/* It exits once its record is written, or has died already. */
	while (waitpid(b->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(b);
	if (n != (ssize_t)sizeof(rec) || m != (ssize_t)(rec.n_intervals * sizeof(double)))
		return -EPIPE; /* it ended without its record */
	if (rec.r < 0)
		return rec.r;
	if (beside && beside->measured_from_ns && rec.measured_from_ns)
		within = oltp_rate_within(rates, rec.n_intervals, rec.measured_from_ns,
					  rec.measured_from_ns + (uint64_t)(rec.duration_s * 1e9), beside->measured_from_ns,
					  beside->measured_from_ns + (uint64_t)(beside->duration_s * 1e9));
	*ret = (struct step_result){ .tps = isnan(within) ? rec.tps : within, .failed = rec.failed };
	(void)text_copy(ret->reason, sizeof(ret->reason), rec.reason);
	return 0;
}

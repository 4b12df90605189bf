/* The native oltp_read_only client run beside a step, as an oltp
 * neighbour's: the same driver as a step's (oltp_run_step), measuring from
 * its gate until its owner says stop.  It runs in a process of its own, so
 * that the step's telemetry, which counts this process's threads as the
 * client's (their CPU time, run-queue wait, migrations), does not count the
 * neighbour's client with them. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "oltp/oltp.h"
#include "common/util.h"

/* What the child hands back through its pipe. */
struct background_record {
	int r;
	bool failed;
	double tps;
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
	snprintf(rec.reason, sizeof(rec.reason), "%s", res.reason);
	_exit(write(fd, &rec, sizeof(rec)) == (ssize_t)sizeof(rec) ? 0 : 1);
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

int oltp_background_stop(struct oltp_background *b, struct step_result *ret)
{
	struct background_record rec = {};
	ssize_t n;

	if (!b)
		return 0;
	(void)kill(b->pid, SIGUSR1);
	do
		n = read(b->fd, &rec, sizeof(rec));
	while (n < 0 && errno == EINTR);
	close(b->fd);
	/* It exits once its record is written, or has died already. */
	while (waitpid(b->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(b);
	if (n != (ssize_t)sizeof(rec))
		return -EPIPE; /* it ended without its record */
	if (rec.r < 0)
		return rec.r;
	*ret = (struct step_result){ .tps = rec.tps, .failed = rec.failed };
	snprintf(ret->reason, sizeof(ret->reason), "%s", rec.reason);
	return 0;
}

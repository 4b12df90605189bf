/* slicebench hog: CPU burnt in threads at a duty cycle for a while (a
 * minute unless told), or until a signal ends it.  An experiment's
 * [neighbour NAME] of kind hog runs this with --duration infinity, in a
 * scope or cgroup of its own, so that a server has a competitor whose
 * demand is known exactly. */
#include <pthread.h>
#include <time.h>

#include "cli/verbs.h"
#include "common/util.h"

#define HOG_THREADS_MAX 1024
/* A hog typed by hand stops by itself: a forgotten one would burn the
 * host's CPUs under every later measurement. */
#define HOG_DEFAULT_DURATION_S 60

struct hog_args {
	unsigned threads;
	unsigned duty; /* percent of each period spent running */
	uint64_t period_ns;
	uint64_t end_ns; /* CLOCK_MONOTONIC; UINT64_MAX: until a signal */
};

static const struct cli_option opt_threads = { .name = "threads", .arg = "N", .type = CLI_UINT,
					       .offset = offsetof(struct hog_args, threads), .min = 1,
					       .max = HOG_THREADS_MAX, .help = "threads burning CPU (1)" };
static const struct cli_option opt_duty = { .name = "duty", .arg = "PCT", .type = CLI_UINT,
					    .offset = offsetof(struct hog_args, duty), .min = 1, .max = 100,
					    .help = "the percentage of each period a thread runs (100)" };
static const struct cli_option opt_period = { .name = "period", .arg = "DURATION", .type = CLI_DURATION,
					      .offset = offsetof(struct hog_args, period_ns), .min = NSEC_PER_MSEC,
					      .help = "the duty cycle's period (100ms)" };
static const struct cli_option opt_duration = { .name = "duration", .arg = "DURATION",
						.help = "how long it burns, or infinity: until a signal ends it ("
							STRINGIFY(HOG_DEFAULT_DURATION_S) "s)" };

/* --duration: a duration from now, or infinity. */
static int parse_duration(const struct cli_verb *v, const struct cli_option *o, const char *value, void *userdata)
{
	struct hog_args *a = userdata;
	uint64_t ns;

	if (streq(value, "infinity")) {
		a->end_ns = UINT64_MAX;
		return 0;
	}
	if (parse_duration_ns(value, &ns) < 0 || ns == 0)
		return cli_bad_value(v, o, value, "a duration above 0, such as 30s or 5m, or infinity");
	a->end_ns = now_ns() + ns;
	return 0;
}

const struct cli_verb cli_hog = {
	.name = "hog",
	.usage = (const char *const[]){ "[--threads N] [--duty PCT] [--period DURATION] [--duration DURATION|infinity]",
					NULL },
	.about = "Burns CPU in N threads, each running PCT% of every period and sleeping the rest, for the\n"
		 "duration (a minute unless told; infinity: until a signal ends it): the CPU hog that an\n"
		 "experiment's [neighbour NAME] runs beside the server.",
	.options = (const struct cli_option *const[]){ &opt_threads, &opt_duty, &opt_period, &opt_duration, NULL },
	.parse = parse_duration,
};

/* Runs until the duty's share of the period has passed on the clock, then
 * sleeps to the period's end: absolute deadlines, so that it does not drift. */
static void *burn(void *userdata)
{
	const struct hog_args *a = userdata;
	uint64_t busy_ns = a->period_ns / 100 * a->duty;
	struct timespec next;
	volatile uint64_t spin = 0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		uint64_t start = (uint64_t)next.tv_sec * NSEC_PER_SEC + (uint64_t)next.tv_nsec;

		if (start >= a->end_ns)
			return NULL;
		while (now_ns() - start < busy_ns)
			for (int i = 0; i < 1000; i++)
				spin++;
		if (a->duty == 100) {
			clock_gettime(CLOCK_MONOTONIC, &next);
			continue;
		}
		start += a->period_ns;
		next.tv_sec = (time_t)(start / NSEC_PER_SEC);
		next.tv_nsec = (long)(start % NSEC_PER_SEC);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
	}
	return NULL;
}

static int hog(const struct hog_args *a)
{
	pthread_t t;
	int r;

	/* The threads but one; this one burns too.  A signal's default
	 * action ends them all, and so does this thread's return at the
	 * end: a hog has nothing to clean up. */
	for (unsigned i = 1; i < a->threads; i++) {
		r = pthread_create(&t, NULL, burn, (void *)a);
		if (r > 0)
			return log_error_errno(-r, "hog: cannot start thread %u: %m", i + 1);
	}
	burn((void *)a);
	return 0;
}

int verb_hog(int argc, char **argv)
{
	struct hog_args a = { .threads = 1, .duty = 100, .period_ns = 100 * NSEC_PER_MSEC,
			      .end_ns = now_ns() + HOG_DEFAULT_DURATION_S * NSEC_PER_SEC };
	int r;

	r = cli_parse_options_only(&cli_hog, argc, argv, &a);
	if (r <= 0)
		return verb_parse_exit_status(r);
	return verb_exit_status(hog(&a));
}

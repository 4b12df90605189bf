/* slicebench calibrate: the command line over calibrate/, which runs the
 * A/A test and stores this host's sigma. */
#include <stddef.h>
#include <stdio.h>

#include "calibrate/calibrate.h"
#include "stats/stats.h"
#include "common/util.h"
#include "cli/verbs.h"

/* calibrate's arguments as the command line gives them. */
struct calibrate_cli {
	struct calibrate_args a;
	struct cli_seed seed;
	struct cli_verbosity talk;
};

#define X(f) .offset = offsetof(struct calibrate_cli, a.f)
static const struct cli_option opt_pairs = { .name = "pairs", .arg = "N", .type = CLI_UINT, X(pairs),
					     .min = CALIBRATE_PAIRS_MIN, .max = CALIBRATE_PAIRS_MAX,
					     .help = "rounds, a start of CONTEXT and of its twin each (40)" };
static const struct cli_option opt_duration = { .name = "duration", .arg = "D", .type = CLI_DURATION, X(duration_ns),
						.min = 1, .help = "measured time per step (the file's)" };
static const struct cli_option opt_threads = { .name = "threads", .arg = "N", .type = CLI_LONG, X(threads), .min = 1,
					       .max = EXP_THREAD_COUNT_MAX, .help = "the thread count (the file's first)" };
static const struct cli_option opt_out = { .name = "out", .arg = "DIR", .type = CLI_STRING, X(out),
					   .help = "the results directory (results/calibrate-NAME-CONTEXT-YYYYmmdd-HHMMSS)" };
static const struct cli_option opt_dry_run = { .name = "dry-run", .type = CLI_FLAG, X(dry_run),
					       .help = "print the plan and its estimated time, start nothing" };
#undef X

const struct cli_verb cli_calibrate = {
	.name = "calibrate",
	.usage = (const char *const[]){ "[EXPERIMENT] CONTEXT [--pairs N] [--duration D] [--threads N] [--out DIR]",
					"[EXPERIMENT] CONTEXT [--confidence 95] [--seed N] [--dry-run]", NULL },
	.about = "An A/A test of this host: the experiment's context (of quickstart when no experiment is\n"
		 "named) runs under two names, CONTEXT and CONTEXT-twin, once each in every round, in a balanced\n"
		 "order.  The one model of log TPS, cell + round, gives the host's sigma between starts with\n"
		 "Bonett's interval, which holds under heavy tails; the rounds cut into groups of the file's\n"
		 "repeat (at least 2), each judged by the report's own verdict as a run of the file is, count\n"
		 "the A/A tests that call a difference significant, a false-positive rate stated only from 150\n"
		 "tests or more; and at this sigma the smallest gap a run of the file detects with 80% power at\n"
		 "its report's Holm level.  The result is kept in STATE/calibration.json with the host's name,\n"
		 "kernel and CPU; it feeds the smallest gap of run --dry-run's and explain's plans on this host\n"
		 "at that thread count, and report's line under an n.s. verdict.  report DIR reads the results\n"
		 "directory.",
	.options = (const struct cli_option *const[]){ &opt_pairs, &opt_duration, &opt_threads, &opt_out,
						       CLI_CONFIDENCE_OPTION(struct calibrate_cli, a.confidence),
						       CLI_ORDER_OPTION(struct calibrate_cli, a.order),
						       CLI_SEED_OPTION(struct calibrate_cli, seed), &opt_dry_run,
						       CLI_QUIET_OPTION(struct calibrate_cli, talk),
						       CLI_VERBOSE_OPTION(struct calibrate_cli, talk), NULL },
};

static int calibrate_parse_argv(int argc, char **argv, struct calibrate_cli *c)
{
	struct calibrate_args *a = &c->a;
	int r, first, n;

	a->pairs = 40;
	a->confidence = STATS_CONFIDENCE_DEFAULT;
	r = cli_parse(&cli_calibrate, argc, argv, c, &first);
	if (r <= 0)
		return r;
	r = cli_set_verbosity(&cli_calibrate, &c->talk);
	if (r < 0)
		return r;
	a->seed = c->seed.value;
	a->seed_given = c->seed.given;
	n = argc - first;
	if (n < 1 || n > 2)
		return cli_usage_error(&cli_calibrate, "%s", n < 1 ? "which context? (calibrate [EXPERIMENT] CONTEXT)"
								 : "one experiment and one of its contexts");
	a->experiment = n == 2 ? argv[first] : "quickstart";
	a->context = argv[argc - 1];
	return 1;
}

int verb_calibrate(int argc, char **argv)
{
	struct calibrate_cli args = {};
	int r;

	r = calibrate_parse_argv(argc, argv, &args);
	if (r <= 0)
		return verb_parse_exit_status(r);
	r = calibrate_run(&args.a);
	/* calibrate_run() refuses bad input with -EINVAL before it starts anything. */
	return r == -EINVAL ? EXIT_USAGE : verb_exit_status(r);
}

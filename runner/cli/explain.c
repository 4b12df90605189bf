/* slicebench explain: the command line over explain/, which designs,
 * measures and analyses. */
#include <stddef.h>
#include <stdio.h>

#include "explain/explain.h"
#include "stats/stats.h"
#include "common/util.h"
#include "cli/verbs.h"

#define X(f) .offset = offsetof(struct explain_args, f)
static const struct cli_option opt_threads = { .name = "threads", .arg = "N", .type = CLI_LONG, X(threads), .min = 1,
					       .max = 100000, .help = "the thread count of the measurement (1)" };
static const struct cli_option opt_repeat = { .name = "repeat", .arg = "R", .type = CLI_UINT, X(repeat), .min = 2,
					      .max = 50, .help = "server starts per mix (3; fewer, down to 2, to fit --budget)" };
static const struct cli_option opt_duration = { .name = "duration", .arg = "D", .type = CLI_DURATION, X(duration_ns),
						.min = 1, .help = "measured time per step (5s)" };
static const struct cli_option opt_budget = { .name = "budget", .arg = "TIME", .type = CLI_DURATION, X(budget_ns),
					      .min = 1, .help = "the most the measurement may take (30m)" };
static const struct cli_option opt_out = { .name = "out", .arg = "DIR", .type = CLI_STRING, X(out),
					   .help = "the results directory (results/explain-NAME-A-B-YYYYmmdd-HHMMSS)" };
static const struct cli_option opt_what_if = { .name = "what-if", .type = CLI_FLAG, X(what_if),
					       .help = "print the design and its time, start nothing" };
static const struct cli_option opt_from = { .name = "from", .arg = "CONTEXT-A", .type = CLI_STRING, X(a),
					    .help = "with RESULTS: the context whose attributes are taken" };
static const struct cli_option opt_to = { .name = "to", .arg = "CONTEXT-B", .type = CLI_STRING, X(b),
					  .help = "with RESULTS: the context they are moved into" };
#undef X

const struct cli_verb cli_explain = {
	.name = "explain",
	.usage = (const char *const[]){ "EXPERIMENT CONTEXT-A CONTEXT-B [OPTIONS]",
					"RESULTS --from CONTEXT-A --to CONTEXT-B [OPTIONS]", NULL },
	.about = "The factors are the attributes in which A and B differ: the settings their sections write,\n"
		 "and every attribute of their placements' diff that the attribute table can take into a\n"
		 "context (the affinity or environment a shell's server inherits, a service's session, ...;\n"
		 "a file's contexts are started once each to read them, a results directory has them).\n"
		 "Hybrids of the kind that takes every factor start from B and take a set of factors from A;\n"
		 "the closure takes all of them.  Names the factors that account for the TPS gap, judged as\n"
		 "report judges a ratio (Welch's t on log TPS across repeats, at --confidence); each share\n"
		 "of it has Fieller's interval, and what the closure leaves is the unexplained rest.",
	.options = (const struct cli_option *const[]){ &opt_threads, &opt_repeat, &opt_duration, &opt_budget,
						       CLI_CONFIDENCE_OPTION(struct explain_args, confidence), &opt_out,
						       &opt_what_if, &opt_from, &opt_to, NULL },
};

static int explain_parse_argv(int argc, char **argv, struct explain_args *a)
{
	int r, first, n;

	a->threads = 1;
	a->repeat = 3;
	a->duration_ns = 5 * NSEC_PER_SEC;
	a->budget_ns = 30 * 60 * NSEC_PER_SEC;
	a->confidence = STATS_CONFIDENCE_DEFAULT;
	r = cli_parse(&cli_explain, argc, argv, a, &first);
	if (r <= 0)
		return r;
	n = argc - first;
	if (a->a || a->b) {
		if (!a->a || !a->b || n != 1)
			return cli_usage_error(&cli_explain, "give RESULTS --from A --to B");
		a->experiment = argv[first];
		return 1;
	}
	if (n != 3)
		return cli_usage_error(&cli_explain, "give an experiment and two of its contexts (explain EXPERIMENT A B), "
						     "or a results directory (explain RESULTS --from A --to B)");
	a->experiment = argv[first];
	a->a = argv[first + 1];
	a->b = argv[first + 2];
	return 1;
}

int verb_explain(int argc, char **argv)
{
	struct explain_args args = {};
	int r;

	r = explain_parse_argv(argc, argv, &args);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : 0;
	r = explain_run(&args);
	/* explain_run() refuses bad input with -EINVAL before it starts anything. */
	return r == -EINVAL ? EXIT_USAGE : verb_exit_status(r);
}

/* slicebench explain: the command line over explain/, which designs,
 * measures and analyses. */
#include <stddef.h>
#include <stdio.h>

#include "explain/code.h"
#include "explain/explain.h"
#include "stats/stats.h"
#include "common/util.h"
#include "cli/verbs.h"

/* explain's arguments as the command line gives them. */
struct explain_cli {
	struct explain_args a;
	struct cli_seed seed;
	unsigned width; /* points of the gap */
	struct cli_verbosity talk;
};

#define X(f) .offset = offsetof(struct explain_cli, a.f)
static const struct cli_option opt_threads = { .name = "threads", .arg = "N", .type = CLI_LONG, X(threads), .min = 1,
					       .max = EXP_THREAD_COUNT_MAX, .help = "the thread count of the measurement (1)" };
static const struct cli_option opt_repeat = { .name = "repeat", .arg = "R", .type = CLI_UINT, X(repeat), .min = 2,
					      .max = 50, .help = "the screen's rounds, a start of every mix each (3; fewer, down to 2, "
								 "to fit --budget)" };
static const struct cli_option opt_width = { .name = "width", .arg = "POINTS", .type = CLI_UINT,
					     .offset = offsetof(struct explain_cli, width), .min = 1, .max = 100,
					     .help = "the named share's interval the hold-out's rounds aim at, in points of the "
						     "gap (20)" };
static const struct cli_option opt_duration = { .name = "duration", .arg = "D", .type = CLI_DURATION, X(duration_ns),
						.min = 1, .help = "measured time per step (5s)" };
static const struct cli_option opt_budget = { .name = "budget", .arg = "TIME", .type = CLI_DURATION, X(budget_ns),
					      .min = 1, .help = "the most the measurement may take, a bound: a design over it at this "
							      "host's pace is refused, and no round begins that would end past it (30m)" };
static const struct cli_option opt_out = { .name = "out", .arg = "DIR", .type = CLI_STRING, X(out),
					   .help = "the results directory (results/explain-NAME-A-B-YYYYmmdd-HHMMSS)" };
static const struct cli_option opt_dry_run = { .name = "dry-run", .type = CLI_FLAG, X(what_if),
					       .help = "print the design and its time, start nothing" };
static const struct cli_option opt_what_if = { .name = "what-if", .alias_of = &opt_dry_run };
static const struct cli_option opt_from = { .name = "from", .arg = "CONTEXT-A", .type = CLI_STRING, X(a),
					    .help = "with RESULTS: the context whose attributes are taken" };
static const struct cli_option opt_trust = { .name = EXPLAIN_TRUST_OPTION, .type = CLI_FLAG, X(trust_code),
					     .help = "with RESULTS: let its placements and experiment.json choose code that "
						     "is not the host's (an LD_PRELOAD library, a PATH directory, an "
						     "EnvironmentFile= that root alone could not have written); only for a "
						     "directory you made yourself" };
static const struct cli_option opt_resume = { .name = "resume", .arg = "DIR", .type = CLI_STRING, X(resume),
					      .help = "finish the hold-out of explain directory DIR that a signal cut "
						      "(its screen is whole), then print the explanation" };
static const struct cli_option opt_to = { .name = "to", .arg = "CONTEXT-B", .type = CLI_STRING, X(b),
					  .help = "with RESULTS: the context they are moved into" };
#undef X

const struct cli_verb cli_explain = {
	.name = "explain",
	.usage = (const char *const[]){ "EXPERIMENT CONTEXT-A CONTEXT-B [OPTIONS]",
					"RESULTS --from CONTEXT-A --to CONTEXT-B [OPTIONS]", "--resume DIR [--trust-results-code]",
					NULL },
	.about = "The factors are the attributes in which A and B differ: the settings their sections write,\n"
		 "and every attribute of their placements' diff that the attribute table can take into a\n"
		 "context (the affinity or environment a shell's server inherits, a service's session, ...;\n"
		 "a file's contexts are started once each to read them, a results directory has them).\n"
		 "Hybrids of the kind that takes every factor start from B and take a set of factors from A;\n"
		 "the closure takes all of them.  With up to 5 factors the screen measures every mix (beyond,\n"
		 "a resolution IV fraction first, then every mix of the strongest 5), in rounds of a random\n"
		 "order; each factor's share of the gap is its exact Shapley value, with Fieller's interval\n"
		 "from one model of log TPS, mix + round, Holm-adjusted across the factors.  The set named is\n"
		 "chosen on the screen and its share measured in fresh hold-out rounds, as many as --width\n"
		 "needs at the screen's spread, within --budget.  report DIR says it all again.",
	.options = (const struct cli_option *const[]){ &opt_threads, &opt_repeat, &opt_duration, &opt_budget,
						       CLI_CONFIDENCE_OPTION(struct explain_cli, a.confidence), &opt_width,
						       &opt_out, &opt_dry_run, &opt_what_if, &opt_from, &opt_to, &opt_trust,
						       &opt_resume,
						       CLI_ORDER_OPTION(struct explain_cli, a.order),
						       CLI_SEED_OPTION(struct explain_cli, seed),
						       CLI_QUIET_OPTION(struct explain_cli, talk),
						       CLI_VERBOSE_OPTION(struct explain_cli, talk), NULL },
};

static int explain_parse_argv(int argc, char **argv, struct explain_cli *c)
{
	struct explain_args *a = &c->a;
	int r, first, n;

	c->width = 20;
	a->threads = 1;
	a->repeat = 3;
	a->duration_ns = 5 * NSEC_PER_SEC;
	a->budget_ns = 30 * 60 * NSEC_PER_SEC;
	a->confidence = STATS_CONFIDENCE_DEFAULT;
	r = cli_parse(&cli_explain, argc, argv, c, &first);
	if (r <= 0)
		return r;
	r = cli_set_verbosity(&cli_explain, &c->talk);
	if (r < 0)
		return r;
	a->verbose = c->talk.verbose;
	a->width = c->width / 100.0;
	a->seed = c->seed.value;
	a->seed_given = c->seed.given;
	n = argc - first;
	if (a->resume)
		return n || a->a || a->b || a->out ? cli_usage_error(&cli_explain, "--resume DIR takes no experiment, "
								  "contexts or --out")
						    : 1;
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
	struct explain_cli args = {};
	int r;

	r = explain_parse_argv(argc, argv, &args);
	if (r <= 0)
		return verb_parse_exit_status(r);
	r = args.a.resume ? explain_resume(args.a.resume, args.a.trust_code) : explain_run(&args.a);
	/* explain_run() refuses bad input with -EINVAL before it starts anything. */
	return r == -EINVAL ? EXIT_USAGE : verb_exit_status(r);
}

/* slicebench explain: the command line over explain/, which designs,
 * measures and analyses. */
#include <getopt.h>
#include <stdio.h>

#include "explain/explain.h"
#include "report/stats.h"
#include "common/util.h"
#include "cli/verbs.h"

static int explain_parse_argv(int argc, char **argv, struct explain_args *a)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },	      { "threads", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' },   { "duration", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },      { "what-if", no_argument, NULL, 'w' },
		{ "budget", required_argument, NULL, 'b' },   { "from", required_argument, NULL, 'A' },
		{ "to", required_argument, NULL, 'B' },	      { "confidence", required_argument, NULL, 'c' },
		{}
	};
	long v;
	int c;

	a->threads = 1;
	a->repeat = 3;
	a->duration_ns = 5 * NSEC_PER_SEC;
	a->budget_ns = 30 * 60 * NSEC_PER_SEC;
	a->confidence = STATS_CONFIDENCE_DEFAULT;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
		switch (c) {
		case 'h':
			printf("usage: slicebench explain EXPERIMENT CONTEXT-A CONTEXT-B [--threads N] [--repeat R]\n"
			       "                          [--duration D] [--budget 30m] [--confidence 95] [--out DIR]\n"
			       "                          [--what-if]\n"
			       "       slicebench explain RESULTS --from CONTEXT-A --to CONTEXT-B [OPTIONS]\n\n"
			       "Measures every mix of the settings in which A and B differ, taking each from A or from B,\n"
			       "and names the settings that account for the TPS gap.  The gap is judged as report judges\n"
			       "a ratio (Welch's t on log TPS across repeats, at --confidence); each share of it has\n"
			       "Fieller's interval from the repeats.\n");
			return 0;
		case 't':
			if (parse_int_range(optarg, 1, 100000, &a->threads) < 0)
				return log_error("explain: --threads: bad value '%s' (one thread count)", optarg), -EINVAL;
			break;
		case 'r':
			if (parse_int_range(optarg, 2, 50, &v) < 0)
				return log_error("explain: --repeat: bad value '%s' (2 to 50)", optarg), -EINVAL;
			a->repeat = (unsigned)v;
			break;
		case 'd':
			if (parse_duration_ns(optarg, &a->duration_ns) < 0 || !a->duration_ns)
				return log_error("explain: --duration: bad value '%s' (such as 5s)", optarg), -EINVAL;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'b':
			if (parse_duration_ns(optarg, &a->budget_ns) < 0 || !a->budget_ns)
				return log_error("explain: --budget: bad value '%s' (such as 30m)", optarg), -EINVAL;
			break;
		case 'w':
			a->what_if = true;
			break;
		case 'c':
			if (parse_confidence_option("explain", optarg, &a->confidence) < 0)
				return -EINVAL;
			break;
		case 'A':
			a->a = optarg;
			break;
		case 'B':
			a->b = optarg;
			break;
		default:
			log_error("explain: unknown option %s", argv[optind - 1]);
			return -EINVAL;
		}
	if (a->a || a->b) {
		if (!a->a || !a->b || argc - optind != 1)
			return log_error("explain: give RESULTS --from A --to B"), -EINVAL;
		a->experiment = argv[optind];
		return 1;
	}
	if (argc - optind != 3)
		return log_error("explain: give an experiment and two of its contexts (explain EXPERIMENT A B), "
				 "or a results directory (explain RESULTS --from A --to B)"), -EINVAL;
	a->experiment = argv[optind];
	a->a = argv[optind + 1];
	a->b = argv[optind + 2];
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
	return r == -EINVAL ? EXIT_USAGE : run_exit_status(r);
}

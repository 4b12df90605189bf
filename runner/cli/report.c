/* slicebench report DIR and slicebench compare DIR...: the command lines over
 * runner/report.c, which only renders. */
#include <getopt.h>
#include <stdio.h>

#include "report/report.h"
#include "report/stats.h"
#include "run/results.h"
#include "common/util.h"
#include "cli/verbs.h"

static void report_usage(FILE *f)
{
	fprintf(f, "usage: slicebench report DIR [--format text|markdown|csv|json|svg|png] [--latency] [--telemetry]\n"
		   "                         [--confidence 95] [-o FILE]\n"
		   "       slicebench compare DIR DIR... [--format text|markdown|csv|json] [--confidence 95]\n"
		   "\n"
		   "report: the per-context TPS table of a results directory (median of the repeats, min..max,\n"
		   "the ratio to the baseline with its interval and p-value from Welch's t on log TPS across\n"
		   "repeats, n.s. where the interval contains 1), then the noise within a start and across starts.\n"
		   "compare: the same experiment from several hosts, a column per host (named after its directory):\n"
		   "the ratios to each host's baseline, the median TPS, the host facts that decide a comparison\n"
		   "(vendor, model, L3 groups, kernel, mitigations, systemd, cgroup mode; differences marked), then\n"
		   "the other host facts that differ.\n"
		   "\n"
		   "  --confidence PCT the level of the intervals, above 50 and below 99.9 (95); recomputed\n"
		   "                   from the raw repeats each time\n");
}

struct report_args {
	struct report_options ro;
	const char *output;
	char **dirs;
	size_t n_dirs;
};

static int report_parse_argv(const char *verb, int argc, char **argv, struct report_args *a)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },	  { "format", required_argument, NULL, 'f' },
		{ "latency", no_argument, NULL, 'l' },	  { "telemetry", no_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' }, { "confidence", required_argument, NULL, 'c' }, {}
	};
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", options, NULL)) >= 0)
		switch (c) {
		case 'h':
			report_usage(stdout);
			return 0;
		case 'f':
			if (report_format_from_string(optarg, &a->ro.format) < 0) {
				log_error("%s: --format: bad value '%s' (text, markdown, csv, json, svg or png)", verb, optarg);
				return -EINVAL;
			}
			break;
		case 'l':
			a->ro.latency = true;
			break;
		case 't':
			a->ro.telemetry = true;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'c':
			if (parse_confidence_option(verb, optarg, &a->ro.confidence) < 0)
				return -EINVAL;
			break;
		default:
			log_error("%s: unknown option %s", verb, argv[optind - 1]);
			report_usage(stderr);
			return -EINVAL;
		}
	a->dirs = argv + optind;
	a->n_dirs = (size_t)(argc - optind);
	return 1;
}

int parse_confidence_option(const char *verb, const char *value, double *ret)
{
	if (stats_parse_confidence(value, ret) < 0)
		return log_error("%s: --confidence: bad value '%s' (a percentage above %g and below %g, such as 95)",
				 verb, value, STATS_CONFIDENCE_MIN_PCT, STATS_CONFIDENCE_MAX_PCT),
		       -EINVAL;
	return 0;
}

static int load(const char *verb, const char *dir, json_t **ret)
{
	int r = results_load(dir, ret);

	if (r < 0)
		log_error_errno(r, "%s: %s is not a results directory of slicebench run: %m", verb, dir);
	return r;
}

int verb_report(int argc, char **argv)
{
	struct report_args a = {};
	_cleanup_fclose_ FILE *f = NULL;
	json_t *doc = NULL;
	int r;

	r = report_parse_argv("report", argc, argv, &a);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : 0;
	if (a.n_dirs != 1) {
		log_error("report: give one results directory");
		return EXIT_USAGE;
	}
	if ((a.ro.format == REPORT_PNG) && !a.output && isatty(STDOUT_FILENO)) {
		log_error("report: --format png writes binary; give -o FILE");
		return EXIT_USAGE;
	}
	if (load("report", a.dirs[0], &doc) < 0)
		return 1;
	if (a.output && !(f = fopen(a.output, "we"))) {
		json_decref(doc);
		return log_error_errno(-errno, "report: cannot write %s: %m", a.output), 1;
	}
	r = report_render(doc, &a.ro, f ? f : stdout);
	json_decref(doc);
	if (r < 0)
		return log_error_errno(r, "report: %s: %m", a.dirs[0]), 1;
	return 0;
}

/* A column is named after its results directory's last component (the
 * playbook fetches each host's as RESULTS/HOST); the paths as given when
 * two of those names are the same.  The names point into dirs, whose
 * trailing slashes are cut. */
static void compare_labels(char **dirs, size_t n, const char **ret)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dirs[i]);
		const char *slash;

		while (len > 1 && dirs[i][len - 1] == '/')
			dirs[i][--len] = 0;
		slash = strrchr(dirs[i], '/');
		ret[i] = slash && slash[1] ? slash + 1 : dirs[i];
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (streq(ret[i], ret[j])) {
				for (size_t k = 0; k < n; k++)
					ret[k] = dirs[k];
				return;
			}
}

int verb_compare(int argc, char **argv)
{
	struct report_args a = {};
	json_t *docs[16] = {};
	const char *labels[ELEMENTSOF(docs)];
	int r = 0;

	r = report_parse_argv("compare", argc, argv, &a);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : 0;
	if (a.n_dirs < 2 || a.n_dirs > ELEMENTSOF(docs)) {
		log_error("compare: give 2 to %zu results directories", ELEMENTSOF(docs));
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < a.n_dirs && r >= 0; i++)
		r = load("compare", a.dirs[i], &docs[i]);
	if (r >= 0) {
		compare_labels(a.dirs, a.n_dirs, labels);
		r = compare_render(docs, labels, a.n_dirs, &a.ro, stdout);
		if (r == -EOPNOTSUPP)
			log_error("compare: --format %s is for report; compare prints text, markdown, csv or json",
				  report_format_to_string(a.ro.format));
		else if (r < 0)
			log_error_errno(r, "compare: %m (the directories must hold the same experiment)");
	}
	for (size_t i = 0; i < a.n_dirs; i++)
		json_decref(docs[i]);
	return r == -EOPNOTSUPP ? EXIT_USAGE : r < 0 ? 1 : 0;
}

/* slicebench: start mysqld in controlled systemd and non-systemd contexts,
 * run the same OLTP sweep in each, and explain where the differences come from. */
#include <stdio.h>

#include "common/util.h"
#include "cli/verbs.h"

static const struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} verbs[] = {
	{ "host", verb_host, "print the host facts that decide how a placement behaves" },
	{ "prepare", verb_prepare, "create or check the sbtest tables on a server" },
	{ "sweep", verb_sweep, "run the read-only OLTP step at each thread count against a server" },
	{ "place", verb_place, "start the server in a context and show where it landed" },
	{ "properties", verb_properties, "the attributes slicebench reads, sets and reproduces, and the kinds" },
	{ "diff", verb_diff, "what differs between the placements of two contexts" },
	{ "list", verb_list, "show the named experiments" },
	{ "run", verb_run, "run a named experiment and record its results" },
	{ "explain", verb_explain, "find which settings account for the TPS gap between two contexts" },
	{ "report", verb_report, "the per-context TPS table of a results directory" },
	{ "compare", verb_compare, "results of the same experiment from several hosts, side by side" },
	{ "cleanup", verb_cleanup, "remove the servers, units and cgroups a killed run left behind" },
	{ "sandbox", verb_sandbox, "boot, use and remove a throwaway real systemd (container or vm)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: slicebench VERB [OPTIONS...]\n\nverbs:\n");
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nslicebench VERB --help describes a verb.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "slicebench: no verb given\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (streq(argv[1], "-h") || streq(argv[1], "--help") || streq(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (streq(argv[1], "--version")) {
		printf("slicebench " SLICEBENCH_VERSION "\n");
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		if (streq(argv[1], verbs[i].name))
			return verbs[i].run(argc - 1, argv + 1);
	fprintf(stderr, "slicebench: unknown verb '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}

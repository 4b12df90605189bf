/* slicebench: start mysqld in controlled systemd and non-systemd contexts,
 * run the same OLTP sweep in each, and explain where the differences come from. */
#include <stdio.h>

#include "common/util.h"
#include "cli/verbs.h"
#include "run/managed.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: slicebench VERB [OPTIONS...]\n\nverbs:\n");
	for (size_t i = 0; verbs[i].name; i++)
		fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nslicebench VERB --help describes a verb.\n");
}

int main(int argc, char **argv)
{
	_cleanup_free_ char *msg = NULL;

	/* Root's files are written 0644 and the datadir's by the server's
	 * account: a umask of 000 in the caller's shell makes neither
	 * world-writable. */
	umask(022);
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
	if (managed_check_environment(&msg) < 0) {
		fprintf(stderr, "slicebench: %s\n", msg ? msg : "out of memory");
		return EXIT_USAGE;
	}
	for (size_t i = 0; verbs[i].name; i++)
		if (streq(argv[1], verbs[i].name))
			return verbs[i].run(argc - 1, argv + 1);
	fprintf(stderr, "slicebench: unknown verb '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}

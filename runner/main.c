/* slicebench: start mysqld in controlled systemd and non-systemd contexts,
 * run the same OLTP sweep in each, and explain where the differences come from. */
#include <stdio.h>

#include "common/util.h"
#include "common/version.h"
#include "cli/verbs.h"
#include "managed/managed.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: slicebench VERB [OPTIONS...]\n\nverbs:\n");
	for (size_t i = 0; verbs[i].name; i++)
		fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\nslicebench help VERB (or slicebench VERB --help) describes a verb.\n");
}

/* slicebench help VERB: the verb's own --help; help help, the verbs. */
static int help_verb(const char *name)
{
	if (streq(name, "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; verbs[i].name; i++)
		if (streq(name, verbs[i].name))
			return verbs[i].run(2, (char *[]){ (char *)verbs[i].name, (char *)"--help", NULL });
	fprintf(stderr, "slicebench: help: unknown verb '%s'\n", name);
	usage(stderr);
	return EXIT_USAGE;
}

/* A verb's status, unless what it printed did not all reach standard
 * output (a full disk, /dev/full, a closed pipe): then 1, said once, so
 * that `place --json >file` never exits 0 with the file cut. */
static int output_written(int status)
{
	int r = fflush(stdout) == 0 && !ferror(stdout) ? 0 : -(errno ?: EIO);

	if (r == 0)
		return status;
	fprintf(stderr, "slicebench: writing the output: %s\n", strerror(-r));
	return status ? status : 1;
}

/* The verb argv[1] names, or help, --help and --version. */
static int dispatch(int argc, char **argv)
{
	_cleanup_free_ char *msg = NULL;

	if (argc < 2) {
		fprintf(stderr, "slicebench: no verb given\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (streq(argv[1], "__complete"))
		return verb_complete(argc - 1, argv + 1);
	if (streq(argv[1], "__sandbox-bind"))
		return verb_sandbox_bind(argc - 1, argv + 1);
	if (streq(argv[1], "help") && argc > 2)
		return help_verb(argv[2]);
	if (streq(argv[1], "-h") || streq(argv[1], "--help") || streq(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (streq(argv[1], "--version")) {
		printf("slicebench %s (%s)\n"
		       "Licence GPL-3.0-or-later: the GNU GPL version 3 or later; there is no warranty.\n",
		       slicebench_version, slicebench_commit);
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

int main(int argc, char **argv)
{
	/* Root's files are written 0644 and the datadir's by the server's
	 * account: a umask of 000 in the caller's shell makes neither
	 * world-writable. */
	umask(022);
	return output_written(dispatch(argc, argv));
}

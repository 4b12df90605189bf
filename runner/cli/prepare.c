/* slicebench prepare: the sbtest dataset on a server, made or checked. */
#include "cli/args.h"
#include "common/util.h"
#include "cli/verbs.h"

int verb_prepare(int argc, char **argv)
{
	struct sweep_args a = {};
	int r;

	r = parse_argv("prepare", VERB_PREPARE, argc, argv, &a);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : 0;
	return prepare_dataset("prepare", &a.o) < 0 ? 1 : 0;
}


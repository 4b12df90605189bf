/* slicebench prepare: the sbtest dataset on a server, made or checked. */
#include "cli/args.h"
#include "common/util.h"
#include "cli/verbs.h"

int verb_prepare(int argc, char **argv)
{
	struct sweep_args a = {};
	int r, status;

	r = sweep_parse_argv(&cli_prepare, argc, argv, &a);
	if (r <= 0)
		status = verb_parse_exit_status(r);
	else
		status = verb_exit_status(cli_prepare_dataset("prepare", &a.o));
	sweep_args_done(&a);
	return status;
}

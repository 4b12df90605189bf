/* The table of verbs, and the exit status a verb's work comes to. */
#include "cli/args.h"
#include "cli/verbs.h"
#include "common/interrupt.h"

const struct verb verbs[] = {
	{ .name = "host", .run = verb_host, .cli = &cli_host,
	  .summary = "print the host facts that decide how a placement behaves" },
	{ .name = "prepare", .run = verb_prepare, .cli = &cli_prepare,
	  .summary = "create or check the sbtest tables on a server" },
	{ .name = "sweep", .run = verb_sweep, .cli = &cli_sweep,
	  .summary = "run the read-only OLTP step at each thread count against a server" },
	{ .name = "place", .run = verb_place, .cli = &cli_place,
	  .summary = "start the server in a context and show where it landed",
	  .operand = OPERAND_KIND },
	{ .name = "properties", .run = verb_properties, .cli = &cli_properties,
	  .summary = "the attributes slicebench reads, sets and reproduces, and the kinds" },
	{ .name = "diff", .run = verb_diff, .cli = &cli_diff,
	  .summary = "what differs between the placements of two contexts",
	  .operand = OPERAND_FILE },
	{ .name = "list", .run = verb_list, .cli = &cli_list,
	  .summary = "show the named experiments" },
	{ .name = "run", .run = verb_run, .cli = &cli_run,
	  .summary = "run a named experiment and record its results",
	  .operand = OPERAND_EXPERIMENT },
	{ .name = "explain", .run = verb_explain, .cli = &cli_explain,
	  .summary = "find which settings account for the TPS gap between two contexts",
	  .operand = OPERAND_EXPERIMENT },
	{ .name = "calibrate", .run = verb_calibrate, .cli = &cli_calibrate,
	  .summary = "an A/A test of this host: its sigma between starts, and what a run can tell",
	  .operand = OPERAND_EXPERIMENT },
	{ .name = "report", .run = verb_report, .cli = &cli_report,
	  .summary = "the per-context TPS table of a results directory",
	  .operand = OPERAND_DIR },
	{ .name = "compare", .run = verb_compare, .cli = &cli_compare,
	  .summary = "results of the same experiment from several hosts, side by side",
	  .operand = OPERAND_DIR },
	{ .name = "cleanup", .run = verb_cleanup, .cli = &cli_cleanup,
	  .summary = "remove the servers, units and cgroups a killed run left behind" },
	{ .name = "hog", .run = verb_hog, .cli = &cli_hog,
	  .summary = "burn CPU in threads at a duty cycle, as an experiment's neighbour does" },
	{ .name = "sandbox", .run = verb_sandbox, .cli = &cli_sandbox,
	  .summary = "boot, use and remove a throwaway real systemd (container or vm)",
	  .operand = OPERAND_WORDS,
	  .operand_words = (const char *const[]){ "up", "status", "exec", "run", "down", NULL } },
	{},
};

const struct cli_verb *cli_verb_at(size_t i)
{
	return verbs[i].name ? verbs[i].cli : NULL;
}

/* The one map of a verb's errno to its exit class. */
int verb_exit_status(int r)
{
	/* A signal ends a verb with 128+signal, whatever failed on the way out. */
	if (interrupt_signal)
		return 128 + interrupt_signal;
	return r == 0 ? 0 : 1;
}

int verb_input_exit_status(int r)
{
	/* Bad input, whatever read it: nothing was started or written. */
	if (!interrupt_signal && (r == -EINVAL || r == -EBADMSG || r == -ENOENT || r == -ENOTDIR))
		return EXIT_USAGE;
	return verb_exit_status(r);
}

int verb_parse_exit_status(int r)
{
	return r < 0 ? EXIT_USAGE : 0;
}

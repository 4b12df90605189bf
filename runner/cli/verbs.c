/* The table of verbs, and the exit status a verb's work comes to. */
#include "cli/args.h"
#include "cli/verbs.h"
#include "common/interrupt.h"

const struct verb verbs[] = {
	{ "host", verb_host, "print the host facts that decide how a placement behaves", &cli_host },
	{ "prepare", verb_prepare, "create or check the sbtest tables on a server", &cli_prepare },
	{ "sweep", verb_sweep, "run the read-only OLTP step at each thread count against a server", &cli_sweep },
	{ "place", verb_place, "start the server in a context and show where it landed", &cli_place },
	{ "properties", verb_properties, "the attributes slicebench reads, sets and reproduces, and the kinds",
	  &cli_properties },
	{ "diff", verb_diff, "what differs between the placements of two contexts", &cli_diff },
	{ "list", verb_list, "show the named experiments", &cli_list },
	{ "run", verb_run, "run a named experiment and record its results", &cli_run },
	{ "explain", verb_explain, "find which settings account for the TPS gap between two contexts", &cli_explain },
	{ "calibrate", verb_calibrate, "an A/A test of this host: its sigma between starts, and what a run can tell",
	  &cli_calibrate },
	{ "report", verb_report, "the per-context TPS table of a results directory", &cli_report },
	{ "compare", verb_compare, "results of the same experiment from several hosts, side by side", &cli_compare },
	{ "cleanup", verb_cleanup, "remove the servers, units and cgroups a killed run left behind", &cli_cleanup },
	{ "hog", verb_hog, "burn CPU in threads at a duty cycle, as an experiment's neighbour does", &cli_hog },
	{ "sandbox", verb_sandbox, "boot, use and remove a throwaway real systemd (container or vm)", &cli_sandbox },
	{},
};

const struct cli_verb *cli_verb_at(size_t i)
{
	return verbs[i].name ? verbs[i].cli : NULL;
}

int verb_exit_status(int r)
{
	/* A signal ends a verb with 128+signal, whatever failed on the way out. */
	if (interrupt_signal)
		return 128 + interrupt_signal;
	return r == 0 ? 0 : 1;
}

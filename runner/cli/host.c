/* slicebench host: the host facts, as text or JSON. */
#include <stdio.h>

#include "host/busy.h"
#include "host/facts.h"
#include "common/util.h"
#include "cli/verbs.h"

static void host_usage(FILE *f)
{
	fprintf(f,
		"usage: slicebench host [--json]\n\n"
		"Print the host facts that decide how a placement behaves: CPU topology\n"
		"and L3 sharing, NUMA, cgroup mode and controllers, scheduler knobs, the\n"
		"systemd version.\n\n"
		"  --json    print them as JSON (format_version 1)\n"
		"  -h, --help\n");
}

/* <0: bad usage (reported), 0: help printed, >0: go on. */
static int parse_argv(int argc, char **argv, bool *ret_json)
{
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (streq(argv[i], "--json"))
			json = true;
		else if (streq(argv[i], "-h") || streq(argv[i], "--help")) {
			host_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "slicebench host: %s %s\n",
				argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
			host_usage(stderr);
			return -EINVAL;
		}
	}
	*ret_json = json;
	return 1;
}

int verb_host(int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *facts = NULL;
	_cleanup_free_ char *dump = NULL, *busy = NULL;
	bool json;
	int r;

	r = parse_argv(argc, argv, &json);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : 0;

	r = host_busy_processes(500, 5, &busy);
	if (r >= 0 && busy)
		log_warning("host: other processes are busy on the CPUs and would be measured too: %s", busy);
	r = host_facts_collect(&facts);
	if (r < 0) {
		log_error_errno(r, "host: cannot collect the host facts: %m");
		return 1;
	}
	if (json) {
		dump = json_dumps(facts, JSON_INDENT(2) | JSON_SORT_KEYS);
		if (!dump) {
			log_error_errno(-ENOMEM, "host: cannot format the host facts: %m");
			return 1;
		}
		if (puts(dump) == EOF || fflush(stdout) != 0) {
			log_error_errno(-EIO, "host: cannot write to standard output: %m");
			return 1;
		}
		return 0;
	}
	r = host_facts_print_text(facts, stdout);
	if (r < 0) {
		log_error_errno(r, "host: cannot write to standard output: %m");
		return 1;
	}
	return 0;
}

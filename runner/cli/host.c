/* slicebench host: the host facts, as text or JSON. */
#include <stdio.h>

#include "host/busy.h"
#include "host/facts.h"
#include "common/util.h"
#include "cli/verbs.h"

static const struct cli_option opt_json = { .name = "json", .type = CLI_FLAG, .offset = 0,
					    .help = "print them as JSON (format_version " STRINGIFY(HOST_FACTS_FORMAT_VERSION) ")" };

const struct cli_verb cli_host = {
	.name = "host",
	.usage = (const char *const[]){ "[--json]", NULL },
	.about = "Prints the host facts that decide how a placement behaves: CPU topology and L3 sharing, NUMA,\n"
		 "cgroup mode and controllers, scheduler knobs, the systemd version.",
	.options = (const struct cli_option *const[]){ &opt_json, NULL },
};

static int print_facts(bool json)
{
	_cleanup_(json_decrefp) json_t *facts = NULL;
	_cleanup_free_ char *dump = NULL;
	int r;

	host_warn_if_busy("host", "what runs there would be measured too");
	r = host_facts_collect(&facts);
	if (r < 0)
		return log_error_errno(r, "host: cannot collect the host facts: %m");
	if (!json)
		r = host_facts_print_text(facts, stdout);
	else if (!(dump = json_dumps(facts, JSON_INDENT(2) | JSON_SORT_KEYS)))
		return log_error_errno(-ENOMEM, "host: cannot format the host facts: %m");
	else if (puts(dump) == EOF || fflush(stdout) != 0)
		r = -EIO;
	if (r < 0)
		return log_error_errno(r, "host: cannot write to standard output: %m");
	return 0;
}

int verb_host(int argc, char **argv)
{
	bool json = false;
	int r;

	r = cli_parse_options_only(&cli_host, argc, argv, &json);
	if (r <= 0)
		return verb_parse_exit_status(r);
	return verb_exit_status(print_facts(json));
}

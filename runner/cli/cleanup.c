/* slicebench cleanup: what a killed run left behind (servers, units,
 * cgroups), found through the records under STATE/live/. */
#include <stdio.h>

#include "managed/managed.h"
#include "managed/state.h"
#include "slices/server/datadir.h"
#include "common/util.h"
#include "cli/verbs.h"

struct cleanup_args {
	bool templates;
};

static const struct cli_option opt_templates = {
	.name = "templates", .type = CLI_FLAG, .offset = offsetof(struct cleanup_args, templates),
	.help = "also remove every dataset's template datadir under STATE/" DATADIR_TEMPLATES "/ (the next run "
		"prepares its dataset again)",
};

const struct cli_verb cli_cleanup = {
	.name = "cleanup",
	.usage = (const char *const[]){ "[--templates]", NULL },
	.about = "Stops the servers and units and removes the cgroups that a killed slicebench left behind,\n"
		 "as the records under STATE/live/ name them (the state directory is $SLICEBENCH_STATE_DIR,\n"
		 "/var/lib/slicebench by default), and the half-made template datadirs a killed run left under\n"
		 "STATE/" DATADIR_TEMPLATES "/.  A server is killed only if its PID and start time match.",
	.options = (const struct cli_option *const[]){ &opt_templates, NULL },
};

static int cleanup(const struct cleanup_args *a)
{
	struct server_config cfg = {};
	int holder = 0, r;

	managed_config_default(&cfg);
	r = state_lock(cfg.state_dir, &holder);
	if (r == -EBUSY)
		return log_error_errno(r, "cleanup: slicebench PID %d is running on %s; its servers and units are not stale",
				 holder, cfg.state_dir);
	if (r < 0)
		return log_error_errno(r, "cleanup: cannot lock %s/lock: %m", cfg.state_dir);
	r = state_cleanup(cfg.state_dir, stdout);
	if (r >= 0 && a->templates) {
		int n = datadir_templates_cleanup(cfg.state_dir, true);

		if (n < 0)
			return log_error_errno(n, "cleanup: %s/" DATADIR_TEMPLATES ": %m%s", cfg.state_dir,
					       n == -EPERM ? " (not a directory that slicebench made and root alone can write; "
							     "left alone)" : "");
		r += n;
	}
	if (r == 0)
		printf("nothing to clean up in %s\n", cfg.state_dir);
	return MIN(r, 0);
}

int verb_cleanup(int argc, char **argv)
{
	struct cleanup_args a = {};
	int r = cli_parse_options_only(&cli_cleanup, argc, argv, &a);

	if (r <= 0)
		return verb_parse_exit_status(r);
	return verb_exit_status(cleanup(&a));
}

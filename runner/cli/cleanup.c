/* slicebench cleanup: what a killed run left behind (servers, units,
 * cgroups), found through the records under STATE/live/. */
#include <stdio.h>

#include "run/managed.h"
#include "run/state.h"
#include "common/util.h"
#include "cli/verbs.h"

int verb_cleanup(int argc, char **argv _unused_)
{
	struct server_config cfg = {};
	int holder = 0, r;

	if (argc > 1) {
		log_error("cleanup: takes no arguments (the state directory is $SLICEBENCH_STATE_DIR)");
		return EXIT_USAGE;
	}
	managed_config_default(&cfg);
	r = state_lock(cfg.state_dir, &holder);
	if (r == -EBUSY) {
		log_error("cleanup: slicebench PID %d is running on %s; its servers and units are not stale", holder,
			  cfg.state_dir);
		return 1;
	}
	if (r < 0)
		return log_error_errno(r, "cleanup: cannot lock %s/lock: %m", cfg.state_dir), 1;
	r = state_cleanup(cfg.state_dir);
	if (r == 0)
		printf("nothing to clean up in %s\n", cfg.state_dir);
	return r < 0 ? 1 : 0;
}

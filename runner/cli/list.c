/* slicebench list: the named experiments, with their descriptions. */
#include <dirent.h>
#include <stdio.h>

#include "slices/cgmode.h"
#include "run/experiment.h"
#include "common/util.h"
#include "cli/verbs.h"

int verb_list(int argc, char **argv _unused_)
{
	bool any = false;

	if (argc > 1) {
		log_error("list: takes no arguments");
		return EXIT_USAGE;
	}
	for (const char *const *d = experiment_dirs(); *d; d++) {
		struct dirent **names = NULL;
		int n = scandir(*d, &names, NULL, alphasort);

		for (int i = 0; i < n; i++) {
			_cleanup_free_ char *path = NULL, *msg = NULL;
			struct experiment e = {};
			size_t len = strlen(names[i]->d_name);

			if (len > 4 && streq(names[i]->d_name + len - 4, ".ini") &&
			    xasprintf(&path, "%s/%s", *d, names[i]->d_name) >= 0) {
				if (experiment_load(path, cgroup_mode_detect(), &e, &msg) >= 0)
					printf("%-18s %s\n", e.name, strempty(e.description));
				else
					printf("%-18.*s (invalid here: %s)\n", (int)(len - 4), names[i]->d_name, msg);
				experiment_done(&e);
				any = true;
			}
			free(names[i]);
		}
		free(names);
		if (any)
			break; /* the first directory with experiments wins */
	}
	if (!any)
		log_error("list: no experiments found (set SLICEBENCH_EXPERIMENTS)");
	return any ? 0 : 1;
}

/* slicebench list: the named experiments, with their descriptions. */
#include <dirent.h>
#include <stdio.h>

#include "slices/sys/cgmode.h"
#include "experiment/experiment.h"
#include "common/util.h"
#include "cli/verbs.h"

const struct cli_verb cli_list = {
	.name = "list",
	.usage = (const char *const[]){ "", NULL },
	.about = "Shows the named experiments of the first directory that has any: $SLICEBENCH_EXPERIMENTS,\n"
		 "./experiments, then the installed ones; one that does not validate here says why.",
};

/* The experiments of the first directory with any; -ENOENT if none has. */
static int list_experiments(void)
{
	bool any = false;

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
		return log_error_errno(-ENOENT, "list: no experiments found (set SLICEBENCH_EXPERIMENTS)");
	return 0;
}

int verb_list(int argc, char **argv)
{
	int r = cli_parse_options_only(&cli_list, argc, argv, NULL);

	if (r <= 0)
		return verb_parse_exit_status(r);
	return verb_exit_status(list_experiments());
}

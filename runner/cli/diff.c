/* slicebench diff: what differs between two placements, taken from files
 * written by place --json, or from a results directory of run. */
#include <stdio.h>

#include "run/results.h"
#include "slices/snapshot.h"
#include "common/util.h"
#include "cli/verbs.h"

static int load_placement(const char *path, struct placement *ret)
{
	json_error_t err;
	json_t *j = json_load_file(path, 0, &err);
	int r;

	if (!j)
		return log_error("diff: %s:%d: %s", path, err.line, err.text), -EINVAL;
	r = placement_from_json(j, ret);
	json_decref(j);
	if (r < 0)
		log_error("diff: %s is not a placement (an object of strings, as place --json prints)", path);
	return r;
}

/* The first repeat of the first vary value of the context, as run names it. */
static int placement_path(const char *dir, const char *context, char **ret)
{
	if (!name_is_valid(context))
		return log_error("diff: bad context name '%s'", context), -EINVAL;
	return results_first_placement_path(dir, context, ret);
}

int verb_diff(int argc, char **argv)
{
	_cleanup_(placement_done) struct placement a = {}, b = {};
	_cleanup_free_ char *pa = NULL, *pb = NULL;
	_cleanup_free_ const char **keys = NULL;
	const char *la, *lb;
	size_t n;

	if (argc == 3) {
		pa = strdup(argv[1]);
		pb = strdup(argv[2]);
		la = argv[1], lb = argv[2];
	} else if (argc == 4) {
		if (placement_path(argv[1], argv[2], &pa) < 0 || placement_path(argv[1], argv[3], &pb) < 0)
			return EXIT_USAGE;
		la = argv[2], lb = argv[3];
	} else {
		fprintf(stderr, "usage: slicebench diff A.json B.json\n"
				"       slicebench diff RESULTS-DIR CONTEXT-A CONTEXT-B\n");
		return EXIT_USAGE;
	}
	if (!pa || !pb)
		return log_error_errno(-ENOMEM, "diff: %m"), 1;
	if (load_placement(pa, &a) < 0 || load_placement(pb, &b) < 0)
		return EXIT_USAGE;
	if (placement_diff(&a, &b, &keys, &n) < 0)
		return log_error_errno(-ENOMEM, "diff: %m"), 1;
	if (!n) {
		printf("the placements of %s and %s do not differ (counters aside)\n", la, lb);
		return 0;
	}
	printf("%-28s %-36s %s\n", "attribute", la, lb);
	for (size_t i = 0; i < n; i++)
		printf("%-28s %-36s %s\n", keys[i], placement_get(&a, keys[i]) ?: "(none)", placement_get(&b, keys[i]) ?: "(none)");
	return 0;
}

/* Each step's profile read back from its folded stacks (profiles/, written
 * by results_put_step()), so that the report re-derives every share from
 * them: the lines go into the step's "profile" object as "stacks" (stack:
 * weight), in memory only.  A step whose file is missing says so in its
 * "why"; a file that is not folded stacks is refused with its line, as any
 * other file of the directory is. */
#include <stdio.h>

#include "profile/folded.h"
#include "store/results.h"
#include "common/util.h"

static int attach_stacks(const char *dir, json_t *step, json_t *profile, char **ret_why)
{
	_cleanup_free_ char *path = NULL;
	json_t *unit = json_object_get(step, "unit"), *threads = json_object_get(step, "threads"), *stacks;
	struct profile *p = NULL;
	char name[256];
	int r;

	/* The unit and threads results_check_step() held to the step's file name. */
	if (!json_is_string(unit) || !json_is_integer(threads) ||
	    results_profile_file(json_string_value(unit), (long)json_integer_value(threads), name, sizeof(name)) < 0 ||
	    xasprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	r = profile_read(path, &p, ret_why);
	if (r == -ENOENT)
		return json_object_set_new(profile, "why", json_sprintf("its stacks (%s) are missing", name)) < 0 ? -ENOMEM
														  : 0;
	if (r < 0)
		return *ret_why ? -EBADMSG : r;
	stacks = json_object();
	r = stacks && json_object_set_new(profile, "stacks", stacks) >= 0 ? 0 : -ENOMEM;
	for (size_t i = 0; r >= 0 && i < p->n; i++)
		if (json_object_set_new(stacks, p->lines[i].stack, json_integer((json_int_t)p->lines[i].weight)) < 0)
			r = -ENOMEM;
	profile_free(p);
	return r;
}

int results_load_profiles(const char *dir, json_t *doc, char **ret_why)
{
	json_t *step;
	size_t i;

	json_array_foreach(json_object_get(doc, "steps"), i, step) {
		json_t *profile = json_object_get(step, "profile");
		int r;

		if (!json_is_object(profile) || json_object_get(profile, "why"))
			continue;
		r = attach_stacks(dir, step, profile, ret_why);
		if (r < 0)
			return r;
	}
	return 0;
}

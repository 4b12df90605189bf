/* The names in a results directory, made here and nowhere else
 * (store/names.h): what the store writes and what its checks read back. */
#include <stdio.h>

#include "store/names.h"
#include "common/util.h"

static int checked(int n, size_t len)
{
	return n < 0 ? -EINVAL : (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int results_unit_name(const char *context, size_t v, unsigned repeat, char *buf, size_t len)
{
	return checked(snprintf(buf, len, "%s-v%zu-r%u", context, v + 1, repeat), len);
}

int results_step_file(const char *unit, long threads, char *buf, size_t len)
{
	return checked(snprintf(buf, len, RESULTS_STEPS "/%s-t%ld.json", unit, threads), len);
}

int results_profile_file(const char *unit, long threads, char *buf, size_t len)
{
	return checked(snprintf(buf, len, RESULTS_PROFILES "/%s-t%ld.folded.gz", unit, threads), len);
}

int results_placement_file(const char *unit, char *buf, size_t len)
{
	return checked(snprintf(buf, len, RESULTS_PLACEMENTS "/%s.json", unit), len);
}

int results_first_placement_path(const char *dir, const char *context, char **ret)
{
	char unit[128], file[160];
	int r;

	r = results_unit_name(context, 0, 1, unit, sizeof(unit));
	if (r >= 0)
		r = results_placement_file(unit, file, sizeof(file));
	return r < 0 ? r : xasprintf(ret, "%s/%s", dir, file);
}

json_t *results_find_placement(const json_t *placements, const char *context)
{
	char want[128], prefix[128];
	const char *key, *best = NULL;
	json_t *v, *found = NULL;
	size_t n;

	if (results_unit_name(context, 0, 1, want, sizeof(want)) < 0)
		return NULL;
	v = json_object_get(placements, want);
	if (json_is_object(v))
		return v;
	/* The same unit without its repeat's number: "raw-v1-r". */
	n = strlen(want) - 1;
	memcpy(prefix, want, n);
	prefix[n] = 0;
	json_object_foreach((json_t *)placements, key, v)
		if (json_is_object(v) && strncmp(key, prefix, n) == 0 && (!best || strcmp(key, best) < 0)) {
			best = key;
			found = v;
		}
	return found;
}

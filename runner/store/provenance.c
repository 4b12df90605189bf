#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "common/version.h"
#include "store/provenance.h"

json_t *provenance_this_build(void)
{
	return json_pack("{s:s, s:s}", "version", slicebench_version, "commit", slicebench_commit);
}

bool provenance_word_is_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n > 0 && n <= PROVENANCE_WORD_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+~_-") == n;
}

bool provenance_builds_valid(const json_t *builds)
{
	const json_t *b;
	size_t i;

	if (!json_is_array(builds))
		return false;
	json_array_foreach(builds, i, b) {
		const json_t *v = json_object_get(b, "version"), *c = json_object_get(b, "commit");

		if (!(json_is_null(v) && json_is_null(c)) &&
		    (!provenance_word_is_valid(json_string_value(v)) || !provenance_word_is_valid(json_string_value(c))))
			return false;
	}
	return true;
}

static bool same_build(const json_t *a, const json_t *b)
{
	return json_equal(json_object_get(a, "version"), json_object_get(b, "version")) &&
	       json_equal(json_object_get(a, "commit"), json_object_get(b, "commit"));
}

json_t *provenance_of_steps(const json_t *steps)
{
	json_t *builds = json_array(), *s, *b;
	size_t i, j;

	if (!builds)
		return NULL;
	json_array_foreach(steps, i, s) {
		const json_t *made = json_object_get(s, "slicebench");
		json_t *none = json_pack("{s:n, s:n}", "version", "commit");
		bool known = false;

		if (!json_is_object(made))
			made = none;
		json_array_foreach(builds, j, b)
			if (same_build(b, made)) {
				known = true;
				json_object_set_new(b, "steps", json_integer(json_integer_value(json_object_get(b, "steps")) + 1));
			}
		if (!known && json_array_append_new(builds, json_pack("{s:O, s:O, s:i}", "version", json_object_get(made, "version"),
								      "commit", json_object_get(made, "commit"), "steps", 1)) < 0) {
			json_decref(none);
			json_decref(builds);
			return NULL;
		}
		json_decref(none);
	}
	return builds;
}

/* " slicebench 0.1 (948fe19abc12)" into buf at *off; without a version,
 * what measured before the record. */
static void put_build(const char *version, const char *commit, char *buf, size_t len, size_t *off)
{
	if (*off < len && version)
		*off += (size_t)snprintf(buf + *off, len - *off, " slicebench %s (%s)", version, commit);
	else if (*off < len)
		*off += (size_t)snprintf(buf + *off, len - *off, " a slicebench that recorded no version");
}

const char *provenance_text(const json_t *builds, char *buf, size_t len)
{
	const json_t *b;
	size_t i, off = 0;

	if (!provenance_builds_valid(builds))
		builds = NULL;
	off += (size_t)snprintf(buf, len, "measured by");
	json_array_foreach(builds, i, b) {
		if (i && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s", i + 1 == json_array_size(builds) ? " and" : ",");
		put_build(json_string_value(json_object_get(b, "version")), json_string_value(json_object_get(b, "commit")), buf,
			  len, &off);
	}
	if (json_array_size(builds) == 0 && off < len)
		off += (size_t)snprintf(buf + off, len - off, " a slicebench that recorded no version");
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "; reported by");
	put_build(slicebench_version, slicebench_commit, buf, len, &off);
	return buf;
}

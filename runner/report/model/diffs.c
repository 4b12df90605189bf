/* The report's placement differences: each context's placement against
 * the baseline's, key by key, and each setting that differs or is not in
 * force as written -> resolved -> read back. */
#include <stdio.h>

#include "report/model/model.h"
#include "store/results.h"
#include "slices/attr/snapshot.h"
#include "common/util.h"

/* "setting.NAME": [a's, b's] as written -> resolved -> read back, for each
 * setting that differs or is not in force; none for a placement that is
 * not an object of strings. */
static int diff_settings(const json_t *a, const json_t *b, json_t *out)
{
	_cleanup_(placement_done) struct placement pa = {}, pb = {};
	const char *names[PLACEMENT_SETTINGS_MAX];
	size_t n = 0;
	int r = placement_from_json(a, &pa);

	if (r >= 0)
		r = placement_from_json(b, &pb);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	placement_setting_names(&pa, names, &n);
	placement_setting_names(&pb, names, &n);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *key = NULL, *ta = NULL, *tb = NULL;

		if (!placement_setting_differs(&pa, &pb, names[i]))
			continue;
		if (xasprintf(&key, "setting.%s", names[i]) < 0 || placement_setting_text(&pa, names[i], &ta) < 0 ||
		    placement_setting_text(&pb, names[i], &tb) < 0 ||
		    json_object_set_new(out, key, json_pack("[ss]", ta, tb)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int diff_one(json_t *a, json_t *b, json_t **ret)
{
	const char *key, **keys = NULL;
	size_t n = 0, i = 0;
	json_t *out, *v;
	int r = 0;

	out = json_object();
	keys = calloc(json_object_size(a) + json_object_size(b) + 1, sizeof(*keys));
	if (!out || !keys) {
		json_decref(out);
		free(keys);
		return -ENOMEM;
	}
	json_object_foreach(a, key, v)
		keys[n++] = key;
	json_object_foreach(b, key, v)
		if (!json_object_get(a, key))
			keys[n++] = key;
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *x = NULL, *y = NULL;

		/* Counters move between any two snapshots: not a difference of
		 * placement; settings are shown whole, after the keys. */
		if (strncmp(keys[i], "cpu.stat.", 9) == 0 || placement_key_is_setting(keys[i]))
			continue;
		if (value_dup(json_object_get(a, keys[i]), &x) < 0 || value_dup(json_object_get(b, keys[i]), &y) < 0) {
			r = -ENOMEM;
			break;
		}
		if (streq_ptr(x, y))
			continue;
		if (json_object_set_new(out, keys[i], json_pack("[s?s?]", x, y)) < 0)
			r = -ENOMEM;
	}
	free(keys);
	if (r == 0)
		r = diff_settings(a, b, out);
	if (r < 0) {
		json_decref(out);
		return r;
	}
	*ret = out;
	return 0;
}

int model_placement_diffs(struct model *m, const json_t *places, const char *const *contexts, size_t n)
{
	json_t *base;

	m->diffs = json_object();
	if (!m->diffs)
		return -ENOMEM;
	if (!m->baseline || !(base = results_find_placement(places, m->baseline)))
		return 0;
	for (size_t i = 0; i < n; i++) {
		json_t *other, *d;
		int r;

		if (streq(contexts[i], m->baseline) || !(other = results_find_placement(places, contexts[i])))
			continue;
		r = diff_one(base, other, &d);
		if (r < 0)
			return r;
		if (json_object_set_new(m->diffs, contexts[i], d) < 0)
			return -ENOMEM;
	}
	return 0;
}

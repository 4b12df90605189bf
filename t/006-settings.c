/* The settings through experiment.json and back (runner/experiment/settings.c),
 * walked by the key table: each setting row (key_is_setting()) is given,
 * away from its default, by one of t/fixtures/settings/NAME.ini; the
 * experiment loaded from it is written as experiment.json, read back as
 * run --resume and explain RESULTS read it, and written again: the same
 * record, and each setting's member the one the file gave, not the
 * default.  A new setting without a fixture that gives it fails here.
 * A copy of the settings (explain's hybrids) carries each one too.
 * Prerequisites: MYSQLD and POSTGRES (the [server] engines are checked as
 * installed), SYSBENCH (a driver). */
#include <stdio.h>
#include <string.h>

#include "experiment/settings.h"
#include "experiment/parse.h"
#include "store/results.h"
#include "tap.h"
#include "common/util.h"

static const char *const fixtures[] = { "mysql", "pg", "decide" };

static json_t *record_of(const struct experiment *e)
{
	json_t *j = experiment_to_json(e);

	/* Where the file was is not a setting: read back, it is the record's. */
	if (j)
		json_object_del(j, "path");
	return j;
}

/* k's member in a record, NULL when it has none. */
static json_t *member(const json_t *j, const struct key_def *k)
{
	char name[64];
	const json_t *in = k->section == SECTION_EXPERIMENT ? j : json_object_get(j, section_table[k->section].name);

	return json_object_get(in, setting_json_name(k, name, sizeof(name)));
}

static char *dumps(const json_t *v)
{
	return v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS) : strdup("(none)");
}

/* The record of fixture name, and read back from a results directory's
 * experiment.json; the given[] keys it sets away from the default. */
static void round_trip(const char *name, const json_t *defaults, bool *given)
{
	_cleanup_free_ char *path = NULL, *dir = NULL, *msg = NULL, *msg2 = NULL, *file = NULL;
	struct experiment e, back, copy = {};
	json_t *j = NULL, *j2 = NULL, *jc = NULL;

	if (xasprintf(&path, "%s/t/fixtures/settings/%s.ini", getenv("SLICEBENCH_TOP") ?: ".", name) < 0 ||
	    xasprintf(&dir, "%s/%s", scratch_dir(), name) < 0 || xasprintf(&file, "%s/experiment.json", dir) < 0)
		bail_out("out of memory");
	if (!ok(experiment_load(path, cgroup_mode_detect(), &e, &msg) >= 0, "%s.ini loads (%s)", name, strempty(msg)))
		return;
	j = record_of(&e);
	ok(j && mkdir(dir, 0755) == 0 && json_dump_file(j, file, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0,
	   "%s: experiment.json written", name);
	if (ok(experiment_from_results(dir, false, &back, &msg2) >= 0, "%s: read back (%s)", name, strempty(msg2))) {
		j2 = record_of(&back);
		/* Read back, the path is the record's; name it as the file's.  The
		 * description is the file's own, which list shows, not read back. */
		json_object_set_new(j2, "name", json_string(name));
		json_object_set(j2, "description", json_object_get(j, "description"));
		if (!ok(json_equal(j, j2), "%s: the record read back is the record written", name)) {
			_cleanup_free_ char *a = dumps(j), *b = dumps(j2);

			diag("written: %s", a);
			diag("read back: %s", b);
		}
		experiment_done(&back);
	}
	experiment_defaults(&copy);
	snprintf(copy.name, sizeof(copy.name), "copy");
	copy.path = strdup("(a copy)");
	ok(experiment_copy_settings(&e, &copy) >= 0, "%s: its settings copied", name);
	jc = record_of(&copy);
	for (size_t i = 0; i < _KEY_MAX; i++) {
		const struct key_def *k = &key_table[i];
		_cleanup_free_ char *want = NULL, *got = NULL, *def = NULL, *copied = NULL;

		if (!key_is_setting(k) || !member(j, k))
			continue;
		want = dumps(member(j, k));
		def = dumps(member(defaults, k));
		if (streq(want, def))
			continue;
		given[i] = true;
		got = dumps(j2 ? member(j2, k) : NULL);
		is_str(got, want, "%s: [%s] %s: %s, not the default %s, read back", name, section_table[k->section].name,
		       k->name, want, def);
		/* A copy takes repeat's count, not auto, which is the run's. */
		if (k->type == TYPE_REPEAT || (k->recorded && !k->recorded(&copy)))
			continue;
		copied = dumps(member(jc, k));
		is_str(copied, want, "%s: [%s] %s copied", name, section_table[k->section].name, k->name);
	}
	json_decref(j);
	json_decref(j2);
	json_decref(jc);
	experiment_done(&copy);
	experiment_done(&e);
}

int main(void)
{
	bool given[_KEY_MAX] = {};
	struct experiment d = {};
	json_t *defaults;

	require("MYSQLD POSTGRES SYSBENCH");
	if (experiment_defaults(&d) < 0)
		bail_out("the key table's defaults do not parse");
	snprintf(d.name, sizeof(d.name), "defaults");
	d.path = strdup("(the key table's defaults)");
	defaults = record_of(&d);
	if (!defaults)
		bail_out("the defaults make no record");
	for (size_t f = 0; f < ELEMENTSOF(fixtures); f++)
		round_trip(fixtures[f], defaults, given);
	for (size_t i = 0; i < _KEY_MAX; i++)
		if (key_is_setting(&key_table[i]))
			ok(given[i], "[%s] %s: a fixture gives it away from its default, and it came back",
			   section_table[key_table[i].section].name, key_table[i].name);
	json_decref(defaults);
	experiment_done(&d);
	return done_testing();
}

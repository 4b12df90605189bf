#include "slices/around/slice.h"

#include <ctype.h>
#include <stdio.h>

#include "slices/sys/bus.h"
#include "slices/sys/cgfs.h"
#include "slices/attr/snapshot.h"
#include "common/util.h"

#define SUFFIX ".slice"
#define UNIT_PREFIX "slicebench_"

bool slice_name_is_valid(const char *name, const char **ret_why)
{
	size_t len = strlen(name), stem = len - strlen(SUFFIX);
	const char *why = NULL;

	if (len <= strlen(SUFFIX) || !streq(name + stem, SUFFIX))
		why = "a slice's name ends in .slice, as db.slice";
	else if (len >= SLICE_NAME_MAX)
		why = "longer than slicebench allows for a slice (47 characters)";
	else if (streq(name, "-.slice"))
		why = "the root slice is systemd's, not the experiment's";
	else if (name[0] == '-' || name[stem - 1] == '-' || strstr(name, "--"))
		why = "systemd refuses a slice name with a leading, trailing or double dash (the dashes say where it nests)";
	for (size_t i = 0; !why && i < stem; i++)
		if (!(isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-' || name[i] == '.'))
			why = "a slice's name is letters, digits, '_', '.' and '-' (which says where it nests)";
	if (ret_why)
		*ret_why = why;
	return !why;
}

int slice_parent_name(const char *name, char *buf, size_t len)
{
	const char *dash = NULL;

	/* systemd: the parent of a-b-c.slice is a-b.slice. */
	for (const char *c = name; *c && c < name + strlen(name) - strlen(SUFFIX); c++)
		if (*c == '-')
			dash = c;
	if (!dash)
		return 0;
	if ((size_t)(dash - name) + strlen(SUFFIX) + 1 > len)
		return -ENAMETOOLONG;
	snprintf(buf, len, "%.*s" SUFFIX, (int)(dash - name), name);
	return 1;
}

const char *slice_tree_slot(const struct slice_tree *t, size_t i)
{
	if (i >= t->n_made)
		return NULL;
	return t->by_systemd ? t->units[i] : t->cgroups[i];
}

size_t slice_tree_props(const struct slice_tree *t, size_t i, const struct prop_value **out, size_t cap)
{
	const struct slice_spec *s = &t->specs[i];
	bool vary = t->vary && t->vary_in == i;
	size_t n = 0;

	for (size_t k = 0; k < s->n_props && n < cap; k++)
		if (!vary || s->props[k].def != t->vary->def)
			out[n++] = &s->props[k];
	if (vary && n < cap)
		out[n++] = t->vary;
	return n;
}

static void note(struct slice_tree *t, const char *what, int r, const sd_bus_error *error)
{
	bus_note_failure(&t->failure, r, error,
			 "made by this run (slicebench cleanup removes stale ones of slicebench's)", "slice %s", what);
}

struct append_slice {
	const struct slice_tree *t;
	size_t i;
	bool description;
};

static int append_slice(sd_bus_message *m, void *userdata)
{
	const struct append_slice *a = userdata;
	const struct prop_value *props[SLICE_PROPS_MAX + 1];
	size_t n = slice_tree_props(a->t, a->i, props, ELEMENTSOF(props));
	int r = 0;

	if (a->description)
		r = sd_bus_message_append(m, "(sv)", "Description", "s", "slicebench experiment slice"); /* s */
	for (size_t k = 0; k < n && r >= 0; k++)
		r = prop_append_dbus(m, props[k]);
	return r;
}

/* The names of slice i: its unit, and its cgroup below the parent's. */
static int name_slice(struct slice_tree *t, size_t i)
{
	const struct slice_spec *s = &t->specs[i];
	int r;

	r = xasprintf(&t->units[i], UNIT_PREFIX "%s", s->name);
	if (r < 0)
		return r;
	if (s->parent >= 0)
		return xasprintf(&t->cgroups[i], "%s/%s", t->cgroups[s->parent], t->units[i]);
	/* raw's top level carries the run's PID: two runs on one host never
	 * share a cgroup.  systemd's is the unit's own name. */
	if (t->by_systemd)
		return xasprintf(&t->cgroups[i], "%s", t->units[i]);
	return xasprintf(&t->cgroups[i], "slicebench-raw-%d_%s", (int)getpid(), s->name);
}

/* Slice i's settings as slice_tree_props() gives them, copied side by
 * side, as the limits and the checks want them; their count. */
static size_t slice_values(const struct slice_tree *t, size_t i, struct prop_value vals[static SLICE_PROPS_MAX + 1])
{
	const struct prop_value *props[SLICE_PROPS_MAX + 1];
	size_t n = slice_tree_props(t, i, props, ELEMENTSOF(props));

	for (size_t k = 0; k < n; k++)
		vals[k] = *props[k];
	return n;
}

/* Slice i's settings written to its cgroup's files (no systemd). */
static int write_limits(struct slice_tree *t, size_t i)
{
	struct prop_value vals[SLICE_PROPS_MAX + 1];
	size_t n = slice_values(t, i, vals);
	struct cgroup_limits l;
	int r;

	prop_collect_cgroup_limits(vals, n, &l);
	r = cgfs_write_limits(t->mode, t->cgroups[i], &l);
	if (r < 0)
		note(t, t->cgroups[i], r, NULL);
	return r;
}

static int start_one(struct slice_tree *t, size_t i)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	struct append_slice a = { .t = t, .i = i, .description = true };
	int r;

	if (!t->by_systemd) {
		r = cgfs_make(t->mode, t->cgroups[i]);
		if (r < 0)
			return note(t, t->cgroups[i], r, NULL), r;
		t->n_made = i + 1;
		return write_limits(t, i);
	}
	/* Never take over a slice that slicebench did not start. */
	r = bus_unit_exists(t->bus, t->units[i], &error);
	if (r > 0)
		r = -EEXIST;
	if (r >= 0)
		r = bus_start_transient_unit(t->bus, t->units[i], append_slice, &a, 60 * USEC_PER_SEC, &error);
	if (r < 0)
		return note(t, t->units[i], r, &error), r;
	t->n_made = i + 1;
	return 0;
}

int slice_tree_start(struct slice_tree *t)
{
	int r = 0;

	t->n_made = 0;
	t->units = calloc(t->n + 1, sizeof(char *));
	t->cgroups = calloc(t->n + 1, sizeof(char *));
	if (!t->units || !t->cgroups)
		return -ENOMEM;
	if (t->by_systemd && (r = bus_open_system(&t->bus)) < 0)
		return note(t, "tree", r, NULL), r;
	for (size_t i = 0; r >= 0 && i < t->n; i++) {
		r = name_slice(t, i);
		if (r >= 0)
			r = start_one(t, i);
	}
	if (r < 0)
		slice_tree_stop(t);
	return r;
}

void slice_tree_stop(struct slice_tree *t)
{
	for (size_t i = t->n_made; i-- > 0;) {
		if (t->by_systemd && t->bus) {
			/* Stopping a slice stops whatever is still in it. */
			(void)bus_stop_unit(t->bus, t->units[i], 60 * USEC_PER_SEC, NULL);
			(void)bus_wait_unit_gone(t->bus, t->units[i], 10 * USEC_PER_SEC);
			bus_reset_failed_unit(t->bus, t->units[i]);
		} else if (!t->by_systemd)
			(void)cgfs_remove(t->mode, t->cgroups[i]);
	}
	t->n_made = 0;
	for (size_t i = 0; i < t->n && t->units; i++)
		free(t->units[i]);
	for (size_t i = 0; i < t->n && t->cgroups; i++)
		free(t->cgroups[i]);
	free(t->units);
	free(t->cgroups);
	t->units = t->cgroups = NULL;
	t->bus = sd_bus_flush_close_unref(t->bus);
}

int slice_tree_set(struct slice_tree *t, size_t i, const struct prop_value *v)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	struct append_slice a = { .t = t, .i = i };
	int r;

	if (i >= t->n_made)
		return -ESRCH;
	t->vary = v;
	t->vary_in = i;
	if (!t->by_systemd)
		return write_limits(t, i);
	r = bus_set_unit_properties(t->bus, t->units[i], append_slice, &a, &error);
	if (r < 0)
		note(t, t->units[i], r, &error);
	return r;
}

/* Slice i's cgroup files read back into *ret with its settings as
 * placement_verify_props() records them; *ret_bad counts those not in force. */
static int slice_settings(const struct slice_tree *t, size_t i, struct placement *ret, unsigned *ret_bad)
{
	struct prop_value vals[SLICE_PROPS_MAX + 1];
	size_t n;
	int r;

	if (i >= t->n_made)
		return -ESRCH;
	n = slice_values(t, i, vals);
	r = placement_read_cgroup(t->cgroups[i], t->mode, "", ret);
	return r < 0 ? r : placement_verify_props(ret, vals, n, t->mode, ret_bad);
}

int slice_tree_verify(const struct slice_tree *t, size_t i, char **ret_why)
{
	_cleanup_(placement_done) struct placement p = {};
	unsigned bad = 0;
	int r;

	*ret_why = NULL;
	r = slice_settings(t, i, &p, &bad);
	if (r < 0)
		return r;
	for (size_t k = 0; bad && k < p.n; k++)
		if (strncmp(p.attrs[k].key, "in_force.", 9) == 0 && strncmp(p.attrs[k].value, "no", 2) == 0)
			return xasprintf(ret_why, "slice %s: %s= is not in force: %s", t->specs[i].name,
					 p.attrs[k].key + 9, p.attrs[k].value + 4) < 0 ? -ENOMEM : 1;
	return 0;
}

int slice_tree_record(const struct slice_tree *t, struct placement *p)
{
	for (size_t i = 0; i < t->n_made; i++) {
		_cleanup_(placement_done) struct placement s = {};
		unsigned bad;
		int r = slice_settings(t, i, &s, &bad);

		/* setting.CPUWeight.read as setting.db.slice/CPUWeight.read. */
		for (size_t k = 0; r >= 0 && k < s.n; k++) {
			const char *key = s.attrs[k].key;
			size_t dot = strcspn(key, ".") + 1;
			_cleanup_free_ char *name = NULL;

			if (!placement_key_is_setting(key))
				continue;
			r = xasprintf(&name, "%.*s%s/%s", (int)dot, key, t->specs[i].name, key + dot);
			if (r >= 0)
				r = placement_set(p, name, s.attrs[k].value);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* Slices of the experiment's own: a tree of them, nested as systemd nests
 * slices (db-oltp.slice sits in db.slice), each with its CPU settings.  For
 * the systemd kinds the tree is made of transient slice units on the
 * system manager; for raw, of cgroups in cgroupfs with the same settings
 * and the same shape, so that the two stay comparable.  Every slice
 * carries slicebench's prefix: db.slice of an experiment is the unit
 * slicebench_db.slice, whose children systemd names slicebench_db-*.slice;
 * raw's top level is slicebench-raw-PID_db.slice, its children named as the
 * units are.  Nothing here logs; a failure is said in t->failure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "slices/sys/cgmode.h"
#include "slices/attr/props.h"

#define SLICE_NAME_MAX 48
#define SLICE_PROPS_MAX 8

/* A [slice NAME] section.  parent indexes the same array (-1: top level)
 * and is always lower than the slice's own index. */
struct slice_spec {
	char name[SLICE_NAME_MAX]; /* as the experiment says it: db-oltp.slice */
	struct prop_value props[SLICE_PROPS_MAX];
	size_t n_props;
	int parent;
};

/* systemd's own rule for a slice's name (slice_name_is_valid()), within
 * slicebench's name length: NAME.slice, no leading, trailing or double dash,
 * not the root slice.  On false *ret_why says what is wrong. */
bool slice_name_is_valid(const char *name, const char **ret_why);
/* The slice systemd puts name in: 1 with its name in buf, 0 for a
 * top-level slice (its parent is the root, -.slice). */
int slice_parent_name(const char *name, char *buf, size_t len);

/* A tree made for one run of a context. */
struct slice_tree {
	const struct slice_spec *specs;
	size_t n;
	bool by_systemd; /* slice units; else cgroupfs */
	enum cgroup_mode mode;
	/* One setting replacing a setting of the same name in slice vary_in
	 * (a [vary] on a slice), or NULL. */
	const struct prop_value *vary;
	size_t vary_in;
	/* Set by slice_tree_start(), per spec: the unit name (systemd) or the
	 * cgroup path (cgroupfs), and the cgroup path relative to the roots of
	 * the hierarchies (the same for cgroupfs). */
	char **units, **cgroups;
	size_t n_made;
	sd_bus *bus;
	char *failure; /* why start or a change failed, in systemd's words */
};

/* Makes the tree, parents first.  Half-made, it is removed again. */
int slice_tree_start(struct slice_tree *t);
/* Removes what start made, children first; safe on a half-made tree and
 * twice. */
void slice_tree_stop(struct slice_tree *t);
/* What a context in slice i is given as its slice (struct context.slice). */
const char *slice_tree_slot(const struct slice_tree *t, size_t i);
/* The settings slice i is to have now, with the vary value applied, into
 * out (borrowed from the specs); returns how many. */
size_t slice_tree_props(const struct slice_tree *t, size_t i, const struct prop_value **out, size_t cap);
/* A live change of slice i: the setting replaces the one of the same name
 * (SetUnitProperties, or the cgroup's files).  Read it back with
 * slice_tree_verify(). */
int slice_tree_set(struct slice_tree *t, size_t i, const struct prop_value *v);
/* Reads slice i's cgroup files back: 0 when every setting of it is in
 * force, 1 when one is not (why in *ret_why, the caller frees it). */
int slice_tree_verify(const struct slice_tree *t, size_t i, char **ret_why);
/* Adds to p each slice's settings as written, resolved and read back, and
 * whether each is in force, named by slice: setting.db.slice/CPUWeight.written,
 * in_force.db.slice/CPUWeight (slices/attr/snapshot.h). */
struct placement;
int slice_tree_record(const struct slice_tree *t, struct placement *p);

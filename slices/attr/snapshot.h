/* Where a context put a process: a flat, ordered list of attributes
 * (cgroups and their CPU settings, affinity, autogroup, session, nice and
 * scheduling, NUMA policy, limits, environment, allocator, ...), read from
 * /proc and cgroupfs.  Flat keys make diffs trivial and let explain copy
 * one attribute at a time from one context to another. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "slices/sys/cgmode.h"

struct placement_attr {
	char *key, *value;
};

struct placement {
	struct placement_attr *attrs;
	size_t n, cap;
};

/* Reads pid's placement; client (0: none) adds client.same_* attributes
 * that say what the load generator shares with it. */
int placement_snapshot(pid_t pid, pid_t client, enum cgroup_mode mode, struct placement *ret);
void placement_done(struct placement *p);
const char *placement_get(const struct placement *p, const char *key);
int placement_set(struct placement *p, const char *key, const char *value);
int placement_setf(struct placement *p, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Adds, for each setting of spec, what was set beside what was read back:
 * setting.NAME.written (as written: llc:1), setting.NAME.resolved (as
 * resolved on this host: 1), setting.NAME.read (the keys the row's
 * in-force check read, "KEY=VALUE; ...") and in_force.NAME = "yes" or
 * "no: KEY is X, not Y", as the row decides: a setting systemd accepts may
 * still not apply (a user manager without the controller delegated).
 * *ret_bad counts the "no"s. */
struct context_spec;
struct prop_value;
int placement_verify(struct placement *p, const struct context_spec *spec, enum cgroup_mode mode, unsigned *ret_bad);

/* The same check for settings read from one cgroup's files
 * (placement_read_cgroup()), such as a slice's. */
int placement_verify_props(struct placement *p, const struct prop_value *props, size_t n, enum cgroup_mode mode,
			   unsigned *ret_bad);
/* The CPU settings in the files of one cgroup (rel to the hierarchies'
 * roots, slices/sys/cgfs.h) as prefix+FILE keys (cpu.shares, cpu.cfs_quota_us,
 * cpu.max, cpuset.cpus.effective, ...). */
int placement_read_cgroup(const char *rel, enum cgroup_mode mode, const char *prefix, struct placement *p);

/* Counters (cpu.stat.*) change by themselves and are never a difference. */
bool placement_key_is_counter(const char *key);
/* Keys that name a start rather than describe it (the unit, its slice and
 * cgroup paths, the autogroup's number, systemd's per-invocation
 * variables): they differ between any two starts and are never a cause. */
bool placement_key_is_identity(const char *key);

/* Keys that say what was asked for and whether it holds (setting.NAME.*,
 * in_force.NAME), not what the process has. */
bool placement_key_is_setting(const char *key);

#define PLACEMENT_SETTINGS_MAX 128
/* The names of the settings p records, in its order, added to names at *n
 * (each once, up to PLACEMENT_SETTINGS_MAX); they borrow from p. */
void placement_setting_names(const struct placement *p, const char **names, size_t *n);
/* One setting as "written -> resolved -> read back: in force" (or "not in
 * force: why", or "not set"), into *ret (to free()). */
int placement_setting_text(const struct placement *p, const char *name, char **ret);
/* Do a and b record setting name differently, or is it not in force in
 * either? */
bool placement_setting_differs(const struct placement *a, const struct placement *b, const char *name);

/* The keys whose values differ (or that only one side has), in a's order
 * and then b's; *ret_keys borrows from a and b. */
int placement_diff(const struct placement *a, const struct placement *b, const char ***ret_keys, size_t *ret_n);

json_t *placement_to_json(const struct placement *p);
int placement_from_json(const json_t *j, struct placement *ret);

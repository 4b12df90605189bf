/* Placement snapshots: a running server's placement
 * (slices/attr/placement.h) read from /proc and cgroupfs, one row of the
 * attribute table after another, and each setting asked for checked
 * against it. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "slices/attr/placement.h"
#include "slices/sys/cgmode.h"

/* Reads pid's placement; client (0: none) adds client.same_* attributes
 * that say what the load generator shares with it. */
int placement_snapshot(pid_t pid, pid_t client, enum cgroup_mode mode, struct placement *ret);

/* Adds, for each of the settings, what was set beside what was read back:
 * setting.NAME.written (as written: llc:1), setting.NAME.resolved (as
 * resolved on this host: 1), setting.NAME.read (the keys the row's
 * in-force check read, "KEY=VALUE; ...") and in_force.NAME = "yes" or
 * "no: KEY is X, not Y", as the row decides: a setting systemd accepts may
 * still not apply (a user manager without the controller delegated).
 * *ret_bad counts the "no"s.  For a context's spec, placement_verify()
 * (slices/kinds/context.h); for one cgroup's files, after
 * placement_read_cgroup(), such as a slice's. */
struct prop_value;
int placement_verify_props(struct placement *p, const struct prop_value *props, size_t n, enum cgroup_mode mode,
			   unsigned *ret_bad);
/* The CPU settings in the files of one cgroup (rel to the hierarchies'
 * roots, slices/sys/cgfs.h) as prefix+FILE keys (cpu.shares,
 * cpu.cfs_quota_us, cpu.max, cpuset.cpus.effective, ...), under the keys a
 * process's own are read into, for the in-force checks of a cgroup
 * without a process. */
int placement_read_cgroup(const char *rel, enum cgroup_mode mode, const char *prefix, struct placement *p);

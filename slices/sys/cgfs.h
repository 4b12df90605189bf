/* cgroupfs: the cgroups of the raw kind and of its slice tree, made,
 * joined and removed with libcgroup (which on v2 also turns the
 * controllers on in the parents' cgroup.subtree_control, the root's
 * included), their limits written into the files.  A cgroup is named by
 * its path relative to the root of each hierarchy
 * ("slicebench-raw-123_db.slice/slicebench-raw-server-123"); on
 * cgroup v1 it is made in the cpu, cpuacct and cpuset hierarchies only,
 * never in memory's, whose cgroups are not slicebench's to move things in
 * or out of.  Every write is checked on write and on close (the kernel
 * says EINVAL or EBUSY there).  Nothing here logs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "slices/sys/cgmode.h"

/* The cgroup limits a raw context writes into cgroupfs itself (the
 * attribute table's cgroup rows collect them, prop_collect_cgroup_limits()). */
struct cgroup_limits {
	uint64_t weight;       /* 0 = unset; CPUWeight or converted CPUShares */
	uint64_t shares;       /* v1 value, derived when only a weight is given */
	uint64_t quota_per_sec; /* usec per second, 0 = unset */
	uint64_t period_usec;  /* 0 = kernel default */
	const uint8_t *cpus;   /* AllowedCPUs, NULL = unset */
	size_t cpus_bytes;
	bool accounting;       /* CPUAccounting=yes: a cpu cgroup of its own */
};

/* Makes the cgroup (its parent must exist) in every hierarchy slicebench
 * uses: a v1 cpuset starts with its parent's CPUs and memory nodes, and on
 * v2 the parents delegate cpu and cpuset down to it.  -EEXIST if it
 * is there already: it is not ours. */
int cgfs_make(enum cgroup_mode mode, const char *rel);
/* Writes the limits into the cgroup's files (cpu.shares or cpu.weight,
 * the CFS quota and period, cpuset.cpus). */
int cgfs_write_limits(enum cgroup_mode mode, const char *rel, const struct cgroup_limits *l);
/* Moves pid into the cgroup in every hierarchy slicebench uses. */
int cgfs_attach(enum cgroup_mode mode, const char *rel, pid_t pid);
/* Removes the empty cgroup in every hierarchy (nothing is moved out of
 * it), waiting a moment for one still busy with a dying process; 0 when
 * it is gone everywhere. */
int cgfs_remove(enum cgroup_mode mode, const char *rel);
/* The directory holding controller's files of the cgroup ("cpu", "cpuset"). */
int cgfs_dir(enum cgroup_mode mode, const char *controller, const char *rel, char **ret);
/* Is rel a path slicebench may remove: relative, no "..", its first
 * component starting with prefix? */
bool cgfs_path_is_ours(const char *rel, const char *prefix);

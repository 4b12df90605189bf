/* CPU sets named by the host's topology.  Besides CPU numbers and ranges, a
 * CPU list may name a group of this host: llc:N (the Nth L3 cache group, in
 * the order of its first CPU, as `slicebench host` lists cpu.l3_groups),
 * node:N (NUMA node N) or core:N (the Nth core in CPU order: its SMT
 * siblings).  An experiment written in these terms means the same thing on
 * hosts of different shapes; the list it resolves to is what gets recorded.
 * Read from sysfs, which the library layers below may use without logging. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The kinds of group, one row each (common/topology.c). */
struct topology_kind {
	const char *prefix; /* "llc" */
	const char *what;   /* "L3 groups", for messages */
	/* The groups' CPU lists, in order: group N is (*ret)[N].  0 with
	 * *ret_n = 0 when sysfs says nothing of them. */
	int (*groups)(char ***ret, size_t *ret_n);
};

/* The groups of the kind with that prefix; -ENOENT for an unknown prefix. */
int topology_groups(const char *prefix, char ***ret, size_t *ret_n);
void topology_groups_free(char **groups, size_t n);

/* "0,2-3", "llc:1", "node:0,7": into ret as parse_int_list() does (in the
 * order given, a group's CPUs ascending), each CPU in [0, max].  -EINVAL
 * for bad syntax, -ERANGE for a CPU beyond max or a group this host does
 * not have, -E2BIG beyond cap; why (if not NULL) then says which, in words. */
int cpu_list_parse(const char *s, long max, long *ret, size_t cap, size_t *ret_n, char *why, size_t why_len);
/* Does s name a topology group (and so resolve differently per host)? */
bool cpu_list_is_topological(const char *s);
/* The resolved list, formatted "0-2,5", into buf. */
int cpu_list_format(const long *cpus, size_t n, char *buf, size_t len);

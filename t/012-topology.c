/* CPU lists with topology names: llc:N, node:N and core:N resolve to what
 * sysfs says of this host (read here independently of the code under test),
 * a group the host lacks is refused with the count it has, and a property
 * records the resolved list. */
#include <stdio.h>

#include "common/topology.h"
#include "slices/attr/props.h"
#include "tap.h"
#include "common/util.h"

/* The text of a sysfs file, or NULL. */
static char *slurp(const char *path)
{
	char *s = NULL;

	return read_file_str(path, &s) < 0 ? NULL : s;
}

/* The shared_cpu_list of the first level-3 cache of CPU 0. */
static char *first_l3(void)
{
	char path[128];

	for (int i = 0; i < 10; i++) {
		_cleanup_free_ char *level = NULL;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		level = slurp(path);
		if (level && streq(level, "3")) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
			return slurp(path);
		}
	}
	return NULL;
}

/* A list as cpu_list_format() prints it, for comparing with sysfs's text. */
static void resolved(const char *spec, char *buf, size_t len, int *ret)
{
	long cpus[CPU_LIST_MAX];
	size_t n = 0;
	char why[160];

	*ret = cpu_list_parse(spec, CPU_LIST_MAX - 1, cpus, ELEMENTSOF(cpus), &n, why, sizeof(why));
	buf[0] = 0;
	if (*ret >= 0)
		cpu_list_format(cpus, n, buf, len);
	else
		snprintf(buf, len, "error %d: %s", *ret, why);
}

int main(void)
{
	_cleanup_free_ char *l3 = first_l3(), *node0 = slurp("/sys/devices/system/node/node0/cpulist"),
			    *core0 = slurp("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
	char got[256], why[160], spec[32];
	char **groups = NULL;
	size_t n_groups = 0, n;
	long cpus[CPU_LIST_MAX];
	struct prop_value v;
	int r;

	plan(12);

	resolved("0", got, sizeof(got), &r);
	is_str(got, "0", "a plain CPU number is itself");
	if (l3) {
		resolved("llc:0", got, sizeof(got), &r);
		is_str(got, l3, "llc:0 is CPU 0's L3 group (%s)", l3);
	} else
		skip(1, "no L3 cache in sysfs");
	if (node0) {
		resolved("node:0", got, sizeof(got), &r);
		is_str(got, node0, "node:0 is node0/cpulist (%s)", node0);
	} else
		skip(1, "no NUMA node in sysfs");
	if (core0) {
		resolved("core:0", got, sizeof(got), &r);
		is_str(got, core0, "core:0 is CPU 0's SMT siblings (%s)", core0);
	} else
		skip(1, "no thread_siblings_list in sysfs");

	r = topology_groups("llc", &groups, &n_groups);
	is_int(r, 0, "the L3 groups can be listed");
	snprintf(spec, sizeof(spec), "llc:%zu", n_groups);
	r = cpu_list_parse(spec, CPU_LIST_MAX - 1, cpus, ELEMENTSOF(cpus), &n, why, sizeof(why));
	is_int(r, -ERANGE, "%s (one past the last group) is refused with ERANGE", spec);
	snprintf(got, sizeof(got), "this host has %zu L3 groups", n_groups);
	ok(n_groups == 0 ? strstr(why, "shows no L3 groups") != NULL : strstr(why, got) != NULL,
	   "and says how many groups there are: '%s'", why);
	topology_groups_free(groups, n_groups);

	r = cpu_list_parse("llc:x", CPU_LIST_MAX - 1, cpus, ELEMENTSOF(cpus), &n, why, sizeof(why));
	is_int(r, -EINVAL, "llc:x is bad syntax (%s)", why);
	ok(cpu_list_is_topological("1,llc:0") && !cpu_list_is_topological("0-3"),
	   "a list naming a group is topological, a plain one is not");

	if (l3 && prop_parse("AllowedCPUs", "llc:0", &v) == 0) {
		is_str(v.text, l3, "AllowedCPUs=llc:0 is recorded as the CPUs it resolved to");
		prop_value_done(&v);
	} else
		skip(1, "no L3 cache in sysfs");
	r = prop_parse("NUMAMask", "node:0", &v);
	is_int(r, -EINVAL, "NUMAMask= takes node numbers, not a topology name");
	r = prop_parse("CPUAffinity", "0,node:0", &v);
	is_int(r, 0, "CPUAffinity= mixes CPUs and groups");
	prop_value_done(&v);
	return done_testing();
}

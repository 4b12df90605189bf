/* CPU and NUMA node masks as the kernel takes them (sched_setaffinity(),
 * set_mempolicy()), bit n of byte n/8, and as lists ("0-2,5") as cgroupfs
 * and systemd write them. */
#include <stdio.h>

#include "slices/sys/cpumask.h"
#include "common/topology.h"
#include "common/util.h"

void cpumask_from_list(const long *cpus, size_t n, uint8_t *mask, size_t *ret_bytes)
{
	size_t bytes = 0;

	memset(mask, 0, CPUSET_BYTES);
	for (size_t i = 0; i < n; i++) {
		mask[cpus[i] / 8] |= (uint8_t)(1u << (cpus[i] % 8));
		if ((size_t)cpus[i] / 8 + 1 > bytes)
			bytes = (size_t)cpus[i] / 8 + 1;
	}
	*ret_bytes = bytes;
}

int cpumask_parse(const char *s, uint8_t *mask, size_t *ret_bytes)
{
	long cpus[CPU_LIST_MAX];
	size_t n;
	int r;

	/* llc:N, node:N and core:N name this host's groups (common/topology.h). */
	r = cpu_list_parse(s, CPU_LIST_MAX - 1, cpus, ELEMENTSOF(cpus), &n, NULL, 0);
	if (r < 0)
		return r;
	cpumask_from_list(cpus, n, mask, ret_bytes);
	return 0;
}

/* As cpu_list_format() writes a list: the mask is never wider than
 * CPUSET_BYTES, CPU_LIST_MAX CPUs. */
int cpumask_format(const uint8_t *mask, size_t bytes, char *buf, size_t len)
{
	long cpus[CPU_LIST_MAX];
	size_t n = 0;

	for (size_t cpu = 0; cpu < bytes * 8 && n < ELEMENTSOF(cpus); cpu++)
		if (mask[cpu / 8] & (1u << (cpu % 8)))
			cpus[n++] = (long)cpu;
	return cpu_list_format(cpus, n, buf, len);
}

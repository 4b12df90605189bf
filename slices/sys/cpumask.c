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

int cpumask_format(const uint8_t *mask, size_t bytes, char *buf, size_t len)
{
	size_t off = 0;
	int cpu = 0, max = (int)bytes * 8;

	buf[0] = 0;
	while (cpu < max) {
		int lo, hi, n;
		if (!(mask[cpu / 8] & (1u << (cpu % 8)))) {
			cpu++;
			continue;
		}
		lo = cpu;
		while (cpu + 1 < max && (mask[(cpu + 1) / 8] & (1u << ((cpu + 1) % 8))))
			cpu++;
		hi = cpu++;
		n = lo == hi ? snprintf(buf + off, len - off, "%s%d", off ? "," : "", lo)
			     : snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", lo, hi);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOBUFS;
		off += (size_t)n;
	}
	return 0;
}

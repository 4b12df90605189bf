/* CPU and NUMA node masks: bit n of byte n/8, up to CPUSET_BYTES. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define CPUSET_BYTES 128 /* 1024 CPUs */

/* The mask of the numbers in cpus[0..n) (each below CPUSET_BYTES * 8),
 * and in *ret_bytes the bytes up to the highest set bit. */
void cpumask_from_list(const long *cpus, size_t n, uint8_t *mask, size_t *ret_bytes);
/* "0-3", "llc:1": a CPU list (common/topology.h) into a mask. */
int cpumask_parse(const char *s, uint8_t *mask, size_t *ret_bytes);
/* "0-2,5" from a mask, into buf. */
int cpumask_format(const uint8_t *mask, size_t bytes, char *buf, size_t len);

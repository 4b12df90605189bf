/* The server's hardware counters where the CPU exposes a PMU: instructions,
 * cycles and last-level cache misses of every server thread, counted by
 * perf_event_open() with inherit, so that the threads and backends started
 * later count too.  Where there is no PMU (a VM such as this project's) it
 * says why, and the figures built on them are unknown, not 0. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct oltp_pmu;
#define OLTP_PMU_UNKNOWN UINT64_MAX

/* Counters on the threads of the processes pids[0..n); -EOPNOTSUPP with
 * *ret_why (static) when the CPU exposes none, another -errno else. */
int oltp_pmu_open(const int *pids, size_t n, struct oltp_pmu **ret, const char **ret_why);
/* Their sums so far; OLTP_PMU_UNKNOWN each if p is NULL. */
void oltp_pmu_read(struct oltp_pmu *p, uint64_t *ret_instructions, uint64_t *ret_cycles, uint64_t *ret_llc_misses);
void oltp_pmu_free(struct oltp_pmu *p);

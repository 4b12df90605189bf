/* A perf_event_open() ring buffer read by its owner: the records the
 * kernel wrote since the last drain, each copied whole (a record may wrap
 * the ring's end) and handed to a callback, and the records it dropped
 * counted.  The wake-ups (oltp/wakeups.c) and the profile's sampler share
 * it. */
#pragma once

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct perf_ring {
	struct perf_event_mmap_page *meta; /* NULL: not mapped */
	size_t page, data_size;
	uint64_t lost; /* PERF_RECORD_LOST's counts, summed */
};

/* Maps fd's ring of `pages` data pages (a power of two) and one page of
 * metadata.  0 or -errno. */
int perf_ring_map(int fd, size_t pages, struct perf_ring *ret);
void perf_ring_unmap(struct perf_ring *g);

/* Each record (its header first, size bytes) written since the last drain
 * handed to fn; a record larger than PERF_RING_RECORD_MAX is passed over.
 * PERF_RECORD_LOST is counted in g->lost and handed on too. */
#define PERF_RING_RECORD_MAX 4096
void perf_ring_drain(struct perf_ring *g, void (*fn)(const struct perf_event_header *h, const uint8_t *rec, void *userdata),
		     void *userdata);

/* perf_event_open(2), which glibc does not wrap: the fd or -errno. */
int perf_open(struct perf_event_attr *a, int pid, int cpu, int group_fd, unsigned long flags);

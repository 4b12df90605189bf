#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile/ring.h"
#include "common/util.h"

int perf_open(struct perf_event_attr *a, int pid, int cpu, int group_fd, unsigned long flags)
{
	int fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : fd;
}

int perf_ring_map(int fd, size_t pages, struct perf_ring *ret)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	*ret = (struct perf_ring){ .meta = m, .page = page, .data_size = pages * page };
	return 0;
}

void perf_ring_unmap(struct perf_ring *g)
{
	if (g->meta)
		munmap(g->meta, g->data_size + g->page);
	g->meta = NULL;
}

void perf_ring_drain(struct perf_ring *g, void (*fn)(const struct perf_event_header *h, const uint8_t *rec, void *userdata),
		     void *userdata)
{
	const uint8_t *data = (const uint8_t *)g->meta + g->page;
	uint64_t head = __atomic_load_n(&g->meta->data_head, __ATOMIC_ACQUIRE), tail = g->meta->data_tail;
	uint8_t rec[PERF_RING_RECORD_MAX];

	while (tail < head) {
		struct perf_event_header h;
		size_t at = tail % g->data_size, first;

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(at + i) % g->data_size];
		if (h.size < sizeof(h))
			break;
		/* A record may wrap the ring's end: copied whole first. */
		first = MIN((size_t)h.size, g->data_size - at);
		if (h.size <= sizeof(rec)) {
			memcpy(rec, data + at, first);
			memcpy(rec + first, data, h.size - first);
			if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 2 * sizeof(uint64_t)) {
				uint64_t lost;

				memcpy(&lost, rec + sizeof(h) + sizeof(uint64_t), sizeof(lost));
				g->lost += lost;
			}
			fn(&h, rec, userdata);
		}
		tail += h.size;
	}
	__atomic_store_n(&g->meta->data_tail, tail, __ATOMIC_RELEASE);
}

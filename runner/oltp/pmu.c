#include <dirent.h>
#include <linux/perf_event.h>
#include <stdio.h>

#include "oltp/pmu.h"
#include "profile/ring.h"
#include "common/util.h"

/* Hundreds of PostgreSQL backends start after the counters are opened and
 * inherit them: only the threads present at the start need one each. */
#define PMU_THREADS_MAX 512

enum { PMU_INSTRUCTIONS, PMU_CYCLES, PMU_LLC_MISSES, _PMU_MAX };

static const uint64_t pmu_configs[_PMU_MAX] = {
	[PMU_INSTRUCTIONS] = PERF_COUNT_HW_INSTRUCTIONS,
	[PMU_CYCLES] = PERF_COUNT_HW_CPU_CYCLES,
	[PMU_LLC_MISSES] = PERF_COUNT_HW_CACHE_MISSES,
};

struct oltp_pmu {
	size_t n;
	int fd[PMU_THREADS_MAX][_PMU_MAX];
};

static int open_counter(int tid, uint64_t config)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(a),
		.config = config,
		.inherit = 1,
		.exclude_hv = 1,
	};
	return perf_open(&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The thread's three counters into p->fd[p->n]; a thread gone meanwhile is skipped. */
static int open_thread(struct oltp_pmu *p, int tid)
{
	for (size_t k = 0; k < _PMU_MAX; k++) {
		int fd = open_counter(tid, pmu_configs[k]);

		if (fd < 0) {
			for (size_t j = 0; j < k; j++)
				close(p->fd[p->n][j]);
			return fd == -ESRCH ? 0 : fd;
		}
		p->fd[p->n][k] = fd;
	}
	p->n++;
	return 0;
}

static int open_process(struct oltp_pmu *p, int pid)
{
	char dir[64];
	struct dirent *e;
	DIR *d;
	int r = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	while (d && r >= 0 && p->n < PMU_THREADS_MAX && (e = readdir(d)))
		if (e->d_name[0] != '.')
			r = open_thread(p, atoi(e->d_name));
	if (d)
		closedir(d);
	return r;
}

int oltp_pmu_open(const int *pids, size_t n, struct oltp_pmu **ret, const char **ret_why)
{
	struct oltp_pmu *p;
	int r;

	*ret_why = NULL;
	/* The question first, on ourselves: a CPU without a PMU says ENOENT
	 * (EOPNOTSUPP on some), whatever the thread. */
	r = open_counter(0, PERF_COUNT_HW_CPU_CYCLES);
	if (r == -ENOENT || r == -EOPNOTSUPP) {
		*ret_why = "the CPU exposes no hardware counters (perf_event_open of cycles: no such event)";
		return -EOPNOTSUPP;
	}
	if (r < 0)
		return r;
	close(r);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = open_process(p, pids[i]);
	if (r < 0) {
		oltp_pmu_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

void oltp_pmu_read(struct oltp_pmu *p, uint64_t *ret_instructions, uint64_t *ret_cycles, uint64_t *ret_llc_misses)
{
	uint64_t sum[_PMU_MAX] = {};

	for (size_t i = 0; p && i < p->n; i++)
		for (size_t k = 0; k < _PMU_MAX; k++) {
			uint64_t v;

			if (read(p->fd[i][k], &v, sizeof(v)) == (ssize_t)sizeof(v))
				sum[k] += v;
		}
	*ret_instructions = p ? sum[PMU_INSTRUCTIONS] : OLTP_PMU_UNKNOWN;
	*ret_cycles = p ? sum[PMU_CYCLES] : OLTP_PMU_UNKNOWN;
	*ret_llc_misses = p ? sum[PMU_LLC_MISSES] : OLTP_PMU_UNKNOWN;
}

void oltp_pmu_free(struct oltp_pmu *p)
{
	for (size_t i = 0; p && i < p->n; i++)
		for (size_t k = 0; k < _PMU_MAX; k++)
			close(p->fd[i][k]);
	free(p);
}

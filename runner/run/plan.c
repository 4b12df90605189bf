/* A run's plan: which contexts run, how many server starts and steps
 * that makes, its dataset, and about how long it takes. */
#include <ftw.h>
#include <sys/statvfs.h>

#include "run/runner.h"
#include "managed/managed.h"

/* What a row of the dataset takes on disk with its indexes: a sysbench
 * table of 1,000,000 rows is some 240 MB in InnoDB, pgbench's scale 1
 * (100,000 accounts) some 16 MB in PostgreSQL. */
#define SBTEST_ROW_BYTES 240
#define PGBENCH_ROW_BYTES 160
/* Rows a slow host prepares per second (the estimate says "up to"). */
#define PREPARE_ROWS_PER_S 50000

/* A server start, its ping and the buffer pool warm-up, for the estimate. */
#define UNIT_OVERHEAD_S 6

double run_plan_unit_s(const struct experiment *e _unused_)
{
	return UNIT_OVERHEAD_S;
}

double run_plan_step_s(const struct experiment *e)
{
	return (double)(e->oltp.warmup_ns + e->oltp.duration_ns) / 1e9 + 1;
}

int run_plan_make(const struct experiment *e, const char *only, struct run_plan *ret)
{
	_cleanup_free_ char *list = only ? strdup(only) : NULL;
	size_t n_ctx = 0;
	char *save = NULL;
	bool pg;

	*ret = (struct run_plan){ .e = e };
	if (only && !list)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_contexts; i++)
		ret->selected[i] = !only;
	for (char *name = list ? strtok_r(list, ",", &save) : NULL; name; name = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < e->n_contexts && !streq(e->contexts[i].name, name))
			i++;
		if (i == e->n_contexts) {
			log_error("run: --only: %s has no context '%s'", e->path, name);
			return -EINVAL;
		}
		ret->selected[i] = true;
	}
	for (size_t i = 0; i < e->n_contexts; i++)
		n_ctx += ret->selected[i];
	if (n_ctx == 0) {
		log_error("run: --only: give the contexts to run, as --only %s", e->contexts[0].name);
		return -EINVAL;
	}
	/* live: one server per repeat and context for all the vary values */
	ret->n_units = e->repeat * n_ctx *
		       ((runner_vary_modes(e) & VARY_RESTART ? experiment_n_values(e) : 0) + (runner_vary_modes(e) & VARY_LIVE ? 1 : 0));
	ret->n_steps = e->repeat * n_ctx * experiment_n_values(e) * e->n_threads *
		       (!!(runner_vary_modes(e) & VARY_RESTART) + !!(runner_vary_modes(e) & VARY_LIVE));
	pg = streq(oltp_workload_def(e->oltp.workload)->protocol, "postgresql");
	ret->dataset_rows = pg ? (uint64_t)e->oltp.scale * 100000 : (uint64_t)e->oltp.tables * e->oltp.table_size;
	ret->dataset_bytes = ret->dataset_rows * (pg ? PGBENCH_ROW_BYTES : SBTEST_ROW_BYTES);
	ret->prepare_s = (double)ret->dataset_rows / PREPARE_ROWS_PER_S;
	ret->estimate_s = ret->prepare_s + (double)ret->n_units * run_plan_unit_s(e) +
			  (double)ret->n_steps * run_plan_step_s(e);
	return 0;
}

static uint64_t held;

static int add_held(const char *path _unused_, const struct stat *st, int type, struct FTW *ftw _unused_)
{
	if (type == FTW_F)
		held += (uint64_t)st->st_blocks * 512;
	return 0;
}

int run_check_space(const char *verb, const struct run_plan *p)
{
	struct server_config cfg = {};
	_cleanup_free_ char *dir = NULL;
	struct statvfs vfs;
	uint64_t free_bytes;

	managed_config_default(&cfg);
	dir = strdup(cfg.state_dir);
	if (!dir)
		return log_error_errno(-ENOMEM, "%s: %m", verb);
	/* The state directory, or where it would be made. */
	while (statvfs(dir, &vfs) < 0 && strrchr(dir, '/') && strrchr(dir, '/') != dir)
		*strrchr(dir, '/') = 0;
	if (statvfs(dir, &vfs) < 0)
		return 0; /* nothing to tell: the setup says what is wrong */
	free_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	held = 0;
	(void)nftw(cfg.state_dir, add_held, 16, FTW_PHYS | FTW_MOUNT);
	if (p->dataset_bytes <= free_bytes + held)
		return 0;
	return log_error_errno(-ENOSPC, "%s: the dataset of %" PRIu64 " rows takes about %.1f GB, and %s has %.1f GB free (and %.1f GB "
			 "of datasets made before): give fewer or smaller tables, or more room",
			 verb, p->dataset_rows, (double)p->dataset_bytes / 1e9, dir, (double)free_bytes / 1e9,
			 (double)held / 1e9);
}

#include "slices/sys/cgfs.h"

#include <inttypes.h>
#include <libcgroup.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slices/sys/cpumask.h"
#include "common/util.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

/* The v1 hierarchies slicebench makes cgroups in; never memory.  cpu and
 * cpuacct may be one hierarchy (Debian links both names to cpu,cpuacct). */
static const char *const v1_controllers[] = { "cpu", "cpuacct", "cpuset" };

/* The roots of the hierarchies in use, each once: v2's root, or the v1
 * controllers' distinct mount points.  A missing cpuacct is skipped. */
static int roots(enum cgroup_mode mode, char ret[][PATH_MAX], const char **ret_ctl, size_t *ret_n)
{
	size_t n = 0;

	if (mode == CGROUP_UNIFIED) {
		snprintf(ret[0], PATH_MAX, CGROUP_ROOT);
		ret_ctl[0] = "";
		*ret_n = 1;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(v1_controllers); i++) {
		char path[64], real[PATH_MAX];
		bool dup = false;

		snprintf(path, sizeof(path), CGROUP_ROOT "/%s", v1_controllers[i]);
		if (!realpath(path, real)) {
			if (streq(v1_controllers[i], "cpuacct"))
				continue;
			return -ENOENT;
		}
		for (size_t k = 0; k < n; k++)
			dup |= streq(ret[k], real);
		if (dup)
			continue;
		(void)text_copy(ret[n], PATH_MAX, real);
		ret_ctl[n++] = v1_controllers[i];
	}
	*ret_n = n;
	return 0;
}

#define ROOTS_DECL                                      \
	char root[ELEMENTSOF(v1_controllers)][PATH_MAX]; \
	const char *ctl[ELEMENTSOF(v1_controllers)];     \
	size_t n_roots

bool cgfs_path_is_ours(const char *rel, const char *prefix)
{
	if (!rel || strncmp(rel, prefix, strlen(prefix)) != 0 || strstr(rel, "//") || rel[strlen(rel) - 1] == '/')
		return false;
	for (const char *c = rel; (c = strstr(c, "..")); c++)
		if ((c == rel || c[-1] == '/') && (c[2] == '/' || c[2] == 0))
			return false;
	return true;
}

int cgfs_dir(enum cgroup_mode mode, const char *controller, const char *rel, char **ret)
{
	if (mode == CGROUP_UNIFIED)
		return xasprintf(ret, CGROUP_ROOT "/%s", rel);
	return xasprintf(ret, CGROUP_ROOT "/%s/%s", controller, rel);
}

static int write_in(enum cgroup_mode mode, const char *controller, const char *rel, const char *file, const char *value)
{
	_cleanup_free_ char *dir = NULL, *path = NULL;
	int r = cgfs_dir(mode, controller, rel, &dir);

	if (r >= 0)
		r = xasprintf(&path, "%s/%s", dir, file);
	return r < 0 ? r : write_file_str(path, value);
}

/* A v1 cpuset starts empty and refuses tasks until filled: its parent's. */
static int copy_from_parent(const char *dir, const char *file)
{
	_cleanup_free_ char *parent = strdup(dir), *from = NULL, *to = NULL, *value = NULL;
	char *slash = parent ? strrchr(parent, '/') : NULL;
	int r;

	if (!slash)
		return -ENOMEM;
	*slash = 0;
	r = xasprintf(&from, "%s/%s", parent, file);
	if (r >= 0)
		r = xasprintf(&to, "%s/%s", dir, file);
	if (r >= 0)
		r = read_file_str(from, &value);
	return r < 0 ? r : write_file_str(to, value);
}

/* libcgroup reads the mounts once; its codes become errnos here. */
static int cg_errno(int r)
{
	if (r == 0)
		return 0;
	if (r == ECGOTHER)
		return -cgroup_get_last_errno();
	if (r == ECGNONEMPTY)
		return -EBUSY;
	return r == ECGROUPNOTEXIST ? -ENOENT : -EIO;
}

static int cg_init(void)
{
	static int ready = 1;

	if (ready > 0)
		ready = cg_errno(cgroup_init());
	return ready;
}

/* A libcgroup handle of rel with the controllers slicebench uses in this
 * mode (on v2 the parent's cgroup.subtree_control gets them from it). */
static int cg_handle(enum cgroup_mode mode, const char *rel, struct cgroup **ret)
{
	ROOTS_DECL;
	struct cgroup *cg;
	int r;

	r = cg_init();
	if (r >= 0)
		r = roots(mode, root, ctl, &n_roots);
	if (r < 0)
		return r;
	cg = cgroup_new_cgroup(rel);
	if (!cg)
		return -ENOMEM;
	for (size_t i = 0; i < (mode == CGROUP_UNIFIED ? 2 : n_roots); i++)
		if (!cgroup_add_controller(cg, mode == CGROUP_UNIFIED ? (i ? "cpuset" : "cpu") : ctl[i])) {
			cgroup_free(&cg);
			return -ENOMEM;
		}
	*ret = cg;
	return 0;
}

static void cg_freep(struct cgroup **cg)
{
	if (*cg)
		cgroup_free(cg);
}
#define _cleanup_cgroup_ __attribute__((cleanup(cg_freep)))

int cgfs_make(enum cgroup_mode mode, const char *rel)
{
	ROOTS_DECL;
	_cleanup_cgroup_ struct cgroup *cg = NULL;
	int r;

	r = roots(mode, root, ctl, &n_roots);
	for (size_t i = 0; r >= 0 && i < n_roots; i++) {
		_cleanup_free_ char *dir = NULL;

		r = xasprintf(&dir, "%s/%s", root[i], rel);
		if (r >= 0 && access(dir, F_OK) == 0)
			r = -EEXIST;
	}
	if (r >= 0)
		r = cg_handle(mode, rel, &cg);
	if (r < 0)
		return r;
	r = cg_errno(cgroup_create_cgroup(cg, 0));
	for (size_t i = 0; r >= 0 && mode != CGROUP_UNIFIED && i < n_roots; i++) {
		_cleanup_free_ char *dir = NULL;

		if (!streq(ctl[i], "cpuset"))
			continue;
		r = xasprintf(&dir, "%s/%s", root[i], rel);
		if (r >= 0)
			r = copy_from_parent(dir, "cpuset.mems");
		if (r >= 0)
			r = copy_from_parent(dir, "cpuset.cpus");
	}
	if (r < 0)
		/* Made by this call (it was not there), so ours to remove. */
		(void)cgroup_delete_cgroup_ext(cg, CGFLAG_DELETE_EMPTY_ONLY);
	return r;
}

int cgfs_write_limits(enum cgroup_mode mode, const char *rel, const struct cgroup_limits *l)
{
	char buf[CPUSET_BYTES * 8 * 5];
	bool v2 = mode == CGROUP_UNIFIED;
	uint64_t period = l->period_usec ? l->period_usec : 100000;
	int r;

	if (l->weight) {
		snprintf(buf, sizeof(buf), "%" PRIu64, v2 ? l->weight : l->shares);
		r = write_in(mode, "cpu", rel, v2 ? "cpu.weight" : "cpu.shares", buf);
		if (r < 0)
			return r;
	}
	if (l->quota_per_sec) {
		uint64_t quota = l->quota_per_sec * period / USEC_PER_SEC;

		if (v2) {
			snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64, quota, period);
			r = write_in(mode, "cpu", rel, "cpu.max", buf);
		} else {
			/* The quota may not exceed what the new period allows:
			 * lift it first, then set the period, then the quota. */
			r = write_in(mode, "cpu", rel, "cpu.cfs_quota_us", "-1");
			snprintf(buf, sizeof(buf), "%" PRIu64, period);
			if (r >= 0)
				r = write_in(mode, "cpu", rel, "cpu.cfs_period_us", buf);
			snprintf(buf, sizeof(buf), "%" PRIu64, quota);
			if (r >= 0)
				r = write_in(mode, "cpu", rel, "cpu.cfs_quota_us", buf);
		}
		if (r < 0)
			return r;
	}
	if (l->cpus) {
		r = cpumask_format(l->cpus, l->cpus_bytes, buf, sizeof(buf));
		if (r >= 0)
			r = write_in(mode, "cpuset", rel, "cpuset.cpus", buf);
		if (r < 0)
			return r;
	}
	return 0;
}

int cgfs_attach(enum cgroup_mode mode, const char *rel, pid_t pid)
{
	_cleanup_cgroup_ struct cgroup *cg = NULL;
	int r = cg_handle(mode, rel, &cg);

	return r < 0 ? r : cg_errno(cgroup_attach_task_pid(cg, pid));
}

int cgfs_remove(enum cgroup_mode mode, const char *rel)
{
	_cleanup_cgroup_ struct cgroup *cg = NULL;
	int r = cg_handle(mode, rel, &cg);

	/* Only an empty cgroup goes: nothing is moved out of it, and one
	 * still holding a dying process is busy for a moment. */
	for (int k = 0; r >= 0; k++) {
		r = cg_errno(cgroup_delete_cgroup_ext(cg, CGFLAG_DELETE_EMPTY_ONLY));
		if (r != -EBUSY || k == 100)
			break;
		usleep(20000);
	}
	return r == -ENOENT ? 0 : r;
}

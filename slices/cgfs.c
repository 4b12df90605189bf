#include "slices/cgfs.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

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
		snprintf(ret[n], PATH_MAX, "%s", real);
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

/* Does the space-separated list in dir/file hold word? */
static int file_has_word(const char *dir, const char *file, const char *word)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	char *save = NULL;
	int r = xasprintf(&path, "%s/%s", dir, file);

	if (r >= 0)
		r = read_file_str(path, &text);
	if (r < 0)
		return r;
	for (char *w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (streq(w, word))
			return 1;
	return 0;
}

/* v2: the parent (if it is one of ours, not the root that systemd or the
 * host runs) delegates cpu and cpuset to its children. */
static int delegate_from_parent(const char *dir)
{
	static const char *const want[] = { "cpu", "cpuset" };
	_cleanup_free_ char *parent = strdup(dir), *path = NULL;
	char *slash = parent ? strrchr(parent, '/') : NULL;
	int r = 0;

	if (!slash)
		return -ENOMEM;
	*slash = 0;
	if (streq(parent, CGROUP_ROOT))
		return 0;
	if (xasprintf(&path, "%s/cgroup.subtree_control", parent) < 0)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(want); i++) {
		char word[16];
		int avail = file_has_word(parent, "cgroup.controllers", want[i]);
		int on = file_has_word(parent, "cgroup.subtree_control", want[i]);

		if (avail < 0 || on < 0)
			return avail < 0 ? avail : on;
		snprintf(word, sizeof(word), "+%s", want[i]);
		if (avail && !on)
			r = write_file_str(path, word);
	}
	return r;
}

int cgfs_make(enum cgroup_mode mode, const char *rel)
{
	ROOTS_DECL;
	size_t made = 0;
	int r;

	r = roots(mode, root, ctl, &n_roots);
	if (r < 0)
		return r;
	for (; made < n_roots; made++) {
		_cleanup_free_ char *dir = NULL;

		r = xasprintf(&dir, "%s/%s", root[made], rel);
		if (r < 0)
			break;
		if (mode == CGROUP_UNIFIED && (r = delegate_from_parent(dir)) < 0)
			break;
		if (mkdir(dir, 0755) < 0) {
			r = -errno;
			break;
		}
		if (streq(ctl[made], "cpuset")) {
			r = copy_from_parent(dir, "cpuset.mems");
			if (r >= 0)
				r = copy_from_parent(dir, "cpuset.cpus");
			if (r < 0) {
				made++;
				break;
			}
		}
	}
	if (r < 0) {
		/* Only what this call made goes again. */
		for (size_t i = 0; i < made; i++) {
			_cleanup_free_ char *dir = NULL;

			if (xasprintf(&dir, "%s/%s", root[i], rel) >= 0)
				(void)rmdir(dir);
		}
		return r;
	}
	return 0;
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
	ROOTS_DECL;
	char buf[32];
	int r;

	r = roots(mode, root, ctl, &n_roots);
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	for (size_t i = 0; r >= 0 && i < n_roots; i++) {
		_cleanup_free_ char *path = NULL;

		r = xasprintf(&path, "%s/%s/cgroup.procs", root[i], rel);
		if (r >= 0)
			r = write_file_str(path, buf);
	}
	return r;
}

int cgfs_remove(enum cgroup_mode mode, const char *rel)
{
	ROOTS_DECL;
	int r, result = 0;

	r = roots(mode, root, ctl, &n_roots);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_roots; i++) {
		_cleanup_free_ char *dir = NULL;

		if (xasprintf(&dir, "%s/%s", root[i], rel) < 0)
			return -ENOMEM;
		/* A cgroup still holding a dying process is busy for a moment. */
		for (int k = 0;; k++) {
			r = rmdir(dir) < 0 ? -errno : 0;
			if (r != -EBUSY || k == 100)
				break;
			usleep(20000);
		}
		if (r < 0 && r != -ENOENT)
			result = r;
	}
	return result;
}

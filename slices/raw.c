/* raw: fork and exec with no systemd at all, like a server started from a
 * shell.  CPU settings go straight into a cgroup made with libcgroup, and
 * session=new gives the server its own session and so its own autogroup. */
#include <inttypes.h>
#include <libcgroup.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "slices/context.h"
#include "common/util.h"

/* The controllers a raw cgroup uses; never memory, which is not ours. */
static const char *const raw_v1_controllers[] = { "cpu", "cpuacct", "cpuset" };

static bool raw_needs_cgroup(const struct cgroup_limits *l)
{
	return l->weight || l->shares || l->quota_per_sec || l->cpus || l->accounting;
}

static int cg_path(const struct context *c, const char *controller, const char *file, char **ret)
{
	if (c->mode == CGROUP_UNIFIED)
		return xasprintf(ret, "/sys/fs/cgroup/%s/%s", c->cgroup_name, file);
	return xasprintf(ret, "/sys/fs/cgroup/%s/%s/%s", controller, c->cgroup_name, file);
}

static int cg_write(const struct context *c, const char *controller, const char *file, const char *value)
{
	_cleanup_free_ char *path = NULL;
	int r = cg_path(c, controller, file, &path);
	return r < 0 ? r : write_file_str(path, value);
}

static int cg_copy_parent(const struct context *c, const char *file)
{
	_cleanup_free_ char *parent = NULL, *value = NULL;
	int r;

	r = xasprintf(&parent, "/sys/fs/cgroup/cpuset/%s", file);
	if (r < 0)
		return r;
	r = read_file_str(parent, &value);
	return r < 0 ? r : cg_write(c, "cpuset", file, value);
}

static int raw_write_limits(const struct context *c, const struct cgroup_limits *l)
{
	char buf[CPUSET_BYTES * 8];
	bool v2 = c->mode == CGROUP_UNIFIED;
	uint64_t period = l->period_usec ? l->period_usec : 100000;
	int r;

	if (!v2) {
		/* A v1 cpuset starts empty and refuses tasks until filled. */
		r = cg_copy_parent(c, "cpuset.mems");
		if (r >= 0)
			r = cg_copy_parent(c, "cpuset.cpus");
		if (r < 0)
			return r;
	}
	if (l->weight) {
		snprintf(buf, sizeof(buf), "%" PRIu64, v2 ? l->weight : l->shares);
		r = cg_write(c, "cpu", v2 ? "cpu.weight" : "cpu.shares", buf);
		if (r < 0)
			return r;
	}
	if (l->quota_per_sec) {
		uint64_t quota = l->quota_per_sec * period / USEC_PER_SEC;
		if (v2) {
			snprintf(buf, sizeof(buf), "%" PRIu64 " %" PRIu64, quota, period);
			r = cg_write(c, "cpu", "cpu.max", buf);
		} else {
			snprintf(buf, sizeof(buf), "%" PRIu64, period);
			r = cg_write(c, "cpu", "cpu.cfs_period_us", buf);
			snprintf(buf, sizeof(buf), "%" PRIu64, quota);
			if (r >= 0)
				r = cg_write(c, "cpu", "cpu.cfs_quota_us", buf);
		}
		if (r < 0)
			return r;
	}
	if (l->cpus) {
		r = cpumask_format(l->cpus, l->cpus_bytes, buf, sizeof(buf));
		if (r >= 0)
			r = cg_write(c, "cpuset", "cpuset.cpus", buf);
		if (r < 0)
			return r;
	}
	return 0;
}

static int raw_make_cgroup(struct context *c, struct cgroup **ret)
{
	struct cgroup *cg;
	int r;

	r = cgroup_init();
	if (r != 0)
		return -ENXIO;
	r = xasprintf(&c->cgroup_name, "slicebench-raw-%s-%d", c->spec->name, (int)getpid());
	if (r < 0)
		return r;
	cg = cgroup_new_cgroup(c->cgroup_name);
	if (!cg)
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(raw_v1_controllers); i++) {
		if (c->mode == CGROUP_UNIFIED && streq(raw_v1_controllers[i], "cpuacct"))
			continue;
		if (!cgroup_add_controller(cg, raw_v1_controllers[i])) {
			cgroup_free(&cg);
			return -ENOMEM;
		}
	}
	r = cgroup_create_cgroup(cg, 0);
	if (r != 0) {
		cgroup_free(&cg);
		return -EIO;
	}
	*ret = cg;
	return 0;
}

static int raw_start(struct context *c)
{
	struct cgroup_limits l;
	struct cgroup *cg = NULL;
	int gate = -EBADF, r;

	prop_collect_cgroup_limits(c->spec->props, c->spec->n_props, &l);
	if (raw_needs_cgroup(&l)) {
		r = raw_make_cgroup(c, &cg);
		if (r < 0)
			return r;
		r = raw_write_limits(c, &l);
		if (r < 0)
			goto fail;
	}
	r = spawn_server_gated(c, &c->pid, &gate);
	if (r < 0)
		goto fail;
	if (cg && cgroup_attach_task_pid(cg, c->pid) != 0) {
		r = -EIO;
		close(gate);
		goto fail;
	}
	r = release_child(gate);
	if (r < 0)
		goto fail;
	if (cg)
		cgroup_free(&cg);
	return 0;
fail:
	if (cg)
		cgroup_free(&cg);
	return r;
}

static int raw_stop(struct context *c)
{
	int r = 0;

	if (c->pid > 0) {
		r = process_stop(c->pid, 60 * NSEC_PER_SEC, NULL);
		c->pid = 0;
	}
	return r;
}

static void raw_remove_cgroup(struct context *c)
{
	struct cgroup *cg;

	if (!c->cgroup_name)
		return;
	cg = cgroup_new_cgroup(c->cgroup_name);
	if (cg) {
		for (size_t i = 0; i < ELEMENTSOF(raw_v1_controllers); i++)
			if (!(c->mode == CGROUP_UNIFIED && streq(raw_v1_controllers[i], "cpuacct")))
				cgroup_add_controller(cg, raw_v1_controllers[i]);
		cgroup_delete_cgroup(cg, 1);
		cgroup_free(&cg);
	}
	free(c->cgroup_name);
	c->cgroup_name = NULL;
}

static void raw_cleanup(struct context *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
	}
	raw_remove_cgroup(c);
}

const struct context_ops context_raw_ops = {
	.name = "raw",
	.session = true,
	.cgroup = CGROUP_BY_CGROUPFS,
	.manager = MANAGER_NONE,
	.start = raw_start,
	.stop = raw_stop,
	.cleanup = raw_cleanup,
};

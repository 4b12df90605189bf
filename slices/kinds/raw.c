/* raw: fork and exec with no systemd at all, like a server started from a
 * shell.  CPU settings go straight into a cgroup of its own in cgroupfs
 * (slices/sys/cgfs.h), below the raw mirror of its slice if it names one, and
 * session=new gives the server its own session and so its own autogroup. */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "slices/sys/cgfs.h"
#include "slices/kinds/context.h"
#include "common/util.h"

/* A cgroup of its own for its limits; in a slice on v2 too, where a slice
 * with children holds no process.  On v1 a server without limits sits in
 * its slice's cgroup itself, where systemd leaves a service that sets no
 * CPU setting. */
static bool raw_needs_cgroup(const struct context *c, const struct cgroup_limits *l)
{
	return (c->slice && c->mode == CGROUP_UNIFIED) || l->weight || l->shares || l->quota_per_sec || l->cpus ||
	       l->accounting;
}

static int raw_make_cgroup(struct context *c, const struct cgroup_limits *l)
{
	int r;

	r = xasprintf(&c->cgroup_name, "%s%sslicebench-raw-%s-%d", strempty(c->slice), c->slice ? "/" : "",
		      c->spec->name, (int)getpid());
	if (r < 0)
		return r;
	r = cgfs_make(c->mode, c->cgroup_name);
	if (r < 0) {
		/* Not made, so not ours to remove. */
		free(c->cgroup_name);
		c->cgroup_name = NULL;
		return r;
	}
	return cgfs_write_limits(c->mode, c->cgroup_name, l);
}

static int raw_start(struct context *c)
{
	struct cgroup_limits l;
	int gate = -EBADF, r;

	prop_collect_cgroup_limits(c->spec->props, c->spec->n_props, &l);
	if (raw_needs_cgroup(c, &l)) {
		r = raw_make_cgroup(c, &l);
		if (r < 0)
			return r;
	}
	r = spawn_server_gated(c, &c->pid, &gate);
	if (r < 0)
		return r;
	if ((c->cgroup_name || c->slice) && (r = cgfs_attach(c->mode, c->cgroup_name ? c->cgroup_name : c->slice, c->pid)) < 0) {
		close(gate);
		return r;
	}
	return release_child(gate);
}

static int raw_stop(struct context *c)
{
	int r = 0;

	if (c->pid > 0) {
		r = process_stop(c->pid, c->server->engine->stop_signal, 60 * NSEC_PER_SEC, NULL);
		c->pid = 0;
	}
	return r;
}

/* The spec holds the new value: every limit is written again. */
static int raw_set(struct context *c, const struct prop_value *v _unused_)
{
	struct cgroup_limits l;
	int r;

	if (!c->cgroup_name)
		return -ESRCH;
	prop_collect_cgroup_limits(c->spec->props, c->spec->n_props, &l);
	r = cgfs_write_limits(c->mode, c->cgroup_name, &l);
	if (r < 0)
		context_note_failure(c, c->cgroup_name, r, NULL);
	return r;
}

static void raw_remove_cgroup(struct context *c)
{
	if (!c->cgroup_name)
		return;
	(void)cgfs_remove(c->mode, c->cgroup_name);
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
	.slice = true,
	.start = raw_start,
	.stop = raw_stop,
	.set = raw_set,
	.cleanup = raw_cleanup,
};

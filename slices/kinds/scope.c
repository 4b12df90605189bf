/* scope: slicebench forks the server itself, so that it inherits our
 * session, environment and limits, and then wraps it in a transient scope
 * with the cgroup properties, as systemd-run --scope does.  The child waits
 * at the gate until the scope holds it. */
#include <signal.h>
#include <sys/wait.h>

#include "slices/sys/bus.h"
#include "slices/kinds/context.h"
#include "common/util.h"

struct scope_priv {
	sd_bus *bus;
	char *unit;
};

static int append_scope(sd_bus_message *m, void *userdata)
{
	const struct context *c = userdata;
	int r;

	r = sd_bus_message_append(m, "(sv)(sv)", "Description", "s", "slicebench managed server", /* s */
				  "PIDs", "au", 1, (uint32_t)c->pid);				  /* au */
	if (r >= 0 && c->slice)
		r = sd_bus_message_append(m, "(sv)", "Slice", "s", c->slice); /* s */
	for (size_t i = 0; i < c->spec->n_props && r >= 0; i++)
		/* Exec properties were applied in the child already. */
		if (c->spec->props[i].def->class == PROP_CGROUP)
			r = prop_append_dbus(m, &c->spec->props[i]);
	return r;
}

static int scope_start(struct context *c)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	struct scope_priv *p;
	int gate = -EBADF, r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->priv = p;
	r = context_unit_name(c, &p->unit);
	if (r < 0)
		return r;
	r = bus_open_system(&p->bus);
	if (r < 0)
		return r;
	r = bus_unit_exists(p->bus, p->unit, &error);
	if (r != 0) {
		r = r < 0 ? r : -EEXIST;
		context_note_failure(c, p->unit, r, &error);
		/* Not ours: stop and cleanup must not touch it. */
		free(p->unit);
		p->unit = NULL;
		return r;
	}
	r = spawn_server_gated(c, &c->pid, &gate);
	if (r < 0)
		return r;
	r = bus_start_transient_unit(p->bus, p->unit, append_scope, c, 60 * USEC_PER_SEC, &error);
	if (r < 0) {
		context_note_failure(c, p->unit, r, &error);
		close(gate);
		return r;
	}
	return release_child(gate);
}

static int scope_stop(struct context *c)
{
	struct scope_priv *p = c->priv;
	int r = 0;

	if (c->pid > 0) {
		r = process_stop(c->pid, c->server->engine->stop_signal, 60 * NSEC_PER_SEC, NULL);
		c->pid = 0;
	}
	if (r < 0 || !p || !p->bus || !p->unit)
		return r;
	/* An empty scope stops by itself, and CollectMode= unloads it. */
	return bus_wait_unit_gone(p->bus, p->unit, 10 * USEC_PER_SEC);
}

static int scope_set(struct context *c, const struct prop_value *v)
{
	struct scope_priv *p = c->priv;

	return p ? context_set_unit_property(c, p->bus, p->unit, v) : -ESRCH;
}

static void scope_cleanup(struct context *c)
{
	struct scope_priv *p = c->priv;

	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		c->pid = 0;
	}
	if (!p)
		return;
	if (p->bus && p->unit) {
		bus_stop_unit(p->bus, p->unit, 10 * USEC_PER_SEC, NULL);
		bus_reset_failed_unit(p->bus, p->unit);
	}
	sd_bus_flush_close_unref(p->bus);
	free(p->unit);
	free(p);
	c->priv = NULL;
}

const struct context_ops context_scope_ops = {
	.name = "scope",
	.unit_suffix = "scope",
	.session = true,
	.cgroup = CGROUP_BY_SYSTEMD,
	.manager = MANAGER_SYSTEM,
	.slice = true,
	.start = scope_start,
	.stop = scope_stop,
	.set = scope_set,
	.cleanup = scope_cleanup,
};

struct wrap {
	pid_t pid;
	const char *description;
};

static int append_wrap(sd_bus_message *m, void *userdata)
{
	const struct wrap *w = userdata;

	return sd_bus_message_append(m, "(sv)(sv)", "Description", "s", w->description, /* s */
				     "PIDs", "au", 1, (uint32_t)w->pid);		   /* au */
}

int scope_wrap_pid(pid_t pid, const char *unit, const char *description)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	struct wrap w = { .pid = pid, .description = description };
	int r;

	r = bus_open_system(&bus);
	if (r < 0)
		return r;
	r = bus_unit_exists(bus, unit, NULL);
	if (r != 0)
		return r < 0 ? r : -EEXIST;
	return bus_start_transient_unit(bus, unit, append_wrap, &w, 60 * USEC_PER_SEC, NULL);
}

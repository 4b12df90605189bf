/* service: a transient unit in system.slice on the system manager, started
 * over D-Bus as systemd-run does, Type=notify so that the job completes on
 * the server's READY=1. */
#include <signal.h>
#include <stdio.h>

#include "slices/sys/bus.h"
#include "slices/kinds/context.h"
#include "common/util.h"

struct service_priv {
	sd_bus *bus;
	char *unit;
	const char *slice;
	bool stopped; /* service_stop() saw the unit go */
};

static int append_service(sd_bus_message *m, void *userdata)
{
	const struct context *c = userdata;
	struct prop_value props[CONTEXT_PROPS_MAX + 1];
	char **argv = NULL;
	size_t n_props = 0;
	int r, added;

	added = context_exec_props(c, props, ELEMENTSOF(props), &n_props);
	if (added < 0)
		return added;
	r = context_server_argv(c, &argv);
	if (r < 0) {
		context_exec_props_done(props, n_props, added);
		return r;
	}
	r = sd_bus_message_append(m, "(sv)(sv)(sv)(sv)(sv)", "Description", "s", "slicebench managed server", /* s */
				  "Slice", "s", ((struct service_priv *)c->priv)->slice,		      /* s */
				  "Type", "s", c->server->engine->service_type ?: "notify",		      /* s */
				  "TimeoutStopUSec", "t", (uint64_t)60 * USEC_PER_SEC,		      /* t */
				  "KillSignal", "i", (int32_t)c->server->engine->stop_signal);	      /* i */
	if (r < 0)
		goto out;
	/* ExecStart a(sasb): path, argv, ignore-failure */
	r = sd_bus_message_open_container(m, 'r', "sv");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", "ExecStart");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'v', "a(sasb)");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "(sasb)");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'r', "sasb");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", argv[0]);
	if (r >= 0)
		r = sd_bus_message_append_strv(m, argv);
	if (r >= 0)
		r = sd_bus_message_append(m, "b", 0);
	for (int i = 0; i < 4 && r >= 0; i++)
		r = sd_bus_message_close_container(m);
	for (size_t i = 0; i < n_props && r >= 0; i++)
		r = prop_append_dbus(m, &props[i]);
out:
	context_exec_props_done(props, n_props, added);
	strv_free(argv);
	return r;
}

/* Starts the unit on bus, which the context owns from here on. */
int service_start_on(struct context *c, sd_bus *bus, const char *slice)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	struct service_priv *p;
	uint32_t pid = 0;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p) {
		sd_bus_flush_close_unref(bus);
		return -ENOMEM;
	}
	c->priv = p;
	p->bus = bus;
	p->slice = slice;
	r = context_unit_name(c, &p->unit);
	if (r < 0)
		return r;
	/* Never take over a unit that slicebench did not start. */
	r = bus_unit_exists(p->bus, p->unit, &error);
	if (r > 0)
		r = -EEXIST;
	if (r >= 0)
		r = bus_start_transient_unit(p->bus, p->unit, append_service, c, 120 * USEC_PER_SEC, &error);
	if (r >= 0)
		r = bus_unit_get_u32(p->bus, p->unit, "org.freedesktop.systemd1.Service", "MainPID", &pid, &error);
	if (r < 0) {
		context_note_failure(c, p->unit, r, &error);
		if (r == -EEXIST) {
			/* Not ours: stop and cleanup must not touch it. */
			free(p->unit);
			p->unit = NULL;
		}
		return r;
	}
	c->pid = (pid_t)pid;
	return 0;
}

static int service_start(struct context *c)
{
	sd_bus *bus = NULL;
	int r = bus_open_system(&bus);

	return r < 0 ? r : service_start_on(c, bus, c->slice ? c->slice : "system.slice");
}

int service_stop(struct context *c)
{
	struct service_priv *p = c->priv;
	int r;

	if (!p || !p->bus || !p->unit)
		return 0;
	r = bus_stop_unit(p->bus, p->unit, 90 * USEC_PER_SEC, NULL);
	if (r < 0 && r != -ENOENT)
		return r;
	c->pid = 0;
	r = bus_wait_unit_gone(p->bus, p->unit, 10 * USEC_PER_SEC);
	p->stopped = r >= 0;
	return r;
}

int service_set(struct context *c, const struct prop_value *v)
{
	struct service_priv *p = c->priv;

	return p ? context_set_unit_property(c, p->bus, p->unit, v) : -ESRCH;
}

void service_cleanup(struct context *c)
{
	struct service_priv *p = c->priv;

	if (!p)
		return;
	/* Not stopped: a start that failed, whose unit may still hold the
	 * server without a main PID known yet; killed, not stopped with
	 * its grace (managed_start()). */
	if (p->bus && p->unit && (c->pid > 0 || !p->stopped)) {
		bus_kill_unit(p->bus, p->unit, SIGKILL, NULL);
		bus_stop_unit(p->bus, p->unit, 30 * USEC_PER_SEC, NULL);
	}
	if (p->bus && p->unit)
		bus_reset_failed_unit(p->bus, p->unit);
	sd_bus_flush_close_unref(p->bus);
	free(p->unit);
	free(p);
	c->priv = NULL;
	c->pid = 0;
}

const struct context_ops context_service_ops = {
	.name = "service",
	.unit_suffix = "service",
	.exec_by_systemd = true,
	.cgroup = CGROUP_BY_SYSTEMD,
	.manager = MANAGER_SYSTEM,
	.slice = true,
	.mirror = true,
	.start = service_start,
	.stop = service_stop,
	.set = service_set,
	.cleanup = service_cleanup,
};

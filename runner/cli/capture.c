/* place --pid PID, place --unit NAME: a snapshot of a server that runs
 * already, started by anyone (its packaged unit, a DBA's shell), read as
 * every placement is, with where it came from and the server's own
 * settings.  It starts nothing and changes nothing: /proc, cgroupfs,
 * systemd's answers over D-Bus and a read-only query over the server's
 * socket; it writes nothing but its output. */
#include <stdio.h>

#include "cli/args.h"
#include "managed/placement.h"
#include "slices/attr/capture.h"
#include "slices/attr/mirror.h"
#include "slices/attr/snapshot.h"
#include "slices/sys/bus.h"
#include "common/text.h"
#include "common/util.h"
#include "cli/verbs.h"

/* The main PID of a running service. */
static int main_pid_of(sd_bus *bus, const char *unit, pid_t *ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	uint32_t pid = 0;
	int r;

	if (!bus)
		return log_error_errno(-EINVAL, "place: --unit %s needs a running systemd (run it under slicebench sandbox)", unit);
	r = bus_unit_get_u32(bus, unit, "org.freedesktop.systemd1.Service", "MainPID", &pid, &error);
	if (r < 0)
		return log_error_errno(-EINVAL, "place: --unit %s: %s", unit, sd_bus_error_is_set(&error) ? error.message : strerror(-r));
	if (pid == 0)
		return log_error_errno(-EINVAL, "place: --unit %s has no main process (is it running?)", unit);
	*ret = (pid_t)pid;
	return 0;
}

/* A service's unit as its manager resolved it: the settings the table
 * knows (capture.setting.NAME, which a replay of kind service takes), its
 * ExecStartPre= commands and the host-wide writes of those helpers, listed
 * (the server's environment after them is the main process's, read as
 * env.*). */
static int capture_unit(sd_bus *bus, struct placement *p)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(mirror_done) struct mirror m = {};
	const char *unit = placement_get(p, "unit");
	char key[128];
	int r;

	if (!bus || !streq_ptr(placement_get(p, CAPTURE_PREFIX "kind"), "service") ||
	    mirror_unit(bus, unit, &m, &error) < 0)
		return 0; /* no unit of the system manager's to read: nothing to add */
	r = placement_set(p, CAPTURE_PREFIX "unit", unit);
	for (size_t i = 0; r >= 0 && m.names && m.names[i]; i++) {
		snprintf(key, sizeof(key), CAPTURE_PREFIX "setting.%s", m.names[i]);
		r = placement_set(p, key, m.values[i]);
	}
	for (size_t i = 0; r >= 0 && m.exec_pre && m.exec_pre[i]; i++) {
		snprintf(key, sizeof(key), CAPTURE_PREFIX "exec_start_pre.%zu", i + 1);
		r = placement_set(p, key, m.exec_pre[i]);
	}
	for (size_t i = 0; r >= 0 && m.host_writes && m.host_writes[i]; i++) {
		snprintf(key, sizeof(key), CAPTURE_PREFIX "host_write.%zu", i + 1);
		r = placement_set(p, key, m.host_writes[i]);
	}
	return r;
}

/* Everything of the capture of pid into p; bus NULL: no systemd here. */
static int capture(sd_bus *bus, pid_t pid, struct placement *p)
{
	int r = placement_snapshot(pid, 0, cgroup_mode_detect(), p);

	if (r == -ESRCH)
		return log_error_errno(-EINVAL, "place: there is no process %d", (int)pid);
	if (r < 0)
		return log_error_errno(r, "place: cannot read the placement of PID %d: %m", (int)pid);
	if (bus && (r = managed_unit_facts(bus, pid, p)) < 0 && r != -ENOMEM)
		log_warning_errno(r, "place: cannot ask systemd which unit holds PID %d: %m", (int)pid);
	if (r != -ENOMEM)
		r = capture_describe(pid, p);
	if (r >= 0)
		r = capture_set_kind(p);
	if (r >= 0)
		r = capture_unit(bus, p);
	if (r >= 0)
		r = server_facts_of(pid, placement_get(p, CAPTURE_PREFIX "exe"), placement_get(p, CAPTURE_PREFIX "socket"), p);
	if (r == -ENOENT || r == -ESRCH)
		return log_error_errno(-EINVAL, "place: PID %d ended while it was read", (int)pid);
	return r < 0 ? log_error_errno(r, "place: PID %d: %m", (int)pid) : 0;
}

int place_capture(const struct sweep_args *a)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(placement_done) struct placement p = {};
	pid_t pid = (pid_t)a->pid;
	int r;

	if (bus_open_system(&bus) < 0)
		bus = NULL; /* no systemd here: the cgroup path says where it runs */
	if (a->unit && (r = main_pid_of(bus, a->unit, &pid)) < 0)
		return r;
	r = capture(bus, pid, &p);
	if (r < 0)
		return r;
	if (a->json) {
		json_t *j = placement_to_json(&p);

		if (!j)
			return log_error_errno(-ENOMEM, "place: %m");
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
		return 0;
	}
	for (size_t i = 0; i < p.n; i++)
		text_print_pair(stdout, p.attrs[i].key, p.attrs[i].value);
	return 0;
}

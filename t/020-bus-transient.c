/* slicebench's own sd-bus code against a real systemd in the sandbox:
 * a transient service gets CPUQuota= and CPUWeight= from the property
 * table, the kernel shows both, and after the stop nothing is left. */
#include <sys/stat.h>

#include "slices/sys/bus.h"
#include "slices/sys/cgmode.h"
#include "slices/kinds/context.h"
#include "slices/attr/props.h"
#include "tap.h"

struct props {
	struct prop_value v[4];
	size_t n;
};

static int append_props(sd_bus_message *m, void *userdata)
{
	struct props *p = userdata;
	const char *argv[] = { "/bin/sleep", "300", NULL };
	int r;

	r = sd_bus_message_append(m, "(sv)", "Description", "s", "slicebench t/020");
	if (r < 0)
		return r;
	/* ExecStart a(sbas): path, argv, ignore-failure. */
	r = sd_bus_message_append(m, "(sv)", "ExecStart", "a(sasb)", 1, argv[0], 2, argv[0], argv[1], 0);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->n; i++) {
		r = prop_append_dbus(m, &p->v[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static const char *unit = "slicebench-t020-bus.service";

static void stop_unit(void *arg)
{
	sd_bus *bus = arg;
	bus_stop_unit(bus, unit, 10 * USEC_PER_SEC, NULL);
	sd_bus_unref(bus);
}

static char *cg_file(enum cgroup_mode mode, const char *v1ctl, const char *file)
{
	char *p = NULL;
	if (mode == CGROUP_UNIFIED)
		xasprintf(&p, "/sys/fs/cgroup/system.slice/%s/%s", unit, file);
	else
		xasprintf(&p, "/sys/fs/cgroup/%s/system.slice/%s/%s", v1ctl, unit, file);
	return p;
}

int main(int argc, char **argv)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *quota = NULL, *weight = NULL, *cgroup = NULL, *slice = NULL;
	_cleanup_free_ char *qpath = NULL, *wpath = NULL, *dir = NULL;
	enum cgroup_mode mode;
	struct props p = { .n = 2 };
	const char *why = NULL;
	struct prop_value allowed;
	sd_bus *bus = NULL;
	struct stat st;
	int r;

	(void)argc;
	run_in_sandbox(getenv("SLICEBENCH_SANDBOX_KIND") ? getenv("SLICEBENCH_SANDBOX_KIND") : "container", argv);
	require("ROOT SYSTEMD");
	plan(11);
	mode = cgroup_mode_detect();
	diag("cgroup mode %s", cgroup_mode_to_string(mode));

	is_int(prop_parse("CPUQuota", "50%", &p.v[0]), 0, "CPUQuota=50%% parses");
	is_int(prop_parse("CPUWeight", "200", &p.v[1]), 0, "CPUWeight=200 parses");
	r = bus_open_system(&bus);
	if (!ok(r >= 0, "system bus reached"))
		bail_out("no system bus: %s", strerror(-r));
	on_exit_run(stop_unit, bus);

	r = bus_start_transient_unit(bus, unit, append_props, &p, 30 * USEC_PER_SEC, &error);
	if (!is_int(r, 0, "StartTransientUnit job done"))
		diag("%s: %s", strempty(error.name), strempty(error.message));
	bus_unit_get_string(bus, unit, "org.freedesktop.systemd1.Service", "Slice", &slice, NULL);
	is_str(slice, "system.slice", "unit is in system.slice");

	if (mode == CGROUP_UNIFIED) {
		qpath = cg_file(mode, NULL, "cpu.max");
		wpath = cg_file(mode, NULL, "cpu.weight");
		read_file_str(qpath, &quota);
		read_file_str(wpath, &weight);
		is_str(quota, "50000 100000", "cpu.max shows the quota");
		is_str(weight, "200", "cpu.weight shows the weight");
	} else {
		qpath = cg_file(mode, "cpu", "cpu.cfs_quota_us");
		wpath = cg_file(mode, "cpu", "cpu.shares");
		read_file_str(qpath, &quota);
		read_file_str(wpath, &weight);
		is_str(quota, "50000", "cpu.cfs_quota_us shows the quota");
		is_str(weight, "2048", "cpu.shares shows the weight (200*1024/100)");
	}

	r = bus_stop_unit(bus, unit, 30 * USEC_PER_SEC, &error);
	is_int(r, 0, "StopUnit job done");
	is_int(bus_wait_unit_gone(bus, unit, 5 * USEC_PER_SEC), 0, "unit is gone after the stop");
	dir = strdup(qpath);
	*strrchr(dir, '/') = 0;
	ok(stat(dir, &st) < 0 && errno == ENOENT, "cgroup %s is gone", dir);

	prop_parse("AllowedCPUs", "0", &allowed);
	r = context_check_prop(&allowed, CONTEXT_SERVICE, mode, &why);
	if (mode == CGROUP_UNIFIED)
		is_int(r, 0, "AllowedCPUs= applies to a service on cgroup v2");
	else
		ok(r == -EOPNOTSUPP && why, "AllowedCPUs= is refused on %s: %s", cgroup_mode_to_string(mode), strempty(why));
	prop_value_done(&allowed);
	for (size_t i = 0; i < p.n; i++)
		prop_value_done(&p.v[i]);
	return done_testing();
}

/* The service context in the sandbox's real systemd: the unit sits in
 * system.slice, CPUQuota= shows in cgroupfs, CPUAffinity= in the server's
 * affinity, the server answers, the stop leaves nothing, and a unit of the
 * same name that slicebench did not start is refused. */
#include <sched.h>
#include <sys/stat.h>

#include "bus.h"
#include "cgmode.h"
#include "context.h"
#include "tap.h"
#include "util.h"

static struct context ctx;

static void cleanup_ctx(void *arg)
{
	(void)arg;
	if (ctx.ops)
		ctx.ops->cleanup(&ctx);
}

int main(int argc, char **argv)
{
	_cleanup_free_ char *state = NULL, *run = NULL, *unit = NULL, *quota = NULL, *path = NULL, *byp = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	struct context_spec spec = { .name = "t032", .kind = CONTEXT_SERVICE, .n_props = 2 };
	enum cgroup_mode mode;
	struct server s = {};
	cpu_set_t set;
	struct stat st;
	sd_bus *bus = NULL;
	pid_t pid;
	int r;

	(void)argc;
	run_in_sandbox("container", argv);
	require("ROOT SYSTEMD MYSQLD");
	plan(11);
	mode = cgroup_mode_detect();
	chmod(scratch_dir(), 0755);
	xasprintf(&state, "%s/state", scratch_dir());
	xasprintf(&run, "%s/run", scratch_dir());
	struct server_config cfg = { .state_dir = state, .run_dir = run, .buffer_pool = "128M", .max_connections = 100 };
	if (server_setup(&cfg, &s) < 0)
		bail_out("server setup failed");
	on_exit_run(cleanup_ctx, NULL);
	prop_parse("CPUQuota", "50%", &spec.props[0]);
	prop_parse("CPUAffinity", "1", &spec.props[1]);

	ctx = (struct context){ .ops = context_ops_for(CONTEXT_SERVICE), .spec = &spec, .server = &s, .mode = mode };
	r = ctx.ops->start(&ctx);
	if (!is_int(r, 0, "service starts (job done after READY=1)"))
		bail_out("start: %s", strerror(-r));
	cmp_ok(ctx.pid, ">", 0, "MainPID known");
	is_int(server_wait_ready(&s, ctx.pid, 30 * NSEC_PER_SEC), 0, "server answers a ping");
	service_unit_name(&ctx, "service", &unit);
	bus_open_system(&bus);
	bus_get_unit_by_pid(bus, ctx.pid, &byp, &error);
	is_str(byp, unit, "GetUnitByPID names our unit");
	if (mode == CGROUP_UNIFIED)
		xasprintf(&path, "/sys/fs/cgroup/system.slice/%s/cpu.max", unit);
	else
		xasprintf(&path, "/sys/fs/cgroup/cpu/system.slice/%s/cpu.cfs_quota_us", unit);
	read_file_str(path, &quota);
	is_str(quota, mode == CGROUP_UNIFIED ? "50000 100000" : "50000", "CPUQuota=50%% in %s", path);
	CPU_ZERO(&set);
	r = sched_getaffinity(ctx.pid, sizeof(set), &set);
	ok(r == 0 && CPU_COUNT(&set) == 1 && CPU_ISSET(1, &set), "CPUAffinity=1 in force (%d CPUs)", CPU_COUNT(&set));

	pid = ctx.pid;
	is_int(ctx.ops->stop(&ctx), 0, "service stops and its unit is gone");
	*strrchr(path, '/') = 0;
	ok(stat(path, &st) < 0 && errno == ENOENT, "cgroup %s is gone", path);
	ok(kill(pid, 0) < 0 && errno == ESRCH, "server process is gone");
	ctx.ops->cleanup(&ctx);

	/* A foreign unit with our name: slicebench must refuse it. */
	r = system("systemd-run --quiet --unit slicebench-t032.service /bin/sleep 60");
	is_int(r, 0, "a foreign unit with the same name runs");
	ctx = (struct context){ .ops = context_ops_for(CONTEXT_SERVICE), .spec = &spec, .server = &s, .mode = mode };
	is_int(ctx.ops->start(&ctx), -EEXIST, "start refuses an existing unit");
	ctx.ops->cleanup(&ctx);
	ctx.ops = NULL;
	if (system("systemctl stop slicebench-t032.service") != 0)
		diag("could not stop the foreign unit");
	for (size_t i = 0; i < spec.n_props; i++)
		prop_value_done(&spec.props[i]);
	sd_bus_flush_close_unref(bus);
	server_done(&s);
	return done_testing();
}

/* The service and scope contexts in the sandbox's real systemd: the unit
 * sits in system.slice, CPUQuota= shows in cgroupfs, CPUAffinity= in the
 * server's affinity, the server answers, the stop leaves nothing, and a
 * unit of the same name that slicebench did not start is refused. */
#include <sched.h>
#include <sys/stat.h>

#include "slices/sys/bus.h"
#include "slices/sys/cgmode.h"
#include "slices/kinds/context.h"
#include "tap.h"
#include "testserver.h"
#include "common/util.h"

static struct context ctx;

static void cleanup_ctx(void *arg)
{
	(void)arg;
	if (ctx.ops)
		ctx.ops->cleanup(&ctx);
}

static void check_kind(enum context_kind kind, struct context_spec *spec, struct server *s, enum cgroup_mode mode)
{
	_cleanup_free_ char *unit = NULL, *quota = NULL, *path = NULL, *byp = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	const char *k = context_kind_to_string(kind);
	sd_bus *bus = NULL;
	cpu_set_t set;
	struct stat st;
	pid_t pid;
	int r;

	spec->kind = kind;
	ctx = (struct context){ .ops = context_ops_for(kind), .spec = spec, .server = s, .mode = mode };
	r = ctx.ops->start(&ctx);
	if (!is_int(r, 0, "%s starts", k))
		bail_out("start: %s", strerror(-r));
	cmp_ok(ctx.pid, ">", 0, "%s: server PID known", k);
	is_int(server_wait_ready(s, &ctx.pid, 30 * NSEC_PER_SEC, NULL), 0, "%s: server answers a ping", k);
	context_unit_name(&ctx, &unit);
	bus_open_system(&bus);
	bus_get_unit_by_pid(bus, ctx.pid, &byp, &error);
	is_str(byp, unit, "%s: GetUnitByPID names our unit", k);
	if (mode == CGROUP_UNIFIED)
		xasprintf(&path, "/sys/fs/cgroup/system.slice/%s/cpu.max", unit);
	else
		xasprintf(&path, "/sys/fs/cgroup/cpu/system.slice/%s/cpu.cfs_quota_us", unit);
	read_file_str(path, &quota);
	is_str(quota, mode == CGROUP_UNIFIED ? "50000 100000" : "50000", "%s: CPUQuota=50%% in %s", k, path);
	CPU_ZERO(&set);
	r = sched_getaffinity(ctx.pid, sizeof(set), &set);
	ok(r == 0 && CPU_COUNT(&set) == 1 && CPU_ISSET(1, &set), "%s: CPUAffinity=1 in force (%d CPUs)", k, CPU_COUNT(&set));

	pid = ctx.pid;
	is_int(ctx.ops->stop(&ctx), 0, "%s: server stops and its unit is gone", k);
	*strrchr(path, '/') = 0;
	ok(stat(path, &st) < 0 && errno == ENOENT, "%s: cgroup %s is gone", k, path);
	ok(kill(pid, 0) < 0 && errno == ESRCH, "%s: server process is gone", k);
	ctx.ops->cleanup(&ctx);
	ctx.ops = NULL;
	sd_bus_flush_close_unref(bus);
}

int main(int argc, char **argv)
{
	struct context_spec spec = { .name = "t032", .n_props = 2 };
	enum cgroup_mode mode;
	struct server s = {};

	(void)argc;
	run_in_sandbox(getenv("SLICEBENCH_SANDBOX_KIND") ? getenv("SLICEBENCH_SANDBOX_KIND") : "container", argv);
	require("ROOT SYSTEMD MYSQLD");
	plan(20);
	mode = cgroup_mode_detect();
	test_server_setup(NULL, &s);
	on_exit_run(cleanup_ctx, NULL);
	prop_parse("CPUQuota", "50%", &spec.props[0]);
	prop_parse("CPUAffinity", "1", &spec.props[1]);

	check_kind(CONTEXT_SERVICE, &spec, &s, mode);
	check_kind(CONTEXT_SCOPE, &spec, &s, mode);

	/* A foreign unit with our name: slicebench must refuse it. */
	is_int(system("systemd-run --quiet --unit slicebench-t032.service /bin/sleep 60"), 0,
	       "a foreign unit with the same name runs");
	spec.kind = CONTEXT_SERVICE;
	ctx = (struct context){ .ops = context_ops_for(CONTEXT_SERVICE), .spec = &spec, .server = &s, .mode = mode };
	is_int(ctx.ops->start(&ctx), -EEXIST, "start refuses an existing unit");
	ctx.ops->cleanup(&ctx);
	ctx.ops = NULL;
	if (system("systemctl stop slicebench-t032.service") != 0)
		diag("could not stop the foreign unit");
	for (size_t i = 0; i < spec.n_props; i++)
		prop_value_done(&spec.props[i]);
	server_done(&s);
	return done_testing();
}

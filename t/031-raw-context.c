/* The raw context with a real mariadbd: CPU settings in a libcgroup-made
 * cgroup read back from cgroupfs, CPUAffinity through sched_getaffinity,
 * session=new gives another autogroup than session=inherit, and nothing
 * is left after the stop. */
#include <sched.h>
#include <sys/stat.h>

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

static char *autogroup_of(pid_t pid)
{
	char path[64], *s = NULL, *sp;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)pid);
	if (read_file_str(path, &s) < 0)
		return NULL;
	sp = strchr(s, ' ');
	if (sp)
		*sp = 0;
	return s;
}

static char *cg_read(const char *ctl, const char *name, const char *file, enum cgroup_mode mode)
{
	char path[512], *s = NULL;
	if (mode == CGROUP_UNIFIED)
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/%s", name, file);
	else
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/%s/%s", ctl, name, file);
	read_file_str(path, &s);
	return s;
}

static void start_ready(struct context_spec *spec, struct server *s, enum cgroup_mode mode)
{
	int r;
	ctx = (struct context){ .ops = context_ops_for(CONTEXT_RAW), .spec = spec, .server = s, .mode = mode };
	r = ctx.ops->start(&ctx);
	if (!is_int(r, 0, "raw context %s starts", spec->name))
		bail_out("start: %s", strerror(-r));
	r = server_wait_ready(s, &ctx.pid, 60 * NSEC_PER_SEC, NULL);
	if (!is_int(r, 0, "server in %s answers a ping", spec->name)) {
		_cleanup_free_ char *tail = NULL;
		server_log_tail(s, 0, 10, &tail);
		diag("log: %s", strempty(tail));
	}
}

int main(void)
{
	_cleanup_free_ char *quota = NULL, *shares = NULL, *mine = NULL, *theirs = NULL;
	_cleanup_free_ char *cgname = NULL, *dir = NULL;
	struct context_spec spec = { .name = "pinned", .kind = CONTEXT_RAW, .session = SESSION_NEW, .n_props = 3 };
	struct context_spec plain = { .name = "plain", .kind = CONTEXT_RAW, .session = SESSION_INHERIT };
	enum cgroup_mode mode = cgroup_mode_detect();
	const struct prop_value *bad = NULL;
	const char *why = NULL;
	struct server s = {};
	cpu_set_t set;
	struct stat st;
	pid_t pid;
	int r;

	require("ROOT MYSQLD");
	plan(17);
	test_server_setup(NULL, &s);
	on_exit_run(cleanup_ctx, NULL);

	prop_parse("CPUQuota", "50%", &spec.props[0]);
	prop_parse("CPUWeight", "200", &spec.props[1]);
	prop_parse("CPUAffinity", "0", &spec.props[2]);
	is_int(context_validate(&spec, mode, &bad, &why), 0, "settings validate for raw on %s", cgroup_mode_to_string(mode));

	start_ready(&spec, &s, mode);
	cgname = strdup(ctx.cgroup_name);
	if (mode == CGROUP_UNIFIED) {
		quota = cg_read("cpu", cgname, "cpu.max", mode);
		shares = cg_read("cpu", cgname, "cpu.weight", mode);
		is_str(quota, "50000 100000", "cpu.max");
		is_str(shares, "200", "cpu.weight");
	} else {
		quota = cg_read("cpu", cgname, "cpu.cfs_quota_us", mode);
		shares = cg_read("cpu", cgname, "cpu.shares", mode);
		is_str(quota, "50000", "cpu.cfs_quota_us");
		is_str(shares, "2048", "cpu.shares from CPUWeight=200");
	}
	CPU_ZERO(&set);
	r = sched_getaffinity(ctx.pid, sizeof(set), &set);
	ok(r == 0 && CPU_COUNT(&set) == 1 && CPU_ISSET(0, &set), "server runs on CPU 0 only (%d CPUs)", CPU_COUNT(&set));
	mine = autogroup_of(getpid());
	theirs = autogroup_of(ctx.pid);
	ok(mine && theirs && !streq(mine, theirs), "session=new: own autogroup (%s vs ours %s)", strempty(theirs), strempty(mine));
	ok(getsid(ctx.pid) == ctx.pid, "session=new: the server leads its session");
	pid = ctx.pid;
	is_int(ctx.ops->stop(&ctx), 0, "raw stop");
	ctx.ops->cleanup(&ctx);
	if (mode == CGROUP_UNIFIED)
		xasprintf(&dir, "/sys/fs/cgroup/%s", cgname);
	else
		xasprintf(&dir, "/sys/fs/cgroup/cpu/%s", cgname);
	ok(stat(dir, &st) < 0 && errno == ENOENT, "cgroup %s is gone", dir);
	ok(kill(pid, 0) < 0 && errno == ESRCH, "no server process is left");

	free(theirs);
	start_ready(&plain, &s, mode);
	theirs = autogroup_of(ctx.pid);
	ok(mine && theirs && streq(mine, theirs), "session=inherit: our autogroup (%s)", strempty(theirs));
	ok(ctx.cgroup_name == NULL, "no settings, no cgroup");
	is_int(ctx.ops->stop(&ctx), 0, "raw stop");
	ctx.ops->cleanup(&ctx);

	{
		/* systemd ignores AllowedCPUs= on v1, but a raw cpuset takes it. */
		struct context_spec cpus = { .name = "cpus", .kind = CONTEXT_RAW, .n_props = 1 };
		prop_parse("AllowedCPUs", "0", &cpus.props[0]);
		is_int(context_validate(&cpus, mode, &bad, &why), 0, "AllowedCPUs= validates for raw on %s",
		       cgroup_mode_to_string(mode));
		prop_value_done(&cpus.props[0]);
	}
	for (size_t i = 0; i < spec.n_props; i++)
		prop_value_done(&spec.props[i]);
	server_done(&s);
	return done_testing();
}

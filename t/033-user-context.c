/* The user context in the sandbox: the server runs under its user's own
 * manager, in user.slice/user-UID.slice/user@UID.service/app.slice/, with
 * CPUAffinity= in force, and the stop leaves nothing. */
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>

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

int main(int argc, char **argv)
{
	_cleanup_free_ char *cg = NULL, *want = NULL, *cgpath = NULL;
	struct context_spec spec = { .name = "t033", .kind = CONTEXT_USER, .n_props = 1 };
	struct server s = {};
	struct passwd *pw;
	cpu_set_t set;
	pid_t pid;
	int r;

	(void)argc;
	run_in_sandbox(getenv("SLICEBENCH_SANDBOX_KIND") ? getenv("SLICEBENCH_SANDBOX_KIND") : "container", argv);
	require("ROOT SYSTEMD MYSQLD");
	plan(7);
	/* The sandbox's overlay is thrown away, so the user is too. */
	if (!getpwnam("slicebench-t") &&
	    system("useradd --system --create-home --home-dir /var/lib/slicebench-t slicebench-t") != 0)
		bail_out("cannot create the test user");
	pw = getpwnam("slicebench-t");
	test_server_setup("slicebench-t", &s);
	on_exit_run(cleanup_ctx, NULL);
	prop_parse("CPUAffinity", "1", &spec.props[0]);

	ctx = (struct context){ .ops = context_ops_for(CONTEXT_USER), .spec = &spec, .server = &s, .mode = cgroup_mode_detect() };
	r = ctx.ops->start(&ctx);
	if (!is_int(r, 0, "user context starts"))
		bail_out("start: %s", strerror(-r));
	cmp_ok(ctx.pid, ">", 0, "server PID known");
	is_int(server_wait_ready(&s, &ctx.pid, 30 * NSEC_PER_SEC, NULL), 0, "server answers a ping");
	xasprintf(&cgpath, "/proc/%d/cgroup", (int)ctx.pid);
	read_file_str(cgpath, &cg);
	xasprintf(&want, "user.slice/user-%u.slice/user@%u.service/app.slice/slicebench-t033.service", (unsigned)pw->pw_uid,
		  (unsigned)pw->pw_uid);
	ok(cg && strstr(cg, want), "server's cgroup is under %s", want);
	if (cg && !strstr(cg, want))
		diag("%s", cg);
	CPU_ZERO(&set);
	r = sched_getaffinity(ctx.pid, sizeof(set), &set);
	ok(r == 0 && CPU_COUNT(&set) == 1 && CPU_ISSET(1, &set), "CPUAffinity=1 in force (%d CPUs)", CPU_COUNT(&set));
	pid = ctx.pid;
	is_int(ctx.ops->stop(&ctx), 0, "server stops and its unit is gone");
	ok(kill(pid, 0) < 0 && errno == ESRCH, "server process is gone");
	ctx.ops->cleanup(&ctx);
	ctx.ops = NULL;
	prop_value_done(&spec.props[0]);
	server_done(&s);
	return done_testing();
}

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "testserver.h"
#include "common/util.h"
#include "managed/managed.h"

static void stop_server(void *arg)
{
	pid_t pid = (pid_t)(intptr_t)arg;

	if (kill(pid, 0) == 0)
		process_stop(pid, SIGTERM, 30 * NSEC_PER_SEC, NULL);
}

void test_server_setup(const char *user, struct server *ret)
{
	_cleanup_free_ char *state = NULL, *run = NULL;
	int r;

	/* The server's own user has to reach the datadir under the scratch dir. */
	chmod(scratch_dir(), 0755);
	/* A fresh machine has no slicebench account: a run makes it first. */
	r = managed_ensure_user(user ? user : SERVER_DEFAULT_USER);
	if (r < 0)
		bail_out("the account %s: %s", user ? user : SERVER_DEFAULT_USER, strerror(-r));
	xasprintf(&state, "%s/state", scratch_dir());
	xasprintf(&run, "%s/run", scratch_dir());
	struct server_config cfg = { .state_dir = state, .run_dir = run, .user = user, .buffer_pool = "128M",
				     .max_connections = 1100 };
	r = server_setup(&cfg, ret);
	if (r < 0)
		bail_out("server setup in %s: %s", state, strerror(-r));
}

pid_t test_server_fork(const struct server *s)
{
	char **argv = NULL;
	pid_t pid;
	int r;

	if (server_argv(s, &argv) < 0)
		bail_out("server argv");
	pid = fork();
	if (pid < 0)
		bail_out("fork: %m");
	if (pid == 0) {
		execv(argv[0], argv);
		execvp(argv[0], argv);
		_exit(127);
	}
	strv_free(argv);
	on_exit_run(stop_server, (void *)(intptr_t)pid);
	r = server_wait_ready(s, &(pid_t){ pid }, 60 * NSEC_PER_SEC, NULL);
	if (r < 0) {
		_cleanup_free_ char *tail = NULL;

		server_log_tail(s, 0, 10, &tail);
		bail_out("server did not become ready (%s): %s", strerror(-r), strempty(tail));
	}
	return pid;
}

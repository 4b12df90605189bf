/* The managed server with a real mariadbd: a datadir made once and marked,
 * a 0700 socket directory, readiness by ping, a clean stop, and a datadir
 * that slicebench did not make is refused. */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "slices/server/server.h"
#include "tap.h"
#include "common/util.h"

static pid_t server_pid;

static void kill_server(void *arg)
{
	(void)arg;
	if (server_pid > 0)
		process_stop(server_pid, SIGTERM, 10 * NSEC_PER_SEC, NULL);
}

int main(void)
{
	_cleanup_free_ char *state = NULL, *run = NULL, *marker = NULL, *foreign = NULL, *foreign_dd = NULL;
	struct server s = {}, s2 = {};
	char **argv = NULL;
	struct stat st;
	int r, status = 0;

	require("ROOT MYSQLD");
	plan(8);
	chmod(scratch_dir(), 0755);
	xasprintf(&state, "%s/state", scratch_dir());
	xasprintf(&run, "%s/run", scratch_dir());
	struct server_config cfg = { .state_dir = state, .run_dir = run, .user = "mysql", .buffer_pool = "128M",
				     .max_connections = 100 };

	r = server_setup(&cfg, &s);
	if (!is_int(r, 0, "server_setup creates the datadir"))
		bail_out("cannot set up: %s", strerror(-r));
	xasprintf(&marker, "%s/.slicebench-datadir", s.datadir);
	ok(access(marker, F_OK) == 0, "the datadir carries slicebench's marker");
	_cleanup_free_ char *sock_dir = strndup(s.socket, (size_t)(strrchr(s.socket, '/') - s.socket));
	r = stat(sock_dir, &st);
	ok(r == 0 && (st.st_mode & 0777) == 0700 && strncmp(sock_dir, run, strlen(run)) == 0,
	   "socket directory %s is 0700 (%o)", sock_dir, st.st_mode & 0777);

	on_exit_run(kill_server, NULL);
	server_argv(&s, &argv);
	server_pid = fork();
	if (server_pid == 0) {
		execv("/usr/sbin/mariadbd", argv);
		execvp(argv[0], argv);
		_exit(127);
	}
	strv_free(argv);
	r = server_wait_ready(&s, &(pid_t){ server_pid }, 60 * NSEC_PER_SEC, NULL);
	if (!is_int(r, 0, "server answers a ping over its socket")) {
		_cleanup_free_ char *tail = NULL;
		server_log_tail(&s, 0, 10, &tail);
		diag("log: %s", strempty(tail));
	}
	is_int(process_stop(server_pid, SIGTERM, 30 * NSEC_PER_SEC, &status), 0, "server stops");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server exited cleanly on SIGTERM (status %d)", status);
	server_pid = 0;

	is_int(server_setup(&cfg, &s2), 0, "a second setup reuses the marked datadir");
	server_done(&s2);

	xasprintf(&foreign, "%s/foreign", scratch_dir());
	xasprintf(&foreign_dd, "%s/datadir", foreign);
	mkdir_p(foreign_dd, 0755);
	struct server_config fcfg = cfg;
	fcfg.state_dir = foreign;
	is_int(server_setup(&fcfg, &s2), -EEXIST, "a datadir without the marker is refused");
	server_done(&s);
	return done_testing();
}

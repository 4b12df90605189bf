/* The managed server with a real mariadbd: a datadir made once and marked,
 * a 0700 socket directory, readiness by ping, a clean stop, and a datadir
 * that slicebench did not make is refused.  The proxies' accounts on it:
 * ProxySQL's with a drawn password kept in a configuration only the
 * server's user reaches, haproxy's by the socket's peer alone. */
#include <mysql.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "slices/server/proxy.h"
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

/* Does user log in over the server's socket with password? */
static bool logs_in(const struct server *s, const char *user, const char *password)
{
	MYSQL *m = mysql_init(NULL);
	bool ok = m && mysql_real_connect(m, NULL, user, password, NULL, 0, s->socket, 0);

	mysql_close(m);
	return ok;
}

static void proxy_accounts(const struct server *s)
{
	const char *proxysql = proxy_engine_named("proxysql")->as_server.binary;
	_cleanup_free_ char *text = NULL, *wrong = NULL;
	struct server px = {}, hx = {};
	struct stat st = {};

	is_int(proxy_setup(proxy_engine_named("proxysql"), "/bin/true", "chain", 0, s, 100, &px), 0,
	       "%s's setup draws a password", proxysql);
	ok(px.password && strlen(px.password) == 32 && read_file_str(px.cnf, &text) >= 0 && strstr(text, px.password) &&
		   stat(px.datadir, &st) == 0 && (st.st_mode & 0777) == 0700 && strncmp(px.cnf, px.datadir, strlen(px.datadir)) == 0,
	   "its configuration %s holds it, in a 0700 directory of the server's user's (%o)", px.cnf, st.st_mode & 0777);
	is_int(proxy_account(&px, s), 0, "the proxy's account is made on the running server");
	ok(logs_in(s, s->user, px.password), "it logs in with the password");
	xasprintf(&wrong, "%.31sx", px.password);
	ok(!logs_in(s, s->user, wrong), "and not with another");
	is_int(proxy_setup(proxy_engine_named("haproxy"), NULL, "chain", 0, s, 100, &hx), 0, "haproxy's setup has no password");
	ok(!hx.password && proxy_account(&hx, s) == 0 && !logs_in(s, s->user, px.password),
	   "its account is the socket's peer alone: ProxySQL's password is gone");
	server_done(&px);
	server_done(&hx);
}

int main(void)
{
	_cleanup_free_ char *state = NULL, *run = NULL, *marker = NULL, *foreign = NULL, *foreign_dd = NULL;
	struct server s = {}, s2 = {};
	char **argv = NULL;
	struct stat st;
	int r, status = 0;

	require("ROOT MYSQLD");
	plan(15);
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
	proxy_accounts(&s);
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

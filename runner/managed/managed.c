/* The managed server: where its state lives, the dedicated user it runs
 * as, the set-up before the first start, and a start in a context that is
 * only done when the server answers (and is recorded for cleanup before
 * it is waited for). */
#include <pwd.h>
#include <sys/stat.h>
#include <stdio.h>

#include "slices/sys/bus.h"
#include "slices/server/proxy.h"
#include "managed/managed.h"
#include "managed/state.h"
#include "common/spawn.h"
#include "common/text.h"
#include "common/util.h"

void managed_config_default(struct server_config *cfg)
{
	const char *state = getenv("SLICEBENCH_STATE_DIR"), *run = getenv("SLICEBENCH_RUN_DIR");

	if (!cfg->state_dir)
		cfg->state_dir = state && *state ? state : "/var/lib/slicebench";
	if (!cfg->run_dir)
		cfg->run_dir = run && *run ? run : "/run/slicebench";
	server_config_fill(cfg);
}

/* The environment's directories root writes in and names in the server's
 * option file: SLICEBENCH_STATE_DIR and SLICEBENCH_RUN_DIR.  run: whether
 * root alone must be able to change it (the run directory; the state
 * directory's owner is checked as it is locked, which takes back one of
 * the old layout's). */
static const struct dir_env {
	const char *name;
	bool run;
} dir_envs[] = {
	{ "SLICEBENCH_STATE_DIR", false },
	{ "SLICEBENCH_RUN_DIR", true },
};

static const char *dir_env_refusal(const struct dir_env *d, const char *path)
{
	struct stat st;

	if (path[0] != '/')
		return "not an absolute path";
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
			return "a blank, a control character or a byte past ASCII in it (an installer would split it, "
			       "an option file would take it as a line of its own)";
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? NULL : "cannot be looked at";
	if (S_ISLNK(st.st_mode))
		return "a symbolic link";
	if (!S_ISDIR(st.st_mode))
		return "not a directory";
	if (d->run && dir_check_trusted(path) < 0)
		return "not a directory of root's that no one else can change (nor is every directory above it)";
	return NULL;
}

int managed_check_environment(char **ret_msg)
{
	for (size_t i = 0; i < ELEMENTSOF(dir_envs); i++) {
		const char *value = getenv(dir_envs[i].name), *why;

		if (value && *value && (why = dir_env_refusal(&dir_envs[i], value))) {
			_cleanup_free_ char *shown = text_escape(value);

			return xasprintf(ret_msg, "%s=%s: refused: %s", dir_envs[i].name, strempty(shown), why) < 0 ? -ENOMEM
														      : -EINVAL;
		}
	}
	return 0;
}

int managed_ensure_user(const char *name)
{
	/* No home and no shell: the user only owns the datadir. */
	char *const argv[] = { "useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell",
			       "/usr/sbin/nologin", (char *)name, NULL };
	int r;

	if (getpwnam(name))
		return 0;
	if (!name_is_valid(name))
		return -EINVAL;
	r = spawn_wait(argv, NULL, NULL);
	if (r < 0 && r != -EIO)
		return r;
	return r == 0 && getpwnam(name) ? 0 : -EPERM;
}

/* The state directory holds the datadir (its parent). */
char *managed_state_dir(const struct server *s)
{
	char *slash = strrchr(s->datadir, '/');

	return slash ? strndup(s->datadir, (size_t)(slash - s->datadir)) : strdup(".");
}

static char *state_dir_of(const struct context *c)
{
	return managed_state_dir(c->server);
}

/* The systemd kinds need a manager; say so before anything starts. */
static int check_manager(const struct context *c, char **ret_msg)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_free_ char *pid1 = NULL;
	int r;

	if (c->ops->manager == MANAGER_NONE)
		return 0;
	r = bus_open_system(&bus);
	if (r >= 0)
		return 0;
	(void)read_file_str("/proc/1/comm", &pid1);
	if (ret_msg)
		xasprintf(ret_msg,
			  "the system bus cannot be reached and PID 1 is %s, not systemd; run it under "
			  "`slicebench sandbox` or use the raw context",
			  pid1 ? pid1 : "unknown");
	return r;
}

int managed_start(struct context *c, char **ret_msg)
{
	_cleanup_free_ char *state_dir = state_dir_of(c), *tail = NULL;
	long log_start = server_log_size(c->server);
	pid_t other = 0;
	int r;

	if (!state_dir)
		return -ENOMEM;
	r = check_manager(c, ret_msg);
	if (r < 0)
		return r;
	r = c->ops->start(c);
	/* Recorded before the wait, so that a SIGKILL while the server comes up
	 * still leaves a trace for cleanup. */
	if (r >= 0)
		r = state_record(state_dir, c);
	if (r >= 0)
		r = server_wait_ready(c->server, &c->pid, 120 * NSEC_PER_SEC, &other);
	if (r < 0) {
		if (ret_msg && r == -EADDRINUSE)
			xasprintf(ret_msg, "%s answers for another server (PID %d), not the one just started",
				  c->server->socket, (int)other);
		else if (ret_msg && r != -EINTR && server_log_tail(c->server, log_start, 5, &tail) >= 0 && tail)
			xasprintf(ret_msg, "%s%s%sthe %s's log says:\n%s", strempty(c->failure), c->failure ? "; " : "",
				  r == -ECHILD ? "it exited before it answered; " : "",
				  proxy_engine_of(c->server->engine) ? "proxy" : "server", tail);
		else if (ret_msg && c->failure) {
			*ret_msg = c->failure;
			c->failure = NULL;
		}
		/* No stop signal and grace: a server that never answered holds
		 * nothing to flush, and mariadbd starting up ignores SIGTERM, so
		 * that a ^C there waited the whole 60 s grace.  cleanup kills. */
		c->ops->cleanup(c);
		state_forget(state_dir, c);
	}
	free(c->failure);
	c->failure = NULL;
	return r;
}

int managed_stop(struct context *c)
{
	_cleanup_free_ char *state_dir = state_dir_of(c);
	int r = c->ops->stop(c);
	struct stat st;

	c->ops->cleanup(c);
	/* A proxy killed mid-step leaves its socket, which no one else
	 * listens on (one unit runs at a time): nothing of it stays. */
	if (proxy_engine_of(c->server->engine) && lstat(c->server->socket, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)unlink(c->server->socket);
	if (state_dir)
		state_forget(state_dir, c);
	return r;
}

#define TRUST_HINT " (slicebench acts on what it finds there: it must be a directory of root's that no one else can write, and so must every directory above it)"

int managed_setup(const char *verb, const struct server_config *cfg, struct server *ret)
{
	struct passwd *pw;
	int holder = 0, r;

	r = state_lock(cfg->state_dir, &holder);
	if (r == -EBUSY)
		return log_error_errno(r, "%s: another slicebench (PID %d) is using %s; one run per state directory at a time",
				 verb, holder, cfg->state_dir);
	if (r < 0)
		return log_error_errno(r, "%s: cannot lock %s/lock: %m%s", verb, cfg->state_dir,
				       r == -EPERM || r == -ELOOP ? TRUST_HINT : "");
	r = state_cleanup(cfg->state_dir, stderr);
	if (r > 0)
		log_info("%s: removed what %d earlier run(s) left behind", verb, r);
	/* What starts is recorded there, and cleanup trusts the records. */
	r = state_live_dir(cfg->state_dir, NULL);
	if (r < 0)
		return log_error_errno(r, "%s: %s/live: %m%s", verb, cfg->state_dir,
				       r == -EPERM ? ": refused, since cleanup trusts the records there (a directory of root's "
						     "that no one else can write)" : ""), r;
	r = managed_ensure_user(cfg->user);
	if (r < 0)
		return log_error_errno(r, "%s: cannot create the server's user %s: %m", verb, cfg->user);
	pw = getpwnam(cfg->user);
	if (pw && pw->pw_uid == 0)
		return log_error_errno(-EPERM, "%s: the server's user %s is root: refused, since a server running as root leaves "
				 "files in the datadir that the unprivileged server of every later run cannot open",
				 verb, cfg->user);
	r = server_setup(cfg, ret);
	if (r < 0)
		return log_error_errno(r, "%s: cannot set up the server in %s: %m%s", verb, cfg->state_dir,
				       r == -EACCES ? " (its user must be able to reach every directory above it)"
				       : r == -EEXIST ? " (a datadir there that slicebench did not make; refusing to touch it)"
				       : r == -EPERM  ? " (the socket's directory under the run directory belongs to someone else)"
				       : r == -EINTR  ? " (interrupted; the half-made datadir is removed)"
				       : r == -EINVAL ? " (the state and run directories are absolute paths without a blank or a "
							"control character)"
						      : "");
	return 0;
}


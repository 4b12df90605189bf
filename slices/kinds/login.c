/* login: the server started from inside a real logind session, as a DBA
 * starts it from an ssh shell.  A helper (the "shell") becomes a session
 * leader, opens a PAM session for the server's user with the login
 * service's stack (pam_systemd, pam_loginuid, pam_limits, pam_env, as
 * sshd and su -l do), so that logind moves it into session-N.scope under
 * user-UID.slice; then it forks the server with a login shell's
 * environment and the exec settings applied, waits for it and closes the
 * session.  The server runs as its user (User=, applied in its child as
 * raw does), never as root.  Cgroup settings are refused: the scope
 * is logind's.  raw stays the kind for "no systemd at all". */
#include <fcntl.h>
#include <pwd.h>
#include <security/pam_appl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "slices/kinds/context.h"
#include "common/util.h"

#define LOGIN_PAM_SERVICE "login"

struct login_priv {
	pid_t helper;
};

/* No conversation: pam_open_session asks nothing, auth is not run. */
static int no_conversation(int n _unused_, const struct pam_message **msg _unused_, struct pam_response **resp,
			   void *data _unused_)
{
	*resp = NULL;
	return PAM_CONV_ERR;
}

/* A login shell's environment (su -l's: HOME, SHELL, USER, LOGNAME, PATH,
 * and TERM and LANG kept) plus what the PAM session exports
 * (XDG_SESSION_ID, XDG_RUNTIME_DIR, pam_env's files). */
static int login_environment(pam_handle_t *pamh, const struct passwd *pw)
{
	const char *term = getenv("TERM"), *lang = getenv("LANG");
	_cleanup_free_ char *t = term ? strdup(term) : NULL, *l = lang ? strdup(lang) : NULL;
	char **pam_env = pam_getenvlist(pamh);

	if (clearenv() != 0)
		return -ENOMEM;
	if (setenv("HOME", pw->pw_dir, 1) < 0 || setenv("SHELL", pw->pw_shell, 1) < 0 || setenv("USER", pw->pw_name, 1) < 0 ||
	    setenv("LOGNAME", pw->pw_name, 1) < 0 || setenv("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", 1) < 0)
		return -errno;
	if ((t && setenv("TERM", t, 1) < 0) || (l && setenv("LANG", l, 1) < 0))
		return -errno;
	for (char **e = pam_env; e && *e; e++) {
		putenv(*e); /* the strings now belong to the environment */
	}
	free(pam_env);
	return 0;
}

/* The helper: session leader, PAM session, then the server as its child.
 * Reports the server's PID (or 0 and an exit) on fd. */
static _Noreturn void helper_main(const struct context *c, int fd)
{
	struct pam_conv conv = { .conv = no_conversation };
	pam_handle_t *pamh = NULL;
	struct passwd *pw = getpwnam(c->server->user);
	int gate = -EBADF, status = 0, r;
	pid_t server;

	/* It outlives a kept server's verb: nothing of the verb's (the state
	 * directory's lock above all) stays open in it. */
	if ((fd > 3 && close_range(3, (unsigned)fd - 1, 0) < 0) || close_range((unsigned)fd + 1, ~0U, 0) < 0)
		_exit(121);
	if (!pw || setsid() < 0)
		_exit(121);
	r = pam_start(LOGIN_PAM_SERVICE, pw->pw_name, &conv, &pamh);
	if (r == PAM_SUCCESS)
		r = pam_open_session(pamh, PAM_SILENT);
	if (r != PAM_SUCCESS)
		_exit(122);
	if (login_environment(pamh, pw) < 0)
		_exit(120);
	/* The server: exec settings applied, then exec, as raw does. */
	r = spawn_server_gated(c, &server, &gate);
	if (r < 0 || write(fd, &server, sizeof(server)) != sizeof(server) || release_child(gate) < 0)
		_exit(119);
	close(fd);
	while (waitpid(server, &status, 0) < 0 && errno == EINTR)
		;
	pam_close_session(pamh, PAM_SILENT);
	pam_end(pamh, PAM_SUCCESS);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

static int login_start(struct context *c)
{
	struct login_priv *p = calloc(1, sizeof(*p));
	int fds[2], status;
	pid_t server = 0;
	ssize_t n;

	if (!p)
		return -ENOMEM;
	c->priv = p;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	/* A child that exits instead of exec'ing would flush our buffers twice. */
	fflush(NULL);
	p->helper = fork();
	if (p->helper < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (p->helper == 0) {
		close(fds[0]);
		helper_main(c, fds[1]);
	}
	close(fds[1]);
	n = read(fds[0], &server, sizeof(server));
	close(fds[0]);
	if (n != sizeof(server) || server <= 0) {
		waitpid(p->helper, &status, 0);
		p->helper = 0;
		context_note_failure(c, "the login session (pam_start/pam_open_session with the login service)", -EIO,
				     NULL);
		return -EIO;
	}
	c->pid = server;
	return 0;
}

/* The server is the helper's child: the engine's stop signal to it, and the helper, which
 * waits for it, closes the session and exits.  SIGKILL after 60 s. */
static int login_stop(struct context *c)
{
	struct login_priv *p = c->priv;
	uint64_t deadline = now_ns() + 60 * NSEC_PER_SEC;
	pid_t w = 0;

	if (c->pid > 0 && kill(c->pid, c->server->engine->stop_signal) < 0 && errno != ESRCH)
		return -errno;
	while (p && p->helper > 0 && (w = waitpid(p->helper, NULL, WNOHANG)) == 0 && now_ns() < deadline)
		usleep(20000);
	if (p && p->helper > 0 && w == 0) {
		kill(c->pid, SIGKILL);
		waitpid(p->helper, NULL, 0);
	}
	if (p)
		p->helper = 0;
	c->pid = 0;
	return 0;
}

static void login_cleanup(struct context *c)
{
	struct login_priv *p = c->priv;

	if (c->pid > 0)
		kill(c->pid, SIGKILL);
	if (p && p->helper > 0)
		waitpid(p->helper, NULL, 0);
	c->pid = 0;
	free(p);
	c->priv = NULL;
}

const struct context_ops context_login_ops = {
	.name = "login",
	.exec_by_systemd = false,
	.cgroup = CGROUP_BY_NOBODY,
	.manager = MANAGER_SYSTEM,
	.start = login_start,
	.stop = login_stop,
	.cleanup = login_cleanup,
};

#include "slices/around/neighbour.h"

#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "slices/sys/bus.h"
#include "slices/sys/cgfs.h"
#include "slices/server/server.h"
#include "common/spawn.h"
#include "common/util.h"

const struct word neighbour_kind_words[] = {
	{ "hog", NEIGHBOUR_HOG },
	{ "command", NEIGHBOUR_COMMAND },
	{ "oltp", NEIGHBOUR_OLTP },
	{},
};

static void note(struct neighbour *n, const char *what, int r, const sd_bus_error *error)
{
	bus_note_failure(&n->failure, r, error, "made by this run", "neighbour %s: %s", n->spec->name, what);
}

int neighbour_argv(const struct neighbour_spec *spec, const struct server *srv, char ***ret)
{
	const struct neighbour_spec *s = spec;
	char self[PATH_MAX], threads[16], duty[16];
	char **argv;
	ssize_t len;
	size_t n = 0;

	if (s->kind == NEIGHBOUR_COMMAND) {
		while (s->argv[n])
			n++;
		argv = calloc(n + 1, sizeof(char *));
		for (size_t i = 0; argv && i < n; i++)
			if (!(argv[i] = strdup(s->argv[i]))) {
				strv_free(argv);
				return -ENOMEM;
			}
		*ret = argv;
		return argv ? 0 : -ENOMEM;
	}
	if (s->kind == NEIGHBOUR_OLTP)
		return srv ? server_argv(srv, ret) : -EINVAL;
	/* The hog is this very binary, whatever its path. */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0)
		return -errno;
	self[len] = 0;
	snprintf(threads, sizeof(threads), "%u", s->threads);
	snprintf(duty, sizeof(duty), "%u", s->duty);
	argv = calloc(9, sizeof(char *));
	if (!argv)
		return -ENOMEM;
	/* Until the run stops it: the step's length is the run's to decide. */
	const char *words[] = { self, "hog", "--threads", threads, "--duty", duty, "--duration", "infinity" };
	for (size_t i = 0; i < ELEMENTSOF(words); i++)
		if (!(argv[i] = strdup(words[i]))) {
			strv_free(argv);
			return -ENOMEM;
		}
	*ret = argv;
	return 0;
}

struct gated {
	int gate[2];
	const struct passwd *pw; /* the account it runs as */
};

/* In the child: a session of its own, so that the terminal's ^C is the
 * run's to handle and not the neighbour's; its output out of the run's;
 * then it waits until the parent has placed it (EOF: the parent gave up),
 * and becomes its account. */
static int gated_setup(void *userdata)
{
	struct gated *g = userdata;
	int null;
	char go;

	close(g->gate[1]);
	if (read(g->gate[0], &go, 1) != 1)
		return 126;
	close(g->gate[0]);
	if (setsid() < 0)
		return 125;
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0 && dup2(null, STDOUT_FILENO) < 0)
		return 125;
	return server_drop_privileges(g->pw) < 0 ? 125 : 0;
}

static int append_scope(sd_bus_message *m, void *userdata)
{
	const struct neighbour *n = userdata;
	int r;

	r = sd_bus_message_append(m, "(sv)(sv)(sv)(sv)", "Description", "s", "slicebench neighbour", /* s */
				  "PIDs", "au", 1, (uint32_t)n->pid,				      /* au */
				  /* its own cpu cgroup on v1 too, whose usage is its CPU time */
				  "CPUAccounting", "b", 1,						      /* b */
				  "CollectMode", "s", "inactive-or-failed");				      /* s */
	if (r >= 0 && n->slice)
		r = sd_bus_message_append(m, "(sv)", "Slice", "s", n->slice); /* s */
	return r;
}

/* Its place, before the child may run: the scope, or its cgroup. */
static int place(struct neighbour *n)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	int r;

	if (!n->by_systemd) {
		r = cgfs_attach(n->mode, n->cgroup, n->pid);
		if (r < 0)
			note(n, n->cgroup, r, NULL);
		return r;
	}
	r = bus_start_transient_unit(n->bus, n->unit, append_scope, n, 60 * USEC_PER_SEC, &error);
	if (r < 0)
		note(n, n->unit, r, &error);
	return r;
}

/* Names its scope or makes its cgroup, refusing one that is there already. */
static int make_place(struct neighbour *n)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	int r;

	if (!n->by_systemd) {
		r = xasprintf(&n->cgroup, "%s%sslicebench-raw-neighbour-%s-%d", strempty(n->slice), n->slice ? "/" : "",
			      n->spec->name, (int)getpid());
		if (r < 0)
			return r;
		r = cgfs_make(n->mode, n->cgroup);
		if (r < 0) {
			note(n, n->cgroup, r, NULL);
			/* Not made, so not ours to remove. */
			free(n->cgroup);
			n->cgroup = NULL;
		}
		return r;
	}
	r = xasprintf(&n->unit, "slicebench-neighbour-%s-%d.scope", n->spec->name, (int)getpid());
	if (r >= 0)
		r = bus_open_system(&n->bus);
	if (r >= 0)
		r = bus_unit_exists(n->bus, n->unit, &error);
	if (r > 0)
		r = -EEXIST;
	if (r < 0) {
		note(n, n->unit ? n->unit : "scope", r, &error);
		/* Not ours: stop must not touch it. */
		free(n->unit);
		n->unit = NULL;
	}
	return r;
}

/* Its own cgroup's CPU time, if the cgroup counting it is its own: on a v1
 * host whose cpuacct is a hierarchy apart from cpu's, systemd may leave a
 * scope in its parent's there, which counts others too.  Then only the
 * process's own CPU time is known (cpu_dir NULL). */
static void usage_dir(struct neighbour *n)
{
	const char *leaf = n->unit ? n->unit : n->cgroup ? strrchr(n->cgroup, '/') ?: n->cgroup : NULL;
	size_t len;

	if (!leaf || cgroup_usage_dir(n->pid, n->mode, &n->cpu_dir) < 0)
		return;
	leaf += *leaf == '/';
	len = strlen(n->cpu_dir);
	if (len > strlen(leaf) && streq(n->cpu_dir + len - strlen(leaf), leaf) && n->cpu_dir[len - strlen(leaf) - 1] == '/')
		return;
	free(n->cpu_dir);
	n->cpu_dir = NULL;
}

int neighbour_start(struct neighbour *n)
{
	struct gated g = { .gate = { -EBADF, -EBADF }, .pw = n->user ? getpwnam(n->user) : NULL };
	int *gate = g.gate;
	char **argv = NULL;
	ssize_t w;
	int r;

	if (!g.pw || g.pw->pw_uid == 0) {
		note(n, "its account (the server's, never root)", -EPERM, NULL);
		return -EPERM;
	}
	r = make_place(n);
	if (r < 0)
		return r;
	r = neighbour_argv(n->spec, n->server, &argv);
	if (r >= 0)
		r = pipe2(gate, O_CLOEXEC) < 0 ? -errno : spawn(argv, gated_setup, &g, &n->pid);
	strv_free(argv);
	if (gate[0] >= 0)
		close(gate[0]);
	if (r < 0)
		note(n, "start", r, NULL);
	if (r >= 0)
		r = place(n);
	if (r >= 0) {
		w = write(gate[1], "g", 1);
		r = w == 1 ? 0 : -errno;
	}
	if (gate[1] >= 0)
		close(gate[1]);
	if (r >= 0)
		usage_dir(n);
	if (r < 0)
		neighbour_stop(n);
	return r;
}

int neighbour_wait_ready(struct neighbour *n)
{
	_cleanup_free_ char *tail = NULL;
	int r;

	if (n->spec->kind != NEIGHBOUR_OLTP)
		return 0;
	r = server_wait_ready(n->server, &n->pid, 120 * NSEC_PER_SEC, NULL);
	if (r < 0 && !n->failure) {
		(void)server_log_tail(n->server, 0, 3, &tail);
		xasprintf(&n->failure, "neighbour %s: %s%s%s", n->spec->name,
			  r == -ECHILD	    ? "its server exited before it answered"
			  : r == -EINTR	    ? "interrupted while its server came up"
			  : r == -EADDRINUSE ? "its server's socket answers for another server"
					    : "its server did not answer in time",
			  tail ? "; its log says: " : "", strempty(tail));
	}
	if (r < 0)
		neighbour_stop(n);
	return r;
}

static void note_exit(struct neighbour *n, int status)
{
	const char *what = n->spec->kind == NEIGHBOUR_OLTP ? "'s server" : "";

	if (n->failure)
		return;
	if (WIFSIGNALED(status))
		xasprintf(&n->failure, "neighbour %s%s was killed by signal %d during the step", n->spec->name, what,
			  WTERMSIG(status));
	else if (WEXITSTATUS(status) == 127)
		xasprintf(&n->failure, "neighbour %s: its command could not be executed", n->spec->name);
	else
		xasprintf(&n->failure, "neighbour %s%s exited with status %d during the step", n->spec->name, what,
			  WEXITSTATUS(status));
}

int neighbour_check(struct neighbour *n)
{
	int status;
	pid_t w;

	if (n->pid <= 0)
		return -ECHILD;
	w = waitpid(n->pid, &status, WNOHANG);
	if (w == 0)
		return 0;
	if (w == n->pid) {
		note_exit(n, status);
		n->pid = 0;
	}
	return -ECHILD;
}

void neighbour_stop(struct neighbour *n)
{
	struct stat st;

	if (n->pid > 0) {
		/* Its whole session: a command may have started children. */
		(void)kill(-n->pid, SIGTERM);
		(void)process_stop(n->pid, SIGTERM, 10 * NSEC_PER_SEC, NULL);
		(void)kill(-n->pid, SIGKILL);
		n->pid = 0;
	}
	/* A server that died (or was killed above) leaves its socket; its
	 * process is gone now, and the socket's directory is its own. */
	if (n->spec->kind == NEIGHBOUR_OLTP && n->server && lstat(n->server->socket, &st) == 0 && S_ISSOCK(st.st_mode))
		(void)unlink(n->server->socket);
	if (n->bus && n->unit) {
		/* An empty scope stops by itself; one still holding a child of
		 * the command is stopped, which kills what is left. */
		if (bus_wait_unit_gone(n->bus, n->unit, 5 * USEC_PER_SEC) < 0)
			(void)bus_stop_unit(n->bus, n->unit, 30 * USEC_PER_SEC, NULL);
		bus_reset_failed_unit(n->bus, n->unit);
	}
	if (n->cgroup)
		(void)cgfs_remove(n->mode, n->cgroup);
	free(n->unit);
	free(n->cgroup);
	free(n->cpu_dir);
	n->unit = n->cgroup = n->cpu_dir = NULL;
	n->bus = sd_bus_flush_close_unref(n->bus);
}

void neighbour_done(struct neighbour *n)
{
	neighbour_stop(n);
	free(n->failure);
	n->failure = NULL;
}

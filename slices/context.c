#include "slices/context.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "common/util.h"

const struct context_ops *context_ops_for(enum context_kind kind)
{
	static const struct context_ops *const ops[] = {
		[CONTEXT_SERVICE] = &context_service_ops,
		[CONTEXT_USER] = &context_user_ops,
		[CONTEXT_SCOPE] = &context_scope_ops,
		[CONTEXT_RAW] = &context_raw_ops,
	};
	return (size_t)kind < ELEMENTSOF(ops) ? ops[kind] : NULL;
}

int context_validate(const struct context_spec *spec, enum cgroup_mode mode, const struct prop_value **ret_prop,
		     const char **ret_why)
{
	if (!context_ops_for(spec->kind)) {
		*ret_prop = NULL;
		*ret_why = "this kind of context is not implemented yet";
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < spec->n_props; i++) {
		int r = prop_check_applicable(&spec->props[i], spec->kind, mode, ret_why);
		if (r < 0) {
			*ret_prop = &spec->props[i];
			return r;
		}
	}
	return 0;
}

static void child_exec(const struct context *c, int gate)
{
	char go;
	char **argv = NULL;

	/* Wait until the parent has placed us; EOF means it gave up. */
	if (read(gate, &go, 1) != 1)
		_exit(126);
	close(gate);
	if (c->spec->session == SESSION_NEW && setsid() < 0)
		_exit(125);
	for (size_t i = 0; i < c->spec->n_props; i++)
		if (c->spec->props[i].def->class == PROP_EXEC && prop_apply_exec(&c->spec->props[i]) < 0)
			_exit(124);
	if (server_argv(c->server, &argv) < 0)
		_exit(123);
	execvp(argv[0], argv);
	_exit(127);
}

int spawn_server_gated(const struct context *c, pid_t *ret_pid, int *ret_gate_fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	/* A child that exits instead of exec'ing would flush our buffers twice. */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int r = -errno;
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		close(p[1]);
		child_exec(c, p[0]);
	}
	close(p[0]);
	*ret_pid = pid;
	*ret_gate_fd = p[1];
	return 0;
}

int release_child(int gate_fd)
{
	ssize_t n = write(gate_fd, "g", 1);
	int r = n == 1 ? 0 : -errno;
	close(gate_fd);
	return r;
}

void context_note_failure(struct context *c, const char *what, int r, const sd_bus_error *error)
{
	if (c->failure)
		return;
	if (error && sd_bus_error_is_set(error))
		xasprintf(&c->failure, "%s: %s: %s", what, error->name, strempty(error->message));
	else if (r == -EEXIST)
		xasprintf(&c->failure, "%s already exists and was not started by this run (slicebench cleanup removes "
				       "stale ones of slicebench's)", what);
	else
		xasprintf(&c->failure, "%s: %s", what, strerror(-r));
}

/* The kinds of execution context share one small interface: start the
 * managed server with the context's settings, stop it, and clean up from
 * any half-initialised state.  A fifth kind is one more file. */
#pragma once

#include <sys/types.h>

#include "slices/props.h"
#include "slices/server.h"

#define CONTEXT_PROPS_MAX 32

enum session_mode {
	SESSION_INHERIT,
	SESSION_NEW,
};

struct context_spec {
	char name[48];
	enum context_kind kind;
	struct prop_value props[CONTEXT_PROPS_MAX];
	size_t n_props;
	enum session_mode session; /* raw and scope: setsid() before exec */
};

struct context {
	const struct context_ops *ops;
	const struct context_spec *spec;
	const struct server *server;
	enum cgroup_mode mode;
	pid_t pid;	     /* the server's main PID while it runs */
	char *cgroup_name;   /* raw: the cgroup made for it, relative to each hierarchy */
	char *failure;	     /* why start failed, in systemd's words; the caller frees it */
	void *priv;
};

struct context_ops {
	enum context_kind kind;
	int (*start)(struct context *c);
	int (*stop)(struct context *c);
	/* Removes whatever start left behind; safe to call twice. */
	void (*cleanup)(struct context *c);
};

extern const struct context_ops context_raw_ops;
extern const struct context_ops context_service_ops;
extern const struct context_ops context_scope_ops;
extern const struct context_ops context_user_ops;

/* The service kind's parts that the user kind shares. */
struct sd_bus;
int service_start_on(struct context *c, struct sd_bus *bus, const char *slice);
int service_stop(struct context *c);
void service_cleanup(struct context *c);

/* slicebench-NAME.SUFFIX: every unit carries slicebench's prefix. */
int service_unit_name(const struct context *c, const char *suffix, char **ret);

const struct context_ops *context_ops_for(enum context_kind kind);

/* Records why a start failed: "unit U: org.freedesktop.systemd1.X: message"
 * from a bus error, or the errno's text; the first failure is kept. */
void context_note_failure(struct context *c, const char *what, int r, const sd_bus_error *error);

/* A transient scope around a running process (the client of an experiment
 * whose [client] says scope = yes); it goes when the process does. */
int scope_wrap_pid(pid_t pid, const char *unit, const char *description);

/* Checks every property against the kind and cgroup mode before anything
 * starts; on error *ret_prop names the offender and *ret_why the reason. */
int context_validate(const struct context_spec *spec, enum cgroup_mode mode, const struct prop_value **ret_prop,
		     const char **ret_why);

/* fork() the server with the exec-class properties applied in the child.
 * The child waits at a gate until release_child(), so that the parent can
 * first move it into a cgroup or scope. */
int spawn_server_gated(const struct context *c, pid_t *ret_pid, int *ret_gate_fd);
int release_child(int gate_fd);

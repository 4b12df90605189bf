/* The kinds of execution context share one small interface: start the
 * managed server with the context's settings, stop it, and clean up from
 * any half-initialised state.  A kind is described by its row (struct
 * context_ops): its name, its unit, whether it takes a session, who applies
 * which settings, the manager it needs.  Everything else (parsing, the kind
 * lists in messages, which settings apply, stale-state cleanup) is derived
 * from the rows, so that a fifth kind is one file plus one row in
 * context_kinds[] (slices/kinds/context.c). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "common/words.h"
#include "slices/attr/props.h"
#include "slices/server/server.h"

/* A kind is its index in context_kinds[]; the first four are named for the
 * code and the tests that ask for one of them. */
enum context_kind {
	CONTEXT_KIND_INVALID = -1,
	CONTEXT_SERVICE,
	CONTEXT_USER,
	CONTEXT_SCOPE,
	CONTEXT_RAW,
};

/* The manager a kind needs: checked before anything starts, asked for the
 * unit and slice of a placement, and where stale units of a killed run are
 * stopped. */
enum context_manager {
	MANAGER_NONE,
	MANAGER_SYSTEM,
	MANAGER_USER, /* the server's user's own manager */
};

/* Who applies the cgroup settings (CPUWeight=, CPUQuota=, ...) of a kind. */
enum context_cgroup {
	CGROUP_BY_NOBODY,  /* refused before anything starts */
	CGROUP_BY_SYSTEMD, /* unit properties */
	CGROUP_BY_CGROUPFS, /* slicebench's own cgroup, written directly */
};

#define CONTEXT_PROPS_MAX 32

enum session_mode {
	SESSION_INHERIT,
	SESSION_NEW,
};
/* inherit, new */
extern const struct word session_words[];

struct context_spec {
	char name[48];
	enum context_kind kind;
	struct prop_value props[CONTEXT_PROPS_MAX];
	size_t n_props;
	enum session_mode session; /* kinds with .session: setsid() before exec */
	/* The snapshot this context reproduces (from = FILE), whose attributes
	 * each start's placement is compared with; NULL: none.  Borrowed. */
	const struct placement *replays;
};

struct context {
	const struct context_ops *ops;
	const struct context_spec *spec;
	const struct server *server;
	enum cgroup_mode mode;
	/* The slice it goes in, as its kind knows it: a slice unit's name for
	 * the systemd kinds, a cgroup path (slices/sys/cgfs.h) for raw; NULL:
	 * the kind's default (system.slice, the root). */
	const char *slice;
	pid_t pid;	     /* the server's main PID while it runs */
	char *cgroup_name;   /* raw: the cgroup made for it, relative to each hierarchy */
	char *failure;	     /* why start failed, in systemd's words; the caller frees it */
	/* user: start turned logind's linger on for the server's user (it was
	 * off), so cleanup turns it off and stops the manager it brought. */
	bool linger_set;
	void *priv;
};

struct context_ops {
	const char *name;	 /* as experiment files, options and messages spell it */
	const char *unit_suffix; /* slicebench-NAME.SUFFIX on .manager; NULL: no unit of ours */
	bool session;		 /* session = inherit | new is this kind's to choose */
	bool exec_by_systemd;	 /* systemd applies exec settings; else the forked child does */
	enum context_cgroup cgroup;
	enum context_manager manager;
	bool slice; /* goes into an experiment's slice (Slice=): a unit of the system manager's, or raw's cgroup */
	bool mirror; /* unit = NAME.service: may mirror an installed unit of the system manager's */
	/* Stale state of a killed run is cleaned from its record: the unit
	 * (unit_suffix) on .manager, the cgroup it made, then the server's PID. */
	int (*start)(struct context *c);
	int (*stop)(struct context *c);
	/* A live change of one cgroup setting of the running context (its
	 * spec already holds the new value): SetUnitProperties for the
	 * systemd kinds, the cgroup's files for raw.  Read back by the caller.
	 * NULL for a kind whose cgroup settings are refused (CGROUP_BY_NOBODY). */
	int (*set)(struct context *c, const struct prop_value *v);
	/* Removes whatever start left behind; safe to call twice. */
	void (*cleanup)(struct context *c);
};


/* What the user kind's start brought for uid and nothing else needs: its
 * linger turned off, its manager (user@UID.service) stopped.  For cleanup,
 * and for the record of a killed run (a record's "linger"). */
int user_manager_release(uid_t uid);

/* The service kind's parts that the user kind shares. */
struct sd_bus;
int service_start_on(struct context *c, struct sd_bus *bus, const char *slice);
int service_stop(struct context *c);
int service_set(struct context *c, const struct prop_value *v);
void service_cleanup(struct context *c);

/* slicebench-NAME.SUFFIX, the suffix from the kind's row: every unit
 * carries slicebench's prefix.  *ret is NULL for a kind without a unit. */
int context_unit_name(const struct context *c, char **ret);

const struct context_ops *context_ops_for(enum context_kind kind);
const char *context_kind_to_string(enum context_kind k);
/* The kind of that name, or CONTEXT_KIND_INVALID. */
enum context_kind context_kind_from_string(const char *s);
/* "service, user, scope or raw": the kinds (only those taking a session if
 * session_only), for messages. */
const char *context_kind_list(bool session_only);

/* Can this property take effect in this kind of context, in this cgroup
 * mode?  Returns 0, or -EOPNOTSUPP with a reason in *ret_why (static). */
int context_check_prop(const struct prop_value *v, enum context_kind kind, enum cgroup_mode mode, const char **ret_why);

/* Records why a start failed: "unit U: org.freedesktop.systemd1.X: message"
 * from a bus error, or the errno's text; the first failure is kept. */
void context_note_failure(struct context *c, const char *what, int r, const sd_bus_error *error);

/* SetUnitProperties(unit, runtime) with the one setting v, for the kinds'
 * set(); a failure is noted in c->failure. */
int context_set_unit_property(struct context *c, sd_bus *bus, const char *unit, const struct prop_value *v);

/* A transient scope around a running process (the client of an experiment
 * whose [client] says scope = yes); it goes when the process does. */
int scope_wrap_pid(pid_t pid, const char *unit, const char *description);

/* The spec's settings against the placement read back from the context's
 * server: placement_verify_props() (slices/attr/snapshot.h) for them. */
struct placement;
int placement_verify(struct placement *p, const struct context_spec *spec, enum cgroup_mode mode, unsigned *ret_bad);

/* Appends a setting of another spec to spec, parsed again from its text
 * (spec's own); -E2BIG past CONTEXT_PROPS_MAX. */
int context_spec_add_prop(struct context_spec *spec, const struct prop_value *v);
/* to takes from's kind, session and settings (its name is left alone);
 * -E2BIG, -ENOMEM, or the parser's error. */
int context_spec_copy(const struct context_spec *from, struct context_spec *to);
/* Do a and b ask for the same: kind, session, and every setting as text
 * in the same order (their names aside)? */
bool context_spec_same(const struct context_spec *a, const struct context_spec *b);

/* Checks every property against the kind and cgroup mode before anything
 * starts; on error *ret_prop names the offender and *ret_why the reason. */
int context_validate(const struct context_spec *spec, enum cgroup_mode mode, const struct prop_value **ret_prop,
		     const char **ret_why);

/* Is every server variable of spec (PROP_SERVER) one of engine's server
 * (its name: mariadb)?  0, or -EOPNOTSUPP with the first that is not in
 * *ret_prop. */
int context_check_engine(const struct context_spec *spec, const char *engine, const struct prop_value **ret_prop);

/* The context's properties for the server's start, in buf: the spec's, and
 * User= (the server's user) when the engine must be started as its user
 * and the spec names none.  1 if User= was added (buf's last entry, freed
 * by context_exec_props_done), 0 if not. */
int context_exec_props(const struct context *c, struct prop_value *buf, size_t cap, size_t *ret_n);
void context_exec_props_done(struct prop_value *buf, size_t n, int added);

/* fork() the server with the exec-class properties applied in the child.
 * The child waits at a gate until release_child(), so that the parent can
 * first move it into a cgroup or scope. */
int spawn_server_gated(const struct context *c, pid_t *ret_pid, int *ret_gate_fd);
/* argv to exec the server (server_argv()), with the spec's server
 * variables (PROP_SERVER) after its option file as the engine takes them;
 * -EOPNOTSUPP for one its engine has not (refused before anything starts). */
int context_server_argv(const struct context *c, char ***ret);
int release_child(int gate_fd);

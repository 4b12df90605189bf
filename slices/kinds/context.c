#include "slices/kinds/context.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "common/spawn.h"
#include "slices/attr/snapshot.h"
#include "slices/sys/bus.h"
#include "common/util.h"

const struct word session_words[] = {
	{ "inherit", SESSION_INHERIT },
	{ "new", SESSION_NEW },
	{},
};

/* The kinds, one row each (the row itself lives in the kind's own file).
 * A kind's index here is its enum context_kind. */
extern const struct context_ops context_service_ops, context_user_ops, context_scope_ops, context_raw_ops,
	context_login_ops;
static const struct context_ops *const context_kinds[] = {
	[CONTEXT_SERVICE] = &context_service_ops,
	[CONTEXT_USER] = &context_user_ops,
	[CONTEXT_SCOPE] = &context_scope_ops,
	[CONTEXT_RAW] = &context_raw_ops,
	&context_login_ops,
};

const struct context_ops *context_ops_for(enum context_kind kind)
{
	return kind >= 0 && (size_t)kind < ELEMENTSOF(context_kinds) ? context_kinds[kind] : NULL;
}

const char *context_kind_to_string(enum context_kind k)
{
	const struct context_ops *ops = context_ops_for(k);

	return ops ? ops->name : "unknown";
}

enum context_kind context_kind_from_string(const char *s)
{
	for (size_t k = 0; k < ELEMENTSOF(context_kinds); k++)
		if (streq(s, context_kinds[k]->name))
			return (enum context_kind)k;
	return CONTEXT_KIND_INVALID;
}

const char *context_kind_list(bool session_only)
{
	static char lists[2][256];
	char *buf = lists[session_only];
	size_t n = 0, off = 0, i = 0;

	if (*buf)
		return buf;
	for (size_t k = 0; k < ELEMENTSOF(context_kinds); k++)
		n += !session_only || context_kinds[k]->session;
	for (size_t k = 0; k < ELEMENTSOF(context_kinds) && off < sizeof(lists[0]); k++) {
		if (session_only && !context_kinds[k]->session)
			continue;
		i++;
		off += (size_t)snprintf(buf + off, sizeof(lists[0]) - off, "%s%s", i == 1 ? "" : i == n ? " or " : ", ",
					context_kinds[k]->name);
	}
	return buf;
}

int context_unit_name(const struct context *c, char **ret)
{
	*ret = NULL;
	return c->ops->unit_suffix ? xasprintf(ret, "slicebench-%s.%s", c->spec->name, c->ops->unit_suffix) : 0;
}

int context_check_prop(const struct prop_value *v, enum context_kind kind, enum cgroup_mode mode, const char **ret_why)
{
	const struct context_ops *ops = context_ops_for(kind);
	const struct prop_def *d = v->def;
	bool by_systemd;

	if (!ops) {
		*ret_why = "no such kind of context";
		return -EINVAL;
	}
	/* On the server's command line: every kind starts the server. */
	if (d->class == PROP_SERVER)
		return 0;
	if (d->class == PROP_CGROUP && ops->cgroup == CGROUP_BY_NOBODY) {
		*ret_why = "this kind of context has no cgroup of its own to set it on";
		return -EOPNOTSUPP;
	}
	by_systemd = d->class == PROP_CGROUP ? ops->cgroup == CGROUP_BY_SYSTEMD : ops->exec_by_systemd;
	if (by_systemd && d->no_systemd) {
		*ret_why = d->no_systemd;
		return -EOPNOTSUPP;
	}
	/* What slicebench applies itself, the row must say how. */
	if (!by_systemd && d->no_raw) {
		*ret_why = d->no_raw;
		return -EOPNOTSUPP;
	}
	if (!((by_systemd ? d->systemd_modes : d->raw_modes) & mode)) {
		*ret_why = by_systemd ? "systemd applies it on cgroup v2 only, and this machine runs v1 controllers"
				      : "it needs a cgroup controller that this cgroup mode lacks";
		return -EOPNOTSUPP;
	}
	/* A user manager gets no v1 controllers at all, and on v2 only what
	 * user@.service delegates; systemd issues 12362 and 9733. */
	if (ops->manager == MANAGER_USER && d->class == PROP_CGROUP && (mode & CGROUP_V1)) {
		*ret_why = "a user manager cannot set cgroup v1 controllers, so systemd would ignore it (systemd issues 12362, 9733)";
		return -EOPNOTSUPP;
	}
	return 0;
}

int context_spec_add_prop(struct context_spec *spec, const struct prop_value *v)
{
	int r;

	if (spec->n_props == CONTEXT_PROPS_MAX)
		return -E2BIG;
	r = prop_parse(v->def->name, v->text, &spec->props[spec->n_props]);
	if (r >= 0)
		spec->n_props++;
	return r;
}

int context_spec_copy(const struct context_spec *from, struct context_spec *to)
{
	int r = 0;

	to->kind = from->kind;
	to->session = from->session;
	to->replays = from->replays;
	for (size_t p = 0; p < from->n_props && r >= 0; p++)
		r = context_spec_add_prop(to, &from->props[p]);
	return r;
}

bool context_spec_same(const struct context_spec *a, const struct context_spec *b)
{
	if (a->kind != b->kind || a->session != b->session || a->n_props != b->n_props)
		return false;
	for (size_t p = 0; p < a->n_props; p++)
		if (a->props[p].def != b->props[p].def || !streq_ptr(a->props[p].text, b->props[p].text))
			return false;
	return true;
}

/* NUMAPolicy=bind and interleave name their nodes: without NUMAMask=,
 * systemd fails the start (set_mempolicy() EINVAL, 242/NUMA_POLICY). */
static int numa_needs_mask(const struct context_spec *spec, const struct prop_value **ret_prop, const char **ret_why)
{
	const struct prop_value *policy = NULL;
	bool mask = false;

	for (size_t i = 0; i < spec->n_props; i++) {
		if (streq(spec->props[i].def->name, "NUMAPolicy") &&
		    (streq(spec->props[i].text, "bind") || streq(spec->props[i].text, "interleave")))
			policy = &spec->props[i];
		mask |= streq(spec->props[i].def->name, "NUMAMask");
	}
	if (!policy || mask)
		return 0;
	*ret_prop = policy;
	*ret_why = "bind and interleave need NUMAMask= (systemd's start fails: set_mempolicy() EINVAL, 242/NUMA_POLICY)";
	return -EINVAL;
}

int context_validate(const struct context_spec *spec, enum cgroup_mode mode, const struct prop_value **ret_prop,
		     const char **ret_why)
{
	*ret_prop = NULL;
	if (!context_ops_for(spec->kind)) {
		*ret_why = "this kind of context is not implemented yet";
		return -EOPNOTSUPP;
	}
	if (spec->session == SESSION_NEW && !context_ops_for(spec->kind)->session) {
		*ret_why = "this kind of context does not choose a session";
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < spec->n_props; i++) {
		int r = context_check_prop(&spec->props[i], spec->kind, mode, ret_why);
		if (r < 0) {
			*ret_prop = &spec->props[i];
			return r;
		}
	}
	return numa_needs_mask(spec, ret_prop, ret_why);
}

int context_check_engine(const struct context_spec *spec, const char *engine, const struct prop_value **ret_prop)
{
	for (size_t i = 0; i < spec->n_props; i++)
		if (spec->props[i].def->class == PROP_SERVER && !prop_server_has(spec->props[i].def, engine)) {
			*ret_prop = &spec->props[i];
			return -EOPNOTSUPP;
		}
	return 0;
}

int context_exec_props(const struct context *c, struct prop_value *buf, size_t cap, size_t *ret_n)
{
	size_t n = 0;
	bool has_user = false;
	int r;

	for (size_t i = 0; i < c->spec->n_props && n < cap; i++) {
		if (c->spec->props[i].def->class == PROP_SERVER)
			continue; /* on the command line: context_server_argv() */
		buf[n++] = c->spec->props[i];
		has_user |= streq(c->spec->props[i].def->name, "User");
	}
	*ret_n = n;
	/* Every server is started as its user, never as root that drops to it
	 * itself: a unit's User=, or the forked child's setgid/initgroups/setuid
	 * after what needs root (the table's order); a user manager's units are
	 * that user's already. */
	if (has_user || c->ops->manager == MANAGER_USER)
		return 0;
	if (n == cap)
		return -E2BIG;
	r = prop_parse("User", c->server->user, &buf[n]);
	if (r < 0)
		return r;
	*ret_n = n + 1;
	return 1;
}

void context_exec_props_done(struct prop_value *buf, size_t n, int added)
{
	if (added > 0 && n > 0)
		prop_value_done(&buf[n - 1]);
}

struct gated {
	const struct context *c;
	const struct prop_value *props; /* the spec's, and User= if the engine needs it */
	size_t n_props;
	int gate[2];
};

/* In the child, before the server's exec. */
static int gated_setup(void *userdata)
{
	const struct gated *g = userdata;
	const struct context *c = g->c;
	size_t n_table;
	const struct prop_def *table = prop_table(&n_table);
	char go;

	close(g->gate[1]);
	/* Wait until the parent has placed us; EOF means it gave up. */
	if (read(g->gate[0], &go, 1) != 1)
		return 126;
	close(g->gate[0]);
	if (c->server->out_fd > 2 && (dup2(c->server->out_fd, STDOUT_FILENO) < 0 || dup2(c->server->out_fd, STDERR_FILENO) < 0))
		return 123;
	if (c->spec->session == SESSION_NEW && setsid() < 0)
		return 125;
	/* In the table's order, which puts what needs privileges first and the
	 * seccomp filter last. */
	for (size_t t = 0; t < n_table; t++)
		for (size_t i = 0; i < g->n_props; i++) {
			int r;

			if (g->props[i].def != &table[t] || table[t].class != PROP_EXEC)
				continue;
			r = prop_apply_exec(&g->props[i], g->props, g->n_props);
			if (r < 0) {
				/* The server never runs, so its log says nothing: this
				 * line in the run's log is the only why. */
				dprintf(STDERR_FILENO, "slicebench: the server's child could not apply %s=%s: %s\n",
					table[t].name, strempty(g->props[i].text), strerror(-r));
				return 124;
			}
		}
	return 0;
}

int context_server_argv(const struct context *c, char ***ret)
{
	const struct server_engine *engine = c->server->engine;
	char **argv = NULL, **more;
	size_t n = 0;
	int r = server_argv(c->server, &argv);

	while (r >= 0 && argv[n])
		n++;
	for (size_t i = 0; r >= 0 && i < c->spec->n_props; i++) {
		const struct prop_value *v = &c->spec->props[i];

		if (v->def->class != PROP_SERVER)
			continue;
		if (!engine->set_variable || !prop_server_has(v->def, engine->name)) {
			r = -EOPNOTSUPP;
			break;
		}
		more = realloc(argv, (n + 2) * sizeof(char *));
		if (!more) {
			r = -ENOMEM;
			break;
		}
		argv = more;
		argv[n + 1] = NULL;
		r = xasprintf(&argv[n], engine->set_variable, v->def->name, v->text);
		n += r >= 0;
	}
	if (r < 0) {
		strv_free(argv);
		return r;
	}
	*ret = argv;
	return 0;
}

int spawn_server_gated(const struct context *c, pid_t *ret_pid, int *ret_gate_fd)
{
	struct prop_value props[CONTEXT_PROPS_MAX + 1];
	struct gated g = { .c = c, .props = props, .gate = { -EBADF, -EBADF } };
	char **argv = NULL;
	pid_t pid;
	int r, added;

	added = context_exec_props(c, props, ELEMENTSOF(props), &g.n_props);
	if (added < 0)
		return added;
	r = context_server_argv(c, &argv);
	if (r >= 0)
		r = pipe2(g.gate, O_CLOEXEC) < 0 ? -errno : spawn(argv, gated_setup, &g, &pid);
	strv_free(argv);
	context_exec_props_done(props, g.n_props, added);
	if (r < 0 && g.gate[0] >= 0) {
		close(g.gate[0]);
		close(g.gate[1]);
	}
	if (r < 0)
		return r;
	close(g.gate[0]);
	*ret_pid = pid;
	*ret_gate_fd = g.gate[1];
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
	bus_note_failure(&c->failure, r, error,
			 "started by this run (slicebench cleanup removes stale ones of slicebench's)", "%s", what);
}

static int append_one(sd_bus_message *m, void *userdata)
{
	return prop_append_dbus(m, userdata);
}

int context_set_unit_property(struct context *c, sd_bus *bus, const char *unit, const struct prop_value *v)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	int r;

	if (!bus || !unit)
		return -ESRCH;
	r = bus_set_unit_properties(bus, unit, append_one, (void *)v, &error);
	if (r < 0)
		context_note_failure(c, unit, r, &error);
	return r;
}

int placement_verify(struct placement *p, const struct context_spec *spec, enum cgroup_mode mode, unsigned *ret_bad)
{
	return placement_verify_props(p, spec->props, spec->n_props, mode, ret_bad);
}

/* One server started in one context (managed/unit.h): the servers set up
 * once, a unit's names, its start and stop, and its placement. */
#include <stdio.h>

#include "managed/managed.h"
#include "managed/neighbour.h"
#include "managed/placement.h"
#include "managed/proxy.h"
#include "managed/state.h"
#include "managed/unit.h"
#include "oltp/options.h"
#include "slices/attr/snapshot.h"
#include "slices/server/proxy.h"
#include "slices/sys/cgmode.h"
#include "store/results.h"
#include "common/util.h"

int managed_servers_setup(const char *verb, const struct experiment *e, int out_fd, struct managed_servers *ret)
{
	struct server_config cfg = { .out_fd = out_fd };
	int r;

	experiment_server_config(e, &cfg);
	managed_config_default(&cfg);
	r = managed_setup(verb, &cfg, &ret->server);
	for (size_t i = 0; r >= 0 && i < e->n_proxies; i++) {
		r = managed_proxy_setup(e, i, &ret->server, &ret->proxies[i]);
		if (r < 0)
			log_error_errno(r, "%s: cannot set up [proxy %s]: %m", verb, e->proxies[i].name);
	}
	return r;
}

int managed_servers_neighbours(const char *verb, const struct experiment *e, int out_fd, struct managed_servers *s)
{
	struct server_config cfg = { .out_fd = out_fd };
	int r = 0;

	experiment_server_config(e, &cfg);
	managed_config_default(&cfg);
	for (size_t i = 0; r >= 0 && i < e->n_neighbours; i++)
		if (e->neighbours[i].kind == NEIGHBOUR_OLTP)
			r = managed_neighbour_server_setup(verb, &cfg, e->neighbours[i].name, &s->neighbours[i]);
	return r;
}

void managed_servers_output_to(struct managed_servers *s, int fd)
{
	s->server.out_fd = fd;
	for (size_t i = 0; i < EXP_NEIGHBOURS_MAX; i++)
		s->neighbours[i].out_fd = fd;
	for (size_t i = 0; i < EXP_PROXIES_MAX; i++)
		s->proxies[i].out_fd = fd;
}

void managed_servers_done(struct managed_servers *s)
{
	server_done(&s->server);
	for (size_t i = 0; i < EXP_NEIGHBOURS_MAX; i++)
		server_done(&s->neighbours[i]);
	for (size_t i = 0; i < EXP_PROXIES_MAX; i++)
		server_done(&s->proxies[i]);
	datadir_template_free(s->template);
	s->template = NULL;
}

int managed_unit_names(const struct experiment *e, size_t ctx, size_t v, unsigned repeat, bool live,
		       struct managed_unit_names *ret)
{
	const char *context = e->contexts[ctx].name;
	int r;

	/* Beside restart's units, the live ones are a column of their own. */
	r = snprintf_whole(ret->column, sizeof(ret->column), "%s%s", context,
			   live && e->vary_modes & VARY_RESTART ? "-live" : "");
	return r < 0 ? r : results_unit_name(ret->column, v, repeat, ret->name, sizeof(ret->name));
}

int managed_unit_init(struct managed_unit *u)
{
	u->proxy_index = -1;
	if (!u->given)
		return managed_unit_names(u->e, u->ctx, u->v, u->repeat, u->live, &u->names);
	/* A context of the command line is named by its spec alone. */
	if (snprintf_whole(u->names.column, sizeof(u->names.column), "%s", u->given->name) < 0)
		return -ENAMETOOLONG;
	return snprintf_whole(u->names.name, sizeof(u->names.name), "%s", u->given->name);
}

int managed_unit_at_value(struct managed_unit *u, size_t v)
{
	u->v = v;
	return managed_unit_names(u->e, u->ctx, v, u->repeat, u->live, &u->names);
}

static void progress(const struct managed_unit *u, enum managed_stage stage)
{
	if (u->progress)
		u->progress(u->userdata, u, stage);
}

/* The server's pristine datadir, a copy of the dataset's template. */
static int datadir_copy(struct managed_unit *u, char **ret_msg)
{
	const struct datadir_template *t = u->servers->template;
	int r;

	if (!t)
		return 0;
	r = datadir_template_copy(t, &u->servers->server, &u->copy);
	if (r < 0) {
		if (ret_msg)
			xasprintf(ret_msg, "copying the dataset's template %s: %s", t->name, strerror(-r));
		return r;
	}
	progress(u, MANAGED_COPIED_DATADIR);
	return 0;
}

/* The experiment's slice tree for the unit: slice units for the systemd
 * kinds, cgroups for raw; a [vary] value that goes to a slice goes there;
 * the context is given its slot.  Made and recorded for cleanup before
 * anything runs in it; on failure nothing is left and *ret_msg says why. */
static int slices_start(struct managed_unit *u, char **ret_msg)
{
	const struct experiment *e = u->e;
	_cleanup_free_ char *state_dir = managed_state_dir(&u->servers->server);
	struct slice_tree *t = &u->tree;
	int r;

	if (!e->n_slices)
		return 0;
	if (!state_dir)
		return -ENOMEM;
	*t = (struct slice_tree){ .specs = e->slices, .n = e->n_slices, .mode = u->c.mode,
				  .by_systemd = u->c.ops->manager != MANAGER_NONE };
	if (e->n_vary && e->vary_slice >= 0) {
		r = prop_parse(e->vary->name, e->vary_values[u->v], &u->slice_vary);
		if (r < 0)
			return r;
		t->vary = &u->slice_vary;
		t->vary_in = (size_t)e->vary_slice;
	}
	r = slice_tree_start(t);
	if (r >= 0 && (r = state_record_slices(state_dir, t)) < 0)
		slice_tree_stop(t);
	if (r < 0) {
		if (ret_msg && t->failure) {
			*ret_msg = t->failure;
			t->failure = NULL;
		}
		return r;
	}
	if (!u->given && e->context_slice[u->ctx] >= 0)
		u->c.slice = slice_tree_slot(t, (size_t)e->context_slice[u->ctx]);
	return 0;
}

static void slices_stop(struct managed_unit *u)
{
	_cleanup_free_ char *state_dir = managed_state_dir(&u->servers->server);
	struct slice_tree *t = &u->tree;

	if (t->specs) {
		slice_tree_stop(t);
		free(t->failure);
		t->failure = NULL;
		if (state_dir)
			state_forget_slices(state_dir);
	}
	t->specs = NULL;
	prop_value_done(&u->slice_vary);
}

/* The context's proxy in front of the running server, in a context of
 * its own, and the client's options pointed at it. */
static int proxy_start(struct managed_unit *u, struct oltp_options *o, char **ret_msg)
{
	struct managed_servers *s = u->servers;
	struct server *proxy = &s->proxies[u->proxy_index];
	const struct proxy_engine *pe = proxy_engine_of(proxy->engine);
	int r;

	progress(u, MANAGED_STARTING_PROXY);
	managed_proxy_context(u->e, (size_t)u->proxy_index, proxy, u->c.mode, &u->proxy_spec, &u->proxy);
	r = managed_proxy_start(&u->proxy, &s->server, ret_msg);
	if (r < 0)
		return r;
	u->proxy_started = true;
	o->socket = proxy->socket;
	if (pe->client_as_server_user)
		o->user = s->server.user;
	o->password = proxy->password;
	o->proxy_pid = u->proxy.pid;
	return 0;
}

/* The client's options pointed at the running server: its socket, its
 * PID, the cgroups its CPU time is read from. */
static void client_wire(struct managed_unit *u, struct oltp_options *o)
{
	o->socket = u->servers->server.socket;
	o->server_pid = u->server_pid = u->c.pid;
	if (cgroup_cpu_dir(u->c.pid, u->c.mode, &u->cpu_dir) >= 0)
		o->server_cpu_cgroup = u->cpu_dir;
	if (cgroup_own_usage_dir(u->c.pid, u->c.mode, &u->usage_dir) >= 0)
		o->server_usage_cgroup = u->usage_dir;
}

int managed_unit_start(struct managed_unit *u, struct oltp_options *o, char **ret_msg)
{
	const struct experiment *e = u->e;
	int r;

	if (u->given)
		u->spec = *u->given;
	else if ((r = experiment_spec_for(e, u->ctx, u->v, &u->spec)) < 0)
		return r;
	u->c = (struct context){ .ops = context_ops_for(u->spec.kind), .spec = &u->spec, .server = &u->servers->server,
				 .mode = cgroup_mode_detect() };
	if (!u->given) {
		experiment_client_for(e, u->ctx, o);
		u->proxy_index = experiment_proxy_of(e, u->ctx);
	}
	progress(u, MANAGED_STARTING_SERVER);
	r = datadir_copy(u, ret_msg);
	if (r >= 0)
		r = slices_start(u, ret_msg);
	if (r >= 0)
		r = managed_start(&u->c, ret_msg);
	if (r < 0)
		return r;
	u->started = true;
	client_wire(u, o);
	if (u->proxy_index < 0)
		return 0;
	u->proxy_failed = proxy_start(u, o, ret_msg) < 0;
	return u->proxy_failed ? -EIO : 0;
}

/* The facts others report (the server's variables, its manager's unit
 * and slice, the slices' settings read back): each is warned and left out
 * when it cannot be read, since the placement stands without it. */
static void placement_facts(const struct managed_unit *u, struct placement *p)
{
	const char *name = u->names.name;
	int r;

	r = server_facts(u->c.server, p);
	if (r < 0)
		log_warning_errno(r, "%s: %s: cannot read the server's variables: %m", u->verb, name);
	r = managed_systemd_facts(&u->c, p);
	if (r < 0)
		log_warning_errno(r, "%s: %s: cannot ask systemd which unit holds PID %d: %m", u->verb, name, (int)u->c.pid);
	r = u->tree.specs ? slice_tree_record(&u->tree, p) : 0;
	if (r < 0)
		log_warning_errno(r, "%s: %s: cannot read its slices' settings back: %m", u->verb, name);
}

int managed_unit_placement(const struct managed_unit *u, const struct oltp_options *o, struct placement *p)
{
	unsigned bad = 0;
	int r;

	r = placement_snapshot(u->c.pid, getpid(), u->c.mode, p);
	if (r < 0)
		return r;
	placement_facts(u, p);
	r = placement_verify(p, u->c.spec, u->c.mode, &bad);
	if (r >= 0 && bad)
		managed_warn_not_in_force(u->names.name, p);
	if (r >= 0 && u->proxy_started)
		r = managed_proxy_placement(&u->proxy, &u->servers->server, p);
	if (r >= 0 && o)
		r = managed_client_placement(o, p);
	if (r >= 0)
		r = managed_replay_compare(u->names.name, &u->c, p);
	return r;
}

/* What start made in memory, freed. */
static void unit_free(struct managed_unit *u)
{
	if (u->c.ops && !u->given)
		experiment_spec_done(u->e, &u->spec);
	u->c.ops = NULL;
	free(u->cpu_dir);
	free(u->usage_dir);
	u->cpu_dir = u->usage_dir = NULL;
	u->server_pid = 0;
}

int managed_unit_stop(struct managed_unit *u)
{
	int r = 0;

	/* The proxy first, so that the server never sees it lose its backend. */
	if (u->proxy_started)
		(void)managed_stop(&u->proxy);
	u->proxy_started = false;
	if (u->started)
		r = managed_stop(&u->c);
	u->started = false;
	slices_stop(u);
	unit_free(u);
	return r;
}

void managed_unit_leave(struct managed_unit *u)
{
	/* Their records stay under STATE/live/, so that cleanup stops them. */
	u->proxy_started = u->started = false;
	u->tree.specs = NULL;
	prop_value_done(&u->slice_vary);
	unit_free(u);
}

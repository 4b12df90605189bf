/* slicebench place: the server started in each context in turn, and where
 * it landed (cgroups, CPU settings read back, affinity, session, ...), and
 * each setting as written, as resolved on this host and as read back. */
#include <stdio.h>

#include "slices/sys/cgmode.h"
#include "cli/args.h"
#include "experiment/experiment.h"
#include "common/interrupt.h"
#include "managed/managed.h"
#include "slices/attr/snapshot.h"
#include "common/text.h"
#include "common/util.h"
#include "cli/verbs.h"

/* What was set beside what was read back, one line per setting. */
static int print_settings(const struct placement *p)
{
	const char *names[PLACEMENT_SETTINGS_MAX];
	size_t n = 0;

	placement_setting_names(p, names, &n);
	if (n)
		printf("settings, as written -> as resolved on this host -> as read back:\n");
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *text = NULL;

		if (placement_setting_text(p, names[i], &text) < 0)
			return log_error_errno(-ENOMEM, "place: %m");
		fputs("  ", stdout);
		text_print_pair(stdout, names[i], text);
	}
	return 0;
}

/* The index of the place's context in its experiment, -1 without one. */
static int context_in(const struct experiment *e, const char *name)
{
	for (size_t i = 0; e && i < e->n_contexts; i++)
		if (streq(e->contexts[i].name, name))
			return (int)i;
	return -1;
}

/* The context's proxy started in front of the server in c, its placement
 * added to p (proxy.*), and stopped: the chain's three processes in one
 * placement, as run records it. */
static int place_proxy(const struct experiment *e, size_t i, const struct context *c, struct placement *p)
{
	_cleanup_free_ char *msg = NULL;
	struct context_spec spec;
	struct server proxy = {};
	struct context pc;
	int r;

	r = managed_proxy_setup(e, i, c->server, &proxy);
	if (r < 0)
		return log_error_errno(r, "place: cannot set up [proxy %s]: %m", e->proxies[i].name);
	managed_proxy_context(e, i, &proxy, c->mode, &spec, &pc);
	r = managed_proxy_start(&pc, c->server, &msg);
	if (r < 0) {
		log_error_errno(r, "place: [proxy %s] did not start as %s: %m%s%s", e->proxies[i].name,
				context_kind_to_string(spec.kind), msg ? "; " : "", strempty(msg));
		server_done(&proxy);
		return r;
	}
	r = managed_proxy_placement(&pc, c->server, p);
	if (r < 0)
		log_error_errno(r, "place: cannot read the placement of [proxy %s]: %m", e->proxies[i].name);
	(void)managed_stop(&pc);
	server_done(&proxy);
	return r;
}

static int print_placement(struct sweep_args *a, struct context *c)
{
	_cleanup_(placement_done) struct placement p = {};
	int ctx = context_in(a->loaded, a->spec.name);
	unsigned bad = 0;
	int r;

	r = placement_snapshot(c->pid, getpid(), c->mode, &p);
	if (r < 0)
		return log_error_errno(r, "place: cannot read the placement of PID %d: %m", (int)c->pid);
	r = server_facts(c->server, &p);
	if (r < 0)
		log_warning_errno(r, "place: cannot read the server's variables: %m");
	r = managed_systemd_facts(c, &p);
	if (r < 0)
		log_warning_errno(r, "place: cannot ask systemd which unit holds PID %d: %m", (int)c->pid);
	r = placement_verify(&p, &a->spec, c->mode, &bad);
	if (r < 0)
		return log_error_errno(r, "place: %m");
	if (bad)
		managed_warn_not_in_force("place", &p);
	if (ctx >= 0 && experiment_proxy_of(a->loaded, (size_t)ctx) >= 0 &&
	    (r = place_proxy(a->loaded, (size_t)experiment_proxy_of(a->loaded, (size_t)ctx), c, &p)) < 0)
		return r;
	if (ctx >= 0)
		experiment_client_for(a->loaded, (size_t)ctx, &a->o);
	if (managed_client_placement(&a->o, &p) < 0 || managed_replay_compare(a->spec.name, c, &p) < 0)
		return log_error_errno(-ENOMEM, "place: %m");
	if (a->json) {
		json_t *j = placement_to_json(&p);

		if (!j)
			return log_error_errno(-ENOMEM, "place: %m");
		if (a->all)
			return json_object_set_new(a->all, a->spec.name, j) < 0 ? log_error_errno(-ENOMEM, "place: %m") : 0;
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
		return 0;
	}
	if (a->n_places > 1)
		printf("== %s (%s)\n", a->spec.name, context_kind_to_string(a->spec.kind));
	if (placement_get(&p, "chain"))
		printf("processes: server PID %d, proxy PID %s, client PID %d (slicebench)\n", (int)c->pid,
		       placement_get(&p, "proxy.pid"), (int)getpid());
	for (size_t i = 0; i < p.n; i++)
		if (!placement_key_is_setting(p.attrs[i].key))
			text_print_pair(stdout, p.attrs[i].key, p.attrs[i].value);
	return print_settings(&p);
}

/* The spec of place's i-th named context: a kind with the -p properties,
 * or a context of --experiment.  Validated before anything starts. */
static int place_spec(struct sweep_args *a, const struct experiment *e, size_t i, struct context_spec *ret)
{
	const char *name = a->places[i], *why = NULL;
	const struct prop_value *bad = NULL;
	enum cgroup_mode mode = cgroup_mode_detect();
	enum context_kind k;

	if (e) {
		for (size_t c = 0; c < e->n_contexts; c++)
			if (streq(e->contexts[c].name, name) && e->context_slice[c] >= 0)
				return log_error("place: [context %s] sits in [slice %s], and place makes no slices; run "
						 "records the placement of every unit", name, e->slices[e->context_slice[c]].name),
				       -EINVAL;
			else if (streq(e->contexts[c].name, name))
				return experiment_spec_for(e, c, 0, ret);
		return log_error("place: %s has no context '%s'", e->path, name), -EINVAL;
	}
	k = context_kind_from_string(name);
	if (k == CONTEXT_KIND_INVALID)
		return log_error("place: '%s' is not a kind of context (%s); contexts of a file need --experiment", name,
				 context_kind_list(false)), -EINVAL;
	*ret = a->spec;
	ret->kind = k;
	snprintf(ret->name, sizeof(ret->name), "place-%s", name);
	if (context_validate(ret, mode, &bad, &why) < 0)
		return log_error("place: %s: %s%s: %s (cgroup mode %s)", name, bad ? "-p " : "", bad ? bad->def->name : "",
				 why, cgroup_mode_to_string(mode)), -EINVAL;
	return 0;
}

/* The specs of the contexts place starts: --context's, or each one named
 * (a kind, or a context of --experiment).  Before anything starts; a bad
 * one is -EINVAL, logged. */
static int place_specs(struct sweep_args *a, struct experiment *e, struct context_spec *specs, size_t *ret_n)
{
	_cleanup_free_ char *path = NULL, *msg = NULL;
	int r;

	*ret_n = 0;
	if (a->in_context) {
		specs[(*ret_n)++] = a->spec;
		return 0;
	}
	if (a->n_places > EXP_CONTEXTS_MAX)
		return cli_usage_error(&cli_place, "at most %d contexts at once", EXP_CONTEXTS_MAX);
	if (a->experiment) {
		if (experiment_find(a->experiment, &path) < 0)
			return log_error("place: no experiment '%s'", a->experiment), -EINVAL;
		r = experiment_load(path, cgroup_mode_detect(), e, &msg);
		if (r < 0)
			return log_error("%s", msg ? msg : strerror(-r)), -EINVAL;
		experiment_log_mirrors(e);
		a->loaded = e; /* its [server] settings apply */
	}
	for (size_t i = 0; i < a->n_places; i++) {
		r = place_spec(a, a->experiment ? e : NULL, i, &specs[i]);
		if (r < 0)
			return r;
		(*ret_n)++;
	}
	return 0;
}

/* Each spec in turn: the first failure is the result; a signal ends it. */
static int place_all(struct sweep_args *a, const struct context_spec *specs, size_t n)
{
	int r = 0;

	if (a->json && n > 1 && !(a->all = json_object()))
		return log_error_errno(-ENOMEM, "place: %m");
	for (size_t i = 0; i < n && !interrupt_signal; i++) {
		int one;

		a->spec = specs[i];
		a->keep_this = a->keep && i == n - 1;
		one = with_managed_server("place", a, print_placement);
		if (r == 0)
			r = one;
	}
	if (a->all) {
		json_dumpf(a->all, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(a->all);
		a->all = NULL;
	}
	return r;
}

int verb_place(int argc, char **argv)
{
	struct context_spec specs[EXP_CONTEXTS_MAX], own;
	struct sweep_args a = {};
	struct experiment e = {};
	size_t n = 0;
	int r, status;

	r = sweep_parse_argv(&cli_place, argc, argv, &a);
	own = a.spec; /* its -p properties, which the specs borrow */
	if (r == 0)
		status = 0;
	else if (r > 0 && (a.pid || a.unit))
		status = (r = place_capture(&a)) == -EINVAL ? EXIT_USAGE : verb_exit_status(r);
	else if (r < 0 || place_specs(&a, &e, specs, &n) < 0)
		status = EXIT_USAGE;
	else
		status = verb_exit_status(place_all(&a, specs, n));
	for (size_t i = 0; a.experiment && i < n; i++)
		experiment_spec_done(&e, &specs[i]);
	a.loaded = NULL;
	experiment_done(&e);
	a.spec = own;
	sweep_args_done(&a);
	return status;
}

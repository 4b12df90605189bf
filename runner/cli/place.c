/* slicebench place: the server started in each context in turn, and where
 * it landed (cgroups, CPU settings read back, affinity, session, ...), and
 * each setting as written, as resolved on this host and as read back. */
#include <stdio.h>

#include "slices/sys/cgmode.h"
#include "cli/args.h"
#include "experiment/experiment.h"
#include "common/interrupt.h"
#include "managed/unit.h"
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

static int print_placement(struct sweep_args *a, struct managed_unit *u)
{
	_cleanup_(placement_done) struct placement p = {};
	const struct context_spec *spec = &u->spec;
	int r;

	r = managed_unit_placement(u, &a->o, &p);
	if (r < 0)
		return log_error_errno(r, "place: cannot read the placement of %s (PID %d): %m", u->names.name,
				       (int)u->c.pid);
	if (a->json) {
		json_t *j = placement_to_json(&p);

		if (!j)
			return log_error_errno(-ENOMEM, "place: %m");
		if (a->all)
			return json_object_set_new(a->all, spec->name, j) < 0 ? log_error_errno(-ENOMEM, "place: %m") : 0;
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
		return 0;
	}
	if (a->n_places > 1)
		printf("== %s (%s)\n", spec->name, context_kind_to_string(spec->kind));
	if (placement_get(&p, "chain"))
		printf("processes: server PID %d, proxy PID %s, client PID %d (slicebench)\n", (int)u->c.pid,
		       placement_get(&p, "proxy.pid"), (int)getpid());
	for (size_t i = 0; i < p.n; i++)
		if (!placement_key_is_setting(p.attrs[i].key))
			text_print_pair(stdout, p.attrs[i].key, p.attrs[i].value);
	return print_settings(&p);
}

/* Place's i-th named context: a context of --experiment (its index into
 * *ret_ctx), or a kind with the -p properties (its spec into *ret, *ret_ctx
 * -1).  Validated before anything starts. */
static int place_spec(struct sweep_args *a, const struct experiment *e, size_t i, struct context_spec *ret,
		      int *ret_ctx)
{
	const char *name = a->places[i], *why = NULL;
	const struct prop_value *bad = NULL;
	enum cgroup_mode mode = cgroup_mode_detect();
	enum context_kind k;

	*ret_ctx = -1;
	if (e) {
		for (size_t c = 0; c < e->n_contexts; c++)
			if (streq(e->contexts[c].name, name)) {
				*ret_ctx = (int)c;
				return 0;
			}
		return log_error_errno(-EINVAL, "place: %s has no context '%s'", e->path, name);
	}
	k = context_kind_from_string(name);
	if (k == CONTEXT_KIND_INVALID)
		return log_error_errno(-EINVAL, "place: '%s' is not a kind of context (%s); contexts of a file need --experiment", name,
				 context_kind_list(false));
	*ret = a->spec;
	ret->kind = k;
	snprintf(ret->name, sizeof(ret->name), "place-%s", name);
	if (context_validate(ret, mode, &bad, &why) < 0)
		return log_error_errno(-EINVAL, "place: %s: %s%s: %s (cgroup mode %s)", name, bad ? "-p " : "", bad ? bad->def->name : "",
				 why, cgroup_mode_to_string(mode));
	return 0;
}

/* The contexts place starts: --context's, or each one named (a kind's
 * spec, or a context of --experiment: its index in ctxs, else -1).
 * Before anything starts; a bad one is -EINVAL, logged. */
static int place_specs(struct sweep_args *a, struct experiment *e, struct context_spec *specs, int *ctxs,
		       size_t *ret_n)
{
	_cleanup_free_ char *path = NULL, *msg = NULL;
	int r;

	*ret_n = 0;
	if (a->in_context) {
		specs[0] = a->spec;
		ctxs[(*ret_n)++] = -1;
		return 0;
	}
	if (a->n_places > EXP_CONTEXTS_MAX)
		return cli_usage_error(&cli_place, "at most %d contexts at once", EXP_CONTEXTS_MAX);
	if (a->experiment) {
		if (experiment_find(a->experiment, &path) < 0)
			return log_error_errno(-EINVAL, "place: no experiment '%s'", a->experiment);
		r = experiment_load(path, cgroup_mode_detect(), e, &msg);
		if (r < 0)
			return log_error_errno(-EINVAL, "%s", msg ? msg : strerror(-r));
		experiment_log_mirrors(e);
		a->loaded = e; /* its [server] settings apply */
	}
	for (size_t i = 0; i < a->n_places; i++) {
		r = place_spec(a, a->experiment ? e : NULL, i, &specs[i], &ctxs[i]);
		if (r < 0)
			return r;
		(*ret_n)++;
	}
	return 0;
}

/* Each context in turn, all on the servers set up once: the first
 * failure is the result; a signal ends it. */
static int place_all(struct sweep_args *a, const struct context_spec *specs, const int *ctxs, size_t n)
{
	struct managed_servers servers = {};
	int r;

	if (a->json && n > 1 && !(a->all = json_object()))
		return log_error_errno(-ENOMEM, "place: %m");
	r = cli_servers_setup("place", a, &servers);
	for (size_t i = 0; r >= 0 && i < n && !interrupt_signal; i++) {
		struct managed_unit u = { .verb = "place", .e = a->loaded ? a->loaded : &a->e, .servers = &servers,
					  .ctx = ctxs[i] >= 0 ? (size_t)ctxs[i] : 0,
					  .given = ctxs[i] >= 0 ? NULL : &specs[i] };
		int one;

		a->keep_this = a->keep && i == n - 1;
		one = cli_unit_run(a, &u, print_placement);
		if (r == 0)
			r = one;
	}
	managed_servers_done(&servers);
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
	struct context_spec specs[EXP_CONTEXTS_MAX];
	int ctxs[EXP_CONTEXTS_MAX];
	struct sweep_args a = {};
	struct experiment e = {};
	size_t n = 0;
	int r, status;

	r = sweep_parse_argv(&cli_place, argc, argv, &a);
	if (r == 0)
		status = 0;
	else if (r > 0 && (a.pid || a.unit))
		status = verb_input_exit_status(place_capture(&a));
	else if (r < 0 || place_specs(&a, &e, specs, ctxs, &n) < 0)
		status = EXIT_USAGE;
	else
		status = verb_exit_status(place_all(&a, specs, ctxs, n));
	a.loaded = NULL;
	experiment_done(&e);
	sweep_args_done(&a);
	return status;
}

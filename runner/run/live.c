/* mode = live: one server per repeat and context for every vary value,
 * the setting changed in place between them and read back before their
 * steps. */
#include "run/runner.h"
#include "common/interrupt.h"
#include "slices/attr/snapshot.h"

/* Vary value v put in force on unit u's running server: the context's
 * setting (the spec's last, experiment_spec_for()'s) through its kind's
 * set op, or the slice's through the tree. */
static int live_apply(struct runner *rn, struct managed_unit *u, size_t v, char **ret_why)
{
	const struct experiment *e = rn->e;
	struct context *c = &u->c;
	struct slice_tree *tree = &u->tree;
	struct prop_value *target = experiment_varies_contexts(e) ? &u->spec.props[u->spec.n_props - 1] : &u->slice_vary;
	int r;

	prop_value_done(target);
	r = prop_parse(e->vary->name, e->vary_values[v], target);
	if (r < 0)
		return r;
	if (experiment_varies_contexts(e)) {
		r = c->ops->set(c, target);
		if (r < 0 && c->failure) {
			*ret_why = c->failure;
			c->failure = NULL;
		}
		return r;
	}
	r = slice_tree_set(tree, (size_t)e->vary_slice, target);
	if (r < 0 && tree->failure) {
		*ret_why = tree->failure;
		tree->failure = NULL;
	}
	return r;
}

/* Reads the setting back from the cgroup's files: 0 when in force, 1 with
 * why in *ret_why when not. */
static int live_verify(struct runner *rn, const struct context *c, struct slice_tree *tree, char **ret_why)
{
	_cleanup_(placement_done) struct placement p = {};
	unsigned bad = 0;
	int r;

	if (!experiment_varies_contexts(rn->e))
		return slice_tree_verify(tree, (size_t)rn->e->vary_slice, ret_why);
	r = placement_snapshot(c->pid, getpid(), c->mode, &p);
	if (r >= 0)
		r = placement_verify(&p, c->spec, c->mode, &bad);
	if (r < 0)
		return r;
	for (size_t k = 0; bad && k < p.n; k++)
		if (strncmp(p.attrs[k].key, "in_force.", 9) == 0 && strncmp(p.attrs[k].value, "no", 2) == 0)
			return xasprintf(ret_why, "%s= is not in force: %s", p.attrs[k].key + 9, p.attrs[k].value + 4) < 0
				       ? -ENOMEM
				       : 1;
	return 0;
}

/* The change and its reading back; systemd realizes a unit's cgroup after
 * SetUnitProperties returns, so the reading is tried for a second before
 * the value is given up. */
static int live_change(struct runner *rn, struct managed_unit *u, size_t v, char **ret_why)
{
	int r = live_apply(rn, u, v, ret_why);

	for (int i = 0; r >= 0 && i < 20; i++) {
		free(*ret_why);
		*ret_why = NULL;
		r = live_verify(rn, &u->c, &u->tree, ret_why);
		if (r == 0)
			return 0;
		usleep(50000);
	}
	return r < 0 ? r : -EIO;
}

/* Whether every vary value's unit of this repeat is recorded already;
 * u is left at the first value. */
static bool live_all_done(struct runner *rn, struct managed_unit *u)
{
	size_t n_done = 0;

	for (size_t v = 0; v < rn->e->n_vary; v++)
		if (managed_unit_at_value(u, v) >= 0 && runner_unit_done(rn, u->names.name))
			n_done++;
	return managed_unit_at_value(u, 0) >= 0 && n_done == rn->e->n_vary;
}

/* The server did not start (r): every value's steps recorded as failed,
 * u walked over the values. */
static int live_start_failed(struct runner *rn, struct managed_unit *u, int r, const char *msg)
{
	const struct experiment *e = rn->e;
	int result = 0;

	if (!interrupt_signal)
		log_error_errno(r, "%s: %s: the server did not start as %s: %m%s%s", rn->verb, u->names.name,
				context_kind_to_string(u->spec.kind), msg ? "; " : "", strempty(msg));
	for (size_t v = 0; !interrupt_signal && result >= 0 && v < e->n_vary; v++) {
		result = managed_unit_at_value(u, v);
		if (result >= 0)
			result = runner_put_failed_steps(rn, u, 0, OLTP_RULE_FAILED, "the server did not start");
		rn->steps_done += e->n_threads;
	}
	return result;
}

/* Each vary value not yet recorded put in force on the running server and
 * read back, then its steps; a value that is not in force fails its steps.
 * u walked over the values. */
static int live_walk(struct runner *rn, struct managed_unit *u, const struct oltp_options *o)
{
	const struct experiment *e = rn->e;
	const char *unit = u->names.name;
	int result = 0;

	for (size_t v = 0; result >= 0 && v < e->n_vary; v++) {
		const char *value = e->vary_values[v];
		_cleanup_free_ char *why = NULL;

		if (managed_unit_at_value(u, v) < 0 || runner_unit_done(rn, unit)) {
			rn->steps_done += e->n_threads;
			continue;
		}
		if (v > 0)
			runner_progress(PROGRESS_STEP, "unit %s: %s=%s on the running server", unit, e->vary->name, value);
		if (live_change(rn, u, v, &why) < 0) {
			log_error("%s: %s: %s=%s could not be put in force live: %s", rn->verb, unit, e->vary->name, value,
				  why ? why : "it was not read back");
			result = runner_put_failed_steps(rn, u, 0, OLTP_RULE_FAILED, why ? why : "the setting is not in force");
			rn->steps_done += e->n_threads;
			continue;
		}
		if (runner_put_placement(rn, u, o) < 0)
			log_warning("%s: %s: cannot record the placement", rn->verb, unit);
		result = runner_unit_steps(rn, u, o);
		if (!process_alive(&u->c.pid))
			break;
	}
	return result;
}

/* The units of one repeat of a context in mode = live: one server for
 * every vary value, the setting changed in place between them and read
 * back before their steps, so that a step never runs under a setting not
 * in force (its steps fail instead).  Like run_unit, it records and undoes
 * a start that fails. */
int runner_run_live_unit(struct runner *rn, size_t ctx, unsigned repeat)
{
	const struct experiment *e = rn->e;
	_cleanup_free_ char *msg = NULL;
	struct managed_unit u = { .ctx = ctx, .repeat = repeat, .live = true };
	struct oltp_options o = rn->o;
	int r, result;

	r = runner_unit_init(rn, &u);
	if (r < 0)
		return log_error_errno(r, "%s: %s: %m", rn->verb, e->contexts[ctx].name);
	if (live_all_done(rn, &u)) {
		rn->steps_done += e->n_vary * e->n_threads;
		return 0;
	}
	runner_unit_begins(rn);
	r = managed_unit_start(&u, &o, &msg);
	if (r < 0 && !u.c.ops)
		return log_error_errno(r, "%s: %s: %m", rn->verb, u.names.name);
	if (r < 0)
		result = live_start_failed(rn, &u, r, msg);
	else
		result = live_walk(rn, &u, &o);
	if (managed_unit_stop(&u) < 0)
		log_warning("%s: %s: stopping the server failed", rn->verb, u.names.name);
	if (interrupt_signal)
		return -EINTR;
	return result < 0 ? result : r < 0 && e->on_error == ON_ERROR_STOP ? -ECANCELED : result;
}

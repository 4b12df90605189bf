/* The run engine: an experiment from start to finish.  The plan is
 * repeats x vary values x contexts, interleaved (A B C D A B C D) so that
 * drift on the machine does not land on one context, with a fresh server
 * for every unit; every finished step is a file of its own, so an
 * interrupted run keeps them and --resume runs only what is missing. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include "run/experiment.h"
#include "run/engine.h"
#include "host/busy.h"
#include "host/facts.h"
#include "common/interrupt.h"
#include "run/managed.h"
#include "run/results.h"
#include "slices/snapshot.h"
#include "run/state.h"
#include "common/secret.h"
#include "common/util.h"

/* A server start, its ping and the buffer pool warm-up, for the estimate. */
#define UNIT_OVERHEAD_S 6

/* [vary] mode; an experiment not read from a file (explain's) restarts. */
static unsigned vary_modes(const struct experiment *e)
{
	return e->vary_modes ? e->vary_modes : VARY_RESTART;
}

int run_plan_make(const struct experiment *e, const char *only, struct run_plan *ret)
{
	_cleanup_free_ char *list = only ? strdup(only) : NULL;
	size_t n_ctx = 0;
	char *save = NULL;

	*ret = (struct run_plan){ .e = e };
	if (only && !list)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_contexts; i++)
		ret->selected[i] = !only;
	for (char *name = list ? strtok_r(list, ",", &save) : NULL; name; name = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < e->n_contexts && !streq(e->contexts[i].name, name))
			i++;
		if (i == e->n_contexts) {
			log_error("run: --only: %s has no context '%s'", e->path, name);
			return -EINVAL;
		}
		ret->selected[i] = true;
	}
	for (size_t i = 0; i < e->n_contexts; i++)
		n_ctx += ret->selected[i];
	if (n_ctx == 0) {
		log_error("run: --only: give the contexts to run, as --only %s", e->contexts[0].name);
		return -EINVAL;
	}
	/* live: one server per repeat and context for all the vary values */
	ret->n_units = e->repeat * n_ctx *
		       ((vary_modes(e) & VARY_RESTART ? experiment_n_values(e) : 0) + (vary_modes(e) & VARY_LIVE ? 1 : 0));
	ret->n_steps = e->repeat * n_ctx * experiment_n_values(e) * e->n_threads *
		       (!!(vary_modes(e) & VARY_RESTART) + !!(vary_modes(e) & VARY_LIVE));
	ret->estimate_s = (double)ret->n_units * UNIT_OVERHEAD_S +
			  (double)ret->n_steps * ((double)(e->warmup_ns + e->duration_ns) / 1e9 + 1);
	return 0;
}

/* Progress on the terminal, and the same line in the journal when one is
 * reachable, so that a run can be lined up with the system's logs. */
static void progress(const char *fmt, ...) _printf_(1, 2);
static void progress(const char *fmt, ...)
{
	_cleanup_free_ char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		return;
	fprintf(stderr, "slicebench: %s\n", line);
	sd_journal_send("MESSAGE=slicebench: %s", line, "SYSLOG_IDENTIFIER=slicebench", "PRIORITY=6", NULL);
}

static void options_for(const struct experiment *e, struct oltp_options *o, char *db, size_t db_len)
{
	oltp_options_default(o);
	/* One database per dataset shape, so that experiments of different
	 * sizes reuse their own data on the one managed server. */
	if (streq(oltp_workload_def(e->workload)->protocol, "postgresql"))
		snprintf(db, db_len, "pgbench_s%u", e->scale);
	else
		snprintf(db, db_len, "sbtest_%ux%u", e->tables, e->table_size);
	o->db = db;
	o->workload = e->workload;
	o->scale = e->scale;
	o->client_threads = e->client_threads;
	o->tables = e->tables;
	o->table_size = e->table_size;
	o->duration_ns = e->duration_ns;
	o->warmup_ns = e->warmup_ns;
	o->rand.type = e->rand_type;
	o->driver = e->driver;
}

struct runner {
	const struct experiment *e;
	const struct run_plan *plan;
	struct results *res;
	struct server server;
	struct server neighbour_servers[EXP_NEIGHBOURS_MAX]; /* the oltp neighbours' own, by index */
	struct oltp_options o;
	size_t units_done, steps_done, steps_failed;
	uint64_t start_ns;
	/* The unit running now: the name its steps are recorded under (a
	 * context's, or NAME-live for the live steps of mode = restart live)
	 * and its server's PID, which a live unit keeps across vary values. */
	const char *context_name;
	pid_t server_pid;
};

static bool unit_done(const struct runner *rn, const char *unit)
{
	char name[160];

	for (size_t t = 0; t < rn->e->n_threads; t++) {
		if (results_step_file(unit, rn->e->threads[t], name, sizeof(name)) < 0 || !results_have(rn->res, name))
			return false;
	}
	return true;
}

static int put_step(struct runner *rn, const char *unit, size_t ctx, size_t v, unsigned repeat,
		    const struct step_result *s)
{
	const struct experiment *e = rn->e;
	json_t *j = NULL;
	char name[160];
	int r;

	r = step_result_to_json(s, &j);
	if (r < 0)
		return r;
	json_object_set_new(j, "context", json_string(rn->context_name ? rn->context_name : e->contexts[ctx].name));
	json_object_set_new(j, "server_pid", rn->server_pid > 0 ? json_integer(rn->server_pid) : json_null());
	json_object_set_new(j, "vary_value", e->n_vary ? json_string(e->vary_values[v]) : json_null());
	json_object_set_new(j, "repeat", json_integer(repeat));
	json_object_set_new(j, "unit", json_string(unit));
	r = results_step_file(unit, (long)s->threads, name, sizeof(name));
	if (r >= 0)
		r = results_put(rn->res, name, j);
	json_decref(j);
	if (r < 0)
		return log_error_errno(r, "run: cannot write %s/%s: %m", results_dir(rn->res), name);
	/* The step is kept even when the document of record cannot follow
	 * (a full disk): say which file failed. */
	r = results_rebuild(rn->res);
	if (r < 0)
		return log_error_errno(r, "run: cannot write %s/results.json: %m (the step is kept in %s)",
				       results_dir(rn->res), name);
	return 0;
}

/* A step that did not run: recorded as failed, so that the report shows a
 * gap and not a zero. */
static int put_failed_steps(struct runner *rn, const char *unit, size_t ctx, size_t v, unsigned repeat,
			    size_t from, const char *reason)
{
	int r = 0;

	for (size_t t = from; t < rn->e->n_threads && r >= 0; t++) {
		struct step_result s = { .threads = (unsigned)rn->e->threads[t], .failed = true };

		snprintf(s.driver, sizeof(s.driver), "%s", word_name(oltp_driver_words, rn->e->driver));
		snprintf(s.reason, sizeof(s.reason), "%s", reason);
		s.lat_avg_ms = s.lat_p50_ms = s.lat_p95_ms = s.lat_p99_ms = s.lat_max_ms = -1;
		r = put_step(rn, unit, ctx, v, repeat, &s);
		rn->steps_failed++;
	}
	return r;
}

static void eta(const struct runner *rn, char *buf, size_t len)
{
	double elapsed = (double)(now_ns() - rn->start_ns) / 1e9;
	long left = (long)(rn->steps_done ? elapsed / (double)rn->steps_done *
						    (double)(rn->plan->n_steps - rn->steps_done)
					  : rn->plan->estimate_s);

	snprintf(buf, len, "%ldm%02lds", left / 60, left % 60);
}

/* The unit's placement, with its settings and its slices' as written,
 * resolved and read back. */
static int put_placement(struct runner *rn, const char *unit, const struct context *c, const struct slice_tree *tree)
{
	_cleanup_(placement_done) struct placement p = {};
	unsigned bad = 0;
	char name[160];
	json_t *j;
	int r, e;

	r = placement_snapshot(c->pid, getpid(), c->mode, &p);
	if (r >= 0)
		r = server_facts(c->server, &p);
	if (r >= 0)
		r = managed_systemd_facts(c, &p);
	if (r >= 0)
		r = placement_verify(&p, c->spec, c->mode, &bad);
	/* The unit's own placement is kept even if its slices cannot be read. */
	if (r >= 0 && (e = slice_tree_record(tree, &p)) < 0)
		log_warning_errno(e, "run: %s: cannot read its slices' settings back: %m", unit);
	if (r < 0)
		return r;
	if (bad)
		managed_warn_not_in_force(unit, &p);
	j = placement_to_json(&p);
	if (!j)
		return -ENOMEM;
	r = results_placement_file(unit, name, sizeof(name));
	if (r >= 0)
		r = results_put(rn->res, name, j);
	json_decref(j);
	return r;
}

/* The experiment's slices for a context of that kind: slice units for the
 * systemd kinds, cgroups for raw; the [vary] value of vary index v goes to
 * its slice.  The context is given its slot in the tree. */
static int unit_slices_start(struct runner *rn, struct context *c, size_t ctx, size_t v, struct slice_tree *t,
			     struct prop_value *vary, char **ret_msg)
{
	const struct experiment *e = rn->e;
	int r;

	if (!e->n_slices)
		return 0;
	*t = (struct slice_tree){ .specs = e->slices, .n = e->n_slices, .mode = c->mode,
				  .by_systemd = c->ops->manager != MANAGER_NONE };
	if (e->n_vary && e->vary_slice >= 0) {
		r = prop_parse(e->vary->name, e->vary_values[v], vary);
		if (r < 0)
			return r;
		t->vary = vary;
		t->vary_in = (size_t)e->vary_slice;
	}
	r = managed_slices_start(t, &rn->server, ret_msg);
	if (r >= 0 && e->context_slice[ctx] >= 0)
		c->slice = slice_tree_slot(t, (size_t)e->context_slice[ctx]);
	return r;
}

/* What a unit's server runs in, made by unit_start and undone by unit_end. */
struct unit_parts {
	struct context_spec spec;
	struct context c;
	struct slice_tree tree;
	struct prop_value slice_vary;
	char *cpu_dir;
	bool started; /* managed_start() succeeded: managed_stop() undoes it */
};

static void unit_slices_stop(struct runner *rn, struct slice_tree *t, struct prop_value *vary)
{
	if (t->specs)
		managed_slices_stop(t, &rn->server);
	prop_value_done(vary);
}

/* One step's neighbours: their processes in their places, and the oltp
 * neighbours' clients. */
struct step_neighbours {
	struct neighbour nb[EXP_NEIGHBOURS_MAX];
	struct oltp_background *client[EXP_NEIGHBOURS_MAX];
	size_t n;
};

/* The oltp neighbours' clients stopped, before their servers are: their
 * TPS in s's measured seconds into s (NULL: not wanted), and a client that failed on its own
 * fails the step with its reason. */
static void step_clients_stop(struct step_neighbours *sn, struct step_result *s)
{
	for (size_t i = 0; i < sn->n; i++) {
		struct step_result c = {};
		int r;

		if (!sn->client[i])
			continue;
		r = oltp_background_stop(sn->client[i], s, &c);
		sn->client[i] = NULL;
		if (s && r >= 0 && s->n_neighbour_tps < OLTP_NEIGHBOURS_MAX) {
			s->neighbour_tps_names[s->n_neighbour_tps] = sn->nb[i].spec->name;
			s->neighbour_tps[s->n_neighbour_tps++] = c.tps;
		}
		if (s && !s->failed && (r < 0 || c.failed)) {
			s->failed = true;
			snprintf(s->reason, sizeof(s->reason), "neighbour %s's client: %.190s", sn->nb[i].spec->name,
				 r < 0 ? strerror(-r) : c.reason);
		}
		step_result_done(&c);
	}
}

static void step_neighbours_stop(struct runner *rn, struct step_neighbours *sn)
{
	step_clients_stop(sn, NULL);
	for (size_t i = 0; i < sn->n; i++) {
		managed_neighbour_stop(&sn->nb[i], &rn->server);
		neighbour_done(&sn->nb[i]);
	}
	sn->n = 0;
}

/* An oltp neighbour's server, once it answers: its small table made (or
 * found, from an earlier step) and its client started against it. */
static int neighbour_client_start(struct neighbour *n, struct oltp_background **ret, char **ret_msg)
{
	_cleanup_free_ char *msg = NULL;
	struct oltp_options o;
	int r;

	oltp_options_default(&o);
	o.socket = n->server->socket;
	o.table_size = NEIGHBOUR_OLTP_TABLE_SIZE;
	o.server_pid = n->pid; /* its client fails once its server is gone */
	r = oltp_prepare(&o, &msg);
	if (r >= 0)
		r = oltp_background_start(&o, n->spec->threads, ret);
	if (r < 0)
		xasprintf(ret_msg, "neighbour %s: %s: %s", n->spec->name, msg ? "preparing its table" : "starting its client",
			  msg ? msg : strerror(-r));
	return r;
}

/* The experiment's neighbours for one step, each in its slice of the
 * unit's tree or the kind's default place, made as the server's context
 * makes its own; their cpu cgroups go to the step's telemetry.  On failure
 * none is left and *ret_msg says why. */
static int step_neighbours_start(struct runner *rn, const struct context *c, const struct slice_tree *t,
				 struct step_neighbours *sn, struct oltp_options *o, char **ret_msg)
{
	const struct experiment *e = rn->e;
	int r = 0;

	o->n_neighbours = 0;
	for (size_t i = 0; i < e->n_neighbours && r >= 0; i++) {
		int slice = e->neighbour_slice[i];
		struct neighbour *n = &sn->nb[i];

		*n = (struct neighbour){ .spec = &e->neighbours[i], .mode = c->mode,
					 .by_systemd = c->ops->manager != MANAGER_NONE,
					 .slice = slice >= 0 ? slice_tree_slot(t, (size_t)slice) : NULL,
					 .server = &rn->neighbour_servers[i] };
		r = managed_neighbour_start(n, &rn->server, ret_msg);
		if (r < 0) {
			neighbour_done(n);
			break;
		}
		sn->n++;
		if (n->spec->kind == NEIGHBOUR_OLTP)
			r = neighbour_client_start(n, &sn->client[i], ret_msg);
		o->neighbour_names[i] = n->spec->name;
		o->neighbour_cpu_cgroups[i] = n->cpu_dir;
		o->neighbour_pids[i] = n->pid;
		o->n_neighbours++;
	}
	if (r < 0)
		step_neighbours_stop(rn, sn);
	return r;
}

/* One step with the experiment's neighbours beside it: they start before
 * its warm-up and stop after it, and one that ended on its own during the
 * step fails the step.  o is the step's copy of the unit's options, which
 * must live as long as *s: its samples name the neighbours from it. */
static int step_with_neighbours(struct runner *rn, const struct context *c, const struct slice_tree *t,
				struct oltp_options *o, unsigned threads, struct step_result *s)
{
	struct step_neighbours sn = {};
	_cleanup_free_ char *msg = NULL;
	int r;

	r = step_neighbours_start(rn, c, t, &sn, o, &msg);
	if (r < 0) {
		*s = (struct step_result){ .threads = threads, .failed = true };
		snprintf(s->reason, sizeof(s->reason), "%s", msg ? msg : strerror(-r));
		return 0;
	}
	r = oltp_step(o, threads, s);
	/* A server that died says so better than its client's lost connections. */
	for (size_t i = 0; r >= 0 && i < sn.n; i++)
		if (neighbour_check(&sn.nb[i]) < 0 && !s->failed) {
			s->failed = true;
			snprintf(s->reason, sizeof(s->reason), "%s", strempty(sn.nb[i].failure));
		}
	step_clients_stop(&sn, r >= 0 ? s : NULL);
	step_neighbours_stop(rn, &sn);
	return r;
}

/* The steps of a unit whose server runs (c), those not yet recorded, after
 * the buffer pool's warm-up.  Returns <0 for what must end the run. */
static int unit_steps(struct runner *rn, const char *unit, size_t ctx, size_t v, unsigned repeat, struct context *c,
		      const struct slice_tree *tree, const struct oltp_options *o)
{
	const struct experiment *e = rn->e;
	_cleanup_free_ char *msg = NULL;
	char name[160], left[32];
	int r, result = 0;

	r = oltp_prewarm(o, &msg);
	if (r < 0)
		log_warning("run: %s: warming the buffer pool: %s", unit, strempty(msg));
	for (size_t t = 0; t < e->n_threads && result >= 0; t++) {
		struct step_result s = {};
		struct oltp_options step_o = *o;

		if (results_step_file(unit, e->threads[t], name, sizeof(name)) >= 0 && results_have(rn->res, name)) {
			rn->steps_done++;
			continue;
		}
		eta(rn, left, sizeof(left));
		progress("unit %zu/%zu %s: %ld threads, ETA %s", rn->units_done, rn->plan->n_units, unit,
			 e->threads[t], left);
		r = step_with_neighbours(rn, c, tree, &step_o, (unsigned)e->threads[t], &s);
		if (r < 0) {
			snprintf(s.reason, sizeof(s.reason), "the step could not be set up: %s", strerror(-r));
			s.failed = true;
			s.threads = (unsigned)e->threads[t];
		}
		if (interrupt_signal) {
			/* A step cut short by a signal is not a result. */
			step_result_done(&s);
			return -EINTR;
		}
		if (s.failed) {
			log_error("run: %s: %ld threads failed: %s", unit, e->threads[t], s.reason);
			rn->steps_failed++;
		} else if (s.connect_s > 0)
			/* 800 clients take tens of seconds to connect here: said apart
			 * from the TPS, which does not count them. */
			progress("unit %zu/%zu %s: %ld threads: %.1f TPS, measured after %.1f s of connecting", rn->units_done,
				 rn->plan->n_units, unit, e->threads[t], s.tps, s.connect_s);
		r = put_step(rn, unit, ctx, v, repeat, &s);
		rn->steps_done++;
		if (r < 0)
			result = r; /* put_step() said which file */
		else if (s.failed && e->on_error == ON_ERROR_STOP)
			result = -ECANCELED;
		else if (s.failed && !process_alive(&c->pid)) {
			/* The server is gone: the unit's other steps cannot run. */
			result = put_failed_steps(rn, unit, ctx, v, repeat, t + 1, "the server was no longer running");
			rn->steps_done += e->n_threads - t - 1;
			step_result_done(&s);
			break;
		}
		step_result_done(&s);
	}
	return result;
}

/* A unit's server started in context c (spec filled from vary value v),
 * inside the experiment's slices, and the options pointed at it: the part
 * run_unit and run_live_unit share.  c->ops is NULL when the spec could not
 * be made, and nothing was started. */
static int unit_start(struct runner *rn, size_t ctx, size_t v, const char *unit, const char *how,
		      struct unit_parts *u, struct oltp_options *o, char **ret_msg)
{
	const struct experiment *e = rn->e;
	char left[32];
	int r;

	r = experiment_spec_for(e, ctx, v, &u->spec);
	if (r < 0)
		return r;
	u->c = (struct context){ .ops = context_ops_for(u->spec.kind), .spec = &u->spec, .server = &rn->server,
				 .mode = cgroup_mode_detect() };
	rn->units_done++;
	eta(rn, left, sizeof(left));
	progress("unit %zu/%zu %s (%s%s): starting the server, ETA %s", rn->units_done, rn->plan->n_units, unit,
		 context_kind_to_string(u->spec.kind), how, left);
	r = unit_slices_start(rn, &u->c, ctx, v, &u->tree, &u->slice_vary, ret_msg);
	if (r >= 0)
		r = managed_start(&u->c, ret_msg);
	if (r < 0)
		return r;
	u->started = true;
	o->socket = rn->server.socket;
	o->server_pid = rn->server_pid = u->c.pid;
	if (cgroup_cpu_dir(u->c.pid, u->c.mode, &u->cpu_dir) >= 0)
		o->server_cpu_cgroup = u->cpu_dir;
	return 0;
}

/* Undoes unit_start: the server stopped if it runs, the slices removed. */
static int unit_end(struct runner *rn, struct unit_parts *u)
{
	int r = 0;

	rn->server_pid = 0;
	if (u->started)
		r = managed_stop(&u->c);
	u->started = false;
	unit_slices_stop(rn, &u->tree, &u->slice_vary);
	if (u->c.ops)
		experiment_spec_done(rn->e, &u->spec);
	free(u->cpu_dir);
	u->cpu_dir = NULL;
	return r;
}

/* One unit: a fresh server in the context, its steps, the server stopped.
 * Returns <0 only for what must end the run (a results write that failed,
 * on-error = stop, a signal).  Long because a start that fails or is cut
 * short has to be recorded and undone here, each its own way. */
static int run_unit(struct runner *rn, size_t ctx, size_t v, unsigned repeat)
{
	const struct experiment *e = rn->e;
	_cleanup_free_ char *msg = NULL;
	struct unit_parts u = {};
	struct oltp_options o = rn->o;
	char unit[96];
	int r, result = 0;

	r = results_unit_name(e->contexts[ctx].name, v, repeat, unit, sizeof(unit));
	if (r < 0)
		return log_error_errno(r, "run: %s: %m", e->contexts[ctx].name);
	experiment_client_for(e, ctx, &o);
	if (unit_done(rn, unit)) {
		rn->steps_done += e->n_threads;
		return 0;
	}
	r = unit_start(rn, ctx, v, unit, "", &u, &o, &msg);
	if (r < 0 && !u.c.ops)
		return log_error_errno(r, "run: %s: %m", unit);
	if (r < 0 && interrupt_signal) {
		/* A start cut short by a signal is not a failure of the unit: its
		 * steps stay unrun, so that --resume runs them. */
		unit_end(rn, &u);
		return -EINTR;
	}
	if (r < 0) {
		_cleanup_free_ char *reason = NULL;

		log_error_errno(r, "run: %s: the server did not start as %s: %m%s%s", unit,
				context_kind_to_string(u.spec.kind), msg ? "; " : "", strempty(msg));
		xasprintf(&reason, "the server did not start: %s", strerror(-r));
		result = put_failed_steps(rn, unit, ctx, v, repeat, 0, reason ? reason : "the server did not start");
		rn->steps_done += e->n_threads;
		unit_end(rn, &u);
		return result < 0 ? result : e->on_error == ON_ERROR_STOP ? -ECANCELED : 0;
	}
	r = put_placement(rn, unit, &u.c, &u.tree);
	if (r < 0)
		log_warning_errno(r, "run: %s: cannot record the placement: %m", unit);
	result = unit_steps(rn, unit, ctx, v, repeat, &u.c, &u.tree, &o);
	r = unit_end(rn, &u);
	if (r < 0)
		log_warning_errno(r, "run: %s: stopping the server: %m", unit);
	return result;
}

/* Vary value v put in force on the running server: the context's setting
 * (the spec's last, experiment_spec_for()'s) through its kind's set op, or
 * the slice's through the tree. */
static int live_apply(struct runner *rn, struct context *c, struct context_spec *spec, struct slice_tree *tree,
		      struct prop_value *slice_vary, size_t v, char **ret_why)
{
	const struct experiment *e = rn->e;
	struct prop_value *target = experiment_varies_contexts(e) ? &spec->props[spec->n_props - 1] : slice_vary;
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
static int live_verify(struct runner *rn, struct context *c, struct slice_tree *tree, char **ret_why)
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
static int live_change(struct runner *rn, struct context *c, struct context_spec *spec, struct slice_tree *tree,
		       struct prop_value *slice_vary, size_t v, char **ret_why)
{
	int r = live_apply(rn, c, spec, tree, slice_vary, v, ret_why);

	for (int i = 0; r >= 0 && i < 20; i++) {
		free(*ret_why);
		*ret_why = NULL;
		r = live_verify(rn, c, tree, ret_why);
		if (r == 0)
			return 0;
		usleep(50000);
	}
	return r < 0 ? r : -EIO;
}

/* The units of one repeat of a context in mode = live: one server for
 * every vary value, the setting changed in place between them and read
 * back before their steps, so that a step never runs under a setting not
 * in force (its steps fail instead).  Long because, like run_unit, it
 * records and undoes a start that fails, and then walks the values. */
static int run_live_unit(struct runner *rn, size_t ctx, unsigned repeat)
{
	const struct experiment *e = rn->e;
	_cleanup_free_ char *msg = NULL, *label = NULL;
	struct unit_parts u = {};
	struct oltp_options o = rn->o;
	char unit[96];
	size_t n_done = 0;
	int r, result = 0;

	/* Beside restart's units, the live ones are a column of their own. */
	if (e->vary_modes & VARY_RESTART && xasprintf(&label, "%s-live", e->contexts[ctx].name) < 0)
		return log_error_errno(-ENOMEM, "run: %s: %m", e->contexts[ctx].name);
	rn->context_name = label ? label : e->contexts[ctx].name;
	experiment_client_for(e, ctx, &o);
	for (size_t v = 0; v < e->n_vary; v++)
		if (results_unit_name(rn->context_name, v, repeat, unit, sizeof(unit)) >= 0 && unit_done(rn, unit))
			n_done++;
	if (n_done == e->n_vary) {
		rn->steps_done += e->n_vary * e->n_threads;
		rn->context_name = NULL;
		return 0;
	}
	r = results_unit_name(rn->context_name, 0, repeat, unit, sizeof(unit));
	if (r >= 0)
		r = unit_start(rn, ctx, 0, unit, ", live", &u, &o, &msg);
	if (r < 0 && !u.c.ops) {
		rn->context_name = NULL;
		return log_error_errno(r, "run: %s: %m", unit);
	}
	if (r < 0) {
		if (!interrupt_signal)
			log_error_errno(r, "run: %s: the server did not start as %s: %m%s%s", unit,
					context_kind_to_string(u.spec.kind), msg ? "; " : "", strempty(msg));
		for (size_t v = 0; !interrupt_signal && result >= 0 && v < e->n_vary; v++) {
			result = results_unit_name(rn->context_name, v, repeat, unit, sizeof(unit));
			if (result >= 0)
				result = put_failed_steps(rn, unit, ctx, v, repeat, 0, "the server did not start");
			rn->steps_done += e->n_threads;
		}
	}
	for (size_t v = 0; r >= 0 && result >= 0 && v < e->n_vary; v++) {
		_cleanup_free_ char *why = NULL;

		if (results_unit_name(rn->context_name, v, repeat, unit, sizeof(unit)) < 0 || unit_done(rn, unit)) {
			rn->steps_done += e->n_threads;
			continue;
		}
		if (v > 0)
			progress("unit %s: %s=%s on the running server", unit, e->vary->name, e->vary_values[v]);
		if (live_change(rn, &u.c, &u.spec, &u.tree, &u.slice_vary, v, &why) < 0) {
			log_error("run: %s: %s=%s could not be put in force live: %s", unit, e->vary->name,
				  e->vary_values[v], why ? why : "it was not read back");
			result = put_failed_steps(rn, unit, ctx, v, repeat, 0, why ? why : "the setting is not in force");
			rn->steps_done += e->n_threads;
			continue;
		}
		if (put_placement(rn, unit, &u.c, &u.tree) < 0)
			log_warning("run: %s: cannot record the placement", unit);
		result = unit_steps(rn, unit, ctx, v, repeat, &u.c, &u.tree, &o);
		if (!process_alive(&u.c.pid))
			break;
	}
	if (unit_end(rn, &u) < 0)
		log_warning("run: %s: stopping the server failed", unit);
	rn->context_name = NULL;
	if (interrupt_signal)
		return -EINTR;
	return result < 0 ? result : r < 0 && e->on_error == ON_ERROR_STOP ? -ECANCELED : result;
}

/* The dataset is made once, by a server with no placement of its own, so
 * that no unit measures a server still flushing the load. */
static int prepare_dataset(struct runner *rn)
{
	_cleanup_free_ char *msg = NULL;
	struct context_spec spec = { .kind = CONTEXT_RAW };
	struct context c = { .ops = context_ops_for(CONTEXT_RAW), .spec = &spec, .server = &rn->server,
			     .mode = cgroup_mode_detect() };
	struct oltp_options o = rn->o;
	int r;

	snprintf(spec.name, sizeof(spec.name), "prepare");
	progress("preparing %u x %u rows", o.tables, o.table_size);
	r = managed_start(&c, &msg);
	if (r < 0)
		return log_error_errno(r, "run: the server for the dataset did not start: %m%s%s",
				       msg ? "; " : "", strempty(msg));
	o.socket = rn->server.socket;
	r = oltp_prepare(&o, &msg);
	if (r < 0)
		log_error_errno(r, "run: preparing the dataset: %s", msg ? msg : strerror(-r));
	managed_stop(&c);
	return r;
}

static int open_results(const char *out, bool resume, const struct experiment *e, struct results **ret)
{
	_cleanup_free_ char *dir = NULL;
	char stamp[32];
	time_t now = time(NULL);
	int r;

	if (out)
		dir = strdup(out);
	else {
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		xasprintf(&dir, "results/%s-%s", e->name, stamp);
	}
	if (!dir)
		return -ENOMEM;
	r = results_open(dir, resume, ret);
	if (r == -EBUSY)
		return log_error("run: another run holds %s", dir), r;
	if (r == -EEXIST)
		return log_error("run: %s already holds results (--resume %s to finish it)", dir, dir), r;
	if (r == -ENOENT && resume)
		return log_error("run: --resume %s: there is no such directory to resume", dir), r;
	if (r < 0)
		return log_error_errno(r, "run: cannot write results to %s: %m%s", dir,
				       r == -ELOOP ? " (a symbolic link, or under one that root did not make: give the directory itself)" : "");
	return 0;
}

/* Files run reads back as it wrote them, and the same experiment, or
 * --resume would mix two designs in one table. */
static int check_resumed(struct results *res, const json_t *exp)
{
	_cleanup_free_ char *path = NULL, *why = NULL;
	json_t *doc = NULL, *old;
	int same, r;

	r = results_load(results_dir(res), &doc, &why);
	if (r == -EBADMSG)
		return log_error("run: --resume %s: %s (not as slicebench run writes it)", results_dir(res), why), r;
	if (r < 0)
		return log_error_errno(r, "run: --resume %s: %m", results_dir(res));
	if (xasprintf(&path, "%s/experiment.json", results_dir(res)) < 0) {
		json_decref(doc);
		return -ENOMEM;
	}
	old = json_object_get(doc, "experiment");
	if (json_is_null(old)) {
		json_decref(doc);
		return 0;
	}
	json_object_del(old, "path");
	same = json_equal(old, exp);
	json_decref(doc);
	if (!same)
		return log_error("run: %s was run with another version of this experiment; start a new run", path),
		       -EINVAL;
	return 0;
}

static int write_run_facts(struct results *res, const struct experiment *e, bool resume)
{
	json_t *exp = experiment_to_json(e), *host = NULL;
	int r;

	if (!exp)
		return -ENOMEM;
	json_object_del(exp, "path");
	/* As it is written, so that a resumed run compares like with like. */
	r = secret_mask_json(exp);
	if (r >= 0 && resume)
		r = check_resumed(res, exp);
	if (r >= 0)
		r = results_put(res, "experiment.json", exp);
	json_decref(exp);
	if (r >= 0 && !(resume && results_have(res, "host.json"))) {
		r = host_facts_collect(&host);
		if (r >= 0)
			r = results_put(res, "host.json", host);
		json_decref(host);
	}
	/* check_resumed() said why it refused. */
	return r < 0 && r != -EINVAL && r != -EBADMSG ? log_error_errno(r, "run: cannot write to %s: %m", results_dir(res)) : r;
}

/* The document of record so far, handed to next_round. */
static int ask_next_round(struct runner *rn, struct run_options *o, bool more[EXP_VARY_MAX][EXP_CONTEXTS_MAX])
{
	_cleanup_free_ char *why = NULL;
	json_t *doc = NULL;
	int r;

	r = results_load(results_dir(rn->res), &doc, &why);
	if (r < 0 && why)
		return log_error("run: cannot read back %s: %s", results_dir(rn->res), why), r;
	if (r < 0)
		return log_error_errno(r, "run: cannot read back %s: %m", results_dir(rn->res));
	memset(more, 0, sizeof(bool) * EXP_VARY_MAX * EXP_CONTEXTS_MAX);
	r = o->next_round(o->userdata, doc, more);
	json_decref(doc);
	return r;
}

/* How many units the next round runs: the selected ones in more. */
static size_t round_size(const struct runner *rn, bool more[EXP_VARY_MAX][EXP_CONTEXTS_MAX])
{
	size_t n = 0;

	for (size_t v = 0; v < experiment_n_values(rn->e); v++)
		for (size_t c = 0; c < rn->e->n_contexts; c++)
			n += more[v][c] && rn->plan->selected[c];
	return n;
}

/* Rounds of repeats, interleaved (A B C D A B C D): every repeat of a fixed
 * count; with repeat = auto, from RUN_AUTO_MIN_REPEATS on only the units
 * next_round asks for, until it asks for none, repeat-max is reached, or
 * the next round would end past the budget. */
static int run_rounds(struct runner *rn, struct run_options *o)
{
	const struct experiment *e = rn->e;
	bool more[EXP_VARY_MAX][EXP_CONTEXTS_MAX];
	bool adaptive = e->repeat_auto && o->next_round;
	uint64_t start = now_ns();
	size_t units = 0;
	int r = 0;

	memset(more, 1, sizeof(more));
	for (unsigned rep = 1; rep <= e->repeat; rep++) {
		size_t next;
		double per_unit_s, left_s;

		o->rounds = rep;
		for (size_t v = 0; r >= 0 && (vary_modes(e) & VARY_RESTART) && v < experiment_n_values(e); v++)
			for (size_t c = 0; r >= 0 && c < e->n_contexts; c++)
				if (rn->plan->selected[c] && more[v][c]) {
					r = interrupt_signal ? -EINTR : run_unit(rn, c, v, rep);
					units++;
				}
		for (size_t c = 0; r >= 0 && (vary_modes(e) & VARY_LIVE) && c < e->n_contexts; c++)
			if (rn->plan->selected[c]) {
				r = interrupt_signal ? -EINTR : run_live_unit(rn, c, rep);
				units++;
			}
		if (r < 0 || !adaptive || rep < RUN_AUTO_MIN_REPEATS)
			continue;
		r = ask_next_round(rn, o, more);
		if (r < 0)
			return r;
		next = round_size(rn, more);
		if (next == 0) {
			o->stopped = RUN_STOP_SETTLED;
			return 0;
		}
		if (rep == e->repeat) {
			o->stopped = RUN_STOP_MAX;
			return 0;
		}
		per_unit_s = (double)(now_ns() - start) / 1e9 / (double)units;
		left_s = (double)o->budget_ns / 1e9 - (double)(now_ns() - start) / 1e9;
		if (o->budget_ns && per_unit_s * (double)next > left_s) {
			progress("the budget leaves no time for round %u (%zu units, about %.0fs)", rep + 1, next,
				 per_unit_s * (double)next);
			o->stopped = RUN_STOP_BUDGET;
			return 0;
		}
		progress("round %u: %zu units whose ratios are not yet known well enough", rep + 1, next);
	}
	return r;
}

/* Long because it is a run's one sequence: results, facts, server,
 * client scope, dataset, the interleaved units, the document for the caller. */
int run_experiment(const struct experiment *e, const struct run_plan *plan, const char *out, bool resume,
		   struct run_options *o)
{
	struct run_options defaults = {};
	struct runner rn = { .e = e, .plan = plan, .start_ns = now_ns() };
	struct server_config cfg = {};
	_cleanup_free_ char *busy = NULL, *why = NULL;
	char db[64];
	json_t *doc = NULL;
	bool started = false;
	int r;

	/* Before the first child: a signal from here on ends the run cleanly. */
	interrupt_catch();
	if (host_busy_processes(500, 5, &busy) >= 0 && busy)
		log_warning("run: other processes are busy on the CPUs and will be measured too: %s", busy);
	if (!o)
		o = &defaults;
	o->stopped = RUN_STOP_NONE;
	o->rounds = 0;
	o->refused = false;
	r = open_results(out, resume, e, &rn.res);
	if (r < 0) {
		o->refused = r == -ELOOP || r == -EEXIST || r == -ENOENT || r == -ENOTDIR;
		return r;
	}
	r = write_run_facts(rn.res, e, resume);
	if (r < 0) {
		o->refused = r == -EINVAL || r == -EBADMSG;
		goto out;
	}
	experiment_server_config(e, &cfg);
	managed_config_default(&cfg);
	r = managed_setup("run", &cfg, &rn.server);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < e->n_neighbours && r >= 0; i++)
		if (e->neighbours[i].kind == NEIGHBOUR_OLTP)
			r = managed_neighbour_server_setup("run", &cfg, e->neighbours[i].name, &rn.neighbour_servers[i]);
	if (r < 0)
		goto out;
	options_for(e, &rn.o, db, sizeof(db));
	if (e->client_scope) {
		_cleanup_free_ char *unit = NULL;

		r = xasprintf(&unit, "slicebench-client-%s-%d.scope", e->name, (int)getpid());
		if (r >= 0)
			r = scope_wrap_pid(getpid(), unit, "slicebench load generator");
		if (r < 0) {
			log_error_errno(r, "run: cannot move the client into %s: %m%s", strempty(unit),
					r == -ENOENT || r == -ECONNREFUSED ? " (no systemd here: [client] scope needs one)" : "");
			goto out;
		}
		progress("the client runs in %s", unit);
	}
	progress("run %s started, results in %s", e->name, results_dir(rn.res));
	started = true;
	r = prepare_dataset(&rn);
	if (r >= 0)
		r = run_rounds(&rn, o);
	if (r >= 0 || r == -EINTR || r == -ECANCELED)
		(void)results_rebuild(rn.res);
	progress("run %s %s: %zu steps, %zu failed, results in %s", e->name,
		 interrupt_signal ? "interrupted" : r < 0 ? "stopped" : "finished", rn.steps_done, rn.steps_failed,
		 results_dir(rn.res));
	if (r >= 0 && o->finished && results_load(results_dir(rn.res), &doc, &why) >= 0) {
		o->finished(o->userdata, doc);
		json_decref(doc);
	}
out:
	server_done(&rn.server);
	for (size_t i = 0; i < EXP_NEIGHBOURS_MAX; i++)
		server_done(&rn.neighbour_servers[i]);
	/* Refused or failed at set-up: no results directory stays behind. */
	if (started)
		results_close(rn.res);
	else
		results_discard(rn.res);
	if (interrupt_signal)
		return -EINTR;
	return r < 0 ? r : (int)MIN(rn.steps_failed, (size_t)INT_MAX);
}

int run_whole_experiment(const struct experiment *e, const char *out, struct run_options *o)
{
	struct run_plan plan;
	int r;

	r = run_plan_make(e, NULL, &plan);
	return r < 0 ? r : run_experiment(e, &plan, out, false, o);
}

/* The checks of a whole experiment, once its file is read (or its
 * experiment.json read back): what needs more than one key, the host (an
 * engine installed, a neighbour's command in PATH) and the cgroup mode (a
 * property that cannot take effect there is refused).  Each message names
 * the line of the key that is wrong. */
#include "experiment/binary.h"
#include "experiment/check.h"
#include "experiment/proxy.h"

/* On the command line, an engine not given is the given workload's: the
 * first engine of its protocol (--workload select-only alone has always
 * meant PostgreSQL there); a file names its engine. */
static int engine_of_workload(struct parser *p)
{
	struct experiment *e = p->e;
	const char *protocol = oltp_workload_def(e->oltp.workload)->protocol;

	if (!p->options || line_of(p, KEY_ENGINE) || line_of(p, KEY_FLAVOR) || !line_of(p, KEY_WORKLOAD))
		return 0;
	for (size_t i = 0; server_engines[i]; i++)
		if (streq(server_engines[i]->protocol, protocol)) {
			char *name = strdup(server_engines[i]->name);

			if (!name)
				return -ENOMEM;
			free(e->engine);
			e->engine = name;
			return 0;
		}
	return 0;
}

/* The server and the workload: the engine installed, a workload of its
 * protocol, a driver for the workload, the largest step within the
 * server's connections, client threads only where they mean something.
 * A server the user gives (p->server_given) is not looked for here, and
 * its connections are not known. */
static int check_server(struct parser *p)
{
	struct experiment *e = p->e;
	const struct server_engine *engine = server_engine_named(e->engine);
	const struct oltp_workload_def *w;
	_cleanup_free_ char *missing = NULL, *why = NULL;
	unsigned engine_line = line_of(p, KEY_ENGINE), flavor_line = line_of(p, KEY_FLAVOR);
	unsigned binary_line = line_of(p, KEY_BINARY), threads_line = line_of(p, KEY_THREADS);
	long most = 0;
	int r;

	if (engine_line && flavor_line)
		return fail_at(p, flavor_line, "flavor", "the old name of engine, which line %u gives", engine_line);
	if (!engine)
		return fail_at(p, engine_line, "engine", "no such engine");
	if (!e->binary && !(e->binary = strdup(engine->binary)))
		return -ENOMEM;
	r = p->server_given ? 0 : engine->installed(e->binary, &missing);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return fail_at(p, binary_line ?: engine_line ?: flavor_line,
			       binary_line ? "binary" : flavor_line ? "flavor" : "engine", "%s is not installed here: no %s%s",
			       e->engine, missing, streq(engine->name, "postgresql") ? " (apt-get install postgresql-15)" : "");
	if (!line_of(p, KEY_WORKLOAD))
		for (int i = _OLTP_WORKLOAD_MAX - 1; i >= 0; i--)
			if (streq(oltp_workload_def(i)->protocol, engine->protocol))
				e->oltp.workload = (enum oltp_workload)i;
	w = oltp_workload_def(e->oltp.workload);
	if (!streq(w->protocol, engine->protocol))
		return fail_at(p, line_of(p, KEY_WORKLOAD), "workload", "%s does not run on %s, which runs %s",
			       oltp_workload_name(e->oltp.workload), engine->name, oltp_workload_list(engine->protocol));
	/* The user's script runs by its tool, unless the file said otherwise. */
	if (w->user_script && !line_of(p, KEY_DRIVER))
		e->oltp.driver = w->tool;
	r = oltp_driver_check(e->oltp.workload, e->oltp.driver, &why);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return fail_at(p, line_of(p, KEY_DRIVER), "driver", "%s", why);
	if (line_of(p, KEY_CLIENT_THREADS) && !streq(w->protocol, "postgresql"))
		return fail_at(p, line_of(p, KEY_CLIENT_THREADS), "threads",
			       "%s runs one client thread per connection; [client] threads is for pgbench's workloads",
			       oltp_workload_name(e->oltp.workload));
	for (size_t i = 0; i < e->n_threads; i++)
		most = MAX(most, e->threads[i]);
	/* slicebench itself needs one connection beside the clients. */
	if (!p->server_given && (unsigned long)most >= e->max_connections)
		return fail_at(p, threads_line ?: line_of(p, KEY_MAX_CONNECTIONS), threads_line ? "threads" : "max-connections",
			       "%ld %s need max-connections above %ld, and [server] max-connections is %u", most, w->unit,
			       most, e->max_connections);
	return 0;
}

/* repeat = auto needs its maximum; repeat-max and until mean nothing
 * without it, look-every nothing without decide, whose maximum the run
 * plans when the file gives none.  margin is every design's: a fixed
 * one's answers are judged once, at its end. */
static int check_repeat(struct parser *p)
{
	struct experiment *e = p->e;

	if (!e->repeat_decide && line_of(p, KEY_LOOK_EVERY))
		return fail_at(p, line_of(p, KEY_LOOK_EVERY), "look-every", "only with repeat = decide");
	if (e->repeat_decide) {
		if (line_of(p, KEY_UNTIL))
			return fail_at(p, line_of(p, KEY_UNTIL), "until", "only with repeat = auto (decide stops at margin)");
		if (e->n_vary)
			return fail_at(p, line_of(p, KEY_REPEAT), "repeat", "decide takes no [vary]: its looks judge each "
				       "context against the baseline, not against a first value");
		e->repeat = e->repeat_max;
		return 0;
	}
	if (!e->repeat_auto) {
		if (line_of(p, KEY_REPEAT_MAX))
			return fail_at(p, line_of(p, KEY_REPEAT_MAX), "repeat-max", "only with repeat = auto or decide");
		if (line_of(p, KEY_UNTIL))
			return fail_at(p, line_of(p, KEY_UNTIL), "until", "only with repeat = auto");
		return 0;
	}
	if (!e->repeat_max)
		return fail_at(p, line_of(p, KEY_REPEAT), "repeat",
			       "auto needs repeat-max = N in [experiment], the most server starts per context");
	e->repeat = e->repeat_max;
	return 0;
}

/* The depth systemd gives a slice: its dashes. */
static unsigned slice_depth(const char *name)
{
	unsigned n = 0;

	for (const char *c = name; *c; c++)
		n += *c == '-';
	return n;
}

void slices_link(struct experiment *e)
{
	for (size_t i = 0; i < e->n_slices; i++) {
		char parent[SLICE_NAME_MAX];

		e->slices[i].parent = -1;
		if (slice_parent_name(e->slices[i].name, parent, sizeof(parent)) > 0)
			for (size_t k = 0; k < i; k++)
				if (streq(e->slices[k].name, parent))
					e->slices[i].parent = (int)k;
	}
}

int find_slice(const struct experiment *e, const char *name)
{
	for (size_t i = 0; i < e->n_slices; i++)
		if (streq(e->slices[i].name, name))
			return (int)i;
	return -1;
}

/* The parents a file only implies are added without settings, then every
 * slice is put after its parent (by depth, otherwise in file order). */
static int complete_slices(struct parser *p)
{
	struct experiment *e = p->e;
	struct slice_spec sorted[EXP_SLICES_MAX];
	unsigned *slice_line = p->header_line[SECTION_SLICE], lines[EXP_SLICES_MAX];
	unsigned prop_lines[EXP_SLICES_MAX][SLICE_PROPS_MAX];
	size_t n = 0;

	for (size_t i = 0; i < e->n_slices; i++) {
		char parent[SLICE_NAME_MAX];

		if (slice_parent_name(e->slices[i].name, parent, sizeof(parent)) <= 0 || find_slice(e, parent) >= 0)
			continue;
		if (e->n_slices == EXP_SLICES_MAX)
			return fail_at(p, slice_line[i], NULL, "more than %d slices with the parents %s implies",
				       EXP_SLICES_MAX, e->slices[i].name);
		/* Its line is its child's: that is what brought it in. */
		slice_line[e->n_slices] = slice_line[i];
		e->slices[e->n_slices] = (struct slice_spec){ .parent = -1 };
		(void)text_copy(e->slices[e->n_slices].name, SLICE_NAME_MAX, parent);
		e->n_slices++;
	}
	for (unsigned depth = 0; n < e->n_slices; depth++)
		for (size_t i = 0; i < e->n_slices; i++)
			if (slice_depth(e->slices[i].name) == depth) {
				sorted[n] = e->slices[i];
				lines[n] = slice_line[i];
				memcpy(prop_lines[n++], p->slice_prop_line[i], sizeof(prop_lines[0]));
			}
	memcpy(e->slices, sorted, n * sizeof(sorted[0]));
	memcpy(slice_line, lines, n * sizeof(lines[0]));
	memcpy(p->slice_prop_line, prop_lines, n * sizeof(prop_lines[0]));
	slices_link(e);
	return 0;
}

/* A slice's settings must take effect for every context its tree is made
 * for: as slice units when a context is of a systemd kind, as cgroups when
 * one is raw.  Checked as a service's or a raw context's would be. */
static int check_slice_prop(struct parser *p, const struct prop_value *v, unsigned line, const char *where)
{
	struct experiment *e = p->e;
	const char *why;

	for (size_t i = 0; i < e->n_contexts; i++) {
		const struct context_ops *ops = context_ops_for(e->contexts[i].kind);
		enum context_kind as = ops->manager == MANAGER_NONE ? CONTEXT_RAW : CONTEXT_SERVICE;

		if (context_check_prop(v, as, p->mode, &why) < 0)
			return fail_at(p, line, v->def->name, "%s in %s (made for [context %s], %s)", why, where,
				       e->contexts[i].name, as == CONTEXT_RAW ? "as cgroups" : "as slice units");
	}
	return 0;
}

/* The slices, with the parents they imply, and their settings; then the
 * contexts' Slice=. */
static int check_context_slices(struct parser *p)
{
	struct experiment *e = p->e;
	char where[96];
	int r;

	r = complete_slices(p);
	for (size_t i = 0; r >= 0 && i < e->n_slices; i++)
		for (size_t k = 0; r >= 0 && k < e->slices[i].n_props; k++) {
			snprintf(where, sizeof(where), "[slice %s]", e->slices[i].name);
			r = check_slice_prop(p, &e->slices[i].props[k], p->slice_prop_line[i][k], where);
		}
	for (size_t i = 0; r >= 0 && i < e->n_contexts; i++) {
		unsigned line = p->key_line[i][KEY_CONTEXT_SLICE];

		e->context_slice[i] = -1;
		if (!*p->ctx_slice[i])
			continue;
		e->context_slice[i] = find_slice(e, p->ctx_slice[i]);
		if (e->context_slice[i] < 0)
			r = fail_at(p, line, "Slice", "no [slice %s] in this file (Slice= names a slice the experiment defines)",
				    p->ctx_slice[i]);
		else if (!context_ops_for(e->contexts[i].kind)->slice)
			r = fail_at(p, line, "Slice",
				    "a %s context does not go into a slice of the experiment's (its unit is not one the "
				    "system manager starts for slicebench)", context_kind_to_string(e->contexts[i].kind));
	}
	return r;
}

/* [vary] slice = NAME: a slice of the file's, given a cgroup setting whose
 * every value takes effect there. */
static int check_vary_slice(struct parser *p)
{
	struct experiment *e = p->e;
	unsigned line = line_of(p, KEY_VARY_SLICE), prop_line = line_of(p, KEY_VARY_PROPERTY);
	char where[96];
	int r = 0;

	e->vary_slice = -1;
	if (!*p->vary_slice)
		return 0;
	if (!e->vary)
		return fail_at(p, line, "slice", "[vary] names a slice but no setting to vary");
	e->vary_slice = find_slice(e, p->vary_slice);
	if (e->vary_slice < 0)
		return fail_at(p, line, "slice", "no [slice %s] in this file", p->vary_slice);
	if (e->vary->class != PROP_CGROUP)
		return fail_at(p, prop_line, e->vary->name, "a slice takes cgroup settings only (%s)",
			       prop_class_list(PROP_CGROUP));
	snprintf(where, sizeof(where), "[vary] of [slice %s]", p->vary_slice);
	for (size_t v = 0; r >= 0 && v < e->n_vary; v++) {
		struct prop_value pv = {};

		r = prop_parse(e->vary->name, e->vary_values[v], &pv);
		if (r >= 0)
			r = check_slice_prop(p, &pv, prop_line, where);
		prop_value_done(&pv);
	}
	return r;
}

/* [vary] mode = live needs a cgroup setting to change; with both modes a
 * context's live steps take a name no context may have. */
static int check_vary_mode(struct parser *p)
{
	struct experiment *e = p->e;

	if ((e->vary_modes & VARY_LIVE) && !e->vary)
		return fail_at(p, line_of(p, KEY_VARY_MODE), "mode",
			       "live changes a [vary] setting between steps, and there is none");
	/* systemd changes a running unit's cgroup settings (SetUnitProperties);
	 * its exec settings only take effect at the next start. */
	if ((e->vary_modes & VARY_LIVE) && e->vary->class != PROP_CGROUP)
		return fail_at(p, line_of(p, KEY_VARY_PROPERTY), e->vary->name,
			       "mode = live: systemd cannot change %s= of a running unit (live takes %s)", e->vary->name,
			       prop_class_list(PROP_CGROUP));
	for (size_t i = 0; (e->vary_modes & (VARY_RESTART | VARY_LIVE)) == (VARY_RESTART | VARY_LIVE) && i < e->n_contexts; i++) {
		char live[64];

		snprintf(live, sizeof(live), "%s-live", e->contexts[i].name);
		for (size_t k = 0; k < e->n_contexts; k++)
			if (streq(e->contexts[k].name, live))
				return fail_at(p, p->header_line[SECTION_CONTEXT][k], NULL,
					       "[context %s]: with mode = restart live, %s's live steps are reported under that name",
					       live, e->contexts[i].name);
	}
	return 0;
}

/* An oltp neighbour's own mariadbd, installed here; the kind's line named. */
static int neighbour_server_missing(struct parser *p, unsigned line)
{
	_cleanup_free_ char *missing = NULL;
	int r = server_engine_mariadb.installed(server_engine_mariadb.binary, &missing);

	if (r == -ENOMEM)
		return fail_at(p, line, "kind", "out of memory");
	if (r < 0)
		return fail_at(p, line, "kind", "an oltp neighbour runs a mariadbd of its own: no %s here", missing);
	return 0;
}

/* Each neighbour's kind and the keys that kind takes, and its slice. */
static int check_neighbours(struct parser *p)
{
	struct experiment *e = p->e;

	for (size_t i = 0; i < e->n_neighbours; i++) {
		struct neighbour_spec *nb = &e->neighbours[i];
		const unsigned *line = p->key_line[i], header = p->header_line[SECTION_NEIGHBOUR][i];
		unsigned threads = line[KEY_NEIGHBOUR_THREADS], duty = line[KEY_NEIGHBOUR_DUTY];
		unsigned command = line[KEY_NEIGHBOUR_COMMAND];

		e->neighbour_slice[i] = -1;
		if (!line[KEY_NEIGHBOUR_KIND])
			return fail_at(p, header, "kind", "[neighbour %s] needs kind = hog, command or oltp", nb->name);
		if (nb->kind == NEIGHBOUR_HOG && command)
			return fail_at(p, command, "command", "a hog runs slicebench hog; command is for kind = command");
		if (nb->kind == NEIGHBOUR_COMMAND && (threads || duty))
			return fail_at(p, threads ?: duty, threads ? "threads" : "duty",
				       "threads and duty are a hog's (threads an oltp neighbour's too); a command's own options say how it runs");
		if (nb->kind == NEIGHBOUR_OLTP && (duty || command))
			return fail_at(p, duty ?: command, duty ? "duty" : "command",
				       "an oltp neighbour is a mariadbd of its own and slicebench's client with threads; "
				       "duty is a hog's, command a command's");
		if (nb->kind == NEIGHBOUR_OLTP && nb->threads > NEIGHBOUR_OLTP_THREADS_MAX)
			return fail_at(p, threads, "threads",
				       "bad value '%u' (an oltp neighbour's client threads: an integer from 1 to %d)",
				       nb->threads, NEIGHBOUR_OLTP_THREADS_MAX);
		if (nb->kind == NEIGHBOUR_OLTP && neighbour_server_missing(p, line[KEY_NEIGHBOUR_KIND]) < 0)
			return -EINVAL;
		if (nb->kind == NEIGHBOUR_COMMAND && !nb->argv)
			return fail_at(p, header, "command", "[neighbour %s] of kind = command needs command = ...", nb->name);
		if (nb->kind != NEIGHBOUR_COMMAND)
			nb->threads = nb->threads ?: 1;
		if (nb->kind == NEIGHBOUR_HOG)
			nb->duty = nb->duty ?: 100;
		if (!*p->nb_slice[i])
			continue;
		e->neighbour_slice[i] = find_slice(e, p->nb_slice[i]);
		if (e->neighbour_slice[i] < 0)
			return fail_at(p, line[KEY_NEIGHBOUR_SLICE], "Slice",
				       "no [slice %s] in this file (Slice= names a slice the experiment defines)", p->nb_slice[i]);
	}
	return 0;
}

/* Each neighbour's command = PROGRAM: a program this host has. */
static int check_commands(struct parser *p)
{
	for (size_t i = 0; i < p->e->n_neighbours; i++) {
		char *const *argv = p->e->neighbours[i].argv;

		if (argv && !executable_in_path(argv[0], NULL))
			return fail_at(p, p->key_line[i][KEY_NEIGHBOUR_COMMAND], "command",
				       "no command %s here (not an executable%s)", argv[0], strchr(argv[0], '/') ? "" : " in PATH");
	}
	return 0;
}

/* What the file says of itself and of this host, before the mirror: the
 * commands first, which were once looked for as the file was read. */
/* [client] pin = round-robin spreads the threads over CPUs: [client]
 * cpus, or a context's client-cpus. */
static int check_client(struct parser *p)
{
	const struct experiment *e = p->e;
	bool cpus = e->n_client_cpus > 0;

	for (size_t i = 0; i < e->n_contexts; i++)
		cpus = cpus || e->client_cpus[i];
	if (e->pin == OLTP_PIN_ROUND_ROBIN && !cpus)
		return fail_at(p, line_of(p, KEY_PIN), "pin", "round-robin puts thread i on CPU i mod n of cpus, and none are given");
	return 0;
}

/* latency-limit counts an open loop's late transactions and skips those
 * already late, as pgbench --latency-limit: nothing without rate, and
 * sysbench has no such option; constant arrivals are the native
 * driver's alone. */
static int check_rate(struct parser *p)
{
	const struct experiment *e = p->e;
	unsigned line = line_of(p, KEY_LATENCY_LIMIT);

	if (line && !e->oltp.rate)
		return fail_at(p, line, "latency-limit", "only with rate (an open loop)");
	if (line && !e->oltp.latency_limit_ns)
		return fail_at(p, line, "latency-limit", "a limit above 0 (leave it out for none)");
	if (line && e->oltp.driver == OLTP_DRIVER_SYSBENCH)
		return fail_at(p, line, "latency-limit", "sysbench has no latency limit: driver slicebench or pgbench");
	line = line_of(p, KEY_ARRIVALS);
	if (line && !e->oltp.rate)
		return fail_at(p, line, "arrivals", "only with rate (an open loop)");
	if (e->oltp.arrivals == OLTP_ARRIVALS_CONSTANT && e->oltp.driver != OLTP_DRIVER_NATIVE)
		return fail_at(p, line, "arrivals", "%s's --rate makes a Poisson stream only: constant is slicebench's driver",
			       word_name(oltp_driver_words, e->oltp.driver));
	return 0;
}

int experiment_check_options(struct parser *p)
{
	if (engine_of_workload(p) < 0)
		return -ENOMEM;
	return check_server(p) < 0 || check_client(p) < 0 || check_rate(p) < 0 ? -EINVAL : 0;
}

int check_file(struct parser *p)
{
	struct experiment *e = p->e;
	int r;

	if (check_commands(p) < 0)
		return -EINVAL;
	if (!e->n_contexts)
		return fail_at(p, p->line, NULL, "no [context NAME] section");
	if (check_repeat(p) < 0)
		return -EINVAL;
	r = experiment_check_options(p);
	if (r < 0)
		return r;
	for (size_t i = 0; i < e->n_contexts; i++) {
		unsigned header = p->header_line[SECTION_CONTEXT][i];

		if (!p->key_line[i][KEY_CONTEXT_KIND])
			return fail_at(p, header, "kind", "[context %s] needs kind = %s", e->contexts[i].name,
				       context_kind_list(false));
		if (p->key_line[i][KEY_CONTEXT_SESSION] && !context_ops_for(e->contexts[i].kind)->session)
			return fail_at(p, header, "session", "only %s contexts choose a session", context_kind_list(true));
	}
	return 0;
}

/* A server variable a context sets is one of [server] engine's. */
static int check_server_variables(struct parser *p, size_t i)
{
	const struct context_spec *c = &p->e->contexts[i];
	const struct prop_value *bad;

	if (context_check_engine(c, p->e->engine, &bad) < 0)
		return fail_at(p, p->prop_line[i][bad - c->props], bad->def->name, "in [context %s]: %s's server has no "
			       "such variable (it is %s's)", c->name, p->e->engine, bad->def->engines);
	return 0;
}

/* Each context's properties, and the vary values, applicable to its kind
 * in this cgroup mode; its server variables, to the engine. */
static int check_contexts(struct parser *p)
{
	struct experiment *e = p->e;

	for (size_t i = 0; i < e->n_contexts; i++) {
		struct context_spec *c = &e->contexts[i];
		const struct prop_value *bad;
		const char *why;

		if (check_server_variables(p, i) < 0)
			return -EINVAL;
		if (context_validate(c, p->mode, &bad, &why) < 0)
			return fail_at(p, bad ? p->prop_line[i][bad - c->props] : p->header_line[SECTION_CONTEXT][i],
				       bad ? bad->def->name : "kind", "%s in [context %s] (%s)", why, c->name,
				       context_kind_to_string(c->kind));
		for (size_t v = 0; *p->vary_slice == 0 && v < e->n_vary; v++) {
			struct prop_value pv = {};
			int r = prop_parse(e->vary->name, e->vary_values[v], &pv);

			if (r >= 0)
				r = context_check_prop(&pv, c->kind, p->mode, &why);
			prop_value_done(&pv);
			if (r < 0)
				return fail_at(p, line_of(p, KEY_VARY_PROPERTY), e->vary->name, "%s in [context %s] (%s)", why,
					       c->name, context_kind_to_string(c->kind));
		}
	}
	return 0;
}

int check_settings(struct parser *p)
{
	struct experiment *e = p->e;

	if (check_contexts(p) < 0 || check_context_slices(p) < 0 || check_vary_slice(p) < 0 || check_vary_mode(p) < 0 ||
	    check_neighbours(p) < 0 || check_proxies(p) < 0)
		return -EINVAL;
	if (!*e->baseline)
		(void)text_copy(e->baseline, sizeof(e->baseline), e->contexts[0].name);
	for (size_t i = 0; i < e->n_contexts; i++)
		if (streq(e->contexts[i].name, e->baseline))
			return 0;
	return fail_at(p, line_of(p, KEY_BASELINE), "baseline", "no [context %s] in this file", e->baseline);
}

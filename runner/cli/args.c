/* The command line of prepare, sweep and place: the options they share are
 * one row each, and each verb's table lists those it takes. */
#include <stddef.h>
#include <stdio.h>

#include "slices/sys/cgmode.h"
#include "cli/args.h"
#include "common/topology.h"
#include "common/util.h"

enum {
	ARG_DB,
	ARG_WORKLOAD,
	ARG_THREADS,
	ARG_CLIENT_CPUS,
	ARG_NO_PREWARM,
	ARG_CONTEXT,
	ARG_PROPERTY,
	ARG_ENGINE,
};

#define A(f) .offset = offsetof(struct sweep_args, f)
/* The server and the dataset: prepare's, sweep's */
static const struct cli_option opt_socket = { .name = "socket", .arg = "PATH", .type = CLI_STRING, A(o.socket),
					      .help = "the server's socket (root over the socket, no password); "
						      "PostgreSQL: its directory or DIR/.s.PGSQL.PORT" };
static const struct cli_option opt_workload = { .name = "workload", .arg = "NAME", .key = ARG_WORKLOAD,
						.help = "oltp_read_only (default), oltp_point_select, select-only or "
							"tpcb-like (pgbench's)" };
static const struct cli_option opt_scale = { .name = "scale", .arg = "N", .type = CLI_UINT, A(o.scale), .min = 1,
					     .max = 20000, .help = "pgbench's scale factor, 100000 accounts each (1)" };
static const struct cli_option opt_user = { .name = "user", .arg = "NAME", .type = CLI_STRING, A(o.user),
					    .help = "MySQL user (root)" };
static const struct cli_option opt_db = { .name = "db", .arg = "NAME", .key = ARG_DB,
					  .help = "database (sbtest; pgbench's workloads: pgbench)" };
static const struct cli_option opt_tables = { .name = "tables", .arg = "N", .type = CLI_UINT, A(o.tables), .min = 1,
					      .max = 1024,
					      .help = "tables sbtest1..N (" STRINGIFY(OLTP_DEFAULT_TABLES) ")" };
static const struct cli_option opt_table_size = { .name = "table-size", .arg = "M", .type = CLI_UINT, A(o.table_size),
						  .min = 1, .max = 1000000000,
						  .help = "rows per table (" STRINGIFY(OLTP_DEFAULT_TABLE_SIZE) ")" };
static const struct cli_option opt_prepare_threads = { .name = "prepare-threads", .arg = "N", .type = CLI_UINT,
						       A(o.prepare_threads), .min = 1, .max = 256,
						       .help = "sbtest tables loaded in parallel (at most 16)" };
static const struct cli_option opt_seed = { .name = "seed", .arg = "N", .type = CLI_U64, A(o.seed),
					    .help = "PRNG seed (from the clock)" };
/* The workload and the client: sweep's */
static const struct cli_option opt_threads = { .name = "threads", .arg = "LIST", .key = ARG_THREADS,
					       .help = "thread counts (pgbench's workloads: clients), as 1,2,4 or 1-4 ("
						       OLTP_DEFAULT_THREADS ")" };
static const struct cli_option opt_duration = { .name = "duration", .arg = "DURATION", .type = CLI_DURATION,
						A(o.duration_ns),
						.help = "measured time per step (" STRINGIFY(OLTP_DEFAULT_DURATION_S) "s)" };
static const struct cli_option opt_time = { .name = "time", .alias_of = &opt_duration };
static const struct cli_option opt_warmup = { .name = "warmup", .arg = "DURATION", .type = CLI_DURATION,
					      A(o.warmup_ns), .help = "uncounted time before each step (0)" };
static const struct cli_option opt_events = { .name = "events", .arg = "N", .type = CLI_U64, A(o.events), .min = 1,
					      .help = "stop each step after N transactions" };
static const struct cli_option opt_rand_type = { .name = "rand-type", .arg = "TYPE", .type = CLI_WORD, A(o.rand.type),
						 .words = sbrand_type_words,
						 .help = "the distribution of the row ids (special, sysbench's default)" };
static const struct cli_option opt_range_size = { .name = "range-size", .arg = "N", .type = CLI_UINT, A(o.range_size),
						  .min = 1, .max = 1000000, .help = "rows per range query (100)" };
static const struct cli_option opt_driver = { .name = "driver", .arg = "NAME", .type = CLI_WORD, A(o.driver),
					      .words = oltp_driver_words,
					      .help = "slicebench (or native), sysbench or pgbench (the workload's own tool)" };
static const struct cli_option opt_client_threads = { .name = "client-threads", .arg = "N", .type = CLI_UINT,
						      A(o.client_threads), .min = 1, .max = 1024,
						      .help = "pgbench's workloads: threads driving the clients, as pgbench -j (1)" };
static const struct cli_option opt_client_cpus = { .name = "client-cpus", .arg = "LIST", .key = ARG_CLIENT_CPUS,
						   .help = "CPUs for the client threads" };
static const struct cli_option opt_pin = { .name = "pin", .arg = "MODE", .type = CLI_WORD, A(o.pin),
					   .words = oltp_pin_words,
					   .help = "all (default) or round-robin (thread i on CPU i mod n)" };
static const struct cli_option opt_no_prewarm = { .name = "no-prewarm", .key = ARG_NO_PREWARM,
						  .help = "skip the buffer pool warm-up before the first step" };
static const struct cli_option opt_server_pid = { .name = "server-pid", .arg = "PID", .type = CLI_LONG, A(server_pid),
						  .min = 1, .max = INT32_MAX,
						  .help = "the server's PID, for telemetry and to notice its death" };
static const struct cli_option opt_server_cgroup = { .name = "server-cgroup", .arg = "DIR", .type = CLI_STRING,
						     A(o.server_cpu_cgroup),
						     .help = "the server's cpu cgroup directory, for cpu.stat" };
static const struct cli_option opt_progress = { .name = "progress", .type = CLI_FLAG, A(o.progress),
						.help = "one line per second on stderr" };
/* The context: sweep's and place's */
static const struct cli_option opt_context = { .name = "context", .arg = "KIND", .key = ARG_CONTEXT,
					       .help = "start the managed server in a context of that kind (service, user, ...)" };
static const struct cli_option opt_property = { .name = "property", .short_name = 'p', .arg = "N=V", .key = ARG_PROPERTY,
						.help = "a systemd property of that context, e.g. CPUQuota=50%" };
static const struct cli_option opt_session = { .name = "session", .arg = "MODE", .type = CLI_WORD, A(spec.session),
					       .words = session_words,
					       .help = "kinds that take a session: inherit (default) or new (setsid)" };
static const struct cli_option opt_json = { .name = "json", .type = CLI_FLAG, A(json),
					    .help = "the record as JSON on stdout" };
static const struct cli_option opt_engine = { .name = "engine", .arg = "NAME", .key = ARG_ENGINE,
					      .help = "the managed server: mariadb (default), mysql or postgresql "
						      "(pgbench's workloads: postgresql)" };
/* place's own */
static const struct cli_option opt_experiment = { .name = "experiment", .arg = "NAME", .type = CLI_STRING,
						  A(experiment), .help = "the contexts named are those of this experiment" };
static const struct cli_option opt_keep = { .name = "keep", .type = CLI_FLAG, A(keep),
					    .help = "leave the last server running (slicebench cleanup stops it)" };
#undef A

/* --client-cpus: a CPU list, which pins the client unless --pin says how. */
static int parse_client_cpus(const struct cli_verb *v, const struct cli_option *opt, const char *value,
			     struct oltp_options *o)
{
	long cpus[OLTP_MAX_CPUS];
	char why[160];
	size_t n_cpus;

	if (cpu_list_parse(value, OLTP_MAX_CPUS - 1, cpus, OLTP_MAX_CPUS, &n_cpus, why, sizeof(why)) < 0)
		return cli_bad_value(v, opt, value, *why ? why : "a CPU list such as 0 or 0,2-3, or llc:N, node:N, core:N");
	for (size_t i = 0; i < n_cpus; i++)
		o->client_cpus[i] = (unsigned)cpus[i];
	o->n_client_cpus = (unsigned)n_cpus;
	if (o->pin == OLTP_PIN_INHERIT)
		o->pin = OLTP_PIN_ALL;
	return 0;
}

/* -p NAME=VALUE: one more property of the context. */
static int parse_property(const struct cli_verb *v, const struct cli_option *opt, const char *value,
			  struct context_spec *spec)
{
	const char *eq = strchr(value, '=');
	_cleanup_free_ char *name = eq ? strndup(value, (size_t)(eq - value)) : NULL;

	if (!name || spec->n_props >= CONTEXT_PROPS_MAX || prop_parse(name, eq + 1, &spec->props[spec->n_props]) < 0)
		return cli_bad_value(v, opt, value, "a systemd property as NAME=VALUE; see slicebench properties");
	spec->n_props++;
	return 0;
}

/* The options whose values the generic types cannot parse, one case each. */
static int parse_custom(const struct cli_verb *v, const struct cli_option *opt, const char *value, void *userdata)
{
	struct sweep_args *a = userdata;
	struct oltp_options *o = &a->o;

	switch (opt->key) {
	case ARG_DB:
		if (!name_is_valid(value))
			return cli_bad_value(v, opt, value, "letters, digits, - and _");
		o->db = value;
		return 0;
	case ARG_WORKLOAD:
		if (word_lookup(oltp_workload_words, value, (int *)&o->workload) < 0)
			return cli_bad_value(v, opt, value, oltp_workload_list(NULL));
		a->workload_given = true;
		return 0;
	case ARG_ENGINE:
		if (!server_engine_named(value)) {
			char list[128];

			return cli_bad_value(v, opt, value, word_list(server_engine_words, list, sizeof(list)));
		}
		a->engine = value;
		return 0;
	case ARG_THREADS:
		if (parse_int_list(value, 1, 100000, a->threads, SWEEP_MAX_STEPS, &a->n_threads) < 0)
			return cli_bad_value(v, opt, value, "a list such as 1,2,4 or 1-8, at most 64 steps");
		return 0;
	case ARG_CLIENT_CPUS:
		return parse_client_cpus(v, opt, value, o);
	case ARG_NO_PREWARM:
		o->prewarm = false;
		return 0;
	case ARG_CONTEXT:
		a->spec.kind = context_kind_from_string(value);
		if (a->spec.kind == CONTEXT_KIND_INVALID)
			return cli_bad_value(v, opt, value, context_kind_list(false));
		a->in_context = true;
		return 0;
	case ARG_PROPERTY:
		return parse_property(v, opt, value, &a->spec);
	}
	return -EINVAL;
}

#define SERVER_OPTIONS                                                                                               \
	&opt_socket, &opt_workload, &opt_user, &opt_db, &opt_tables, &opt_table_size, &opt_scale, &opt_prepare_threads, \
		&opt_seed
#define CONTEXT_OPTIONS &opt_context, &opt_property, &opt_session, &opt_engine

const struct cli_verb cli_prepare = {
	.name = "prepare",
	.usage = (const char *const[]){ "--socket PATH [--tables N] [--table-size M] [--db NAME]",
					"--socket DIR --workload select-only [--scale N]", NULL },
	.about = "Creates the sbtest tables with sysbench's schema and values on the server at PATH (or\n"
		 "pgbench's on PostgreSQL), or checks that those there match (a different dataset is refused\n"
		 "with the table named).",
	.options = (const struct cli_option *const[]){ SERVER_OPTIONS, NULL },
	.parse = parse_custom,
};

const struct cli_verb cli_sweep = {
	.name = "sweep",
	.usage = (const char *const[]){ "--socket PATH [OPTIONS]", "--context KIND [-p NAME=VALUE]... [OPTIONS]", NULL },
	.about = "Runs sysbench's oltp_read_only at each thread count against the server on PATH, or against\n"
		 "the managed server started in a context of KIND, or pgbench's select-only or tpcb-like at each\n"
		 "client count against PostgreSQL, after making or checking the dataset.",
	.options = (const struct cli_option *const[]){ SERVER_OPTIONS, &opt_threads, &opt_duration, &opt_time, &opt_warmup, &opt_events,
						       &opt_rand_type, &opt_range_size, &opt_driver, &opt_client_threads,
						       &opt_client_cpus,
						       &opt_pin, &opt_no_prewarm, &opt_server_pid, &opt_server_cgroup,
						       &opt_progress, CONTEXT_OPTIONS, &opt_json, NULL },
	.parse = parse_custom,
};

const struct cli_verb cli_place = {
	.name = "place",
	.usage = (const char *const[]){ "KIND... [-p NAME=VALUE]... [--session MODE] [--json] [--keep]",
					"--experiment NAME CONTEXT... [--json] [--keep]", NULL },
	.about = "Starts the server in each context in turn and prints where it landed: its cgroups, the CPU\n"
		 "settings read back, affinity, session and autogroup, limits, unit and slice, and whether\n"
		 "each setting is in force.",
	.options = (const struct cli_option *const[]){ CONTEXT_OPTIONS, &opt_json, &opt_experiment, &opt_keep, NULL },
	.parse = parse_custom,
};

/* The managed server's engine: --engine, or the workload's (postgresql for
 * pgbench's); a workload not given is the engine's first.  They must speak
 * the same protocol, and a managed server's engine must be installed. */
static int resolve_engine(const struct cli_verb *v, struct sweep_args *a, bool managed)
{
	const struct server_engine *engine = server_engine_named(a->engine);
	const char *protocol = oltp_workload_def(a->o.workload)->protocol, *missing = NULL;

	if (a->engine && a->experiment)
		return cli_usage_error(v, "--experiment takes the engine from its [server] section, not from --engine");
	if (!engine && !streq(protocol, "mysql"))
		a->engine = "postgresql";
	if (engine && !a->workload_given && !streq(protocol, engine->protocol))
		for (int w = _OLTP_WORKLOAD_MAX - 1; w >= 0; w--)
			if (streq(oltp_workload_def(w)->protocol, engine->protocol))
				a->o.workload = (enum oltp_workload)w;
	if (engine && !streq(oltp_workload_def(a->o.workload)->protocol, engine->protocol))
		return log_error("%s: --workload %s does not run on %s, which runs %s", v->name,
				 oltp_workload_name(a->o.workload), engine->name, oltp_workload_list(engine->protocol)),
		       -EINVAL;
	engine = server_engine_named(a->engine ? a->engine : SERVER_DEFAULT_ENGINE);
	if (managed && !a->experiment && engine->installed(engine->binary, &missing) < 0)
		return log_error("%s: %s%s: %s is not installed here: no %s", v->name, a->engine ? "--engine " : "",
				 a->engine ? a->engine : "the managed server", engine->name, missing),
		       -EINVAL;
	return 0;
}

/* What the options do not say alone: a server named once, a context that
 * can take its properties here, pinning with CPUs. */
static int check_args(const struct cli_verb *v, struct sweep_args *a)
{
	const char *why = NULL;

	if (!a->o.socket == !a->in_context)
		return cli_usage_error(v, "give either --socket PATH or --context KIND");
	if (a->in_context) {
		const struct prop_value *bad = NULL;
		enum cgroup_mode mode = cgroup_mode_detect();

		snprintf(a->spec.name, sizeof(a->spec.name), "%s-%s", v->name, context_kind_to_string(a->spec.kind));
		if (context_validate(&a->spec, mode, &bad, &why) < 0) {
			log_error("%s: %s%s%s: %s (cgroup mode %s)", v->name, bad ? "-p " : "", bad ? bad->def->name : "",
				  bad ? "" : context_kind_to_string(a->spec.kind), why, cgroup_mode_to_string(mode));
			return -EINVAL;
		}
	}
	if (oltp_driver_check(a->o.workload, a->o.driver, &why) < 0)
		return log_error("%s: --driver %s: %s", v->name, word_name(oltp_driver_words, a->o.driver), why), -EINVAL;
	if (a->o.client_threads && !streq(oltp_workload_def(a->o.workload)->protocol, "postgresql"))
		return log_error("%s: --client-threads: %s runs one thread per connection (pgbench's workloads take it)",
				 v->name, oltp_workload_name(a->o.workload)), -EINVAL;
	if (a->o.pin == OLTP_PIN_ROUND_ROBIN && a->o.n_client_cpus == 0)
		return cli_usage_error(v, "--pin round-robin needs --client-cpus");
	if (a->o.events && a->o.duration_ns == OLTP_DEFAULT_DURATION_S * NSEC_PER_SEC)
		a->o.duration_ns = 0; /* --events alone: no time limit, as sysbench's --time=0 */
	return 1;
}

int sweep_parse_argv(const struct cli_verb *v, int argc, char **argv, struct sweep_args *a)
{
	long threads[SWEEP_MAX_STEPS];
	size_t n_threads;
	int r, first;

	oltp_options_default(&a->o);
	a->o.prewarm = true;
	if (parse_int_list(OLTP_DEFAULT_THREADS, 1, 100000, threads, SWEEP_MAX_STEPS, &n_threads) < 0)
		return -EINVAL;
	memcpy(a->threads, threads, sizeof(threads));
	a->n_threads = n_threads;
	r = cli_parse(v, argc, argv, a, &first);
	if (r <= 0)
		return r;
	if (a->server_pid)
		a->o.server_pid = (int)a->server_pid;
	if (resolve_engine(v, a, v == &cli_place || a->in_context) < 0)
		return -EINVAL;
	if (v == &cli_place) {
		a->places = argv + first;
		a->n_places = (size_t)(argc - first);
		if (!a->n_places == !a->in_context)
			return cli_usage_error(v, "name the contexts (%s, or those of --experiment) or give --context KIND",
					       context_kind_list(false));
		if (a->experiment && (a->in_context || a->spec.n_props))
			return cli_usage_error(v, "--experiment takes its contexts' settings from the file, not from --context or -p");
		if (!a->in_context)
			return 1; /* each named context is checked by verb_place */
	} else if (first < argc)
		return cli_usage_error(v, "unexpected argument '%s'", argv[first]);
	return check_args(v, a);
}

int prepare_dataset(const char *verb, const struct oltp_options *o)
{
	_cleanup_free_ char *msg = NULL;
	int r;

	r = oltp_prepare(o, &msg);
	if (r < 0)
		return msg ? log_error_errno(r, "%s: %s", verb, msg)
			   : log_error_errno(r, "%s: preparing the dataset failed: %m", verb);
	return 0;
}


/* The experiment file's tables: its sections, and every key of every
 * section as one row (where its value goes, its type, its default as it
 * would be written in the file, its help, and a checker where the type
 * alone is not enough).  The systemd properties that [context NAME],
 * [slice NAME] and [vary] take stay the attribute table's (slices/attr/props.c):
 * each of those sections has one row for "any property", whose add()
 * takes the property the way that section keeps it.  The parser
 * (parse.c), experiment.json, the copy of an experiment's
 * settings and the man page (experiment_key_doc()) all read these rows. */
#include <stddef.h>

#include "experiment/gate.h"
#include "experiment/where.h"
#include "experiment/key_table.h"
#include "experiment/script.h"
#include "profile/sampler.h"
#include "common/topology.h"
#include "common/trust.h"
#include "slices/server/proxy.h"

/* A context's or a neighbour's name, as a section header takes it. */
static bool name_valid(const char *name, const char **ret_why)
{
	*ret_why = NULL;
	return name_is_valid(name);
}

#define INSTANCES(array, n, most)                                                                       \
	.named = true, .names = offsetof(struct experiment, array[0].name),                              \
	.stride = sizeof(((struct experiment *)0)->array[0]), .count = offsetof(struct experiment, n), \
	.max = most
const struct section_def section_table[_SECTION_MAX] = {
	[SECTION_EXPERIMENT] = { .name = "experiment", .settings = true },
	[SECTION_SERVER] = { .name = "server", .settings = true },
	[SECTION_CLIENT] = { .name = "client", .settings = true },
	[SECTION_CONTEXT] = { .name = "context", INSTANCES(contexts, n_contexts, EXP_CONTEXTS_MAX), .valid = name_valid,
			      .rule = "a context name is one word, [a-z0-9][a-z0-9_-]{0,39}" },
	[SECTION_SLICE] = { .name = "slice", INSTANCES(slices, n_slices, EXP_SLICES_MAX), .valid = slice_name_is_valid,
			    .rule = "a slice name is one word, as db.slice or db-oltp.slice" },
	[SECTION_NEIGHBOUR] = { .name = "neighbour", INSTANCES(neighbours, n_neighbours, EXP_NEIGHBOURS_MAX),
				.valid = name_valid, .rule = "a neighbour's name is one word, [a-z0-9][a-z0-9_-]{0,39}",
				.unknown_lists_keys = true, .twice_names_line = true },
	[SECTION_VARY] = { .name = "vary" },
	[SECTION_PROXY] = { .name = "proxy", INSTANCES(proxies, n_proxies, EXP_PROXIES_MAX), .valid = name_valid,
			    .rule = "a proxy's name is one word, [a-z0-9][a-z0-9_-]{0,39}" },
};
#undef INSTANCES

static const struct word on_error_words[] = {
	{ "continue", ON_ERROR_CONTINUE },
	{ "stop", ON_ERROR_STOP },
	{},
};

/* What [server] flavor took before engine. */
static const struct word mysql_flavor_words[] = {
	{ "mariadb", 0 },
	{ "mysql", 1 },
	{ "percona", 1 },
	{},
};

static const struct word bool_words[] = {
	{ "yes", true }, { "no", false }, { "true", true }, { "false", false }, { "1", true }, { "0", false }, {},
};

static const struct word vary_mode_words[] = {
	{ "restart", VARY_RESTART },
	{ "live", VARY_LIVE },
	{},
};

/* Why a property value was refused: the topology's word for a CPU set
 * naming a group this host lacks, else the property's help. */
static const char *prop_why(const struct prop_def *d, const char *value, char *buf, size_t len)
{
	long cpus[CPU_LIST_MAX];
	size_t n;

	if (cpu_list_is_topological(value) && cpu_list_parse(value, CPU_LIST_MAX - 1, cpus, ELEMENTSOF(cpus), &n, buf, len) < 0 && *buf)
		return buf;
	return d->help;
}

static int check_slice_name(struct parser *p, const struct key_def *k, const char *value)
{
	const char *why;

	if (!slice_name_is_valid(value, &why))
		return fail_at(p, p->line, k->name, "'%s' is not a slice: %s", value, why);
	return 0; /* whether it is defined is known at the end of the file */
}

/* The message of a name that is neither a key of the section nor a
 * systemd property. */
static int fail_unknown(struct parser *p, const char *name)
{
	char list[128];

	return fail_at(p, p->line, name, "unknown key (%s or a systemd property; see slicebench properties)",
		       key_list(p->section, ", ", list, sizeof(list)));
}

/* A property into a context's or a slice's list l, each with its line:
 * once, its value as its row parses it.  -ENOENT, unsaid, when no
 * settable row has name. */
static int add_prop(struct parser *p, const char *name, const char *value, const struct prop_list *l, unsigned *lines)
{
	const struct prop_def *d = prop_lookup(name);
	char where[96], why[160];
	int r;

	for (size_t i = 0; d && i < *l->n; i++)
		if (l->v[i].def == d)
			return fail_at(p, p->line, name, "given twice in %s (first on line %u)",
				       section_where(p, where, sizeof(where)), lines[i]);
	if (*l->n == l->max)
		return fail_at(p, p->line, name, "more than %zu %s", l->max, l->what);
	r = prop_parse(name, value, &l->v[*l->n]);
	if (r == -ENOENT)
		return r;
	if (r < 0)
		return fail_at(p, p->line, name, "bad value '%s' (%s)", value, prop_why(d, value, why, sizeof(why)));
	lines[(*l->n)++] = p->line;
	return 0;
}

static int add_context_property(struct parser *p, const char *name, const char *value)
{
	struct context_spec *c = &p->e->contexts[p->instance];
	int r = add_prop(p, name, value, PROP_LIST(c, CONTEXT_PROPS_MAX, "properties"), p->prop_line[p->instance]);

	if (r == -ENOENT && prop_lookup(name))
		return fail_at(p, p->line, name, "recorded in every placement, not set (%s)", prop_lookup(name)->help);
	return r == -ENOENT ? fail_unknown(p, name) : r;
}

/* A proxy's settings: the attribute table's, as a context's. */
static int add_proxy_property(struct parser *p, const char *name, const char *value)
{
	struct context_spec *c = &p->e->proxies[p->instance];
	int r;

	if (prop_lookup(name) && prop_lookup(name)->class == PROP_SERVER)
		return fail_at(p, p->line, name, "a variable of the server's, which [context] sections set, not the proxy's");
	r = add_prop(p, name, value, PROP_LIST(c, CONTEXT_PROPS_MAX, "properties"), p->proxy_prop_line[p->instance]);

	if (r == -ENOENT && prop_lookup(name))
		return fail_at(p, p->line, name, "recorded in every placement, not set (%s)", prop_lookup(name)->help);
	return r == -ENOENT ? fail_unknown(p, name) : r;
}

/* A cgroup row is settable, so that add_prop() knows each name it is given. */
static int add_slice_property(struct parser *p, const char *name, const char *value)
{
	struct slice_spec *sl = &p->e->slices[p->instance];
	const struct prop_def *d = prop_lookup(name);
	char where[96];

	if (!d || d->class != PROP_CGROUP)
		return fail_at(p, p->line, name, "unknown key in %s (a slice takes cgroup settings: %s)",
			       section_where(p, where, sizeof(where)), prop_class_list(PROP_CGROUP));
	return add_prop(p, name, value, PROP_LIST(sl, SLICE_PROPS_MAX, "settings"), p->slice_prop_line[p->instance]);
}

/* [vary] takes one property and its values, each checked as the property. */
static int add_vary_property(struct parser *p, const char *name, const char *value)
{
	struct experiment *e = p->e;
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL, why[160];

	if (!copy)
		return -ENOMEM;
	if (e->vary)
		return fail_at(p, p->line, name, "[vary] takes one property (already %s)", e->vary->name);
	e->vary = prop_lookup(name);
	if (!e->vary)
		return fail_unknown(p, name);
	for (char *v = strtok_r(copy, " \t", &save); v; v = strtok_r(NULL, " \t", &save)) {
		struct prop_value pv = {};
		int r;

		if (e->n_vary == EXP_VARY_MAX)
			return fail_at(p, p->line, name, "more than %d values", EXP_VARY_MAX);
		r = prop_parse(name, v, &pv);
		prop_value_done(&pv);
		if (r < 0)
			return fail_at(p, p->line, name, "bad value '%s' (%s)", v, prop_why(e->vary, v, why, sizeof(why)));
		e->vary_values[e->n_vary] = strdup(v);
		if (!e->vary_values[e->n_vary++])
			return -ENOMEM;
	}
	if (!e->n_vary)
		return fail_at(p, p->line, name, "no values");
	return 0;
}

/* The settings experiment.json carries only when used, so that runs made
 * before their keys resume. */
static bool workload_recorded(const struct experiment *e)
{
	return e->oltp.workload != OLTP_WORKLOAD_READ_ONLY;
}

static bool scale_recorded(const struct experiment *e)
{
	return streq(oltp_workload_def(e->oltp.workload)->protocol, "postgresql");
}

static bool repeat_auto_recorded(const struct experiment *e)
{
	return e->repeat_auto;
}

static bool repeat_max_recorded(const struct experiment *e)
{
	return e->repeat_auto || e->repeat_decide;
}

static bool repeat_decide_recorded(const struct experiment *e)
{
	return e->repeat_decide;
}

static bool range_size_recorded(const struct experiment *e)
{
	return e->oltp.range_size != 100;
}

static bool rate_recorded(const struct experiment *e)
{
	return e->oltp.rate > 0;
}

static bool latency_limit_recorded(const struct experiment *e)
{
	return e->oltp.latency_limit_ns > 0;
}

static bool arrivals_recorded(const struct experiment *e)
{
	return e->oltp.arrivals != OLTP_ARRIVALS_POISSON;
}

static bool groups_recorded(const struct experiment *e)
{
	return e->server_groups;
}

static bool client_threads_recorded(const struct experiment *e)
{
	return e->oltp.client_threads > 0;
}

/* Where a value goes: a field of struct experiment, one of each context's
 * or neighbour's, or the parser's own state. */
#define E(f) .offset = offsetof(struct experiment, f)
#define EACH(f) .offset = offsetof(struct experiment, f[0]), .stride = sizeof(((struct experiment *)0)->f[0])
#define CONTEXT(f) .offset = offsetof(struct experiment, contexts[0].f), .stride = sizeof(struct context_spec)
#define PROXY(f) .offset = offsetof(struct experiment, proxies[0].f), .stride = sizeof(struct context_spec)
#define NEIGHBOUR(f) .offset = offsetof(struct experiment, neighbours[0].f), .stride = sizeof(struct neighbour_spec)
#define PARSER(f) .in_parser = true, .offset = offsetof(struct parser, f)
#define PARSER_EACH(f) PARSER(f), .stride = sizeof(((struct parser *)0)->f[0])
const struct key_def key_table[_KEY_MAX] = {
	[KEY_DESCRIPTION] = { .section = SECTION_EXPERIMENT, .name = "description", .power = POWER_NOTHING, .type = TYPE_STRING, E(description),
			      .help = "one line shown by list", .own = true },
	[KEY_THREADS] = { .section = SECTION_EXPERIMENT, .name = "threads", .power = POWER_NOTHING, .type = TYPE_THREADS, E(threads), .min = 1,
			  .max = EXP_THREAD_COUNT_MAX, .def = OLTP_DEFAULT_THREADS,
			  .help = "thread counts, as 1 2 4 or 1,2,4 or 1-8", .option = "threads",
			  .option_help = "thread counts (pgbench's workloads: clients), as 1,2,4 or 1-4" },
	[KEY_WARMUP] = { .section = SECTION_EXPERIMENT, .name = "warmup", .power = POWER_NOTHING, .type = TYPE_DURATION, E(oltp.warmup_ns), .def = "0",
			 .help = "uncounted time before each step", .option = "warmup" },
	[KEY_DURATION] = { .section = SECTION_EXPERIMENT, .name = "duration", .power = POWER_NOTHING, .type = TYPE_DURATION, E(oltp.duration_ns),
			   .min = 1, .def = STRINGIFY(OLTP_DEFAULT_DURATION_S) "s", .help = "measured time per step",
			   .option = "duration" },
	[KEY_REPEAT] = { .section = SECTION_EXPERIMENT, .name = "repeat", .power = POWER_NOTHING, .type = TYPE_REPEAT, E(repeat), .min = 1,
			 .max = 100, .def = "1",
			 .help = "server starts per context; or auto: interleaved repeats are added until every ratio is "
				 "known to within until, from 3 up to repeat-max; or decide: a look after each round (or every "
				 "look-every), each ratio stopped once it is different or the same within +-margin, the run "
				 "once all are or at repeat-max" },
	[KEY_REPEAT_MAX] = { .section = SECTION_EXPERIMENT, .name = "repeat-max", .power = POWER_NOTHING, .type = TYPE_UINT, E(repeat_max),
			     .min = 3, .max = 100, .recorded = repeat_max_recorded,
			     .help = "with repeat = auto, required: the most server starts per context; with repeat = decide, "
				     "the most rounds (the plan's for a gap of margin at 80% power when not given)" },
	[KEY_UNTIL] = { .section = SECTION_EXPERIMENT, .name = "until", .power = POWER_NOTHING, .type = TYPE_PERCENT, E(until), .def = "5%",
			.recorded = repeat_auto_recorded,
			.help = "with repeat = auto: the target, each ratio's interval within +-this of it (run --until "
				"overrides)" },
	[KEY_MARGIN] = { .section = SECTION_EXPERIMENT, .name = "margin", .power = POWER_NOTHING, .type = TYPE_PERCENT, E(margin), .def = "10%",
			 .help = "a ratio within +-this is \"the same\" (two one-sided tests in the table's Holm family, "
				 "at the run's end or, with repeat = decide, at a look); decide's plan is sized to decide "
				 "a gap this large (run --margin overrides)" },
	[KEY_LOOK_EVERY] = { .section = SECTION_EXPERIMENT, .name = "look-every", .power = POWER_NOTHING, .type = TYPE_UINT, E(look_every),
			     .min = 1, .max = 100, .def = "1", .recorded = repeat_decide_recorded,
			     .help = "with repeat = decide: the rounds between looks (the first after round 2 at least)" },
	[KEY_WORKLOAD] = { .section = SECTION_EXPERIMENT, .name = "workload", .power = POWER_CODE, .allow = allow_script_key,
			   .type = TYPE_WORKLOAD, E(oltp.workload),
			   .words = oltp_workload_words, .recorded = workload_recorded,
			   .help = "the workload, one of the engine's protocol: sysbench's for the mysql engines, pgbench's "
				   "for postgresql; the engine's first by default; or the user's own: a sysbench script "
				   "(FILE.lua) or pgbench scripts (FILE.sql[@WEIGHT] ...), each root's alone, run by its tool",
			   .option = "workload",
			   .option_help = "the workload (its engine's first by default; pgbench's imply --engine postgresql), "
					  "or the user's own: FILE.lua (sysbench's) or FILE.sql[@WEIGHT] ... (pgbench's, blank-separated)" },
	[KEY_SCALE] = { .section = SECTION_EXPERIMENT, .name = "scale", .power = POWER_NOTHING, .type = TYPE_UINT, E(oltp.scale), .min = 1,
			.max = 20000, .def = "1", .recorded = scale_recorded,
			.help = "pgbench's scale factor, 100000 accounts each", .option = "scale" },
	[KEY_TABLES] = { .section = SECTION_EXPERIMENT, .name = "tables", .power = POWER_NOTHING, .type = TYPE_UINT, E(oltp.tables), .min = 1,
			 .max = 1024, .def = STRINGIFY(OLTP_DEFAULT_TABLES), .help = "tables sbtest1..N", .option = "tables" },
	[KEY_TABLE_SIZE] = { .section = SECTION_EXPERIMENT, .name = "table-size", .power = POWER_NOTHING, .type = TYPE_UINT, E(oltp.table_size),
			     .min = 1, .max = 1000000000, .def = STRINGIFY(OLTP_DEFAULT_TABLE_SIZE),
			     .help = "rows per table", .option = "table-size" },
	[KEY_RANGE_SIZE] = { .section = SECTION_EXPERIMENT, .name = "range-size", .power = POWER_NOTHING, .type = TYPE_UINT, E(oltp.range_size),
			     .min = 1, .max = 1000000, .def = "100", .recorded = range_size_recorded,
			     .help = "rows per range query of oltp_read_only (sysbench's --range-size)",
			     .option = "range-size", .option_help = "rows per range query" },
	[KEY_RATE] = { .section = SECTION_EXPERIMENT, .name = "rate", .power = POWER_NOTHING, .type = TYPE_UINT, E(oltp.rate),
		       .min = 1, .max = OLTP_RATE_MAX, .recorded = rate_recorded,
		       .help = "an open loop: transactions arrive at this many a second in all (a Poisson stream, as "
			       "sysbench's and pgbench's --rate), each latency counted from its intended start; not "
			       "given: a closed loop",
		       .option = "rate", .option_help = "transactions a second in all, arriving whatever the server's "
							"pace (an open loop; latencies from each one's intended start)" },
	[KEY_LATENCY_LIMIT] = { .section = SECTION_EXPERIMENT, .name = "latency-limit", .power = POWER_NOTHING, .type = TYPE_DURATION,
				E(oltp.latency_limit_ns), .recorded = latency_limit_recorded,
				.help = "with rate: a transaction slower than this counts late, and one already later than "
					"this when its turn comes is skipped (pgbench's --latency-limit)",
				.option = "latency-limit", .option_help = "with --rate: late above this; skipped if already late" },
	[KEY_ARRIVALS] = { .section = SECTION_EXPERIMENT, .name = "arrivals", .power = POWER_NOTHING, .type = TYPE_WORD,
			   E(oltp.arrivals), .words = oltp_arrivals_words, .def = "poisson", .recorded = arrivals_recorded,
			   .help = "with rate: a Poisson stream (sysbench's and pgbench's), or one every 1/rate exactly "
				   "(slicebench's driver)",
			   .option = "arrivals", .option_help = "with --rate: poisson or constant" },
	[KEY_DRIVER] = { .section = SECTION_EXPERIMENT, .name = "driver", .power = POWER_NOTHING, .type = TYPE_WORD, E(oltp.driver),
			 .words = oltp_driver_words, .def = "slicebench",
			 .help = "the OLTP driver: slicebench's own, or the workload's real tool (sysbench, pgbench)",
			 .option = "driver", .option_help = "slicebench's own driver, or the workload's own tool" },
	[KEY_RAND_TYPE] = { .section = SECTION_EXPERIMENT, .name = "rand-type", .power = POWER_NOTHING, .type = TYPE_WORD, E(oltp.rand.type),
			    .words = sbrand_type_words, .def = "special", .help = "sysbench's distribution of the row ids",
			    .option = "rand-type", .option_help = "the distribution of the row ids" },
	[KEY_BASELINE] = { .section = SECTION_EXPERIMENT, .name = "baseline", .power = POWER_NOTHING, .type = TYPE_BASELINE, E(baseline),
			   .help = "the context the ratios are against (the first context)", .own = true },
	[KEY_ON_ERROR] = { .section = SECTION_EXPERIMENT, .name = "on-error", .power = POWER_NOTHING, .type = TYPE_WORD, E(on_error),
			   .words = on_error_words, .def = "continue",
			   .help = "after a failed step, go on with the next context or stop the run" },

	[KEY_ENGINE] = { .section = SECTION_SERVER, .name = "engine", .power = POWER_NOTHING, .type = TYPE_STRING, E(engine),
			 .words = server_engine_words, .def = SERVER_DEFAULT_ENGINE,
			 .help = "the server: mariadb, mysql (MySQL 8), percona (Percona Server, run as mysql) or "
				 "postgresql (15)",
			 .option = "engine", .option_help = "the managed server" },
	[KEY_FLAVOR] = { .section = SECTION_SERVER, .name = "flavor", .power = POWER_NOTHING, .type = TYPE_STRING, E(engine),
			 .words = mysql_flavor_words, .alias = true, .help = "the old name of engine, for the mysql engines" },
	[KEY_BINARY] = { .section = SECTION_SERVER, .name = "binary", .power = POWER_CODE, .allow = allow_code_key, .type = TYPE_STRING, E(binary),
			 .help = "the server's binary (the engine's: mariadbd, mysqld, PostgreSQL 15's postgres)" },
	[KEY_BUFFER_POOL] = { .section = SECTION_SERVER, .name = "buffer-pool", .power = POWER_NOTHING, .type = TYPE_SIZE, E(buffer_pool),
			      .min = 2 << 20, .def = SERVER_DEFAULT_BUFFER_POOL,
			      .help = "innodb_buffer_pool_size, or PostgreSQL's shared_buffers" },
	[KEY_USER] = { .section = SECTION_SERVER, .name = "user", .power = POWER_ACCOUNT, .allow = allow_account_key,
		       .type = TYPE_STRING, E(server_user), .def = SERVER_DEFAULT_USER,
		       .help = "the server's own user: a portable name (not numeric), never root nor nobody, a system "
			       "account or none yet (made with useradd --system if missing)" },
	[KEY_GROUPS] = { .section = SECTION_SERVER, .name = "groups", .power = POWER_ACCOUNT, .allow = allow_groups_key,
			 .type = TYPE_STRING, E(server_groups), .recorded = groups_recorded,
			 .help = "the groups a Group= of a context (or of a mirrored unit) may name beside the server "
				 "account's own, separated by blanks: each some account's own group, never root's nor one "
				 "that only gives access (shadow, disk)" },
	[KEY_MAX_CONNECTIONS] = { .section = SECTION_SERVER, .name = "max-connections", .power = POWER_NOTHING, .type = TYPE_UINT,
				  E(max_connections), .min = 10, .max = 100000,
				  .def = STRINGIFY(SERVER_DEFAULT_MAX_CONNECTIONS), .help = "max_connections" },

	[KEY_CLIENT_CPUS] = { .section = SECTION_CLIENT, .name = "cpus", .power = POWER_NOTHING, .type = TYPE_CPUS, E(client_cpus_list),
			      .max = OLTP_MAX_CPUS - 1,
			      .help = "CPUs of the client threads (where the scheduler puts them): such as 0-3, or llc:N, "
				      "node:N, core:N",
			      .option = "client-cpus", .option_help = "CPUs for the client threads, such as 0-3, or llc:N, node:N, core:N" },
	[KEY_PIN] = { .section = SECTION_CLIENT, .name = "pin", .power = POWER_NOTHING, .type = TYPE_WORD, E(pin), .words = oltp_pin_words,
		      .def = "all", .help = "every client thread on the whole list, or thread i on CPU i mod n",
		      .option = "pin" },
	[KEY_SCOPE] = { .section = SECTION_CLIENT, .name = "scope", .power = POWER_NOTHING, .type = TYPE_BOOL, E(client_scope),
			.words = bool_words, .def = "no", .help = "yes: the client runs in a transient scope of its own" },
	[KEY_CLIENT_THREADS] = { .section = SECTION_CLIENT, .name = "threads", .power = POWER_NOTHING, .type = TYPE_UINT, E(oltp.client_threads),
				 .min = 1, .max = 1024, .recorded = client_threads_recorded,
				 .help = "pgbench's workloads: the threads that drive the clients, as pgbench -j (1)",
				 .option = "client-threads",
				 .option_help = "pgbench's workloads: threads driving the clients, as pgbench -j (1)" },
	[KEY_WAKEUPS] = { .section = SECTION_CLIENT, .name = "wakeups", .power = POWER_NOTHING, .type = TYPE_BOOL, E(oltp.wakeups), .words = bool_words,
			  .def = "no",
			  .help = "yes: each step samples where the server's wake-ups land, the share in another L3 group "
				  "than the waker's; every wake-up is a tracepoint sampled, which costs the server time "
				  "(a pipe's ping-pong ran at half speed), so it is off unless asked" },
	[KEY_PROFILE] = { .section = SECTION_CLIENT, .name = "profile", .power = POWER_NOTHING, .type = TYPE_BOOL, E(oltp.profile),
			  .words = bool_words, .def = "no",
			  .help = "yes: each step samples the server's stacks on its CPUs (perf_event_open's CPU clock, "
				  "profile-hz a second of each CPU) and times its waits off them (run queue, throttled, "
				  "blocked), kept folded in the results directory (profiles/); the report gives each "
				  "function's and library's share of the server's CPU and the contexts' differences "
				  "(doc/profile.md).  It costs the server little (bench/profile-overhead.sh), so it is off "
				  "unless asked",
			  .option = "profile", .option_help = "sample the server's stacks in each step (yes|no)" },
	[KEY_PROFILE_HZ] = { .section = SECTION_CLIENT, .name = "profile-hz", .power = POWER_NOTHING, .type = TYPE_UINT,
			     E(oltp.profile_hz), .min = 1, .max = PROFILE_HZ_MAX, .def = STRINGIFY(PROFILE_DEFAULT_HZ),
			     .help = "with profile = yes: the server's stacks sampled so many times a second of each CPU",
			     .option = "profile-hz", .option_help = "the profile's samples a second of each CPU" },
	[KEY_PROFILE_OFF_CPU] = { .section = SECTION_CLIENT, .name = "profile-off-cpu", .power = POWER_NOTHING,
				  .type = TYPE_BOOL, E(oltp.profile_off_cpu), .words = bool_words, .def = "no",
				  .help = "with profile = yes: also the kernel and user stack of each of the server's "
					  "switches off its CPU, so that a blocked wait is named (futex, I/O, socket, "
					  "sleep); every switch of every task is unwound, which costs the server time",
				  .option = "profile-off-cpu",
				  .option_help = "with --profile: the stack of each of the server's switches (yes|no)" },

	[KEY_CONTEXT_KIND] = { .section = SECTION_CONTEXT, .name = "kind", .power = POWER_NOTHING, .type = TYPE_KIND, CONTEXT(kind),
			       .help = "required.  service: a transient Type=notify unit in system.slice.  user: the same "
				       "unit under the user's own manager.  scope: a server forked by slicebench and moved "
				       "into a transient scope.  raw: no systemd at all, a cgroup written straight into "
				       "cgroupfs.  login: the server started inside a real logind session (PAM's login "
				       "stack with pam_systemd), in session-N.scope under user-UID.slice, as from a DBA's "
				       "ssh shell; it takes no cgroup properties",
			       .option = "context", .option_help = "start the managed server in a context of that kind" },
	[KEY_CONTEXT_SESSION] = { .section = SECTION_CONTEXT, .name = "session", .power = POWER_NOTHING, .type = TYPE_WORD, CONTEXT(session),
				  .words = session_words, .def = "inherit",
				  .help = "scope and raw only: keep slicebench's session or start a new one with setsid "
					  "(its own autogroup)",
				  .option = "session", .option_help = "kinds that take a session: keep it, or a new one (setsid)" },
	[KEY_CONTEXT_SLICE] = { .section = SECTION_CONTEXT, .name = "Slice", .power = POWER_NOTHING, .type = TYPE_SLICE, PARSER_EACH(ctx_slice),
				.check = check_slice_name,
				.help = "the slice the context's server runs in, defined by a [slice NAME.slice] section "
					"of this file" },
	[KEY_CONTEXT_UNIT] = { .section = SECTION_CONTEXT, .name = "unit", .power = POWER_NOTHING, .type = TYPE_UNIT, PARSER_EACH(unit),
			       .help = "service only: mirror an installed unit.  Its settings that the property table "
				       "knows are read over D-Bus and applied to slicebench's own transient unit (its own "
				       "datadir and socket); properties the section gives itself win; the others are listed "
				       "by name as not reproduced.  A unit that runs the server as another user needs "
				       "[server] user to be that user" },
	[KEY_CONTEXT_FROM] = { .section = SECTION_CONTEXT, .name = "from", .power = POWER_PATH, .allow = allow_input_key, .type = TYPE_FILE, PARSER_EACH(from),
			       .help = "replay a captured server (the JSON of place --pid or --unit; a path relative to this "
				       "file): the kind where it ran unless kind = says, and what the attribute table can "
				       "take from it (environment, limits, affinity, nice, scheduling, capabilities, umask, "
				       "a service's unit settings).  A variable that chooses code (LD_PRELOAD, PATH) is taken "
				       "only if it names files root alone could have put there, and said; the server is "
				       "always [server]'s binary.  After each start the placement is compared with the "
				       "snapshot (replay.reproduced, replay.differs).  Where one context replays, the "
				       "file's others (but a unit's mirror) start the same server with its variables, "
				       "each that their section does not set" },
	[KEY_CONTEXT_CLIENT_CPUS] = { .section = SECTION_CONTEXT, .name = "client-cpus", .power = POWER_NOTHING, .type = TYPE_CPUS_TEXT,
				      EACH(client_cpus),
				      .help = "the CPUs of this context's client threads, instead of [client] cpus.  Like "
					      "cpus and the CPU sets AllowedCPUs= and CPUAffinity=, it takes llc:N (the "
					      "Nth L3 group, as slicebench host lists cpu.l3_groups), node:N and core:N "
					      "besides CPU numbers; they are resolved on this host when the file is read, "
					      "and the resolved list is recorded" },
	[KEY_CONTEXT_PROXY] = { .section = SECTION_CONTEXT, .name = "proxy", .power = POWER_NOTHING, .type = TYPE_NAME, PARSER_EACH(ctx_proxy),
				.help = "the client connects through that [proxy NAME] of this file, started after the "
					"server in its own context for every unit; its placement is recorded beside the "
					"server's (proxy.*)" },
	[KEY_CONTEXT_PROPERTY] = { .section = SECTION_CONTEXT, .name = "PROPERTY", .power = POWER_BY_ROW, .type = TYPE_PROPERTY,
				   .add = add_context_property,
				   .help = "any settable systemd property of SYSTEMD PROPERTIES below, once", .option = "property",
				   .short_option = 'p', .option_help = "a systemd property of that context, e.g. CPUQuota=50%" },

	[KEY_SLICE_PROPERTY] = { .section = SECTION_SLICE, .name = "PROPERTY", .power = POWER_BY_ROW, .type = TYPE_PROPERTY,
				 .add = add_slice_property,
				 .help = "a cgroup property of SYSTEMD PROPERTIES below, such as CPUWeight=, CPUQuota= and "
					 "AllowedCPUs=, as systemd takes it for a slice" },

	[KEY_NEIGHBOUR_KIND] = { .section = SECTION_NEIGHBOUR, .name = "kind", .power = POWER_NOTHING, .type = TYPE_WORD, NEIGHBOUR(kind),
				 .words = neighbour_kind_words,
				 .help = "required.  hog runs slicebench hog: threads burning CPU at a duty cycle; command "
					 "runs a command line of the user's, such as stress-ng; oltp runs a mariadbd of its "
					 "own and an OLTP client against it" },
	[KEY_NEIGHBOUR_THREADS] = { .section = SECTION_NEIGHBOUR, .name = "threads", .power = POWER_NOTHING, .type = TYPE_UINT,
				    NEIGHBOUR(threads), .min = 1, .max = NEIGHBOUR_THREADS_MAX,
				    .help = "hog: the threads burning CPU (1).  oltp: the client's threads, one "
					    "connection each (1, at most " STRINGIFY(NEIGHBOUR_OLTP_THREADS_MAX) ")" },
	[KEY_NEIGHBOUR_DUTY] = { .section = SECTION_NEIGHBOUR, .name = "duty", .power = POWER_NOTHING, .type = TYPE_WHOLE_PERCENT,
				 NEIGHBOUR(duty), .min = 1, .max = 100,
				 .help = "hog: the percentage of each 100 ms period a thread runs (100%)" },
	[KEY_NEIGHBOUR_COMMAND] = { .section = SECTION_NEIGHBOUR, .name = "command", .power = POWER_CODE, .allow = allow_command_key, .type = TYPE_COMMAND,
				    NEIGHBOUR(argv),
				    .help = "command: the program, looked up in PATH, and its words, split on blanks "
					    "(no quoting)" },
	[KEY_NEIGHBOUR_SLICE] = { .section = SECTION_NEIGHBOUR, .name = "Slice", .power = POWER_NOTHING, .type = TYPE_SLICE,
				  PARSER_EACH(nb_slice), .check = check_slice_name,
				  .help = "the slice it runs in, a [slice NAME.slice] of this file; by default "
					  "system.slice (the systemd kinds) or the root (raw)" },

	[KEY_VARY_MODE] = { .section = SECTION_VARY, .name = "mode", .power = POWER_NOTHING, .type = TYPE_FLAGS, E(vary_modes),
			    .words = vary_mode_words, .def = "restart",
			    .help = "how a value is applied: a fresh server per value (restart), the running unit "
				    "changed in place (live), or both" },
	[KEY_VARY_SLICE] = { .section = SECTION_VARY, .name = "slice", .power = POWER_NOTHING, .type = TYPE_SLICE, PARSER(vary_slice),
			     .help = "vary the property on that [slice NAME.slice] instead of on the contexts" },
	[KEY_VARY_PROPERTY] = { .section = SECTION_VARY, .name = "PROPERTY", .power = POWER_BY_ROW, .type = TYPE_PROPERTY_VALUES,
				.add = add_vary_property,
				.help = "one systemd property of SYSTEMD PROPERTIES above and its values, separated by "
					"blanks: every context is run once per value (the value replaces the context's own "
					"setting of that property)" },

	[KEY_PROXY_ENGINE] = { .section = SECTION_PROXY, .name = "engine", .power = POWER_NOTHING, .type = TYPE_STRING, EACH(proxy_engine),
			       .words = proxy_engine_words,
			       .help = "required.  haproxy: TCP mode between the client's socket and the server's (the mysql "
				       "engines).  pgbouncer: session pooling (postgresql).  proxysql: ProxySQL, where it is "
				       "installed (the mysql engines)" },
	[KEY_PROXY_BINARY] = { .section = SECTION_PROXY, .name = "binary", .power = POWER_CODE, .allow = allow_code_key, .type = TYPE_STRING, EACH(proxy_binary),
			       .help = "the proxy's binary (the engine's name, looked up in PATH)" },
	[KEY_PROXY_KIND] = { .section = SECTION_PROXY, .name = "kind", .power = POWER_NOTHING, .type = TYPE_KIND, PROXY(kind),
			     .help = "required: the kind of context the proxy runs in, as a context's kind" },
	[KEY_PROXY_SESSION] = { .section = SECTION_PROXY, .name = "session", .power = POWER_NOTHING, .type = TYPE_WORD, PROXY(session),
				.words = session_words, .def = "inherit", .help = "scope and raw only, as a context's" },
	[KEY_PROXY_PROPERTY] = { .section = SECTION_PROXY, .name = "PROPERTY", .power = POWER_BY_ROW, .type = TYPE_PROPERTY,
				 .add = add_proxy_property,
				 .help = "any settable systemd property of SYSTEMD PROPERTIES below, once, for the proxy's "
					 "context (it runs as the server's user: no User=)" },
};
#undef E
#undef EACH
#undef CONTEXT
#undef NEIGHBOUR
#undef PROXY
#undef PARSER
#undef PARSER_EACH

const struct key_def *key_find(enum section s, const char *name)
{
	const struct key_def *any = NULL;

	for (const struct key_def *k = key_table; k < key_table + _KEY_MAX; k++) {
		if (k->section != s)
			continue;
		if (k->add)
			any = k;
		else if (streq(k->name, name))
			return k;
	}
	return any;
}

const char *key_list(enum section s, const char *last_sep, char *buf, size_t len)
{
	struct word names[_KEY_MAX + 1] = {};
	size_t n = 0;

	for (size_t i = 0; i < _KEY_MAX; i++)
		if (key_table[i].section == s && !key_table[i].add) {
			names[n] = (struct word){ key_table[i].name, (int)n };
			n++;
		}
	return word_join(names, ", ", last_sep, buf, len);
}

static const char *const type_syntax[] = {
	[TYPE_STRING] = "TEXT",
	[TYPE_UNIT] = "NAME.service",
	[TYPE_FILE] = "FILE",
	[TYPE_UINT] = "N",
	[TYPE_DURATION] = "DURATION",
	[TYPE_THREADS] = "LIST",
	[TYPE_CPUS] = "CPUS",
	[TYPE_CPUS_TEXT] = "CPUS",
	[TYPE_BASELINE] = "CONTEXT",
	[TYPE_NAME] = "NAME",
	[TYPE_BOOL] = "yes|no",
	[TYPE_REPEAT] = "N|auto|decide",
	[TYPE_PERCENT] = "PERCENT",
	[TYPE_WHOLE_PERCENT] = "PERCENT",
	[TYPE_SIZE] = "SIZE",
	[TYPE_SLICE] = "NAME.slice",
	[TYPE_COMMAND] = "PROGRAM ARGS...",
	[TYPE_PROPERTY] = "VALUE",
	[TYPE_PROPERTY_VALUES] = "VALUE...",
	/* TYPE_WORD, TYPE_FLAGS, TYPE_KIND: their words (key_syntax()) */
};

/* The form of k's value, in buf when it is made of words: each of them,
 * for flags both as well; the kinds from their rows. */
static const char *key_syntax(const struct key_def *k, char *buf, size_t len)
{
	struct word kinds[16] = {};
	char each[64], both[64];

	switch (k->type) {
	case TYPE_WORD:
		return word_join(k->words, "|", "|", buf, len);
	case TYPE_WORKLOAD:
		snprintf(buf, len, "%s|FILE.lua|FILE.sql[@WEIGHT]...", word_join(k->words, "|", "|", each, sizeof(each)));
		return buf;
	case TYPE_STRING:
		return k->words ? word_join(k->words, "|", "|", buf, len) : type_syntax[k->type];
	case TYPE_FLAGS:
		snprintf(buf, len, "%s|%s", word_join(k->words, "|", "|", each, sizeof(each)),
			 word_join(k->words, " ", " ", both, sizeof(both)));
		return buf;
	case TYPE_KIND:
		for (int i = 0; i < (int)ELEMENTSOF(kinds) - 1 && context_ops_for(i); i++)
			kinds[i] = (struct word){ context_ops_for(i)->name, i };
		return word_join(kinds, "|", "|", buf, len);
	default:
		return type_syntax[k->type];
	}
}

int experiment_key_doc(size_t i, struct experiment_key_doc *ret)
{
	static char syntax[_KEY_MAX][128];
	const struct key_def *k;
	bool ranged;

	if (i >= _KEY_MAX)
		return -ENOENT;
	k = &key_table[i];
	ranged = k->type == TYPE_UINT || k->type == TYPE_REPEAT || k->type == TYPE_WHOLE_PERCENT;
	*ret = (struct experiment_key_doc){
		.section = section_table[k->section].name,
		.name = k->name,
		.property = k->add != NULL,
		.syntax = key_syntax(k, syntax[i], sizeof(syntax[i])),
		.min = ranged ? k->min : 0,
		.max = ranged ? k->max : 0,
		.def = k->def,
		.help = k->help,
	};
	return 0;
}

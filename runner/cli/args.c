/* The command line of prepare, sweep and place: one option table, of which
 * each verb takes its part. */
#include <getopt.h>
#include <stdio.h>

#include "slices/cgmode.h"
#include "cli/args.h"
#include "common/topology.h"
#include "common/util.h"

enum {
	ARG_SOCKET = 0x100,
	ARG_USER,
	ARG_DB,
	ARG_TABLES,
	ARG_TABLE_SIZE,
	ARG_PREPARE_THREADS,
	ARG_SEED,
	ARG_WORKLOAD,
	ARG_SCALE,
	ARG_THREADS,
	ARG_TIME,
	ARG_WARMUP,
	ARG_EVENTS,
	ARG_RAND_TYPE,
	ARG_RANGE_SIZE,
	ARG_DRIVER,
	ARG_CLIENT_THREADS,
	ARG_CLIENT_CPUS,
	ARG_PIN,
	ARG_NO_PREWARM,
	ARG_SERVER_PID,
	ARG_SERVER_CGROUP,
	ARG_PROGRESS,
	ARG_JSON,
	ARG_CONTEXT,
	ARG_SESSION,
	ARG_EXPERIMENT,
	ARG_KEEP,
	ARG_PROPERTY = 'p',
};

/* One table for both verbs: prepare takes the entries before ARG_THREADS. */
static const struct option options[] = {
	{ "socket", required_argument, NULL, ARG_SOCKET },
	{ "user", required_argument, NULL, ARG_USER },
	{ "db", required_argument, NULL, ARG_DB },
	{ "tables", required_argument, NULL, ARG_TABLES },
	{ "table-size", required_argument, NULL, ARG_TABLE_SIZE },
	{ "prepare-threads", required_argument, NULL, ARG_PREPARE_THREADS },
	{ "seed", required_argument, NULL, ARG_SEED },
	{ "workload", required_argument, NULL, ARG_WORKLOAD },
	{ "scale", required_argument, NULL, ARG_SCALE },
	{ "help", no_argument, NULL, 'h' },
	{ "threads", required_argument, NULL, ARG_THREADS },
	{ "time", required_argument, NULL, ARG_TIME },
	{ "warmup", required_argument, NULL, ARG_WARMUP },
	{ "events", required_argument, NULL, ARG_EVENTS },
	{ "rand-type", required_argument, NULL, ARG_RAND_TYPE },
	{ "range-size", required_argument, NULL, ARG_RANGE_SIZE },
	{ "driver", required_argument, NULL, ARG_DRIVER },
	{ "client-threads", required_argument, NULL, ARG_CLIENT_THREADS },
	{ "client-cpus", required_argument, NULL, ARG_CLIENT_CPUS },
	{ "pin", required_argument, NULL, ARG_PIN },
	{ "no-prewarm", no_argument, NULL, ARG_NO_PREWARM },
	{ "server-pid", required_argument, NULL, ARG_SERVER_PID },
	{ "server-cgroup", required_argument, NULL, ARG_SERVER_CGROUP },
	{ "progress", no_argument, NULL, ARG_PROGRESS },
	{ "json", no_argument, NULL, ARG_JSON },
	{ "context", required_argument, NULL, ARG_CONTEXT },
	{ "session", required_argument, NULL, ARG_SESSION },
	{ "experiment", required_argument, NULL, ARG_EXPERIMENT },
	{ "keep", no_argument, NULL, ARG_KEEP },
	{ "property", required_argument, NULL, ARG_PROPERTY },
	{}
};

static const char sweep_help[] =
	"usage: slicebench sweep --socket PATH [OPTIONS]\n"
	"       slicebench sweep --context KIND [-p NAME=VALUE]... [OPTIONS]\n"
	"       slicebench prepare --socket PATH [--tables N] [--table-size M] [--db NAME]\n"
	"       slicebench prepare --socket DIR --workload select-only [--scale N]\n"
	"       slicebench place KIND... [-p NAME=VALUE]... [--session MODE] [--json] [--keep]\n"
	"       slicebench place --experiment NAME CONTEXT... [--json] [--keep]\n\n"
	"Runs sysbench's oltp_read_only at each thread count against the server on PATH,\n"
	"or pgbench's select-only or tpcb-like at each client count against PostgreSQL\n"
	"(prepare creates or checks the dataset; sweep does that first too).\n"
	"place starts the server in each context in turn and prints where it landed;\n"
	"--keep leaves the last one running (slicebench cleanup stops it).\n\n"
	"  --socket PATH          the server's socket (root over the socket, no password);\n"
	"                         PostgreSQL: its directory or DIR/.s.PGSQL.PORT\n"
	"  --workload NAME        oltp_read_only (default), select-only or tpcb-like (pgbench's)\n"
	"  --context KIND         start the managed server in a context of that kind (service, user, ...)\n"
	"  -p, --property N=V     a systemd property of that context, e.g. CPUQuota=50%%\n"
	"  --session MODE         kinds that take a session: inherit (default) or new (setsid)\n"
	"  --user NAME            MySQL user (root)\n"
	"  --db NAME              database (sbtest; pgbench's workloads: pgbench)\n"
	"  --tables N             tables sbtest1..N (1)\n"
	"  --table-size M         rows per table (10000)\n"
	"  --scale N              pgbench's scale factor, 100000 accounts each (1)\n"
	"  --prepare-threads N    tables (pgbench: account streams) loaded in parallel (at most 16)\n"
	"  --seed N               PRNG seed (from the clock)\n"
	"  --threads LIST         thread counts (pgbench's workloads: clients), as 1,2,4 or 1-4 (1,2,4)\n"
	"  --time DURATION        measured time per step (10s)\n"
	"  --warmup DURATION      uncounted time before each step (0)\n"
	"  --events N             stop each step after N transactions\n"
	"  --rand-type TYPE       special (sysbench's default), uniform, gaussian, pareto\n"
	"  --range-size N         rows per range query (100)\n"
	"  --driver NAME          slicebench (native), sysbench or pgbench (the workload's own tool)\n"
	"  --client-threads N     pgbench's workloads: threads driving the clients, as pgbench -j (1)\n"
	"  --client-cpus LIST     CPUs for the client threads\n"
	"  --pin MODE             round-robin (thread i on CPU i mod n) or all (default)\n"
	"  --no-prewarm           skip the buffer pool warm-up before the first step\n"
	"  --server-pid PID       the server's PID, for telemetry and to notice its death\n"
	"  --server-cgroup DIR    the server's cpu cgroup directory, for cpu.stat\n"
	"  --progress             one line per second on stderr\n"
	"  --json                 the record as JSON on stdout\n";

static int bad_value(const char *verb, const char *opt, const char *value, const char *want)
{
	log_error("%s: --%s: bad value '%s' (%s)", verb, opt, value, want);
	return -EINVAL;
}

/* One of t's words into *ret. */
static int parse_word(const char *verb, const char *opt, const char *value, const struct word *t, int *ret)
{
	char list[128];

	if (word_lookup(t, value, ret) < 0)
		return bad_value(verb, opt, value, word_list(t, list, sizeof(list)));
	return 0;
}

static int parse_sweep_arg(const char *verb, int c, const char *optname, const char *v, struct sweep_args *a)
{
	struct oltp_options *o = &a->o;
	long n;
	uint64_t u;

	switch (c) {
	case ARG_SOCKET:
		o->socket = v;
		return 0;
	case ARG_USER:
		o->user = v;
		return 0;
	case ARG_DB:
		if (!name_is_valid(v))
			return bad_value(verb, optname, v, "letters, digits, - and _");
		o->db = v;
		return 0;
	case ARG_TABLES:
		if (parse_int_range(v, 1, 1024, &n) < 0)
			return bad_value(verb, optname, v, "1 to 1024");
		o->tables = (unsigned)n;
		return 0;
	case ARG_TABLE_SIZE:
		if (parse_int_range(v, 1, 1000000000, &n) < 0)
			return bad_value(verb, optname, v, "1 to 10^9");
		o->table_size = (unsigned)n;
		return 0;
	case ARG_PREPARE_THREADS:
		if (parse_int_range(v, 1, 256, &n) < 0)
			return bad_value(verb, optname, v, "1 to 256");
		o->prepare_threads = (unsigned)n;
		return 0;
	case ARG_SEED:
		if (parse_u64(v, &o->seed) < 0)
			return bad_value(verb, optname, v, "an unsigned integer");
		return 0;
	case ARG_WORKLOAD:
		if (oltp_workload_from_string(v, &o->workload) < 0)
			return bad_value(verb, optname, v, oltp_workload_list(NULL));
		return 0;
	case ARG_SCALE:
		if (parse_int_range(v, 1, 20000, &n) < 0)
			return bad_value(verb, optname, v, "1 to 20000");
		o->scale = (unsigned)n;
		return 0;
	case ARG_CLIENT_THREADS:
		if (parse_int_range(v, 1, 1024, &n) < 0)
			return bad_value(verb, optname, v, "1 to 1024");
		o->client_threads = (unsigned)n;
		return 0;
	case ARG_THREADS:
		if (parse_int_list(v, 1, 100000, a->threads, SWEEP_MAX_STEPS, &a->n_threads) < 0)
			return bad_value(verb, optname, v, "a list such as 1,2,4 or 1-8, at most 64 steps");
		return 0;
	case ARG_TIME:
		if (parse_duration_ns(v, &o->duration_ns) < 0)
			return bad_value(verb, optname, v, "a duration such as 10s or 2m");
		return 0;
	case ARG_WARMUP:
		if (parse_duration_ns(v, &o->warmup_ns) < 0)
			return bad_value(verb, optname, v, "a duration such as 5s");
		return 0;
	case ARG_EVENTS:
		if (parse_u64(v, &u) < 0 || u == 0)
			return bad_value(verb, optname, v, "a positive integer");
		o->events = u;
		return 0;
	case ARG_RAND_TYPE:
		return parse_word(verb, optname, v, sbrand_type_words, (int *)&o->rand.type);
	case ARG_RANGE_SIZE:
		if (parse_int_range(v, 1, 1000000, &n) < 0)
			return bad_value(verb, optname, v, "1 to 10^6");
		o->range_size = (unsigned)n;
		return 0;
	case ARG_DRIVER:
		return parse_word(verb, optname, v, oltp_driver_words, (int *)&o->driver);
	case ARG_CLIENT_CPUS: {
		long cpus[OLTP_MAX_CPUS];
		char why[160];
		size_t n_cpus;

		if (cpu_list_parse(v, OLTP_MAX_CPUS - 1, cpus, OLTP_MAX_CPUS, &n_cpus, why, sizeof(why)) < 0)
			return bad_value(verb, optname, v, *why ? why : "a CPU list such as 0 or 0,2-3, or llc:N, node:N, core:N");
		for (size_t i = 0; i < n_cpus; i++)
			o->client_cpus[i] = (unsigned)cpus[i];
		o->n_client_cpus = (unsigned)n_cpus;
		if (o->pin == OLTP_PIN_INHERIT)
			o->pin = OLTP_PIN_ALL;
		return 0;
	}
	case ARG_PIN:
		return parse_word(verb, optname, v, oltp_pin_words, (int *)&o->pin);
	case ARG_NO_PREWARM:
		o->prewarm = false;
		return 0;
	case ARG_SERVER_PID:
		if (parse_int_range(v, 1, INT32_MAX, &n) < 0)
			return bad_value(verb, optname, v, "a PID");
		o->server_pid = (int)n;
		return 0;
	case ARG_SERVER_CGROUP:
		o->server_cpu_cgroup = v;
		return 0;
	case ARG_PROGRESS:
		o->progress = true;
		return 0;
	case ARG_JSON:
		a->json = true;
		return 0;
	case ARG_CONTEXT: {
		enum context_kind k = context_kind_from_string(v);

		if (k == CONTEXT_KIND_INVALID)
			return bad_value(verb, optname, v, context_kind_list(false));
		a->spec.kind = k;
		a->in_context = true;
		return 0;
	}
	case ARG_EXPERIMENT:
		a->experiment = v;
		return 0;
	case ARG_KEEP:
		a->keep = true;
		return 0;
	case ARG_SESSION:
		return parse_word(verb, optname, v, session_words, (int *)&a->spec.session);
	case ARG_PROPERTY: {
		const char *eq = strchr(v, '=');
		_cleanup_free_ char *name = eq ? strndup(v, (size_t)(eq - v)) : NULL;

		if (!name || a->spec.n_props >= CONTEXT_PROPS_MAX ||
		    prop_parse(name, eq + 1, &a->spec.props[a->spec.n_props]) < 0)
			return bad_value(verb, optname, v, "a systemd property as NAME=VALUE; see slicebench properties");
		a->spec.n_props++;
		return 0;
	}
	}
	return -EINVAL;
}

static bool option_allowed(enum verb_kind verb, int c)
{
	switch (verb) {
	case VERB_PREPARE:
		return c < ARG_THREADS && c != ARG_PROPERTY;
	case VERB_PLACE:
		return c == ARG_CONTEXT || c == ARG_SESSION || c == ARG_PROPERTY || c == ARG_JSON || c == ARG_EXPERIMENT ||
		       c == ARG_KEEP;
	default:
		return c != ARG_EXPERIMENT && c != ARG_KEEP;
	}
}

int parse_argv(const char *verb, enum verb_kind kind, int argc, char **argv, struct sweep_args *a)
{
	const char *why = NULL;
	int c, idx;

	oltp_options_default(&a->o);
	a->o.prewarm = true;
	a->threads[0] = 1, a->threads[1] = 2, a->threads[2] = 4;
	a->n_threads = 3;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hp:", options, &idx)) >= 0) {
		if (c == 'h') {
			fputs(sweep_help, stdout);
			return 0;
		}
		if (c == '?')
			return -EINVAL;
		if (c == ARG_PROPERTY)
			idx = (int)ELEMENTSOF(options) - 2;
		if (!option_allowed(kind, c)) {
			log_error("%s: --%s is an option of %s", verb, options[idx].name,
				  kind == VERB_PLACE && c < ARG_THREADS ? "prepare and sweep" : "sweep");
			return -EINVAL;
		}
		if (parse_sweep_arg(verb, c, options[idx].name, optarg, a) < 0)
			return -EINVAL;
	}
	if (kind == VERB_PLACE) {
		a->places = argv + optind;
		a->n_places = (size_t)(argc - optind);
		if (!a->n_places == !a->in_context) {
			log_error("%s: name the contexts (%s, or those of --experiment) or give --context KIND", verb,
				  context_kind_list(false));
			return -EINVAL;
		}
		if (a->experiment && (a->in_context || a->spec.n_props)) {
			log_error("%s: --experiment takes its contexts' settings from the file, not from --context or -p", verb);
			return -EINVAL;
		}
		if (!a->in_context)
			return 1; /* each named context is checked by verb_place */
	} else if (optind < argc) {
		log_error("%s: unexpected argument '%s'", verb, argv[optind]);
		return -EINVAL;
	}
	if (!a->o.socket == !a->in_context) {
		log_error("%s: give either --socket PATH or --context KIND", verb);
		return -EINVAL;
	}
	if (a->in_context) {
		const struct prop_value *bad = NULL;
		enum cgroup_mode mode = cgroup_mode_detect();

		snprintf(a->spec.name, sizeof(a->spec.name), "%s-%s", verb, context_kind_to_string(a->spec.kind));
		if (context_validate(&a->spec, mode, &bad, &why) < 0) {
			log_error("%s: %s%s%s: %s (cgroup mode %s)", verb, bad ? "-p " : "", bad ? bad->def->name : "",
				  bad ? "" : context_kind_to_string(a->spec.kind), why, cgroup_mode_to_string(mode));
			return -EINVAL;
		}
	}
	if (oltp_driver_check(a->o.workload, a->o.driver, &why) < 0) {
		log_error("%s: --driver %s: %s", verb, word_name(oltp_driver_words, a->o.driver), why);
		return -EINVAL;
	}
	if (a->o.client_threads && !streq(oltp_workload_def(a->o.workload)->protocol, "postgresql")) {
		log_error("%s: --client-threads: %s runs one thread per connection (pgbench's workloads take it)", verb,
			  oltp_workload_def(a->o.workload)->name);
		return -EINVAL;
	}
	if (a->in_context && !streq(oltp_workload_def(a->o.workload)->protocol, "mysql")) {
		log_error("%s: --context starts the managed mariadbd, which does not run %s; give --socket", verb,
			  oltp_workload_def(a->o.workload)->name);
		return -EINVAL;
	}
	if (a->o.pin == OLTP_PIN_ROUND_ROBIN && a->o.n_client_cpus == 0) {
		log_error("%s: --pin round-robin needs --client-cpus", verb);
		return -EINVAL;
	}
	if (a->o.events && a->o.duration_ns == 10 * NSEC_PER_SEC)
		a->o.duration_ns = 0; /* --events alone: no time limit, as sysbench's --time=0 */
	return 1;
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


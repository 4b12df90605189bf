/* slicebench prepare and slicebench sweep: the sbtest dataset, and the same
 * read-only OLTP step at each thread count against one server. */
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>

#include "slices/cgmode.h"
#include "run/experiment.h"
#include "run/managed.h"
#include "run/interrupt.h"
#include "oltp/oltp.h"
#include "slices/snapshot.h"
#include "common/util.h"
#include "cli/verbs.h"

#define SWEEP_MAX_STEPS 64
#define SWEEP_JSON_FORMAT 1

struct sweep_args {
	struct oltp_options o;
	long threads[SWEEP_MAX_STEPS];
	size_t n_threads;
	bool json;
	bool in_context; /* --context: start the managed server there */
	struct context_spec spec;
	/* place: the contexts named on the command line, and where to put
	 * their snapshots when there are several */
	const char *experiment;
	char **places;
	size_t n_places;
	bool keep, keep_this;
	json_t *all;
};

enum {
	ARG_SOCKET = 0x100,
	ARG_USER,
	ARG_DB,
	ARG_TABLES,
	ARG_TABLE_SIZE,
	ARG_PREPARE_THREADS,
	ARG_SEED,
	ARG_THREADS,
	ARG_TIME,
	ARG_WARMUP,
	ARG_EVENTS,
	ARG_RAND_TYPE,
	ARG_RANGE_SIZE,
	ARG_DRIVER,
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
	{ "help", no_argument, NULL, 'h' },
	{ "threads", required_argument, NULL, ARG_THREADS },
	{ "time", required_argument, NULL, ARG_TIME },
	{ "warmup", required_argument, NULL, ARG_WARMUP },
	{ "events", required_argument, NULL, ARG_EVENTS },
	{ "rand-type", required_argument, NULL, ARG_RAND_TYPE },
	{ "range-size", required_argument, NULL, ARG_RANGE_SIZE },
	{ "driver", required_argument, NULL, ARG_DRIVER },
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
	"       slicebench place KIND... [-p NAME=VALUE]... [--session MODE] [--json] [--keep]\n"
	"       slicebench place --experiment NAME CONTEXT... [--json] [--keep]\n\n"
	"Runs sysbench's oltp_read_only at each thread count against the server on PATH\n"
	"(prepare creates or checks the sbtest tables; sweep does that first too).\n"
	"place starts the server in each context in turn and prints where it landed;\n"
	"--keep leaves the last one running (slicebench cleanup stops it).\n\n"
	"  --socket PATH          the server's socket (root over the socket, no password)\n"
	"  --context KIND         start the managed server in a context of that kind (service, user, ...)\n"
	"  -p, --property N=V     a systemd property of that context, e.g. CPUQuota=50%%\n"
	"  --session MODE         kinds that take a session: inherit (default) or new (setsid)\n"
	"  --user NAME            MySQL user (root)\n"
	"  --db NAME              database (sbtest)\n"
	"  --tables N             tables sbtest1..N (1)\n"
	"  --table-size M         rows per table (10000)\n"
	"  --prepare-threads N    tables loaded in parallel (one per table, at most 16)\n"
	"  --seed N               PRNG seed (from the clock)\n"
	"  --threads LIST         thread counts, as 1,2,4 or 1-4 (1,2,4)\n"
	"  --time DURATION        measured time per step (10s)\n"
	"  --warmup DURATION      uncounted time before each step (0)\n"
	"  --events N             stop each step after N transactions\n"
	"  --rand-type TYPE       special (sysbench's default), uniform, gaussian, pareto\n"
	"  --range-size N         rows per range query (100)\n"
	"  --driver NAME          slicebench (native) or sysbench\n"
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
		if (sbrand_type_from_string(v, &o->rand.type) < 0)
			return bad_value(verb, optname, v, "special, uniform, gaussian or pareto");
		return 0;
	case ARG_RANGE_SIZE:
		if (parse_int_range(v, 1, 1000000, &n) < 0)
			return bad_value(verb, optname, v, "1 to 10^6");
		o->range_size = (unsigned)n;
		return 0;
	case ARG_DRIVER:
		if (streq(v, "slicebench") || streq(v, "native"))
			o->driver = OLTP_DRIVER_NATIVE;
		else if (streq(v, "sysbench"))
			o->driver = OLTP_DRIVER_SYSBENCH;
		else
			return bad_value(verb, optname, v, "slicebench or sysbench");
		return 0;
	case ARG_CLIENT_CPUS: {
		long cpus[OLTP_MAX_CPUS];
		size_t n_cpus;

		if (parse_int_list(v, 0, OLTP_MAX_CPUS - 1, cpus, OLTP_MAX_CPUS, &n_cpus) < 0)
			return bad_value(verb, optname, v, "a CPU list such as 0 or 0,2-3");
		for (size_t i = 0; i < n_cpus; i++)
			o->client_cpus[i] = (unsigned)cpus[i];
		o->n_client_cpus = (unsigned)n_cpus;
		if (o->pin == OLTP_PIN_INHERIT)
			o->pin = OLTP_PIN_ALL;
		return 0;
	}
	case ARG_PIN:
		if (streq(v, "round-robin"))
			o->pin = OLTP_PIN_ROUND_ROBIN;
		else if (streq(v, "all"))
			o->pin = OLTP_PIN_ALL;
		else
			return bad_value(verb, optname, v, "round-robin or all");
		return 0;
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
		if (streq(v, "inherit"))
			a->spec.session = SESSION_INHERIT;
		else if (streq(v, "new"))
			a->spec.session = SESSION_NEW;
		else
			return bad_value(verb, optname, v, "inherit or new");
		return 0;
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

/* signify's shape: <0 bad usage, 0 help printed, >0 go on. */
enum verb_kind {
	VERB_PREPARE, /* the options before ARG_THREADS */
	VERB_SWEEP,   /* all of them */
	VERB_PLACE,   /* the context, its properties and --json */
};

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

static int parse_argv(const char *verb, enum verb_kind kind, int argc, char **argv, struct sweep_args *a)
{
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
		const char *why = NULL;
		enum cgroup_mode mode = cgroup_mode_detect();

		snprintf(a->spec.name, sizeof(a->spec.name), "%s-%s", verb, context_kind_to_string(a->spec.kind));
		if (context_validate(&a->spec, mode, &bad, &why) < 0) {
			log_error("%s: %s%s%s: %s (cgroup mode %s)", verb, bad ? "-p " : "", bad ? bad->def->name : "",
				  bad ? "" : context_kind_to_string(a->spec.kind), why, cgroup_mode_to_string(mode));
			return -EINVAL;
		}
	}
	if (a->o.pin == OLTP_PIN_ROUND_ROBIN && a->o.n_client_cpus == 0) {
		log_error("%s: --pin round-robin needs --client-cpus", verb);
		return -EINVAL;
	}
	if (a->o.events && a->o.duration_ns == 10 * NSEC_PER_SEC)
		a->o.duration_ns = 0; /* --events alone: no time limit, as sysbench's --time=0 */
	return 1;
}

static int prepare_dataset(const char *verb, const struct oltp_options *o)
{
	_cleanup_free_ char *msg = NULL;
	int r;

	r = oltp_prepare(o, &msg);
	if (r < 0)
		return log_error_errno(r, "%s: %s", verb, msg ? msg : "preparing the dataset failed: %m");
	return 0;
}

int verb_prepare(int argc, char **argv)
{
	struct sweep_args a = {};
	int r;

	r = parse_argv("prepare", VERB_PREPARE, argc, argv, &a);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : 0;
	return prepare_dataset("prepare", &a.o) < 0 ? 1 : 0;
}

static void print_text_header(void)
{
	printf("%-10s %7s %10s %11s %8s %8s %8s %8s %8s %7s %6s\n", "driver", "threads", "tps", "qps", "avg_ms",
	       "p50_ms", "p95_ms", "p99_ms", "max_ms", "errors", "recon");
}

static void print_text_step(const struct step_result *r)
{
	if (r->failed) {
		printf("%-10s %7u FAILED: %s\n", r->driver, r->threads, r->reason);
		return;
	}
	printf("%-10s %7u %10.2f %11.2f %8.2f %8.2f %8.2f %8.2f %8.2f %7" PRIu64 " %6" PRIu64 "\n", r->driver,
	       r->threads, r->tps, r->qps, r->lat_avg_ms, r->lat_p50_ms, r->lat_p95_ms, r->lat_p99_ms, r->lat_max_ms,
	       r->errors[OLTP_ERR_IGNORABLE] + r->errors[OLTP_ERR_RECONNECT] + r->errors[OLTP_ERR_FATAL], r->reconnects);
	fflush(stdout);
}

/* Runs the steps against a->o.socket; returns an exit status. */
static int sweep_steps(struct sweep_args *a)
{
	json_t *doc = NULL, *steps = NULL;
	bool failed = false;
	int r;

	if (prepare_dataset("sweep", &a->o) < 0)
		return 1;
	if (a->o.prewarm) {
		_cleanup_free_ char *msg = NULL;

		r = oltp_prewarm(&a->o, &msg);
		if (r < 0) {
			log_error_errno(r, "sweep: warming the buffer pool: %s", msg ? msg : "%m");
			return 1;
		}
	}
	if (a->json) {
		doc = json_pack("{s:i, s:s, s:s, s:i, s:i, s:s, s:[]}", "format_version", SWEEP_JSON_FORMAT, "workload",
				"oltp_read_only", "driver", a->o.driver == OLTP_DRIVER_SYSBENCH ? "sysbench" : "slicebench",
				"tables", (int)a->o.tables, "table_size", (int)a->o.table_size, "rand_type",
				sbrand_type_to_string(a->o.rand.type), "steps");
		if (!doc)
			return log_error_errno(-ENOMEM, "sweep: %m"), 1;
		steps = json_object_get(doc, "steps");
	} else
		print_text_header();

	for (size_t i = 0; i < a->n_threads && !failed; i++) {
		struct step_result res = {};
		json_t *j = NULL;

		r = oltp_step(&a->o, (unsigned)a->threads[i], &res);
		if (r < 0) {
			log_error_errno(r, "sweep: cannot run the step at %ld threads: %m", a->threads[i]);
			failed = true;
			break;
		}
		/* A failed step ends the sweep: the server is likely gone. */
		failed = res.failed;
		if (!a->json)
			print_text_step(&res);
		else if (step_result_to_json(&res, &j) < 0 || json_array_append_new(steps, j) < 0) {
			log_error_errno(-ENOMEM, "sweep: %m");
			failed = true;
		}
		step_result_done(&res);
	}
	if (doc) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
	}
	return failed ? 1 : 0;
}

/* Starts the managed server in a->spec, runs f with it, stops it.  Returns
 * an exit status. */
static int with_managed_server(const char *verb, struct sweep_args *a, int (*f)(struct sweep_args *, struct context *))
{
	_cleanup_free_ char *msg = NULL, *cpu_dir = NULL;
	struct server_config cfg = {};
	struct server s = {};
	struct context c = {};
	int r, status;

	managed_config_default(&cfg);
	if (managed_setup(verb, &cfg, &s) < 0)
		return 1;
	c = (struct context){ .ops = context_ops_for(a->spec.kind), .spec = &a->spec, .server = &s,
			      .mode = cgroup_mode_detect() };
	interrupt_catch();
	r = managed_start(&c, &msg);
	if (r < 0) {
		log_error_errno(r, "%s: the server did not start as %s: %m%s%s", verb, context_kind_to_string(a->spec.kind),
				msg ? "; " : "", strempty(msg));
		server_done(&s);
		return 1;
	}
	a->o.socket = s.socket;
	a->o.server_pid = c.pid;
	if (cgroup_cpu_dir(c.pid, c.mode, &cpu_dir) >= 0)
		a->o.server_cpu_cgroup = cpu_dir;
	status = interrupt_signal ? 1 : f(a, &c);
	if (a->keep_this && !interrupt_signal) {
		/* Its record stays under STATE/live/, so that cleanup stops it. */
		fprintf(stderr, "%s: left %s running (PID %d); slicebench cleanup stops it\n", verb, a->spec.name,
			(int)c.pid);
		server_done(&s);
		return status;
	}
	r = managed_stop(&c);
	if (r < 0)
		log_warning_errno(r, "%s: stopping the server: %m", verb);
	server_done(&s);
	return interrupt_signal ? 128 + interrupt_signal : status;
}

static int sweep_in_context(struct sweep_args *a, struct context *c _unused_)
{
	return sweep_steps(a);
}

static int print_placement(struct sweep_args *a, struct context *c)
{
	_cleanup_(placement_done) struct placement p = {};
	unsigned bad = 0;
	int r;

	r = placement_snapshot(c->pid, getpid(), c->mode, &p);
	if (r < 0)
		return log_error_errno(r, "place: cannot read the placement of PID %d: %m", (int)c->pid), 1;
	r = oltp_server_facts(&a->o, &p);
	if (r < 0)
		log_warning_errno(r, "place: cannot read the server's variables: %m");
	r = managed_systemd_facts(c, &p);
	if (r < 0)
		log_warning_errno(r, "place: cannot ask systemd which unit holds PID %d: %m", (int)c->pid);
	r = placement_verify(&p, &a->spec, c->mode, &bad);
	if (r < 0)
		return log_error_errno(r, "place: %m"), 1;
	if (bad)
		managed_warn_not_in_force("place", &p);
	if (a->json) {
		json_t *j = placement_to_json(&p);

		if (!j)
			return log_error_errno(-ENOMEM, "place: %m"), 1;
		if (a->all)
			return json_object_set_new(a->all, a->spec.name, j) < 0 ? 1 : 0;
		json_dumpf(j, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(j);
		return 0;
	}
	if (a->n_places > 1)
		printf("== %s (%s)\n", a->spec.name, context_kind_to_string(a->spec.kind));
	for (size_t i = 0; i < p.n; i++)
		printf("%s: %s\n", p.attrs[i].key, p.attrs[i].value);
	return 0;
}

static void sweep_args_done(struct sweep_args *a)
{
	for (size_t i = 0; i < a->spec.n_props; i++)
		prop_value_done(&a->spec.props[i]);
}

int verb_sweep(int argc, char **argv)
{
	struct sweep_args a = {};
	int r;

	r = parse_argv("sweep", VERB_SWEEP, argc, argv, &a);
	if (r > 0)
		r = a.in_context ? with_managed_server("sweep", &a, sweep_in_context) : sweep_steps(&a);
	else
		r = r < 0 ? EXIT_USAGE : 0;
	sweep_args_done(&a);
	return r;
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
			if (streq(e->contexts[c].name, name))
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

static int place_named(struct sweep_args *a)
{
	_cleanup_free_ char *path = NULL, *msg = NULL;
	struct context_spec specs[EXP_CONTEXTS_MAX];
	struct context_spec inline_props = a->spec;
	struct experiment e = {};
	size_t n = 0;
	int r = 0, status = 0;

	if (a->n_places > EXP_CONTEXTS_MAX)
		return log_error("place: at most %d contexts at once", EXP_CONTEXTS_MAX), EXIT_USAGE;
	if (a->experiment) {
		if (experiment_find(a->experiment, &path) < 0)
			return log_error("place: no experiment '%s'", a->experiment), EXIT_USAGE;
		r = experiment_load(path, cgroup_mode_detect(), &e, &msg);
		if (r < 0)
			return log_error("%s", msg ? msg : strerror(-r)), EXIT_USAGE;
	}
	for (; n < a->n_places && r >= 0; n++)
		r = place_spec(a, a->experiment ? &e : NULL, n, &specs[n]);
	if (r < 0)
		n--;
	if (r >= 0 && a->json && a->n_places > 1)
		a->all = json_object();
	for (size_t i = 0; r >= 0 && i < n && !interrupt_signal; i++) {
		a->spec = specs[i];
		a->keep_this = a->keep && i == n - 1;
		int one = with_managed_server("place", a, print_placement);

		status = MAX(status, one);
	}
	if (a->all) {
		json_dumpf(a->all, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(a->all);
		a->all = NULL;
	}
	for (size_t i = 0; a->experiment && i < n; i++)
		experiment_spec_done(&e, &specs[i]);
	a->spec = inline_props;
	experiment_done(&e);
	return r < 0 ? EXIT_USAGE : status;
}

int verb_place(int argc, char **argv)
{
	struct sweep_args a = {};
	int r;

	r = parse_argv("place", VERB_PLACE, argc, argv, &a);
	if (r > 0 && a.in_context) {
		a.keep_this = a.keep;
		r = with_managed_server("place", &a, print_placement);
	} else if (r > 0)
		r = place_named(&a);
	else
		r = r < 0 ? EXIT_USAGE : 0;
	sweep_args_done(&a);
	return r;
}

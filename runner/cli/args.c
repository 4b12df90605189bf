/* The command line of prepare, sweep and place: the options they share are
 * one row each, and each verb's table lists those it takes; those an
 * experiment file gives too are the key table's rows, parsed into an
 * experiment and checked across keys as a file is. */
#include <stddef.h>
#include <stdio.h>

#include "slices/sys/cgmode.h"
#include "cli/args.h"
#include "oltp/oltp.h"
#include "experiment/gate.h"
#include "experiment/check.h"
#include "experiment/parse.h"
#include "common/util.h"

enum {
	ARG_DB,
	ARG_NO_PREWARM,
	ARG_WITHOUT,
};

#define A(f) .offset = offsetof(struct sweep_args, f)
/* The settings an experiment file gives too: their rows of the key table
 * (experiment/key_table.c) name them, parse them and check them across keys. */
#define SETTING(id) CLI_SETTING_OPTION(struct sweep_args, settings, id)
/* sweep's name for the duration before it was one name everywhere. */
static const struct cli_option opt_time = { .name = "time", .alias_of = SETTING(KEY_DURATION) };
/* The server and the dataset: prepare's, sweep's */
static const struct cli_option opt_socket = { .name = "socket", .arg = "PATH", .type = CLI_STRING, A(e.oltp.socket),
					      .help = "the server's socket (root over the socket, no password); "
						      "PostgreSQL: its directory or DIR/.s.PGSQL.PORT" };
static const struct cli_option opt_user = { .name = "user", .arg = "NAME", .type = CLI_STRING, A(e.oltp.user),
					    .help = "MySQL user (root)" };
static const struct cli_option opt_db = { .name = "db", .arg = "NAME", .key = ARG_DB,
					  .help = "database (sbtest; pgbench's workloads: pgbench)" };
static const struct cli_option opt_prepare_threads = { .name = "prepare-threads", .arg = "N", .type = CLI_UINT,
						       A(e.oltp.prepare_threads), .min = 1, .max = 256,
						       .help = "sbtest tables loaded in parallel (at most 16)" };
static const struct cli_option opt_seed = { .name = "seed", .arg = "N", .type = CLI_U64, A(e.oltp.seed),
					    .help = "PRNG seed (from the clock)" };
/* The workload and the client: sweep's */
static const struct cli_option opt_events = { .name = "events", .arg = "N", .type = CLI_U64, A(e.oltp.events), .min = 1,
					      .help = "stop each step after N transactions" };
static const struct cli_option opt_no_prewarm = { .name = "no-prewarm", .key = ARG_NO_PREWARM,
						  .help = "skip the buffer pool warm-up before the first step" };
static const struct cli_option opt_without = { .name = "without", .arg = "FIGURE,...", .key = ARG_WITHOUT,
					       .words = oltp_figure_words,
					       .help = "the native driver's step without these figures, to measure what each "
						       "costs the client (latency, per-second, telemetry, thread-counters)" };
static const struct cli_option opt_server_pid = { .name = "server-pid", .arg = "PID", .type = CLI_LONG, A(server_pid),
						  .min = 1, .max = INT32_MAX,
						  .help = "the server's PID, for telemetry and to notice its death" };
static const struct cli_option opt_server_cgroup = { .name = "server-cgroup", .arg = "DIR", .type = CLI_STRING,
						     A(e.oltp.server_cpu_cgroup),
						     .help = "the server's cpu cgroup directory, for cpu.stat" };
static const struct cli_option opt_progress = { .name = "progress", .type = CLI_FLAG, A(e.oltp.progress),
						.help = "one line per second on stderr" };
static const struct cli_option opt_json = { .name = "json", .type = CLI_FLAG, A(json),
					    .help = "the record as JSON on stdout" };
/* place's own */
static const struct cli_option opt_experiment = { .name = "experiment", .arg = "NAME", .type = CLI_STRING,
						  A(experiment), .help = "the contexts named are those of this experiment" };
static const struct cli_option opt_keep = { .name = "keep", .type = CLI_FLAG, A(keep),
					    .help = "leave the last server running (slicebench cleanup stops it)" };
static const struct cli_option opt_pid = { .name = "pid", .arg = "PID", .type = CLI_LONG, A(pid), .min = 2,
					   .max = INT32_MAX,
					   .help = "capture that running server (started by anyone): start and change nothing" };
static const struct cli_option opt_unit = { .name = "unit", .arg = "NAME", .type = CLI_STRING, A(unit),
					    .help = "capture the main process of that running service" };
#undef A

/* A comma-separated list of oltp_figure_words into their bits. */
static int parse_figures(const struct cli_verb *v, const struct cli_option *opt, const char *value, unsigned *ret)
{
	_cleanup_free_ char *list = strdup(value);
	char *save = NULL;
	int bit;

	if (!list)
		return -ENOMEM;
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (word_lookup(oltp_figure_words, w, &bit) < 0)
			return cli_bad_value(v, opt, value, "latency, per-second, telemetry or thread-counters, comma-separated");
		*ret |= (unsigned)bit;
	}
	return 0;
}

/* The options whose values the generic types cannot parse, one case each. */
static int parse_custom(const struct cli_verb *v, const struct cli_option *opt, const char *value, void *userdata)
{
	struct sweep_args *a = userdata;
	struct oltp_options *o = &a->e.oltp;

	switch (opt->key) {
	case ARG_DB:
		if (!name_is_valid(value))
			return cli_bad_value(v, opt, value, "letters, digits, - and _");
		o->db = value;
		return 0;
	case ARG_NO_PREWARM:
		o->prewarm = false;
		return 0;
	case ARG_WITHOUT:
		return parse_figures(v, opt, value, &o->figures_off);
	}
	return -EINVAL;
}

#define SERVER_OPTIONS                                                                                                \
	&opt_socket, SETTING(KEY_WORKLOAD), &opt_user, &opt_db, SETTING(KEY_TABLES), SETTING(KEY_TABLE_SIZE),            \
		SETTING(KEY_SCALE), &opt_prepare_threads, &opt_seed
#define CONTEXT_OPTIONS \
	SETTING(KEY_CONTEXT_KIND), SETTING(KEY_CONTEXT_PROPERTY), SETTING(KEY_CONTEXT_SESSION), SETTING(KEY_ENGINE)

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
	.about = "Runs one OLTP workload (--workload: sysbench's for the mysql engines, pgbench's for\n"
		 "PostgreSQL) at each thread or client count against the server on PATH, or against the managed\n"
		 "server started in a context of KIND, after making or checking the dataset.",
	.options = (const struct cli_option *const[]){ SERVER_OPTIONS, SETTING(KEY_THREADS), SETTING(KEY_DURATION), &opt_time,
						       SETTING(KEY_WARMUP), &opt_events, SETTING(KEY_RAND_TYPE), SETTING(KEY_RANGE_SIZE),
						       SETTING(KEY_RATE), SETTING(KEY_LATENCY_LIMIT),
						       SETTING(KEY_ARRIVALS),
						       SETTING(KEY_DRIVER), SETTING(KEY_CLIENT_THREADS),
						       SETTING(KEY_CLIENT_CPUS), SETTING(KEY_PIN), SETTING(KEY_PROFILE),
						       SETTING(KEY_PROFILE_HZ), SETTING(KEY_PROFILE_OFF_CPU), &opt_no_prewarm,
						       &opt_without, &opt_server_pid, &opt_server_cgroup, &opt_progress, CONTEXT_OPTIONS,
						       &opt_json, NULL },
	.parse = parse_custom,
};

const struct cli_verb cli_place = {
	.name = "place",
	.usage = (const char *const[]){ "KIND... [-p NAME=VALUE]... [--session MODE] [--json] [--keep]",
					"--experiment NAME CONTEXT... [--json] [--keep]", "--pid PID | --unit NAME [--json]",
					NULL },
	.about = "Starts the server in each context in turn and prints where it landed: its cgroups, the CPU\n"
		 "settings read back, affinity, session and autogroup, limits, unit and slice, and whether\n"
		 "each setting is in force.  With --pid or --unit it starts nothing: it reads the same of a\n"
		 "server already running (a snapshot, which [context NAME] from = FILE replays), with its\n"
		 "binary, command line and the server's own settings asked over its socket as root.",
	.options = (const struct cli_option *const[]){ CONTEXT_OPTIONS, &opt_json, &opt_experiment, &opt_keep, &opt_pid,
						       &opt_unit, NULL },
	.parse = parse_custom,
};

/* A service's name as systemd takes one: [A-Za-z0-9:_.@\\-], at most
 * 255, ending in .service (place --unit '' asked the bus for nothing). */
static bool service_name_valid(const char *s)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_.@\\-";
	size_t n = strlen(s);

	return n > 8 && n < 256 && streq(s + n - 8, ".service") && strspn(s, chars) == n;
}

/* What the settings make of the options after the checks across keys,
 * the file's (experiment_check_options()): the workload, the client and
 * the context; the managed server's engine, given or the workload's. */
static int take_settings(const struct cli_verb *v, struct sweep_args *a, bool managed)
{
	struct parser *p = a->settings;
	struct experiment *e = &a->e;

	if (line_of(p, KEY_ENGINE) && a->experiment)
		return cli_usage_error(v, "--experiment takes the engine from its [server] section, not from --engine");
	/* A server at --socket, or --experiment's, is not looked for here. */
	p->server_given = !managed || a->experiment;
	if (experiment_check_options(p) < 0 || experiment_gate(p, false) < 0)
		return log_error_errno(-EINVAL, "%s: %s", v->name, p->msg ? p->msg : "out of memory");
	a->o = e->oltp;
	experiment_client_for(e, 0, &a->o);
	/* --events alone: no time limit, as sysbench's --time=0. */
	if (a->o.events && !line_of(p, KEY_DURATION))
		a->o.duration_ns = 0;
	memcpy(a->threads, e->threads, sizeof(e->threads));
	a->n_threads = e->n_threads;
	a->engine = e->engine;
	/* The context's properties are the spec's now, to free with it. */
	a->in_context = line_of(p, KEY_CONTEXT_KIND) > 0;
	a->spec = e->contexts[0];
	e->contexts[0].n_props = 0;
	return 0;
}

/* What the options do not say alone: a server named once, a context that
 * can take its properties here. */
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
		if (context_check_engine(&a->spec, a->engine, &bad) < 0)
			return log_error_errno(-EINVAL, "%s: -p %s: %s's server has no such variable (it is %s's)", v->name, bad->def->name,
					 a->engine, bad->def->engines);
	}
	return 1;
}

int sweep_parse_argv(const struct cli_verb *v, int argc, char **argv, struct sweep_args *a)
{
	int r, first;

	r = experiment_options_start(&a->e, &a->settings);
	if (r < 0)
		return log_error_errno(r, "%s: %m", v->name);
	a->e.oltp.prewarm = true;
	r = cli_parse(v, argc, argv, a, &first);
	if (r <= 0)
		return r;
	if (a->server_pid)
		a->e.oltp.server_pid = (int)a->server_pid;
	/* A capture starts no server: none is looked for. */
	if (take_settings(v, a, (v == &cli_place && !a->pid && !a->unit) || line_of(a->settings, KEY_CONTEXT_KIND)) < 0)
		return -EINVAL;
	if (v == &cli_place && (a->pid || a->unit)) {
		if (a->pid && a->unit)
			return cli_usage_error(v, "give --pid or --unit, not both");
		if (a->unit && !service_name_valid(a->unit))
			return cli_bad_value(v, &opt_unit, a->unit, "a service's name, such as mariadb.service");
		if (first < argc || a->in_context || a->experiment || a->spec.n_props || a->keep)
			return cli_usage_error(v, "--%s captures a running server: it takes no contexts, --context, "
					       "--experiment, -p or --keep", a->pid ? "pid" : "unit");
		return 1;
	}
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

int cli_prepare_dataset(const char *verb, const struct oltp_options *o)
{
	_cleanup_free_ char *msg = NULL;
	int r;

	r = oltp_prepare(o, &msg);
	if (r < 0)
		return msg ? log_error_errno(r, "%s: %s", verb, msg)
			   : log_error_errno(r, "%s: preparing the dataset failed: %m", verb);
	return 0;
}


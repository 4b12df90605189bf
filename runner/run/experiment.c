/* The experiment file parser: inih reads the INI, a line-counting reader
 * gives every key its line and registers sections (empty ones too), and one
 * table of typed keys fills struct experiment.  Context sections take
 * systemd's property names from the property table. */
#include <fcntl.h>
#include <ini.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#include "slices/sys/bus.h"
#include "slices/attr/mirror.h"
#include "run/experiment.h"
#include "common/topology.h"
#include "common/util.h"

enum section {
	SECTION_NONE,
	SECTION_EXPERIMENT,
	SECTION_SERVER,
	SECTION_CLIENT,
	SECTION_CONTEXT,
	SECTION_VARY,
	SECTION_SLICE,
	SECTION_NEIGHBOUR,
};

static const char *const section_names[] = {
	[SECTION_EXPERIMENT] = "experiment",
	[SECTION_SERVER] = "server",
	[SECTION_CLIENT] = "client",
	[SECTION_VARY] = "vary",
};

enum key_type {
	KEY_STRING, /* with words: one of them */
	KEY_UINT,
	KEY_DURATION,
	KEY_THREADS,
	KEY_CPUS,
	KEY_WORD, /* an enum, one of words */
	KEY_BASELINE,
	KEY_BOOL, /* yes or no (true, false, 1, 0) */
	KEY_REPEAT,
	KEY_PERCENT,
	KEY_SIZE, /* bytes with K, M, G or T, at least min and at most this machine's memory; kept as written */
};

/* A key of [experiment], [server] or [client]: where it goes, how it is
 * parsed and checked, its default (as it would be written in the file, so
 * that the same parser applies it) and its help. */
struct key_def {
	enum section section;
	const char *name;
	enum key_type type;
	size_t offset;
	long min, max;		  /* KEY_UINT, KEY_THREADS, KEY_CPUS; KEY_DURATION in seconds; KEY_SIZE in bytes */
	const struct word *words; /* KEY_WORD, KEY_STRING */
	const char *def;	  /* NULL: none (or, for baseline, the first context) */
	const char *help;
	bool own; /* the file's own, not carried into an experiment made from it */
};

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

#define E(f) .offset = offsetof(struct experiment, f)
static const struct key_def key_table[] = {
	{ .section = SECTION_EXPERIMENT, .name = "description", .type = KEY_STRING, E(description),
	  .help = "one line shown by list", .own = true },
	{ .section = SECTION_EXPERIMENT, .name = "threads", .type = KEY_THREADS, E(threads), .min = 1, .max = EXP_THREAD_COUNT_MAX,
	  .def = OLTP_DEFAULT_THREADS, .help = "thread counts, as 1 2 4 or 1,2,4 or 1-8" },
	{ .section = SECTION_EXPERIMENT, .name = "warmup", .type = KEY_DURATION, E(warmup_ns), .def = "0",
	  .help = "uncounted time before each step" },
	{ .section = SECTION_EXPERIMENT, .name = "duration", .type = KEY_DURATION, E(duration_ns), .min = 1,
	  .def = STRINGIFY(OLTP_DEFAULT_DURATION_S) "s", .help = "measured time per step" },
	{ .section = SECTION_EXPERIMENT, .name = "repeat", .type = KEY_REPEAT, E(repeat), .min = 1, .max = 100, .def = "1",
	  .help = "server starts per context, or auto: interleaved repeats are added until every ratio is known to "
		  "within until, from 3 up to repeat-max" },
	{ .section = SECTION_EXPERIMENT, .name = "repeat-max", .type = KEY_UINT, E(repeat_max), .min = 3, .max = 100,
	  .help = "with repeat = auto, required: the most server starts per context" },
	{ .section = SECTION_EXPERIMENT, .name = "until", .type = KEY_PERCENT, E(until), .def = "5%",
	  .help = "with repeat = auto: the target, each ratio's interval within +-this of it (run --until overrides)" },
	{ .section = SECTION_EXPERIMENT, .name = "workload", .type = KEY_WORD, E(workload), .words = oltp_workload_words,
	  .help = "oltp_read_only (sysbench's) for the mysql engines, select-only or tpcb-like (pgbench's) for "
		  "postgresql; the engine's first by default" },
	{ .section = SECTION_EXPERIMENT, .name = "scale", .type = KEY_UINT, E(scale), .min = 1, .max = 20000,
	  .def = "1", .help = "pgbench's scale factor, 100000 accounts each" },
	{ .section = SECTION_EXPERIMENT, .name = "tables", .type = KEY_UINT, E(tables), .min = 1, .max = 1024,
	  .def = STRINGIFY(OLTP_DEFAULT_TABLES), .help = "tables sbtest1..N" },
	{ .section = SECTION_EXPERIMENT, .name = "table-size", .type = KEY_UINT, E(table_size), .min = 1,
	  .max = 100000000, .def = STRINGIFY(OLTP_DEFAULT_TABLE_SIZE), .help = "rows per table" },
	{ .section = SECTION_EXPERIMENT, .name = "driver", .type = KEY_WORD, E(driver), .words = oltp_driver_words,
	  .def = "slicebench", .help = "the OLTP driver: slicebench's own, or the workload's real tool (sysbench, pgbench)" },
	{ .section = SECTION_EXPERIMENT, .name = "rand-type", .type = KEY_WORD, E(rand_type),
	  .words = sbrand_type_words, .def = "special", .help = "sysbench's distribution of the row ids" },
	{ .section = SECTION_EXPERIMENT, .name = "baseline", .type = KEY_BASELINE, E(baseline),
	  .help = "the context the ratios are against (the first context)", .own = true },
	{ .section = SECTION_EXPERIMENT, .name = "on-error", .type = KEY_WORD, E(on_error), .words = on_error_words,
	  .def = "continue", .help = "after a failed step, go on with the next context or stop the run" },
	{ .section = SECTION_SERVER, .name = "engine", .type = KEY_STRING, E(engine), .words = server_engine_words,
	  .def = SERVER_DEFAULT_ENGINE, .help = "the server: mariadb, mysql (MySQL 8), percona (Percona Server, run as mysql) or postgresql (15)" },
	{ .section = SECTION_SERVER, .name = "flavor", .type = KEY_STRING, E(engine), .words = mysql_flavor_words,
	  .help = "the old name of engine, for the mysql engines" },
	{ .section = SECTION_SERVER, .name = "binary", .type = KEY_STRING, E(binary),
	  .help = "the server's binary (the engine's: mariadbd, mysqld, PostgreSQL 15's postgres)" },
	{ .section = SECTION_SERVER, .name = "buffer-pool", .type = KEY_SIZE, E(buffer_pool), .min = 2 << 20,
	  .def = SERVER_DEFAULT_BUFFER_POOL, .help = "innodb_buffer_pool_size, or PostgreSQL's shared_buffers" },
	{ .section = SECTION_SERVER, .name = "user", .type = KEY_STRING, E(server_user), .def = SERVER_DEFAULT_USER,
	  .help = "the server's own user" },
	{ .section = SECTION_SERVER, .name = "max-connections", .type = KEY_UINT, E(max_connections), .min = 10,
	  .max = 100000, .def = STRINGIFY(SERVER_DEFAULT_MAX_CONNECTIONS), .help = "max_connections" },
	{ .section = SECTION_CLIENT, .name = "cpus", .type = KEY_CPUS, E(client_cpus_list), .max = OLTP_MAX_CPUS - 1,
	  .help = "CPUs of the client threads (where the scheduler puts them): such as 0-3, or llc:N, node:N, core:N" },
	{ .section = SECTION_CLIENT, .name = "pin", .type = KEY_WORD, E(pin), .words = oltp_pin_words, .def = "all",
	  .help = "every client thread on the whole list, or thread i on CPU i mod n" },
	{ .section = SECTION_CLIENT, .name = "scope", .type = KEY_BOOL, E(client_scope), .words = bool_words, .def = "no",
	  .help = "yes: the client runs in a transient scope of its own" },
	{ .section = SECTION_CLIENT, .name = "threads", .type = KEY_UINT, E(client_threads), .min = 1, .max = 1024,
	  .help = "pgbench's workloads: the threads that drive the clients, as pgbench -j (1)" },
};
#undef E

struct parser {
	struct experiment *e;
	const char *path;
	FILE *f;
	enum cgroup_mode mode;
	unsigned line;
	bool at_line_start;
	enum section section;
	struct context_spec *ctx;
	struct slice_spec *slice;
	struct neighbour_spec *nb;
	bool seen[ELEMENTSOF(key_table)];
	unsigned key_line[ELEMENTSOF(key_table)];
	unsigned baseline_line, vary_line, vary_prop_line, vary_slice_line, vary_mode_line;
	char vary_slice[SLICE_NAME_MAX];
	/* per slice: its header's line and each setting's */
	unsigned slice_line[EXP_SLICES_MAX], slice_prop_line[EXP_SLICES_MAX][SLICE_PROPS_MAX];
	/* per context: Slice = NAME and its line */
	char ctx_slice[EXP_CONTEXTS_MAX][SLICE_NAME_MAX];
	unsigned ctx_slice_line[EXP_CONTEXTS_MAX];
	/* per context: its header's line, whether kind= was given, each prop's line */
	unsigned ctx_line[EXP_CONTEXTS_MAX];
	bool kind_given[EXP_CONTEXTS_MAX], session_given[EXP_CONTEXTS_MAX];
	/* unit = NAME.service: the installed unit a context mirrors, its line */
	char *unit[EXP_CONTEXTS_MAX];
	unsigned unit_line[EXP_CONTEXTS_MAX];
	unsigned prop_line[EXP_CONTEXTS_MAX][CONTEXT_PROPS_MAX];
	/* per neighbour: its header's line, and the line of each of its keys
	 * (neighbour_keys[]' order) */
	unsigned nb_line[EXP_NEIGHBOURS_MAX], nb_key_line[EXP_NEIGHBOURS_MAX][5];
	char nb_slice[EXP_NEIGHBOURS_MAX][SLICE_NAME_MAX];
	char *msg; /* the first error */
	bool from_json; /* experiment.json read back: no lines */
};

static int fail_at(struct parser *p, unsigned line, const char *key, const char *fmt, ...) _printf_(4, 5);
static int fail_at(struct parser *p, unsigned line, const char *key, const char *fmt, ...)
{
	_cleanup_free_ char *why = NULL;
	va_list ap;

	if (p->msg)
		return -EINVAL;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	if (p->from_json) /* experiment.json has no lines worth naming */
		xasprintf(&p->msg, "%s: %s%s%s", p->path, strempty(key), key ? ": " : "", why ? why : "bad input");
	else
		xasprintf(&p->msg, "%s:%u: %s%s%s", p->path, line, strempty(key), key ? ": " : "", why ? why : "bad input");
	return -EINVAL;
}

/* [slice NAME]: a slice of the experiment's, named as systemd names slices. */
static void slice_header(struct parser *p, const char *header)
{
	struct experiment *e = p->e;
	char name[128], extra[2];
	const char *why;

	if (sscanf(header + 6, "%127s%1s", name, extra) != 1) {
		fail_at(p, p->line, NULL, "[%s]: a slice name is one word, as db.slice or db-oltp.slice", header);
		return;
	}
	if (!slice_name_is_valid(name, &why)) {
		fail_at(p, p->line, NULL, "[%s]: %s", header, why);
		return;
	}
	for (size_t i = 0; i < e->n_slices; i++)
		if (streq(e->slices[i].name, name)) {
			fail_at(p, p->line, NULL, "[slice %s] is defined twice (first on line %u)", name, p->slice_line[i]);
			return;
		}
	if (e->n_slices == EXP_SLICES_MAX) {
		fail_at(p, p->line, NULL, "more than %d slices", EXP_SLICES_MAX);
		return;
	}
	p->slice_line[e->n_slices] = p->line;
	p->slice = &e->slices[e->n_slices++];
	memcpy(p->slice->name, name, strlen(name) + 1); /* shorter than SLICE_NAME_MAX, checked above */
	p->slice->parent = -1;
}

/* [neighbour NAME]: a competing workload, named as a context is. */
static void neighbour_header(struct parser *p, const char *header)
{
	struct experiment *e = p->e;
	char name[128], extra[2];

	if (sscanf(header + 10, "%127s%1s", name, extra) != 1 || !name_is_valid(name)) {
		fail_at(p, p->line, NULL, "[%s]: a neighbour's name is one word, [a-z0-9][a-z0-9_-]{0,39}", header);
		return;
	}
	for (size_t i = 0; i < e->n_neighbours; i++)
		if (streq(e->neighbours[i].name, name)) {
			fail_at(p, p->line, NULL, "[neighbour %s] is defined twice (first on line %u)", name, p->nb_line[i]);
			return;
		}
	if (e->n_neighbours == EXP_NEIGHBOURS_MAX) {
		fail_at(p, p->line, NULL, "more than %d neighbours", EXP_NEIGHBOURS_MAX);
		return;
	}
	p->nb_line[e->n_neighbours] = p->line;
	p->nb = &e->neighbours[e->n_neighbours++];
	memcpy(p->nb->name, name, strlen(name) + 1); /* at most 40, checked above */
	p->nb->kind = -1;
}

/* Long because every malformed header has its own message. */
static void section_header(struct parser *p, const char *line)
{
	char name[128], extra[2];
	const char *s = line + strspn(line, " \t");
	size_t len;

	if (*s != '[')
		return;
	len = strcspn(s + 1, "]");
	if (s[1 + len] != ']' || len >= sizeof(name)) {
		fail_at(p, p->line, NULL, "a section header needs a closing ]");
		p->section = SECTION_NONE;
		return;
	}
	memcpy(name, s + 1, len);
	name[len] = 0;
	p->ctx = NULL;
	p->slice = NULL;
	p->nb = NULL;
	for (enum section i = SECTION_EXPERIMENT; i <= SECTION_VARY; i++)
		if (section_names[i] && streq(name, section_names[i])) {
			p->section = i;
			if (i == SECTION_VARY)
				p->vary_line = p->line;
			return;
		}
	if (strncmp(name, "context ", 8) == 0) {
		struct experiment *e = p->e;
		char header[128];

		memcpy(header, name, len + 1);
		p->section = SECTION_CONTEXT;
		if (sscanf(header + 8, "%127s%1s", name, extra) != 1 || !name_is_valid(name)) {
			fail_at(p, p->line, NULL, "[%s]: a context name is one word, [a-z0-9][a-z0-9_-]{0,39}", header);
			return;
		}
		for (size_t i = 0; i < e->n_contexts; i++)
			if (streq(e->contexts[i].name, name)) {
				fail_at(p, p->line, NULL, "[context %s] is defined twice (first on line %u)", name,
					p->ctx_line[i]);
				return;
			}
		if (e->n_contexts == EXP_CONTEXTS_MAX) {
			fail_at(p, p->line, NULL, "more than %d contexts", EXP_CONTEXTS_MAX);
			return;
		}
		p->ctx_line[e->n_contexts] = p->line;
		p->ctx = &e->contexts[e->n_contexts++];
		memcpy(p->ctx->name, name, strlen(name) + 1); /* at most 40, checked above */
		p->ctx->kind = CONTEXT_KIND_INVALID;
		return;
	}
	if (strncmp(name, "slice ", 6) == 0) {
		p->section = SECTION_SLICE;
		slice_header(p, name);
		return;
	}
	if (strncmp(name, "neighbour ", 10) == 0) {
		p->section = SECTION_NEIGHBOUR;
		neighbour_header(p, name);
		return;
	}
	p->section = SECTION_NONE;
	fail_at(p, p->line, NULL,
		"unknown section [%s] (want [experiment], [server], [client], [context NAME], [slice NAME], "
		"[neighbour NAME] or [vary])",
		name);
}

/* fgets for inih that counts lines and sees section headers itself, so that
 * every key has a line and an empty [context NAME] still counts.  A line
 * inih would split, a NUL that would cut it short and a control character
 * that would reach the terminal (in list, in --dry-run) end the file with
 * an error instead: each changed what was read without a word. */
static char *read_line(char *str, int num, void *stream)
{
	struct parser *p = stream;
	long before = ftell(p->f);
	size_t len;

	if (p->msg || !fgets(str, num, p->f))
		return NULL;
	len = (size_t)(ftell(p->f) - before);
	if (p->at_line_start)
		p->line++;
	p->at_line_start = true;
	if (strlen(str) != len)
		return fail_at(p, p->line, NULL, "a NUL byte in the line"), NULL;
	if (len == (size_t)num - 1 && str[len - 1] != '\n' && !feof(p->f))
		return fail_at(p, p->line, NULL, "a line longer than %d characters", num - 2), NULL;
	for (const char *c = str; *c; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t' && *c != '\n' && *c != '\r') || *c == 0x7f)
			return fail_at(p, p->line, NULL, "a control character (0x%02x) in the line", (unsigned char)*c), NULL;
	section_header(p, str);
	return str;
}

/* "1 2 4" or "1,2,4" or "1-8" into a list. */
static int parse_list(const char *value, long min, long max, long *ret, size_t cap, size_t *ret_n)
{
	_cleanup_free_ char *s = strdup(value);

	if (!s)
		return -ENOMEM;
	for (char *c = s; *c; c++)
		if (*c == ' ' || *c == '\t')
			*c = ',';
	for (char *c = s; (c = strstr(c, ",,"));)
		memmove(c, c + 1, strlen(c));
	return parse_int_list(s, min, max, ret, cap, ret_n);
}

/* A CPU list of this machine (CPUs, llc:N, node:N, core:N) into cpus; on
 * error, why says what is wrong with it. */
static int parse_cpu_value(const char *value, long *cpus, size_t *ret_n, char *why, size_t why_len)
{
	int r = cpu_list_parse(value, sysconf(_SC_NPROCESSORS_CONF) - 1, cpus, OLTP_MAX_CPUS, ret_n, why, why_len);

	if (r < 0 && !*why)
		snprintf(why, why_len, "CPUs of this machine such as 0 or 0-1, or llc:N, node:N, core:N");
	return r;
}

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

/* Long because it is the key table's one switch over the key types, a
 * short case each. */
static int set_key(struct parser *p, const struct key_def *k, const char *value)
{
	struct experiment *e = p->e;
	void *field = (char *)e + k->offset;
	char list[128];
	long v;
	int w;

	switch (k->type) {
	case KEY_STRING:
		if (!*value)
			return fail_at(p, p->line, k->name, "an empty value");
		if (k->words && word_lookup(k->words, value, &w) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (%s)", value, word_list(k->words, list, sizeof(list)));
		free(*(char **)field);
		*(char **)field = strdup(value);
		return *(char **)field ? 0 : -ENOMEM;
	case KEY_REPEAT:
		if (streq(value, "auto")) {
			e->repeat_auto = true;
			return 0;
		}
		if (parse_int_range(value, k->min, k->max, &v) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (an integer from %ld to %ld, or auto)", value,
				       k->min, k->max);
		*(unsigned *)field = (unsigned)v;
		return 0;
	case KEY_UINT:
		if (parse_int_range(value, k->min, k->max, &v) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (an integer from %ld to %ld)", value, k->min,
				       k->max);
		*(unsigned *)field = (unsigned)v;
		return 0;
	case KEY_PERCENT: {
		double pct;

		if (parse_percent(value, true, &pct) < 0 || !(pct > 0 && pct < 100))
			return fail_at(p, p->line, k->name, "bad value '%s' (a percentage above 0 and below 100, such as 5%%)",
				       value);
		*(double *)field = pct / 100;
		return 0;
	}
	case KEY_DURATION: {
		uint64_t ns;

		if (parse_duration_ns(value, &ns) < 0 || ns < (uint64_t)k->min * NSEC_PER_SEC)
			return fail_at(p, p->line, k->name, "bad value '%s' (a duration such as 10s, 500ms or 2m, from %lds to a year)",
				       value, k->min);
		*(uint64_t *)field = ns;
		return 0;
	}
	case KEY_SIZE: {
		uint64_t bytes, mem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);

		if (parse_size_bytes(value, &bytes) < 0 || bytes < (uint64_t)k->min || bytes > mem)
			return fail_at(p, p->line, k->name, "bad value '%s' (a size such as 128M or 1G, from %ldM to this machine's %" PRIu64 "M)",
				       value, k->min >> 20, mem >> 20);
		free(*(char **)field);
		*(char **)field = strdup(value);
		return *(char **)field ? 0 : -ENOMEM;
	}
	case KEY_THREADS:
		if (parse_list(value, k->min, k->max, e->threads, EXP_THREADS_MAX, &e->n_threads) < 0 || !e->n_threads)
			return fail_at(p, p->line, k->name, "bad value '%s' (thread counts such as 1 2 4, at most %d)",
				       value, EXP_THREADS_MAX);
		return 0;
	case KEY_CPUS: {
		char why[160];

		if (parse_cpu_value(value, e->client_cpus_list, &e->n_client_cpus, why, sizeof(why)) < 0)
			return fail_at(p, p->line, k->name, "%s", why);
		return 0;
	}
	case KEY_WORD:
	case KEY_BOOL:
		if (word_lookup(k->words, value, &w) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (%s)", value, word_list(k->words, list, sizeof(list)));
		if (k->type == KEY_BOOL)
			*(bool *)field = w;
		else
			*(int *)field = w;
		return 0;
	case KEY_BASELINE:
		if (!name_is_valid(value))
			return fail_at(p, p->line, k->name, "bad value '%s' (a context name)", value);
		snprintf(e->baseline, sizeof(e->baseline), "%s", value);
		p->baseline_line = p->line;
		return 0;
	}
	return -EINVAL;
}

/* Long because a context section takes kind, session, client-cpus and
 * the property table's names, each checked with its own message. */
static int context_key(struct parser *p, const char *name, const char *value)
{
	struct context_spec *c = p->ctx;
	size_t ci = (size_t)(c - p->e->contexts);
	char why[160];
	int r;

	if (streq(name, "kind")) {
		enum context_kind k = context_kind_from_string(value);

		if (k == CONTEXT_KIND_INVALID)
			return fail_at(p, p->line, name, "bad value '%s' (%s)", value, context_kind_list(false));
		if (p->kind_given[ci])
			return fail_at(p, p->line, name, "given twice in [context %s]", c->name);
		c->kind = k;
		p->kind_given[ci] = true;
		return 0;
	}
	if (streq(name, "session")) {
		if (p->session_given[ci])
			return fail_at(p, p->line, name, "given twice in [context %s]", c->name);
		p->session_given[ci] = true;
		if (streq(value, "inherit"))
			c->session = SESSION_INHERIT;
		else if (streq(value, "new"))
			c->session = SESSION_NEW;
		else
			return fail_at(p, p->line, name, "bad value '%s' (inherit or new)", value);
		return 0;
	}
	if (streq(name, "Slice")) {
		const char *bad;

		if (*p->ctx_slice[ci])
			return fail_at(p, p->line, name, "given twice in [context %s]", c->name);
		if (!slice_name_is_valid(value, &bad))
			return fail_at(p, p->line, name, "'%s' is not a slice: %s", value, bad);
		snprintf(p->ctx_slice[ci], sizeof(p->ctx_slice[ci]), "%s", value);
		p->ctx_slice_line[ci] = p->line;
		return 0; /* whether it is defined is known at the end of the file */
	}
	if (streq(name, "unit")) {
		if (p->unit[ci])
			return fail_at(p, p->line, name, "given twice in [context %s]", c->name);
		p->unit_line[ci] = p->line;
		p->unit[ci] = strdup(value);
		return p->unit[ci] ? 0 : -ENOMEM;
	}
	if (streq(name, "client-cpus")) {
		long cpus[OLTP_MAX_CPUS];
		char buf[CPU_LIST_MAX * 5];
		size_t n;

		if (p->e->client_cpus[ci])
			return fail_at(p, p->line, name, "given twice in [context %s]", c->name);
		if (parse_cpu_value(value, cpus, &n, buf, sizeof(buf)) < 0)
			return fail_at(p, p->line, name, "bad value '%s' (%s)", value, buf);
		/* Recorded as resolved here: llc:1 is other CPUs on another host. */
		if (cpu_list_is_topological(value) && cpu_list_format(cpus, n, buf, sizeof(buf)) < 0)
			return -ENOBUFS;
		p->e->client_cpus[ci] = strdup(cpu_list_is_topological(value) ? buf : value);
		return p->e->client_cpus[ci] ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < c->n_props; i++)
		if (streq(c->props[i].def->name, name))
			return fail_at(p, p->line, name, "given twice in [context %s] (first on line %u)", c->name,
				       p->prop_line[ci][i]);
	if (c->n_props == CONTEXT_PROPS_MAX)
		return fail_at(p, p->line, name, "more than %d properties", CONTEXT_PROPS_MAX);
	r = prop_parse(name, value, &c->props[c->n_props]);
	if (r == -ENOENT && prop_lookup(name))
		return fail_at(p, p->line, name, "recorded in every placement, not set (%s)", prop_lookup(name)->help);
	if (r == -ENOENT)
		return fail_at(p, p->line, name,
			       "unknown key (kind, session, Slice, unit, client-cpus or a systemd property; see slicebench properties)");
	if (r < 0)
		return fail_at(p, p->line, name, "bad value '%s' (%s)", value,
			       prop_why(prop_lookup(name), value, why, sizeof(why)));
	p->prop_line[ci][c->n_props++] = p->line;
	return 0;
}

/* A setting of a [slice NAME]: a cgroup property, as systemd takes for a slice. */
static int slice_key(struct parser *p, const char *name, const char *value)
{
	struct slice_spec *sl = p->slice;
	size_t si = (size_t)(sl - p->e->slices);
	const struct prop_def *d = prop_lookup(name);
	char why[160];

	if (!d || d->class != PROP_CGROUP)
		return fail_at(p, p->line, name, "unknown key in [slice %s] (a slice takes cgroup settings: %s)", sl->name,
			       prop_class_list(PROP_CGROUP));
	for (size_t i = 0; i < sl->n_props; i++)
		if (sl->props[i].def == d)
			return fail_at(p, p->line, name, "given twice in [slice %s] (first on line %u)", sl->name,
				       p->slice_prop_line[si][i]);
	if (sl->n_props == SLICE_PROPS_MAX)
		return fail_at(p, p->line, name, "more than %d settings", SLICE_PROPS_MAX);
	if (prop_parse(name, value, &sl->props[sl->n_props]) < 0)
		return fail_at(p, p->line, name, "bad value '%s' (%s)", value, prop_why(d, value, why, sizeof(why)));
	p->slice_prop_line[si][sl->n_props++] = p->line;
	return 0;
}

/* The keys of [neighbour NAME], in the order of the parser's nb_key_line. */
enum { NB_KIND, NB_THREADS, NB_DUTY, NB_COMMAND, NB_SLICE };
static const char *const neighbour_keys[] = { "kind", "threads", "duty", "command", "Slice", NULL };

/* A command line split on blanks (no quoting: a neighbour's command is a
 * program and its words). */
static int split_words(const char *value, char ***ret)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL, **argv;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	argv = calloc(strlen(value) / 2 + 2, sizeof(char *));
	if (!argv)
		return -ENOMEM;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (!(argv[n++] = strdup(w))) {
			strv_free(argv);
			return -ENOMEM;
		}
	*ret = argv;
	return 0;
}

/* Long because each key of a neighbour is checked with its own message. */
static int neighbour_key(struct parser *p, const char *name, const char *value)
{
	struct neighbour_spec *nb = p->nb;
	size_t ni = (size_t)(nb - p->e->neighbours), k = 0;
	const char *bad;
	char list[64];
	double pct;
	long v;
	int w;

	while (neighbour_keys[k] && !streq(neighbour_keys[k], name))
		k++;
	if (!neighbour_keys[k])
		return fail_at(p, p->line, name, "unknown key in [neighbour %s] (kind, threads, duty, command or Slice)",
			       nb->name);
	if (p->nb_key_line[ni][k])
		return fail_at(p, p->line, name, "given twice in [neighbour %s] (first on line %u)", nb->name,
			       p->nb_key_line[ni][k]);
	p->nb_key_line[ni][k] = p->line;
	switch (k) {
	case NB_KIND:
		if (word_lookup(neighbour_kind_words, value, &w) < 0)
			return fail_at(p, p->line, name, "bad value '%s' (%s)", value,
				       word_list(neighbour_kind_words, list, sizeof(list)));
		nb->kind = (enum neighbour_kind)w;
		return 0;
	case NB_THREADS:
		if (parse_int_range(value, 1, NEIGHBOUR_THREADS_MAX, &v) < 0)
			return fail_at(p, p->line, name, "bad value '%s' (an integer from 1 to %d)", value,
				       NEIGHBOUR_THREADS_MAX);
		nb->threads = (unsigned)v;
		return 0;
	case NB_DUTY:
		if (parse_percent(value, true, &pct) < 0 || pct < 1 || pct > 100 || pct != (double)(unsigned)pct)
			return fail_at(p, p->line, name, "bad value '%s' (a whole percentage from 1%% to 100%%)", value);
		nb->duty = (unsigned)pct;
		return 0;
	case NB_COMMAND:
		if (split_words(value, &nb->argv) < 0)
			return -ENOMEM;
		if (!nb->argv[0])
			return fail_at(p, p->line, name, "an empty command");
		if (!executable_in_path(nb->argv[0], NULL))
			return fail_at(p, p->line, name, "no command %s here (not an executable%s)", nb->argv[0],
				       strchr(nb->argv[0], '/') ? "" : " in PATH");
		return 0;
	case NB_SLICE:
		if (!slice_name_is_valid(value, &bad))
			return fail_at(p, p->line, name, "'%s' is not a slice: %s", value, bad);
		snprintf(p->nb_slice[ni], sizeof(p->nb_slice[ni]), "%s", value);
		return 0; /* whether it is defined is known at the end of the file */
	}
	return -EINVAL;
}

/* [vary] mode = restart | live | restart live */
static int vary_mode(struct parser *p, const char *value)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	if (p->e->vary_modes)
		return fail_at(p, p->line, "mode", "given twice in [vary]");
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save))
		if (streq(w, "restart"))
			p->e->vary_modes |= VARY_RESTART;
		else if (streq(w, "live"))
			p->e->vary_modes |= VARY_LIVE;
		else
			return fail_at(p, p->line, "mode", "bad value '%s' (restart, live, or restart live for both)", w);
	if (!p->e->vary_modes)
		return fail_at(p, p->line, "mode", "no value (restart, live, or restart live for both)");
	p->vary_mode_line = p->line;
	return 0;
}

static int vary_key(struct parser *p, const char *name, const char *value)
{
	struct experiment *e = p->e;
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	if (streq(name, "mode"))
		return vary_mode(p, value);
	if (streq(name, "slice")) {
		if (*p->vary_slice)
			return fail_at(p, p->line, name, "given twice in [vary]");
		snprintf(p->vary_slice, sizeof(p->vary_slice), "%s", value);
		p->vary_slice_line = p->line;
		return 0;
	}
	if (e->vary)
		return fail_at(p, p->line, name, "[vary] takes one property (already %s)", e->vary->name);
	p->vary_prop_line = p->line;
	e->vary = prop_lookup(name);
	if (!e->vary)
		return fail_at(p, p->line, name, "unknown key (mode, slice or a systemd property; see slicebench properties)");
	for (char *v = strtok_r(copy, " \t", &save); v; v = strtok_r(NULL, " \t", &save)) {
		struct prop_value pv = {};
		int r;

		if (e->n_vary == EXP_VARY_MAX)
			return fail_at(p, p->line, name, "more than %d values", EXP_VARY_MAX);
		char why[160];

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

static int handle_key(void *user, const char *section _unused_, const char *name, const char *value)
{
	struct parser *p = user;

	if (p->msg)
		return 1;
	switch (p->section) {
	case SECTION_NONE:
		fail_at(p, p->line, name, "a key outside any section");
		return 1;
	case SECTION_CONTEXT:
		if (p->ctx)
			context_key(p, name, value);
		return 1;
	case SECTION_VARY:
		vary_key(p, name, value);
		return 1;
	case SECTION_SLICE:
		if (p->slice)
			slice_key(p, name, value);
		return 1;
	case SECTION_NEIGHBOUR:
		if (p->nb)
			neighbour_key(p, name, value);
		return 1;
	default:
		break;
	}
	for (size_t i = 0; i < ELEMENTSOF(key_table); i++) {
		const struct key_def *k = &key_table[i];

		if (k->section != p->section || !streq(k->name, name))
			continue;
		if (p->seen[i]) {
			fail_at(p, p->line, name, "given twice in [%s]", section_names[k->section]);
			return 1;
		}
		p->seen[i] = true;
		p->key_line[i] = p->line;
		set_key(p, k, value);
		return 1;
	}
	fail_at(p, p->line, name, "unknown key in [%s]", section_names[p->section]);
	return 1;
}

/* The line of a key of the table; 0 when the file does not give it. */
static unsigned line_in(const struct parser *p, enum section section, const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(key_table); i++)
		if (key_table[i].section == section && streq(key_table[i].name, name))
			return p->key_line[i];
	return 0;
}

static unsigned line_of(const struct parser *p, const char *name)
{
	return line_in(p, SECTION_EXPERIMENT, name) ?: line_in(p, SECTION_SERVER, name);
}

/* The server and the workload: the engine installed, a workload of its
 * protocol, a driver for the workload, the largest step within the
 * server's connections, client threads only where they mean something. */
static int check_server(struct parser *p)
{
	struct experiment *e = p->e;
	const struct server_engine *engine = server_engine_named(e->engine);
	const struct oltp_workload_def *w;
	const char *missing = NULL, *why = NULL;
	long most = 0;

	if (line_of(p, "engine") && line_of(p, "flavor"))
		return fail_at(p, line_of(p, "flavor"), "flavor", "the old name of engine, which line %u gives",
			       line_of(p, "engine"));
	if (!engine)
		return fail_at(p, line_of(p, "engine"), "engine", "no such engine");
	if (!e->binary && !(e->binary = strdup(engine->binary)))
		return -ENOMEM;
	if (engine->installed(e->binary, &missing) < 0)
		return fail_at(p, line_of(p, "binary") ?: line_of(p, "engine") ?: line_of(p, "flavor"),
			       line_of(p, "binary") ? "binary" : line_of(p, "flavor") ? "flavor" : "engine",
			       "%s is not installed here: no %s%s", e->engine, missing,
			       streq(engine->name, "postgresql") ? " (apt-get install postgresql-15)" : "");
	if (!line_of(p, "workload"))
		for (int i = _OLTP_WORKLOAD_MAX - 1; i >= 0; i--)
			if (streq(oltp_workload_def(i)->protocol, engine->protocol))
				e->workload = (enum oltp_workload)i;
	w = oltp_workload_def(e->workload);
	if (!streq(w->protocol, engine->protocol))
		return fail_at(p, line_of(p, "workload"), "workload", "%s does not run on %s, which runs %s",
			       oltp_workload_name(e->workload), engine->name, oltp_workload_list(engine->protocol));
	if (oltp_driver_check(e->workload, e->driver, &why) < 0)
		return fail_at(p, line_of(p, "driver"), "driver", "%s", why);
	if (line_in(p, SECTION_CLIENT, "threads") && !streq(w->protocol, "postgresql"))
		return fail_at(p, line_in(p, SECTION_CLIENT, "threads"), "threads",
			       "%s runs one client thread per connection; [client] threads is for pgbench's workloads",
			       oltp_workload_name(e->workload));
	for (size_t i = 0; i < e->n_threads; i++)
		most = MAX(most, e->threads[i]);
	/* slicebench itself needs one connection beside the clients. */
	if ((unsigned long)most >= e->max_connections)
		return fail_at(p, line_of(p, "threads") ?: line_of(p, "max-connections"),
			       line_of(p, "threads") ? "threads" : "max-connections",
			       "%ld %s need max-connections above %ld, and [server] max-connections is %u", most, w->unit,
			       most, e->max_connections);
	return 0;
}

/* repeat = auto needs its maximum; repeat-max and until mean nothing
 * without it. */
static int check_repeat(struct parser *p)
{
	struct experiment *e = p->e;

	if (!e->repeat_auto) {
		if (line_of(p, "repeat-max"))
			return fail_at(p, line_of(p, "repeat-max"), "repeat-max", "only with repeat = auto");
		if (line_of(p, "until"))
			return fail_at(p, line_of(p, "until"), "until", "only with repeat = auto");
		return 0;
	}
	if (!e->repeat_max)
		return fail_at(p, line_of(p, "repeat"), "repeat",
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

/* Each slice's parent index, parents being before their children. */
static void slices_link(struct experiment *e)
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

/* The parents a file only implies are added without settings, then every
 * slice is put after its parent (by depth, otherwise in file order). */
static int complete_slices(struct parser *p)
{
	struct experiment *e = p->e;
	struct slice_spec sorted[EXP_SLICES_MAX];
	unsigned lines[EXP_SLICES_MAX], prop_lines[EXP_SLICES_MAX][SLICE_PROPS_MAX];
	size_t n = 0;

	for (size_t i = 0; i < e->n_slices; i++) {
		char parent[SLICE_NAME_MAX];
		bool known = false;

		if (slice_parent_name(e->slices[i].name, parent, sizeof(parent)) <= 0)
			continue;
		for (size_t k = 0; k < e->n_slices; k++)
			known |= streq(e->slices[k].name, parent);
		if (known)
			continue;
		if (e->n_slices == EXP_SLICES_MAX)
			return fail_at(p, p->slice_line[i], NULL, "more than %d slices with the parents %s implies",
				       EXP_SLICES_MAX, e->slices[i].name);
		/* Its line is its child's: that is what brought it in. */
		p->slice_line[e->n_slices] = p->slice_line[i];
		e->slices[e->n_slices] = (struct slice_spec){ .parent = -1 };
		snprintf(e->slices[e->n_slices].name, SLICE_NAME_MAX, "%s", parent);
		e->n_slices++;
	}
	for (unsigned depth = 0; n < e->n_slices; depth++)
		for (size_t i = 0; i < e->n_slices; i++)
			if (slice_depth(e->slices[i].name) == depth) {
				sorted[n] = e->slices[i];
				lines[n] = p->slice_line[i];
				memcpy(prop_lines[n++], p->slice_prop_line[i], sizeof(prop_lines[0]));
			}
	memcpy(e->slices, sorted, n * sizeof(sorted[0]));
	memcpy(p->slice_line, lines, n * sizeof(lines[0]));
	memcpy(p->slice_prop_line, prop_lines, n * sizeof(prop_lines[0]));
	slices_link(e);
	return 0;
}

static int find_slice(const struct experiment *e, const char *name)
{
	for (size_t i = 0; i < e->n_slices; i++)
		if (streq(e->slices[i].name, name))
			return (int)i;
	return -1;
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

/* The slices, the contexts' Slice=, and a [vary] on a slice or live.
 * Long because each check names its own line and key. */
static int check_slices(struct parser *p)
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
		e->context_slice[i] = -1;
		if (!*p->ctx_slice[i])
			continue;
		e->context_slice[i] = find_slice(e, p->ctx_slice[i]);
		if (e->context_slice[i] < 0)
			r = fail_at(p, p->ctx_slice_line[i], "Slice",
				    "no [slice %s] in this file (Slice= names a slice the experiment defines)", p->ctx_slice[i]);
		else if (!context_ops_for(e->contexts[i].kind)->slice)
			r = fail_at(p, p->ctx_slice_line[i], "Slice",
				    "a %s context does not go into a slice of the experiment's (its unit is not one the "
				    "system manager starts for slicebench)", context_kind_to_string(e->contexts[i].kind));
	}
	if (r < 0)
		return r;
	e->vary_slice = -1;
	if (*p->vary_slice) {
		if (!e->vary)
			return fail_at(p, p->vary_slice_line, "slice", "[vary] names a slice but no setting to vary");
		e->vary_slice = find_slice(e, p->vary_slice);
		if (e->vary_slice < 0)
			return fail_at(p, p->vary_slice_line, "slice", "no [slice %s] in this file", p->vary_slice);
		if (e->vary->class != PROP_CGROUP)
			return fail_at(p, p->vary_prop_line, e->vary->name, "a slice takes cgroup settings only (%s)",
				       prop_class_list(PROP_CGROUP));
		snprintf(where, sizeof(where), "[vary] of [slice %s]", p->vary_slice);
		for (size_t v = 0; r >= 0 && v < e->n_vary; v++) {
			struct prop_value pv = {};

			r = prop_parse(e->vary->name, e->vary_values[v], &pv);
			if (r >= 0)
				r = check_slice_prop(p, &pv, p->vary_prop_line, where);
			prop_value_done(&pv);
		}
		if (r < 0)
			return r;
	}
	if (!e->vary_modes)
		e->vary_modes = VARY_RESTART;
	if ((e->vary_modes & VARY_LIVE) && !e->vary)
		return fail_at(p, p->vary_mode_line, "mode", "live changes a [vary] setting between steps, and there is none");
	/* systemd changes a running unit's cgroup settings (SetUnitProperties);
	 * its exec settings only take effect at the next start. */
	if ((e->vary_modes & VARY_LIVE) && e->vary->class != PROP_CGROUP)
		return fail_at(p, p->vary_prop_line, e->vary->name,
			       "mode = live: systemd cannot change %s= of a running unit (live takes %s)", e->vary->name,
			       prop_class_list(PROP_CGROUP));
	for (size_t i = 0; (e->vary_modes & (VARY_RESTART | VARY_LIVE)) == (VARY_RESTART | VARY_LIVE) && i < e->n_contexts; i++) {
		char live[64];

		snprintf(live, sizeof(live), "%s-live", e->contexts[i].name);
		for (size_t k = 0; k < e->n_contexts; k++)
			if (streq(e->contexts[k].name, live))
				return fail_at(p, p->ctx_line[k], NULL,
					       "[context %s]: with mode = restart live, %s's live steps are reported under that name",
					       live, e->contexts[i].name);
	}
	return 0;
}

/* Each neighbour's kind and the keys that kind takes, and its slice. */
static int check_neighbours(struct parser *p)
{
	struct experiment *e = p->e;
	const char *missing;

	for (size_t i = 0; i < e->n_neighbours; i++) {
		struct neighbour_spec *nb = &e->neighbours[i];
		const unsigned *line = p->nb_key_line[i];

		e->neighbour_slice[i] = -1;
		if ((int)nb->kind < 0)
			return fail_at(p, p->nb_line[i], "kind", "[neighbour %s] needs kind = hog, command or oltp", nb->name);
		if (nb->kind == NEIGHBOUR_HOG && line[NB_COMMAND])
			return fail_at(p, line[NB_COMMAND], "command", "a hog runs slicebench hog; command is for kind = command");
		if (nb->kind == NEIGHBOUR_COMMAND && (line[NB_THREADS] || line[NB_DUTY]))
			return fail_at(p, line[NB_THREADS] ?: line[NB_DUTY], line[NB_THREADS] ? "threads" : "duty",
				       "threads and duty are a hog's (threads an oltp neighbour's too); a command's own options say how it runs");
		if (nb->kind == NEIGHBOUR_OLTP && (line[NB_DUTY] || line[NB_COMMAND]))
			return fail_at(p, line[NB_DUTY] ?: line[NB_COMMAND], line[NB_DUTY] ? "duty" : "command",
				       "an oltp neighbour is a mariadbd of its own and slicebench's client with threads; "
				       "duty is a hog's, command a command's");
		if (nb->kind == NEIGHBOUR_OLTP && nb->threads > NEIGHBOUR_OLTP_THREADS_MAX)
			return fail_at(p, line[NB_THREADS], "threads",
				       "bad value '%u' (an oltp neighbour's client threads: an integer from 1 to %d)",
				       nb->threads, NEIGHBOUR_OLTP_THREADS_MAX);
		if (nb->kind == NEIGHBOUR_OLTP && server_engine_mariadb.installed(server_engine_mariadb.binary, &missing) < 0)
			return fail_at(p, line[NB_KIND], "kind", "an oltp neighbour runs a mariadbd of its own: no %s here",
				       missing);
		if (nb->kind == NEIGHBOUR_OLTP)
			nb->threads = nb->threads ?: 1;
		if (nb->kind == NEIGHBOUR_COMMAND && !nb->argv)
			return fail_at(p, p->nb_line[i], "command", "[neighbour %s] of kind = command needs command = ...",
				       nb->name);
		if (nb->kind == NEIGHBOUR_HOG) {
			nb->threads = nb->threads ?: 1;
			nb->duty = nb->duty ?: 100;
		}
		if (!*p->nb_slice[i])
			continue;
		e->neighbour_slice[i] = find_slice(e, p->nb_slice[i]);
		if (e->neighbour_slice[i] < 0)
			return fail_at(p, line[NB_SLICE], "Slice",
				       "no [slice %s] in this file (Slice= names a slice the experiment defines)", p->nb_slice[i]);
	}
	return 0;
}

/* unit = NAME.service: the installed unit's settings that the attribute
 * table knows, read over D-Bus, become the context's properties (those the
 * file gives itself win); the rest are listed as not reproduced. */
static int mirror_into(struct parser *p, size_t i)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(mirror_done) struct mirror m = {};
	_cleanup_free_ char *left = NULL;
	struct context_spec *c = &p->e->contexts[i];
	const char *user = p->e->server_user ? p->e->server_user : SERVER_DEFAULT_USER;
	unsigned line = p->unit_line[i];
	int r;

	if (!context_ops_for(c->kind)->mirror)
		return fail_at(p, line, "unit", "only a service context mirrors an installed unit (this is %s)",
			       context_kind_to_string(c->kind));
	if (bus_open_system(&bus) < 0)
		return fail_at(p, line, "unit", "reading %s needs a running systemd (run it under slicebench sandbox)",
			       p->unit[i]);
	r = mirror_unit(bus, p->unit[i], &m, &error);
	if (r == -EMEDIUMTYPE)
		return fail_at(p, line, "unit", "%s is not a service", p->unit[i]);
	if (r < 0)
		return fail_at(p, line, "unit", "no unit %s is installed here (%s)", p->unit[i],
			       sd_bus_error_is_set(&error) ? error.message : strerror(-r));
	for (size_t k = 0; m.names && m.names[k]; k++) {
		const char *why;
		bool given = false;

		for (size_t j = 0; j < c->n_props; j++)
			given |= streq(c->props[j].def->name, m.names[k]);
		if (given)
			continue;
		if (c->n_props == CONTEXT_PROPS_MAX)
			return fail_at(p, line, "unit", "%s brings more than %d properties", p->unit[i], CONTEXT_PROPS_MAX);
		if (prop_parse(m.names[k], m.values[k], &c->props[c->n_props]) < 0 ||
		    context_check_prop(&c->props[c->n_props], c->kind, p->mode, &why) < 0) {
			prop_value_done(&c->props[c->n_props]);
			r = xasprintf(&left, "%s%s%s=%s", strempty(left), left ? ", " : "", m.names[k], m.values[k]);
			if (r < 0)
				return r;
			continue;
		}
		p->prop_line[i][c->n_props++] = line;
	}
	/* The datadir belongs to the server's user: a unit's User= must be it. */
	for (size_t j = 0; j < c->n_props; j++)
		if (streq(c->props[j].def->name, "User") && !streq(c->props[j].text, user))
			return fail_at(p, p->prop_line[i][j], "User",
				       "%s runs the server as %s, but the server's user is %s; set [server] user = %s",
				       p->unit[i], c->props[j].text, user, c->props[j].text);
	for (size_t k = 0; m.unknown && m.unknown[k]; k++) {
		r = xasprintf(&left, "%s%s%s", strempty(left), left ? ", " : "", m.unknown[k]);
		if (r < 0)
			return r;
	}
	return xasprintf(&p->e->mirror_notes[i], "[context %s] mirrors %s; not reproduced: %s", c->name, p->unit[i],
			 left ? left : "nothing");
}

/* Checks that need the whole file: kinds given, properties applicable to
 * the kind in this cgroup mode, vary values too, the baseline, and
 * repeat = auto with its maximum. */
static int check_whole(struct parser *p)
{
	struct experiment *e = p->e;

	if (!e->n_contexts)
		return fail_at(p, p->line, NULL, "no [context NAME] section");
	if (check_repeat(p) < 0 || check_server(p) < 0)
		return -EINVAL;
	for (size_t i = 0; i < e->n_contexts; i++) {
		struct context_spec *c = &e->contexts[i];
		const struct prop_value *bad;
		const char *why;

		if (!p->kind_given[i])
			return fail_at(p, p->ctx_line[i], "kind", "[context %s] needs kind = %s", c->name,
				       context_kind_list(false));
		if (p->session_given[i] && !context_ops_for(c->kind)->session)
			return fail_at(p, p->ctx_line[i], "session", "only %s contexts choose a session", context_kind_list(true));
		if (p->unit[i] && mirror_into(p, i) < 0)
			return -EINVAL;
		if (context_validate(c, p->mode, &bad, &why) < 0)
			return fail_at(p, bad ? p->prop_line[i][bad - c->props] : p->ctx_line[i],
				       bad ? bad->def->name : "kind", "%s in [context %s] (%s)", why, c->name,
				       context_kind_to_string(c->kind));
		for (size_t v = 0; *p->vary_slice == 0 && v < e->n_vary; v++) {
			struct prop_value pv = {};
			int r = prop_parse(e->vary->name, e->vary_values[v], &pv);

			if (r >= 0)
				r = context_check_prop(&pv, c->kind, p->mode, &why);
			prop_value_done(&pv);
			if (r < 0)
				return fail_at(p, p->vary_prop_line, e->vary->name, "%s in [context %s] (%s)", why, c->name,
					       context_kind_to_string(c->kind));
		}
	}
	if (check_slices(p) < 0 || check_neighbours(p) < 0)
		return -EINVAL;
	if (!*e->baseline)
		snprintf(e->baseline, sizeof(e->baseline), "%s", e->contexts[0].name);
	for (size_t i = 0; i < e->n_contexts; i++)
		if (streq(e->contexts[i].name, e->baseline))
			return 0;
	return fail_at(p, p->baseline_line, "baseline", "no [context %s] in this file", e->baseline);
}

/* Every key's default, through the parser that reads the file. */
static int experiment_defaults(struct experiment *e)
{
	struct parser p = { .e = e, .path = "(the key table's defaults)" };
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(key_table) && r >= 0; i++)
		if (key_table[i].def)
			r = set_key(&p, &key_table[i], key_table[i].def);
	free(p.msg);
	/* Not keys of the table: no Slice= and no [vary] on a slice. */
	e->vary_slice = -1;
	for (size_t i = 0; i < EXP_CONTEXTS_MAX; i++)
		e->context_slice[i] = -1;
	return r;
}

/* The stem of path: experiments/cpu-quota.ini is cpu-quota. */
static int stem_of(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strcspn(base, ".");

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, base, n);
	buf[n] = 0;
	return name_is_valid(buf) ? 0 : -EINVAL;
}

/* A regular file of at most EXP_FILE_MAX bytes: a FIFO would block the
 * open and /dev/zero never end. */
static int open_experiment_file(const char *path, FILE **ret, char **ret_msg)
{
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		return xasprintf(ret_msg, "%s: %s", path, strerror(-r)), r;
	}
	r = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : st.st_size > EXP_FILE_MAX ? -EFBIG : 0;
	if (r < 0) {
		close(fd);
		return xasprintf(ret_msg, "%s: %s", path,
				 r == -EINVAL ? "not a regular file"
				 : r == -EFBIG ? "larger than " STRINGIFY(EXP_FILE_MAX) " bytes"
					       : strerror(-r)), r;
	}
	*ret = fdopen(fd, "r");
	if (!*ret) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

int experiment_load(const char *path, enum cgroup_mode mode, struct experiment *ret, char **ret_msg)
{
	struct parser p = { .e = ret, .path = path, .mode = mode, .at_line_start = true };
	int r;

	*ret = (struct experiment){};
	*ret_msg = NULL;
	ret->path = strdup(path);
	if (!ret->path)
		return -ENOMEM;
	r = experiment_defaults(ret);
	if (r < 0) {
		experiment_done(ret);
		return r;
	}
	if (stem_of(path, ret->name, sizeof(ret->name)) < 0) {
		xasprintf(ret_msg, "%s: the file name must be NAME.ini with NAME [a-z0-9][a-z0-9_-]{0,39}", path);
		experiment_done(ret);
		return -EINVAL;
	}
	r = open_experiment_file(path, &p.f, ret_msg);
	if (r < 0) {
		experiment_done(ret);
		return r;
	}
	r = ini_parse_stream(read_line, &p, handle_key, &p);
	fclose(p.f);
	if (r > 0 && !p.msg)
		fail_at(&p, (unsigned)r, NULL, "not a key = value line or a [section]");
	else if (r < 0 && !p.msg)
		fail_at(&p, p.line, NULL, "cannot read the file");
	if (!p.msg)
		check_whole(&p);
	for (size_t i = 0; i < EXP_CONTEXTS_MAX; i++)
		free(p.unit[i]);
	if (p.msg) {
		*ret_msg = p.msg;
		experiment_done(ret);
		return -EINVAL;
	}
	return 0;
}

void experiment_log_mirrors(const struct experiment *e)
{
	for (size_t i = 0; i < e->n_contexts; i++)
		if (e->mirror_notes[i])
			log_info("%s", e->mirror_notes[i]);
}

void experiment_done(struct experiment *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->description);
	free(e->binary);
	free(e->engine);
	free(e->buffer_pool);
	free(e->server_user);
	for (size_t i = 0; i < e->n_contexts; i++)
		for (size_t j = 0; j < e->contexts[i].n_props; j++)
			prop_value_done(&e->contexts[i].props[j]);
	for (size_t i = 0; i < e->n_contexts; i++) {
		free(e->client_cpus[i]);
		free(e->mirror_notes[i]);
	}
	for (size_t i = 0; i < e->n_vary; i++)
		free(e->vary_values[i]);
	for (size_t i = 0; i < e->n_slices; i++)
		for (size_t j = 0; j < e->slices[i].n_props; j++)
			prop_value_done(&e->slices[i].props[j]);
	for (size_t i = 0; i < e->n_neighbours; i++)
		strv_free(e->neighbours[i].argv);
	*e = (struct experiment){};
}

int experiment_spec_for(const struct experiment *e, size_t i, size_t v, struct context_spec *ret)
{
	const struct context_spec *c = &e->contexts[i];
	int r;

	*ret = *c;
	ret->n_props = 0;
	for (size_t j = 0; j < c->n_props; j++)
		if (!experiment_varies_contexts(e) || c->props[j].def != e->vary)
			ret->props[ret->n_props++] = c->props[j];
	if (!experiment_varies_contexts(e))
		return 0;
	r = prop_parse(e->vary->name, e->vary_values[v], &ret->props[ret->n_props]);
	if (r < 0)
		return r;
	ret->n_props++;
	return 0;
}

void experiment_spec_done(const struct experiment *e, struct context_spec *s)
{
	/* The other properties are borrowed from e; only the vary value, the
	 * last one, was parsed for this spec. */
	if (experiment_varies_contexts(e) && s->n_props)
		prop_value_done(&s->props[s->n_props - 1]);
	s->n_props = 0;
}

static const char *const *search_dirs(void)
{
	static const char *dirs[4];
	size_t n = 0;

	if (!dirs[0]) {
		if (getenv("SLICEBENCH_EXPERIMENTS"))
			dirs[n++] = getenv("SLICEBENCH_EXPERIMENTS");
		dirs[n++] = "experiments";
		dirs[n++] = DATADIR "/experiments";
	}
	return dirs;
}

const char *const *experiment_dirs(void)
{
	return search_dirs();
}

int experiment_find(const char *name_or_path, char **ret_path)
{
	size_t len = strlen(name_or_path);
	struct stat st;

	if (strchr(name_or_path, '/') || (len > 4 && streq(name_or_path + len - 4, ".ini"))) {
		*ret_path = strdup(name_or_path);
		return *ret_path ? 0 : -ENOMEM;
	}
	if (!name_is_valid(name_or_path))
		return -EINVAL;
	for (const char *const *d = search_dirs(); *d; d++) {
		_cleanup_free_ char *path = NULL;

		if (xasprintf(&path, "%s/%s.ini", *d, name_or_path) < 0)
			return -ENOMEM;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			*ret_path = path;
			path = NULL;
			return 0;
		}
	}
	return -ENOENT;
}

static json_t *props_to_json(const struct prop_value *v, size_t n)
{
	json_t *props = json_object();

	for (size_t j = 0; props && j < n; j++)
		json_object_set_new(props, v[j].def->name, json_string(v[j].text));
	return props;
}

static json_t *slices_to_json(const struct experiment *e)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < e->n_slices; i++)
		json_array_append_new(a, json_pack("{s:s, s:o*}", "name", e->slices[i].name, "properties",
						   props_to_json(e->slices[i].props, e->slices[i].n_props)));
	return a;
}

static json_t *neighbours_to_json(const struct experiment *e)
{
	json_t *a = json_array(), *argv;

	for (size_t i = 0; a && i < e->n_neighbours; i++) {
		const struct neighbour_spec *nb = &e->neighbours[i];

		argv = json_array();
		for (size_t k = 0; nb->argv && nb->argv[k]; k++)
			json_array_append_new(argv, json_string(nb->argv[k]));
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:i, s:o, s:s?}", "name", nb->name, "kind",
						   word_name(neighbour_kind_words, nb->kind), "threads", (int)nb->threads,
						   "duty_pct", (int)nb->duty, "command", argv, "slice",
						   e->neighbour_slice[i] >= 0 ? e->slices[e->neighbour_slice[i]].name : NULL));
	}
	return a;
}

static json_t *context_to_json(const struct experiment *e, size_t i)
{
	const struct context_spec *c = &e->contexts[i];
	json_t *props = props_to_json(c->props, c->n_props);

	return json_pack("{s:s, s:s, s:s, s:o*, s:s?, s:s?}", "name", c->name, "kind", context_kind_to_string(c->kind),
			 "session", word_name(session_words, c->session), "properties", props, "client_cpus",
			 e->client_cpus[i], "slice", e->context_slice[i] >= 0 ? e->slices[e->context_slice[i]].name : NULL);
}

/* The keys a record carries only when they are used, so that runs made
 * before them resume. */
static int experiment_optional_to_json(const struct experiment *e, json_t *j)
{
	/* pgbench's workloads: the workload, its scale and client threads */
	if (e->workload != OLTP_WORKLOAD_READ_ONLY &&
	    (json_object_set_new(j, "workload", json_string(oltp_workload_name(e->workload))) < 0 ||
	     json_object_set_new(j, "scale", json_integer(e->scale)) < 0))
		return -ENOMEM;
	if (e->client_threads &&
	    json_object_set_new(json_object_get(j, "client"), "threads", json_integer(e->client_threads)) < 0)
		return -ENOMEM;
	/* repeat = auto: the maximum and the target, and "auto" for the count */
	if (e->repeat_auto &&
	    (json_object_set_new(j, "repeat", json_string("auto")) < 0 ||
	     json_object_set_new(j, "repeat_max", json_integer(e->repeat_max)) < 0 ||
	     json_object_set_new(j, "until", json_real(e->until)) < 0))
		return -ENOMEM;
	if (e->n_slices && json_object_set_new(j, "slices", slices_to_json(e)) < 0)
		return -ENOMEM;
	return 0;
}

json_t *experiment_to_json(const struct experiment *e)
{
	json_t *j, *threads = json_array(), *names = json_array(), *specs = json_array(), *cpus = json_array(),
	       *vary = json_null(), *values;

	for (size_t i = 0; i < e->n_threads; i++)
		json_array_append_new(threads, json_integer(e->threads[i]));
	for (size_t i = 0; i < e->n_contexts; i++) {
		json_array_append_new(names, json_string(e->contexts[i].name));
		json_array_append_new(specs, context_to_json(e, i));
	}
	for (size_t i = 0; i < e->n_client_cpus; i++)
		json_array_append_new(cpus, json_integer(e->client_cpus_list[i]));
	if (e->n_vary) {
		values = json_array();
		for (size_t i = 0; i < e->n_vary; i++)
			json_array_append_new(values, json_string(e->vary_values[i]));
		json_decref(vary);
		/* mode only when not the default, so that runs made before it resume. */
		vary = json_pack("{s:s, s:o, s:s?, s:s?}", "property", e->vary->name, "values", values, "slice",
				 e->vary_slice >= 0 ? e->slices[e->vary_slice].name : NULL, "mode",
				 e->vary_modes == (VARY_RESTART | VARY_LIVE) ? "restart live"
				 : e->vary_modes == VARY_LIVE		     ? "live"
									     : NULL);
	}
	j = json_pack("{s:s, s:s, s:s?, s:o, s:f, s:f, s:i, s:i, s:i, s:s, s:s, s:s, s:s, s:o, s:o, s:o,"
			 " s:{s:s, s:s, s:s, s:s, s:i}, s:{s:o, s:s, s:b}}",
			 "name", e->name, "path", e->path, "description", e->description, "threads", threads,
			 "warmup_s", (double)e->warmup_ns / 1e9, "duration_s", (double)e->duration_ns / 1e9, "repeat",
			 (int)e->repeat, "tables", (int)e->tables, "table_size", (int)e->table_size, "driver",
			 word_name(oltp_driver_words, e->driver), "rand_type", sbrand_type_to_string(e->rand_type),
			 "baseline", e->baseline, "on_error", word_name(on_error_words, e->on_error), "contexts", names,
			 "context_specs", specs, "vary", vary, "server", "binary", e->binary, "engine", e->engine,
			 "buffer_pool", e->buffer_pool, "user", e->server_user, "max_connections", (int)e->max_connections,
			 "client", "cpus", cpus, "pin", word_name(oltp_pin_words, e->pin), "scope", (int)e->client_scope);
	if (j && experiment_optional_to_json(e, j) < 0) {
		json_decref(j);
		j = NULL;
	}
	if (j && e->n_neighbours && json_object_set_new(j, "neighbours", neighbours_to_json(e)) < 0) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

void experiment_client_for(const struct experiment *e, size_t i, struct oltp_options *o)
{
	long cpus[OLTP_MAX_CPUS];
	size_t n = 0;

	if (e->client_cpus[i])
		(void)cpu_list_parse(e->client_cpus[i], OLTP_MAX_CPUS - 1, cpus, OLTP_MAX_CPUS, &n, NULL, 0); /* checked on load */
	else {
		n = e->n_client_cpus;
		memcpy(cpus, e->client_cpus_list, n * sizeof(long));
	}
	o->pin = n ? e->pin : OLTP_PIN_INHERIT;
	o->n_client_cpus = (unsigned)n;
	for (size_t c = 0; c < n; c++)
		o->client_cpus[c] = (unsigned)cpus[c];
}

/* One [context NAME] of experiment.json back into a spec. */
static int context_from_json(const json_t *j, struct experiment *e, char **ret_msg)
{
	struct context_spec *c = &e->contexts[e->n_contexts];
	const char *name = json_string_value(json_object_get(j, "name")), *key;
	const char *client = json_string_value(json_object_get(j, "client_cpus"));
	json_t *v;
	enum context_kind kind = context_kind_from_string(strempty(json_string_value(json_object_get(j, "kind"))));

	if (e->n_contexts == EXP_CONTEXTS_MAX)
		return xasprintf(ret_msg, "experiment.json: $.context_specs: more than %d contexts", EXP_CONTEXTS_MAX),
		       -EINVAL;
	if (!name_is_valid(name) || kind == CONTEXT_KIND_INVALID)
		return xasprintf(ret_msg, "experiment.json: a context without a valid name and kind"), -EINVAL;
	memcpy(c->name, name, strlen(name) + 1);
	c->kind = kind;
	c->session = SESSION_INHERIT;
	(void)word_lookup(session_words, json_string_value(json_object_get(j, "session")), (int *)&c->session);
	e->n_contexts++;
	json_object_foreach(json_object_get(j, "properties"), key, v)
	{
		if (c->n_props == CONTEXT_PROPS_MAX || !json_is_string(v) ||
		    prop_parse(key, json_string_value(v), &c->props[c->n_props]) < 0)
			return xasprintf(ret_msg, "experiment.json: context %s: bad property %s", name, key), -EINVAL;
		c->n_props++;
	}
	if (client && !(e->client_cpus[e->n_contexts - 1] = strdup(client)))
		return -ENOMEM;
	/* Slice= after the slices, which are read first. */
	for (size_t i = 0; json_is_string(json_object_get(j, "slice")) && i < e->n_slices; i++)
		if (streq(e->slices[i].name, json_string_value(json_object_get(j, "slice"))))
			e->context_slice[e->n_contexts - 1] = (int)i;
	return 0;
}

/* One slice of experiment.json back into a spec (parents come first). */
static int slice_from_json(const json_t *j, struct experiment *e, char **ret_msg)
{
	struct slice_spec *sl = &e->slices[e->n_slices];
	const char *name = json_string_value(json_object_get(j, "name")), *key;
	json_t *v;

	if (e->n_slices == EXP_SLICES_MAX || !name || !slice_name_is_valid(name, NULL))
		return xasprintf(ret_msg, "experiment.json: a slice without a valid name"), -EINVAL;
	snprintf(sl->name, sizeof(sl->name), "%s", name);
	e->n_slices++;
	json_object_foreach(json_object_get(j, "properties"), key, v)
	{
		if (sl->n_props == SLICE_PROPS_MAX || !json_is_string(v) ||
		    prop_parse(key, json_string_value(v), &sl->props[sl->n_props]) < 0)
			return xasprintf(ret_msg, "experiment.json: slice %s: bad property %s", name, key), -EINVAL;
		sl->n_props++;
	}
	return 0;
}

/* A setting of experiment.json as the experiment file would write it, so
 * that the key table's own parser checks it: numbers as digits, durations
 * in seconds, until as a percentage, lists joined with commas. */
static int setting_text(const struct key_def *k, const json_t *v, char *buf, size_t len)
{
	const json_t *x;
	size_t i, n = 0;
	int w;

	if (json_is_string(v))
		w = snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_boolean(v))
		w = snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	else if (json_is_number(v) && k->type == KEY_DURATION)
		w = snprintf(buf, len, "%.9gs", json_number_value(v));
	else if (json_is_number(v) && k->type == KEY_PERCENT)
		w = snprintf(buf, len, "%.9g%%", json_number_value(v) * 100);
	else if (json_is_integer(v))
		w = snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_array(v)) {
		*buf = 0;
		w = 0;
		json_array_foreach(v, i, x) {
			if (!json_is_integer(x))
				return -EINVAL;
			w = snprintf(buf + n, len - n, "%s%" JSON_INTEGER_FORMAT, i ? "," : "", json_integer_value(x));
			if (w < 0 || (size_t)w >= len - n)
				return -EINVAL;
			n += (size_t)w;
		}
	} else
		return -EINVAL;
	/* A real number where a count goes, an object, a value too long for
	 * any key: not as run writes it. */
	if (json_is_real(v) && k->type != KEY_DURATION && k->type != KEY_PERCENT)
		return -EINVAL;
	return w < 0 || (size_t)w >= len ? -EINVAL : 0;
}

/* The key table's settings out of experiment.json, each through set_key()
 * as if it came from a file: the same ranges, words and checks. */
static int settings_from_json(struct parser *p, const json_t *j)
{
	for (size_t i = 0; i < ELEMENTSOF(key_table) && !p->msg; i++) {
		const struct key_def *k = &key_table[i];
		const json_t *in = k->section == SECTION_EXPERIMENT ? j : json_object_get(j, section_names[k->section]);
		char name[64], text[512];
		const json_t *v;

		if (k->own)
			continue;
		snprintf(name, sizeof(name), "%s%s", k->name, k->type == KEY_DURATION ? "_s" : "");
		for (char *c = name; *c; c++)
			if (*c == '-')
				*c = '_';
		v = json_object_get(in, name);
		/* Absent: the default; client cpus [] is none given. */
		if (!v || json_is_null(v) || (k->type == KEY_CPUS && json_array_size(v) == 0))
			continue;
		/* repeat_max, until: only with repeat = auto, which puts them there. */
		if ((streq(k->name, "repeat-max") || streq(k->name, "until")) &&
		    !streq_ptr(json_string_value(json_object_get(j, "repeat")), "auto"))
			continue;
		p->seen[i] = true;
		p->key_line[i] = 1; /* given; fail_at() names no line in experiment.json */
		if (setting_text(k, v, text, sizeof(text)) < 0)
			return fail_at(p, 1, k->name, "not a value of the key's type");
		if (set_key(p, k, text) < 0)
			return -EINVAL;
	}
	return p->msg ? -EINVAL : 0;
}

int experiment_from_results(const char *dir, struct experiment *ret, char **ret_msg)
{
	_cleanup_free_ char *path = NULL;
	struct parser p = { .e = ret, .mode = cgroup_mode_detect(), .from_json = true };
	json_t *j, *v;
	json_error_t err;
	size_t i;
	int r = 0;

	*ret = (struct experiment){};
	*ret_msg = NULL;
	if (xasprintf(&path, "%s/experiment.json", dir) < 0)
		return -ENOMEM;
	j = json_load_file(path, 0, &err);
	if (!j)
		return xasprintf(ret_msg, "%s:%d: %s", path, err.line, err.text), -EINVAL;
	r = experiment_defaults(ret);
	if (r < 0) {
		json_decref(j);
		return r;
	}
	ret->path = strdup(path);
	p.path = ret->path;
	snprintf(ret->name, sizeof(ret->name), "%s", strempty(json_string_value(json_object_get(j, "name"))));
	if (!json_is_object(j) || !name_is_valid(ret->name))
		r = fail_at(&p, 1, "name", "not the experiment of a slicebench run");
	if (r >= 0)
		r = settings_from_json(&p, j);
	json_array_foreach(json_object_get(j, "slices"), i, v)
		if (r >= 0)
			r = slice_from_json(v, ret, ret_msg);
	slices_link(ret);
	json_array_foreach(json_object_get(j, "context_specs"), i, v)
		if (r >= 0 && (r = context_from_json(v, ret, ret_msg)) >= 0) {
			p.kind_given[i] = true;
			p.ctx_line[i] = 1;
		}
	json_decref(j);
	/* The checks of a whole file, as when the experiment was first read. */
	if (r >= 0 && !p.msg)
		(void)check_whole(&p);
	if (p.msg && !*ret_msg)
		*ret_msg = p.msg;
	else
		free(p.msg);
	if (r >= 0 && *ret_msg)
		r = -EINVAL;
	if (r < 0)
		experiment_done(ret);
	return r;
}

static const char *const key_syntax[] = {
	[KEY_STRING] = "TEXT",	[KEY_UINT] = "N",	   [KEY_DURATION] = "DURATION", [KEY_THREADS] = "LIST",
	[KEY_CPUS] = "CPUS",	[KEY_BASELINE] = "CONTEXT", [KEY_BOOL] = "yes|no",	[KEY_REPEAT] = "N|auto",
	[KEY_PERCENT] = "PERCENT", [KEY_SIZE] = "SIZE",
};

int experiment_key_doc(size_t i, struct experiment_key_doc *ret)
{
	static char syntax[ELEMENTSOF(key_table)][128];
	const struct key_def *k;

	if (i >= ELEMENTSOF(key_table))
		return -ENOENT;
	k = &key_table[i];
	*ret = (struct experiment_key_doc){
		.section = section_names[k->section],
		.name = k->name,
		.syntax = k->type == KEY_WORD || (k->type == KEY_STRING && k->words)
				  ? word_join(k->words, "|", "|", syntax[i], sizeof(syntax[i]))
				  : key_syntax[k->type],
		.min = k->type == KEY_UINT || k->type == KEY_REPEAT ? k->min : 0,
		.max = k->type == KEY_UINT || k->type == KEY_REPEAT ? k->max : 0,
		.def = k->def,
		.help = k->help,
	};
	return 0;
}

void experiment_server_config(const struct experiment *e, struct server_config *ret)
{
	ret->engine = e->engine;
	ret->binary = e->binary;
	ret->buffer_pool = e->buffer_pool;
	ret->user = e->server_user;
	ret->max_connections = e->max_connections;
}

int experiment_copy_settings(const struct experiment *from, struct experiment *to)
{
	for (size_t i = 0; i < ELEMENTSOF(key_table); i++) {
		const struct key_def *k = &key_table[i];
		const void *src = (const char *)from + k->offset;
		void *dst = (char *)to + k->offset;

		if (k->own)
			continue;
		switch (k->type) {
		case KEY_STRING:
		case KEY_SIZE: {
			char *s = *(char *const *)src ? strdup(*(char *const *)src) : NULL;

			if (*(char *const *)src && !s)
				return -ENOMEM;
			free(*(char **)dst);
			*(char **)dst = s;
			break;
		}
		case KEY_UINT:
		case KEY_REPEAT: /* the count; whether it is auto is the run's, not a setting */
			*(unsigned *)dst = *(const unsigned *)src;
			break;
		case KEY_PERCENT:
			*(double *)dst = *(const double *)src;
			break;
		case KEY_DURATION:
			*(uint64_t *)dst = *(const uint64_t *)src;
			break;
		case KEY_WORD:
			*(int *)dst = *(const int *)src;
			break;
		case KEY_BOOL:
			*(bool *)dst = *(const bool *)src;
			break;
		case KEY_THREADS:
			memcpy(to->threads, from->threads, sizeof(from->threads));
			to->n_threads = from->n_threads;
			break;
		case KEY_CPUS:
			memcpy(to->client_cpus_list, from->client_cpus_list, sizeof(from->client_cpus_list));
			to->n_client_cpus = from->n_client_cpus;
			break;
		case KEY_BASELINE:
			break;
		}
	}
	return 0;
}

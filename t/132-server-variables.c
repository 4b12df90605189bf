/* The server's own variables as rows of the attribute table
 * (slices/attr/props.c, PROP_SERVER) and as explain's factors
 * (runner/explain/factors.c), on experiments and placements written here,
 * no prerequisites: each row's parser refuses what is not its variable's
 * value (a path, a word it does not know, a number past its bounds); two
 * contexts that differ in one server variable have it as their one factor,
 * named, and its hybrids take A's or B's value; a variable written on one
 * side whose value the other side's server reads back already is no
 * factor; a server variable that a differing limit moves (table_open_cache
 * under RLIMIT_NOFILE) is the limit's, and open_files_limit, which the
 * server derives from table_open_cache, is table_open_cache's; LD_PRELOAD
 * moved names the allocator on both sides, and explain.json keeps it.
 * t/133 replays a capture's variables on a real mariadbd, t/134 measures
 * one for real. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/factors.h"
#include "explain/record.h"
#include "tap.h"
#include "common/util.h"

static void check_parsers(void)
{
	static const struct {
		const char *name, *value, *text; /* text NULL: refused */
	} cases[] = {
		{ "table_open_cache", "64", "64" },
		{ "table_open_cache", "0", NULL },
		{ "table_open_cache", "64 --plugin-load=x.so", NULL },
		{ "table_open_cache", "/tmp/x", NULL },
		{ "performance_schema", "ON", "ON" },
		{ "performance_schema", "off", "OFF" },
		{ "performance_schema", "1", "ON" },
		{ "performance_schema", "maybe", NULL },
		{ "innodb_buffer_pool_size", "134217728", "134217728" },
		{ "innodb_buffer_pool_size", "256M", "268435456" },
		{ "innodb_buffer_pool_size", "1K", NULL },
		{ "thread_handling", "pool-of-threads", "pool-of-threads" },
		{ "thread_handling", "no-threads", NULL },
		{ "shared_buffers", "128MB", "131072kB" },
		{ "shared_buffers", "128", NULL },
		{ "shared_buffers", "1kB", NULL },
		{ "huge_pages", "try", "try" },
		{ "huge_pages", "/dev/hugepages", NULL },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct prop_value v;
		int r = prop_parse(cases[i].name, cases[i].value, &v);

		if (cases[i].text)
			ok(r >= 0 && streq(v.text, cases[i].text), "%s=%s is taken, passed as %s (%s)", cases[i].name,
			   cases[i].value, cases[i].text, r >= 0 ? v.text : strerror(-r));
		else
			ok(r < 0, "%s=%s is refused", cases[i].name, cases[i].value);
		if (r >= 0)
			prop_value_done(&v);
	}
	ok(prop_lookup("plugin_load_add") == NULL && prop_lookup("init_file") == NULL && prop_lookup("datadir") == NULL,
	   "no row sets a plugin, an init file or a directory");
	ok(prop_server_has(prop_lookup("thread_handling"), "mariadb") &&
		   !prop_server_has(prop_lookup("thread_handling"), "mysql") &&
		   !prop_server_has(prop_lookup("shared_buffers"), "mariadb") &&
		   prop_server_has(prop_lookup("shared_buffers"), "postgresql") &&
		   !prop_server_has(prop_lookup("table_open_cache"), "maria"),
	   "each variable belongs to the engines its row names, by whole name");
}

/* Context i named name, raw, with the setting NAME=VALUE when given. */
static void add_context(struct experiment *e, const char *name, const char *prop, const char *value)
{
	struct context_spec *c = &e->contexts[e->n_contexts];

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->kind = CONTEXT_RAW;
	if (prop && prop_parse(prop, value, &c->props[c->n_props++]) < 0)
		bail_out("cannot parse %s=%s", prop, value);
	e->context_proxy[e->n_contexts] = -1;
	e->context_slice[e->n_contexts++] = -1;
}

/* A raw server's placement; pairs of KEY, VALUE after it, ending with NULL. */
static void make_placement(struct placement *p, const char *first, ...)
{
	va_list ap;

	*p = (struct placement){};
	if (placement_set(p, "affinity", "0-1") < 0 || placement_set(p, "nice", "0") < 0 ||
	    placement_set(p, "allocator", "glibc") < 0 || placement_set(p, "limit.nofile", "20000") < 0 ||
	    placement_set(p, "server.performance_schema", "OFF") < 0 || placement_set(p, "server.table_open_cache", "2000") < 0 ||
	    placement_set(p, "server.open_files_limit", "20000") < 0 || placement_set(p, "server.thread_cache_size", "151") < 0)
		bail_out("out of memory");
	va_start(ap, first);
	for (const char *k = first; k; k = va_arg(ap, const char *))
		if (placement_set(p, k, va_arg(ap, const char *)) < 0)
			bail_out("out of memory");
	va_end(ap);
}

static const struct prop_value *setting_of(const struct context_spec *c, const char *name)
{
	for (size_t i = 0; i < c->n_props; i++)
		if (streq(c->props[i].def->name, name))
			return &c->props[i];
	return NULL;
}

static void check_one_variable(void)
{
	struct experiment e = {}, x = {};
	struct placement pa, pb;
	struct factor_set fs;

	add_context(&e, "ps", "performance_schema", "ON");
	add_context(&e, "plain", NULL, NULL);
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, NULL, NULL }, &fs), 0, "factors_find before the starts");
	ok(fs.n == 1 && streq(fs.f[0].label, "the server's performance_schema"), "one factor, named: %s",
	   fs.n ? fs.f[0].label : "none");
	make_placement(&pa, "server.performance_schema", "ON", NULL);
	make_placement(&pb, NULL);
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find with the placements");
	ok(fs.n == 1 && streq(fs.f[0].label, "the server's performance_schema") && fs.f[0].in_a && !fs.f[0].in_b &&
		   !*fs.unmovable && fs.kind == CONTEXT_RAW && fs.closure_is_a && !*fs.allocator_a,
	   "still its one factor, as A writes it, nothing else differs (%s)", fs.unmovable);
	is_str(fs.n ? fs.f[0].detail : "", "ON against OFF", "with what each server ran with, as read back");
	is_int(factors_add_mix(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs, 0, "b", &x), 0, "B");
	is_int(factors_add_mix(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs, 1, "a", &x), 0, "the closure, A");
	ok(!setting_of(&x.contexts[0], "performance_schema") && setting_of(&x.contexts[1], "performance_schema") &&
		   streq(setting_of(&x.contexts[1], "performance_schema")->text, "ON"),
	   "B's server runs with its own value, A's with ON");
	experiment_done(&x);
	placement_done(&pa);
	placement_done(&pb);

	/* OFF written against a server whose default it is: no difference. */
	prop_value_done(&e.contexts[0].props[0]);
	if (prop_parse("performance_schema", "OFF", &e.contexts[0].props[0]) < 0)
		bail_out("cannot parse");
	make_placement(&pa, NULL);
	make_placement(&pb, NULL);
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find, a variable written as the other side runs it");
	is_int(fs.n, 0, "no factor: B's server reads back OFF too");
	placement_done(&pa);
	placement_done(&pb);
	experiment_done(&e);
}

static void check_followers(void)
{
	struct experiment e = {}, x = {};
	struct placement pa, pb;
	struct factor_set fs;

	/* A shell's lower RLIMIT_NOFILE: the server fits its cache to it. */
	add_context(&e, "limited", NULL, NULL);
	add_context(&e, "plain", NULL, NULL);
	make_placement(&pa, "limit.nofile", "1024", "server.table_open_cache", "421", "server.open_files_limit", "1024",
		       NULL);
	make_placement(&pb, NULL);
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find, limits that differ");
	ok(fs.n == 1 && streq(fs.f[0].label, "LimitNOFILE=") && streq(fs.f[0].detail, "limit.nofile 1024 against 20000"),
	   "the limit is the factor, not the variables the server fits to it (%s %s)", fs.n ? fs.f[0].label : "none",
	   fs.n ? fs.f[0].detail : "");
	placement_done(&pa);
	placement_done(&pb);

	/* A variable that differs in the placements alone is taken from them
	 * (A a scope: the closure is a raw hybrid, not A itself). */
	e.contexts[0].kind = CONTEXT_SCOPE;
	make_placement(&pa, "server.thread_cache_size", "4", NULL);
	make_placement(&pb, NULL);
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find, a variable the placements show");
	ok(fs.n == 1 && streq(fs.f[0].label, "the server's thread_cache_size") &&
		   streq(fs.f[0].detail, "4 against 151"),
	   "named with both values (%s)", fs.n ? fs.f[0].detail : "none");
	is_int(factors_add_mix(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs, 1, "a", &x), 0, "A's value into the closure");
	ok(setting_of(&x.contexts[0], "thread_cache_size") && streq(setting_of(&x.contexts[0], "thread_cache_size")->text, "4"),
	   "the hybrid's server is started with thread_cache_size=4");
	experiment_done(&x);
	placement_done(&pa);
	placement_done(&pb);
	experiment_done(&e);

	/* table_open_cache written: the open_files_limit it brings is its. */
	add_context(&e, "tiny", "table_open_cache", "10");
	add_context(&e, "plain", NULL, NULL);
	make_placement(&pa, "server.table_open_cache", "10", "server.open_files_limit", "5505", NULL);
	make_placement(&pb, NULL);
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find, a tiny table cache");
	ok(fs.n == 1 && streq(fs.f[0].label, "the server's table_open_cache"),
	   "one factor: open_files_limit follows table_open_cache (%zu: %s)", fs.n, fs.n ? fs.f[fs.n - 1].label : "");
	placement_done(&pa);
	placement_done(&pb);
	experiment_done(&e);
}

static void check_allocator(void)
{
	struct experiment e = {};
	struct placement pa, pb;
	struct factor_set fs;
	struct explain_record rec = { .threads = 1, .level = 0.95, .width = 0.2, .n_factors = 1 }, back;
	char *why = NULL;

	add_context(&e, "je", NULL, NULL);
	add_context(&e, "plain", NULL, NULL);
	make_placement(&pa, "allocator", "jemalloc", "env.LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", NULL);
	make_placement(&pb, NULL);
	is_int(factors_find(&(const struct factor_pair){ &e, 0, 1, &pa, &pb }, &fs), 0, "factors_find, LD_PRELOAD on one side");
	ok(fs.n == 1 && streq(fs.allocator_a, "jemalloc") && streq(fs.allocator_b, "glibc"),
	   "the environment moves the allocator: jemalloc against glibc (%s against %s)", fs.allocator_a, fs.allocator_b);
	snprintf(rec.experiment, sizeof(rec.experiment), "je");
	snprintf(rec.a, sizeof(rec.a), "je");
	snprintf(rec.b, sizeof(rec.b), "plain");
	snprintf(rec.hybrids, sizeof(rec.hybrids), "raw");
	snprintf(rec.labels[0], sizeof(rec.labels[0]), "%s", fs.f[0].label);
	snprintf(rec.allocator_a, sizeof(rec.allocator_a), "%s", fs.allocator_a);
	snprintf(rec.allocator_b, sizeof(rec.allocator_b), "%s", fs.allocator_b);
	rec.stage[STAGE_SCREEN] = (struct stage_record){ .present = true, .factors = 1 };
	ok(explain_record_write(scratch_dir(), &rec) >= 0 && explain_record_read(scratch_dir(), &back, &why) >= 0 &&
		   streq(back.allocator_a, "jemalloc") && streq(back.allocator_b, "glibc"),
	   "explain.json keeps the allocators (%s)", why ? why : "ok");
	free(why);
	placement_done(&pa);
	placement_done(&pb);
	experiment_done(&e);
}

int main(void)
{
	check_parsers();
	check_one_variable();
	check_followers();
	check_allocator();
	return done_testing();
}

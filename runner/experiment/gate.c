/* The trust gate over a whole experiment (see parse.h): once every source
 * of its settings has been read (the file, the snapshots of from = and the
 * units of unit =, experiment.json, the command line), each key row that
 * can do anything through its allow-list, and each property of every
 * context, proxy, slice and [vary] value through the attribute table's
 * (slices/attr/gate.h), with the server's account and [server] groups as
 * the policy.  A refusal names the file and line (experiment.json's key,
 * the option), where the setting came from, and why: exit 2, before
 * anything starts. */
#include <pwd.h>

#include "experiment/binary.h"
#include "experiment/gate.h"
#include "experiment/where.h"
#include "slices/attr/gate.h"
#include "common/input.h"
#include "common/trust.h"

/* Where row k keeps instance i's value. */
static void *key_field(struct parser *p, const struct key_def *k, size_t i)
{
	return (k->in_parser ? (char *)p : (char *)p->e) + k->offset + i * k->stride;
}

/* The name a message gives k: its own, or its member of experiment.json. */
static const char *key_name(const struct parser *p, const struct key_def *k, size_t i, char *buf, size_t len)
{
	char name[64];

	if (!p->from_json)
		return k->name;
	setting_json_name(k, name, sizeof(name));
	if (k->section == SECTION_EXPERIMENT)
		snprintf(buf, len, "$.%s", name);
	else if (section_table[k->section].named)
		snprintf(buf, len, "$.%ss[%zu].%s", section_table[k->section].name, i, name);
	else
		snprintf(buf, len, "$.%s.%s", section_table[k->section].name, name);
	return buf;
}

/* The line of k's value, or of the engine whose default it is. */
static unsigned key_line(const struct parser *p, const struct key_def *k, size_t i)
{
	return p->key_line[i][k - key_table] ?: line_of(p, KEY_ENGINE);
}

/* Is the program the same file as the engine's own (mysqld is mariadbd
 * here)? */
static bool same_program(const char *a, const char *b)
{
	_cleanup_free_ char *pa = NULL, *pb = NULL, *ra = NULL, *rb = NULL;

	if (!executable_in_path(a, &pa) || !executable_in_path(b, &pb))
		return false;
	ra = realpath(pa, NULL);
	rb = realpath(pb, NULL);
	return ra && rb && streq(ra, rb);
}

/* [server] binary, [proxy NAME] binary: a file root alone could have put
 * there; a results directory's server, the engine's own here. */
int allow_code_key(struct parser *p, const struct key_def *k, size_t i)
{
	const char *binary = *(char **)key_field(p, k, i);
	const struct server_engine *engine = server_engine_named(p->e->engine);
	char name[96];
	int r;

	if (!binary)
		return 0;
	r = check_code_file(p, binary, key_line(p, k, i), key_name(p, k, i, name, sizeof(name)));
	if (r < 0 || k != &key_table[KEY_BINARY] || !p->from_json || p->trust_code || !engine ||
	    same_program(binary, engine->binary))
		return r;
	return fail_at(p, 1, name, "%s chooses the program the server runs, and is not %s's own (%s) (explain --%s "
		       "takes it, for a directory you made yourself)", binary, engine->name, engine->binary,
		       "trust-results-code");
}

/* [neighbour NAME] command: its program, as a binary. */
int allow_command_key(struct parser *p, const struct key_def *k, size_t i)
{
	char *const *argv = *(char ***)key_field(p, k, i);

	return argv ? check_code_file(p, argv[0], key_line(p, k, i), k->name) : 0;
}

/* [server] user: the server's own account, which owns the datadir: a
 * portable name, never root, nor nobody (every unprivileged daemon's) nor
 * a person's (uid 1000 to 59999, Debian's login.defs); a system account or
 * one useradd --system will make. */
int allow_account_key(struct parser *p, const struct key_def *k, size_t i)
{
	const char *user = *(char **)key_field(p, k, i), *why = user ? user_name_refusal(user) : NULL;
	struct passwd *pw = user && !why ? getpwnam(user) : NULL;
	char name[96];

	if (pw && pw->pw_uid == 65534)
		why = "nobody is the account every unprivileged daemon shares";
	else if (pw && pw->pw_uid >= 1000 && pw->pw_uid < 60000)
		why = "a person's account, whose files the server could reach";
	return why ? fail_at(p, key_line(p, k, i), key_name(p, k, i, name, sizeof(name)), "bad value '%s' (%s)", user, why)
		   : 0;
}

/* [server] groups: each an account's own group (gate_group_refusal()). */
int allow_groups_key(struct parser *p, const struct key_def *k, size_t i)
{
	const char *groups = *(char **)key_field(p, k, i);
	_cleanup_(strv_freep) char **words = NULL;
	char name[96];

	if (!groups)
		return 0;
	if (strv_split_words(groups, &words) < 0)
		return -ENOMEM;
	for (char **g = words; *g; g++) {
		const char *why = gate_group_refusal(*g);

		if (why)
			return fail_at(p, key_line(p, k, i), key_name(p, k, i, name, sizeof(name)), "bad value '%s' (%s)", *g,
				       why);
	}
	return 0;
}

/* from = FILE: root reads it, through the reader of input (common/input.c:
 * a regular file, no link, no FIFO, bounded), and none of it is shown. */
int allow_input_key(struct parser *p, const struct key_def *k, size_t i)
{
	_cleanup_free_ char *path = NULL, *why = NULL;
	json_t *j;
	int r;

	if (!*(char **)key_field(p, k, i))
		return 0;
	r = where_path(p, p->from[i], &path);
	if (r < 0)
		return r;
	j = input_load_json(path, EXP_FILE_MAX, &why);
	json_decref(j);
	return j ? 0 : fail_at(p, key_line(p, k, i), k->name, "%s", why ? why : "cannot be read");
}

/* Each key row that can do anything, for each instance of its section. */
static int gate_keys(struct parser *p)
{
	for (const struct key_def *k = key_table; k < key_table + _KEY_MAX; k++) {
		const struct section_def *s = &section_table[k->section];
		size_t n = s->named ? *(size_t *)((char *)p->e + s->count) : 1;

		for (size_t i = 0; k->allow && i < n; i++) {
			int r = k->allow(p, k, i);

			if (r < 0)
				return r;
		}
	}
	return 0;
}

struct where {
	const char *section; /* "context", "proxy", "slice", "vary" */
	size_t i;
	const char *name;	/* the section's */
	const unsigned *lines;	/* each property's line, NULL for none */
	const char *const *from; /* where each came from when not its line, or NULL */
};

/* Each property of a list through gate_prop(). */
static int gate_props(struct parser *p, const struct prop_value *v, size_t n, const struct gate_policy *pol,
		      const struct where *w)
{
	for (size_t j = 0; j < n; j++) {
		_cleanup_free_ char *why = NULL;
		char key[160], power[160];
		int r = gate_prop(&v[j], pol, &why);

		if (r == -ENOMEM)
			return r;
		if (r == GATE_TRUSTED)
			log_warning("%s: %s: %s; taken, as --trust-results-code says", p->path, v[j].def->name, strempty(why));
		if (r >= 0)
			continue;
		if (p->from_json)
			snprintf(key, sizeof(key), "$.%s[%zu].properties.%s",
				 streq(w->section, "context") ? "context_specs" : streq(w->section, "proxy") ? "proxies" : "slices",
				 w->i, v[j].def->name);
		else
			(void)text_copy(key, sizeof(key), v[j].def->name);
		return fail_at(p, w->lines ? w->lines[j] : line_of(p, KEY_VARY_PROPERTY), key, "refused in [%s%s%s]%s%s: %s (%s=: %s)",
			       w->section, w->name && *w->name ? " " : "", strempty(w->name), w->from && w->from[j] ? ", from " : "",
			       w->from ? strempty(w->from[j]) : "", why ? why : strerror(-r), v[j].def->name,
			       gate_power_text(v[j].def->power, power, sizeof(power)));
	}
	return 0;
}

/* Every property of the experiment, and every [vary] value as the
 * property it replaces. */
static int gate_all_props(struct parser *p, const struct gate_policy *pol)
{
	struct experiment *e = p->e;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < e->n_contexts; i++)
		r = gate_props(p, e->contexts[i].props, e->contexts[i].n_props, pol,
			       &(struct where){ "context", i, e->contexts[i].name, p->prop_line[i], p->prop_source[i] });
	for (size_t i = 0; r >= 0 && i < e->n_proxies; i++)
		r = gate_props(p, e->proxies[i].props, e->proxies[i].n_props, pol,
			       &(struct where){ "proxy", i, e->proxies[i].name, p->proxy_prop_line[i], NULL });
	for (size_t i = 0; r >= 0 && i < e->n_slices; i++)
		r = gate_props(p, e->slices[i].props, e->slices[i].n_props, pol,
			       &(struct where){ "slice", i, e->slices[i].name, p->slice_prop_line[i], NULL });
	for (size_t v = 0; r >= 0 && v < e->n_vary; v++) {
		struct prop_value pv = {};

		if (prop_parse(e->vary->name, e->vary_values[v], &pv) >= 0)
			r = gate_props(p, &pv, 1, pol, &(struct where){ .section = "vary" });
		prop_value_done(&pv);
	}
	return r;
}

int experiment_gate_policy(const struct experiment *e, bool trust_code, struct gate_policy *ret)
{
	char **groups = NULL;

	if (e->server_groups && strv_split_words(e->server_groups, &groups) < 0)
		return -ENOMEM;
	*ret = (struct gate_policy){ .user = e->server_user, .groups = groups, .trust_code = trust_code };
	return 0;
}

void experiment_gate_policy_done(struct gate_policy *pol)
{
	strv_free((char **)pol->groups);
	pol->groups = NULL;
}

int experiment_gate(struct parser *p, bool trust_code)
{
	struct gate_policy pol = {};
	int r;

	if (p->msg)
		return -EINVAL;
	p->trust_code = trust_code;
	r = gate_keys(p);
	if (r >= 0)
		r = experiment_gate_policy(p->e, trust_code, &pol);
	if (r >= 0)
		r = gate_all_props(p, &pol);
	experiment_gate_policy_done(&pol);
	return r == -ENOMEM ? r : p->msg ? -EINVAL : 0;
}

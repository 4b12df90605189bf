/* An experiment as JSON: experiment.json of a results directory, which
 * records what ran, and the experiment read back from it (explain RESULTS,
 * run --resume), each setting through the key table's own parser. */
#include "experiment/gate.h"
#include "experiment/settings.h"
#include "experiment/check.h"
#include "experiment/parse.h"
#include "oltp/script.h"
#include "common/input.h"

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

	return json_pack("{s:s, s:s, s:s, s:o*, s:s?, s:s?, s:s?}", "name", c->name, "kind",
			 context_kind_to_string(c->kind), "session", word_name(session_words, c->session), "properties",
			 props, "client_cpus", e->client_cpus[i], "slice",
			 e->context_slice[i] >= 0 ? e->slices[e->context_slice[i]].name : NULL, "proxy",
			 experiment_proxy_of(e, i) >= 0 ? e->proxies[experiment_proxy_of(e, i)].name : NULL);
}

static json_t *proxies_to_json(const struct experiment *e)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < e->n_proxies; i++) {
		const struct context_spec *c = &e->proxies[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:s?, s:s, s:s, s:o*}", "name", c->name, "engine",
						   e->proxy_engine[i], "binary", e->proxy_binary[i], "kind",
						   context_kind_to_string(c->kind), "session",
						   word_name(session_words, c->session), "properties",
						   props_to_json(c->props, c->n_props)));
	}
	return a;
}

/* The sections of a record beside the settings, each only when the
 * experiment has it, so that runs made before them resume. */
static int sections_to_json(const struct experiment *e, json_t *j)
{
	if (e->n_slices && json_object_set_new(j, "slices", slices_to_json(e)) < 0)
		return -ENOMEM;
	if (e->n_proxies && json_object_set_new(j, "proxies", proxies_to_json(e)) < 0)
		return -ENOMEM;
	if (e->n_neighbours && json_object_set_new(j, "neighbours", neighbours_to_json(e)) < 0)
		return -ENOMEM;
	return 0;
}

static json_t *vary_to_json(const struct experiment *e)
{
	json_t *values;

	if (!e->n_vary)
		return json_null();
	values = json_array();
	for (size_t i = 0; values && i < e->n_vary; i++)
		json_array_append_new(values, json_string(e->vary_values[i]));
	/* mode only when not the default, so that runs made before it resume. */
	return json_pack("{s:s, s:o, s:s?, s:s?}", "property", e->vary->name, "values", values, "slice",
			 e->vary_slice >= 0 ? e->slices[e->vary_slice].name : NULL, "mode",
			 e->vary_modes == (VARY_RESTART | VARY_LIVE) ? "restart live"
			 : e->vary_modes == VARY_LIVE		     ? "live"
								     : NULL);
}

/* The user's scripts, what ran exactly: each one's content and SHA-256
 * (a script no longer there, of a run read back, is null). */
static int scripts_to_json(const struct experiment *e, json_t *j)
{
	if (!e->workload_scripts)
		return 0;
	return json_object_set_new(j, "scripts", oltp_scripts_json(e->workload_scripts) ?: json_null());
}

/* The file's own keys, its contexts and [vary] by hand; every setting by
 * the key table (experiment/settings.c). */
json_t *experiment_to_json(const struct experiment *e)
{
	json_t *j, *names = json_array(), *specs = json_array();

	for (size_t i = 0; i < e->n_contexts; i++) {
		json_array_append_new(names, json_string(e->contexts[i].name));
		json_array_append_new(specs, context_to_json(e, i));
	}
	j = json_pack("{s:s, s:s, s:s?, s:s, s:o, s:o, s:o}", "name", e->name, "path", e->path, "description",
		      e->description, "baseline", e->baseline, "contexts", names, "context_specs", specs, "vary",
		      vary_to_json(e));
	if (j && (settings_to_json(e, j) < 0 || sections_to_json(e, j) < 0 || scripts_to_json(e, j) < 0)) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

/* A record's "properties", {NAME: VALUE}, into l; l->what ("context")
 * and name say whose in the message. */
static int props_from_json(const json_t *j, const struct prop_list *l, const char *name, char **ret_msg)
{
	const char *key;
	json_t *v;

	json_object_foreach(json_object_get(j, "properties"), key, v)
	{
		if (*l->n == l->max || !json_is_string(v) || prop_parse(key, json_string_value(v), &l->v[*l->n]) < 0)
			return xasprintf(ret_msg, "experiment.json: %s %s: bad property %s", l->what, name, key), -EINVAL;
		(*l->n)++;
	}
	return 0;
}

/* One [context NAME] of experiment.json back into a spec. */
static int context_from_json(const json_t *j, struct experiment *e, char **ret_msg)
{
	struct context_spec *c = &e->contexts[e->n_contexts];
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *client = json_string_value(json_object_get(j, "client_cpus"));
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
	if (props_from_json(j, PROP_LIST(c, CONTEXT_PROPS_MAX, "context"), name, ret_msg) < 0)
		return -EINVAL;
	if (client && !(e->client_cpus[e->n_contexts - 1] = strdup(client)))
		return -ENOMEM;
	/* Slice= after the slices, which are read first. */
	if (json_is_string(json_object_get(j, "slice")))
		e->context_slice[e->n_contexts - 1] = find_slice(e, json_string_value(json_object_get(j, "slice")));
	return 0;
}

/* One [proxy NAME] of experiment.json back, through the key table's
 * own parser for its engine, binary, kind and session. */
static int proxy_from_json(struct parser *p, const json_t *j, char **ret_msg)
{
	struct experiment *e = p->e;
	const char *name = json_string_value(json_object_get(j, "name"));
	static const struct { enum key_id key; const char *field; } keys[] = {
		{ KEY_PROXY_ENGINE, "engine" }, { KEY_PROXY_BINARY, "binary" },
		{ KEY_PROXY_KIND, "kind" },	{ KEY_PROXY_SESSION, "session" },
	};

	if (e->n_proxies == EXP_PROXIES_MAX || !name_is_valid(name) ||
	    text_copy(e->proxies[e->n_proxies].name, sizeof(e->proxies[0].name), name) < 0)
		return xasprintf(ret_msg, "experiment.json: a proxy without a valid name"), -EINVAL;
	p->instance = e->n_proxies++;
	p->header_line[SECTION_PROXY][p->instance] = 1;
	for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
		const char *v = json_string_value(json_object_get(j, keys[k].field));

		if (!v)
			continue;
		p->key_line[p->instance][keys[k].key] = 1;
		if (set_key(p, &key_table[keys[k].key], v) < 0)
			return -EINVAL;
	}
	return props_from_json(j, PROP_LIST(&e->proxies[p->instance], CONTEXT_PROPS_MAX, "proxy"), name, ret_msg);
}

/* One slice of experiment.json back into a spec (parents come first). */
static int slice_from_json(const json_t *j, struct experiment *e, char **ret_msg)
{
	struct slice_spec *sl = &e->slices[e->n_slices];
	const char *name = json_string_value(json_object_get(j, "name"));

	if (e->n_slices == EXP_SLICES_MAX || !name || !slice_name_is_valid(name, NULL) ||
	    text_copy(sl->name, sizeof(sl->name), name) < 0)
		return xasprintf(ret_msg, "experiment.json: a slice without a valid name"), -EINVAL;
	e->n_slices++;
	return props_from_json(j, PROP_LIST(sl, SLICE_PROPS_MAX, "slice"), name, ret_msg);
}

/* The two keys that are not settings, as the run had them, so that
 * --resume DIR alone runs the same experiment. */
static int identity_from_json(struct parser *p, const json_t *j)
{
	for (size_t k = 0; k < 2; k++) {
		const struct key_def *def = &key_table[k ? KEY_BASELINE : KEY_DESCRIPTION];
		const char *text = json_string_value(json_object_get(j, def->name));

		if (text && *text && set_key(p, def, text) < 0)
			return -EINVAL;
	}
	return 0;
}

/* The user's scripts as the run recorded them, unchanged since: a
 * resumed run or an explain of the directory runs the same workload. */
static int scripts_unchanged(struct parser *p, const json_t *j)
{
	_cleanup_free_ char *why = NULL;
	int r = oltp_scripts_unchanged(json_object_get(j, "scripts"), &why);

	if (r == -ENOMEM)
		return r;
	return r < 0 ? fail_at(p, 1, "workload", "%s", why) : 0;
}

/* The contexts, each with the lines the file's checks look for. */
static int contexts_from_json(struct parser *p, const json_t *j, char **ret_msg)
{
	const json_t *v;
	size_t i;
	int r = 0;

	p->instance = 0;
	json_array_foreach(json_object_get(j, "context_specs"), i, v)
		if (r >= 0 && (r = context_from_json(v, p->e, ret_msg)) >= 0) {
			p->key_line[i][KEY_CONTEXT_KIND] = 1;
			p->header_line[SECTION_CONTEXT][i] = 1;
			if (json_is_string(json_object_get(v, "proxy"))) {
				p->key_line[i][KEY_CONTEXT_PROXY] = 1;
				if (text_copy(p->ctx_proxy[i], sizeof(p->ctx_proxy[i]),
					      json_string_value(json_object_get(v, "proxy"))) < 0)
					r = fail_at(p, 1, "proxy", "not the name of a [proxy] section");
			}
		}
	return r;
}

int experiment_from_results(const char *dir, bool trust_code, struct experiment *ret, char **ret_msg)
{
	_cleanup_free_ char *path = NULL;
	struct parser p = { .e = ret, .mode = cgroup_mode_detect(), .from_json = true };
	json_t *j, *v;
	size_t i;
	int r = 0;

	*ret = (struct experiment){};
	*ret_msg = NULL;
	if (xasprintf(&path, "%s/experiment.json", dir) < 0)
		return -ENOMEM;
	j = input_load_json(path, INPUT_JSON_MAX, ret_msg);
	if (!j)
		return -EINVAL;
	r = experiment_defaults(ret);
	if (r < 0) {
		json_decref(j);
		return r;
	}
	ret->path = strdup(path);
	p.path = ret->path;
	if (text_copy(ret->name, sizeof(ret->name), strempty(json_string_value(json_object_get(j, "name")))) < 0 ||
	    !json_is_object(j) || !name_is_valid(ret->name))
		r = fail_at(&p, 1, "name", "not the experiment of a slicebench run");
	if (r >= 0)
		r = settings_from_json(&p, j);
	if (r >= 0)
		r = identity_from_json(&p, j);
	json_array_foreach(json_object_get(j, "slices"), i, v)
		if (r >= 0)
			r = slice_from_json(v, ret, ret_msg);
	slices_link(ret);
	json_array_foreach(json_object_get(j, "proxies"), i, v)
		if (r >= 0)
			r = proxy_from_json(&p, v, ret_msg);
	if (r >= 0)
		r = contexts_from_json(&p, j, ret_msg);
	/* The checks of a whole file, as when the experiment was first read;
	 * the scripts read again only once the gate took their paths. */
	if (r >= 0 && !p.msg && check_file(&p) >= 0 && check_settings(&p) >= 0 && experiment_gate(&p, trust_code) >= 0)
		r = scripts_unchanged(&p, j);
	json_decref(j);
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

/* The experiment, the model the file is read into (experiment/parse.c):
 * finding a file, and what the run asks of a loaded experiment: each
 * context's spec with a vary value, its client, the server's settings, a
 * proxy added to an experiment made from another. */
#include <sys/stat.h>

#include "experiment/experiment.h"
#include "common/topology.h"
#include "slices/attr/placement.h"
#include "common/util.h"

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
	free(e->workload_scripts);
	free(e->binary);
	free(e->engine);
	free(e->buffer_pool);
	free(e->server_user);
	free(e->server_groups);
	for (size_t i = 0; i < e->n_contexts; i++)
		for (size_t j = 0; j < e->contexts[i].n_props; j++)
			prop_value_done(&e->contexts[i].props[j]);
	for (size_t i = 0; i < e->n_contexts; i++) {
		free(e->client_cpus[i]);
		free(e->mirror_notes[i]);
		if (e->replays[i])
			placement_done(e->replays[i]);
		free(e->replays[i]);
	}
	for (size_t i = 0; i < e->n_vary; i++)
		free(e->vary_values[i]);
	for (size_t i = 0; i < e->n_slices; i++)
		for (size_t j = 0; j < e->slices[i].n_props; j++)
			prop_value_done(&e->slices[i].props[j]);
	for (size_t i = 0; i < e->n_neighbours; i++)
		strv_free(e->neighbours[i].argv);
	for (size_t i = 0; i < e->n_proxies; i++) {
		for (size_t j = 0; j < e->proxies[i].n_props; j++)
			prop_value_done(&e->proxies[i].props[j]);
		free(e->proxy_engine[i]);
		free(e->proxy_binary[i]);
	}
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


void experiment_server_config(const struct experiment *e, struct server_config *ret)
{
	ret->engine = e->engine;
	ret->binary = e->binary;
	ret->buffer_pool = e->buffer_pool;
	ret->user = e->server_user;
	ret->max_connections = e->max_connections;
}

int experiment_add_proxy(struct experiment *to, const struct experiment *from, size_t k, const char *name,
			 const struct context_spec *spec)
{
	const char *binary = from->proxy_binary[k];
	size_t i;
	int r;

	if (!spec)
		spec = &from->proxies[k];
	for (i = 0; i < to->n_proxies; i++)
		if (streq(to->proxy_engine[i], from->proxy_engine[k]) && streq_ptr(to->proxy_binary[i], binary) &&
		    context_spec_same(&to->proxies[i], spec))
			return (int)i;
	if (to->n_proxies == EXP_PROXIES_MAX)
		return -E2BIG;
	i = to->n_proxies++;
	(void)text_copy(to->proxies[i].name, sizeof(to->proxies[i].name), name ? name : from->proxies[k].name);
	r = context_spec_copy(spec, &to->proxies[i]);
	if (r >= 0 && (!(to->proxy_engine[i] = strdup(from->proxy_engine[k])) ||
		       (binary && !(to->proxy_binary[i] = strdup(binary)))))
		r = -ENOMEM;
	return r < 0 ? r : (int)i;
}

/* The host facts of compare's model (report/model/facts.h): those that
 * decide a comparison across machines, shown for every host, and the
 * others flattened to dotted keys, of which only those whose values differ
 * are kept; and the one sentence of the facts two hosts differ in, which
 * compare of explanations prints. */
#include <stdio.h>
#include <string.h>

#include "report/model/facts.h"
#include "report/model/model.h"
#include "common/util.h"

/* The host facts a comparison across machines turns on: shown for every
 * host, differing or not, before the other facts that differ. */
struct host_fact {
	const char *key; /* the dotted key in host.json (flattened) */
	/* The value as text from the flattened facts; NULL: the key's value. */
	int (*value)(const json_t *flat, const struct host_fact *f, char **ret);
};

/* An array of scalars (cpu.l3_groups) as words: "0-7 8-15". */
static int fact_words(const json_t *flat, const struct host_fact *f, char **ret)
{
	const json_t *a = json_object_get(flat, f->key), *v;
	char buf[64], *s = NULL;
	size_t i;

	*ret = NULL;
	if (!json_is_array(a))
		return value_dup(a, ret);
	json_array_foreach(a, i, v)
	{
		const char *w = scalar_str(v, buf, sizeof(buf));
		char *n = NULL;

		if (xasprintf(&n, "%s%s%s", strempty(s), s ? " " : "", w ? w : "?") < 0) {
			free(s);
			return -ENOMEM;
		}
		free(s);
		s = n;
	}
	*ret = s;
	return 0;
}

/* The kernel's mitigations= switch, from its command line. */
static int fact_mitigations(const json_t *flat, const struct host_fact *f _unused_, char **ret)
{
	const char *cmdline = json_string_value(json_object_get(flat, "kernel.cmdline")), *p;

	*ret = NULL;
	if (!cmdline)
		return 0;
	for (p = cmdline; (p = strstr(p, "mitigations=")); p++)
		if (p == cmdline || p[-1] == ' ') {
			p += strlen("mitigations=");
			*ret = strndup(p, strcspn(p, " \t\n"));
			return *ret ? 0 : -ENOMEM;
		}
	*ret = strdup("auto (default)");
	return *ret ? 0 : -ENOMEM;
}

static const struct host_fact host_facts[] = {
	{ .key = "cpu.vendor" },
	{ .key = "cpu.model" },
	{ .key = "cpu.sockets" },
	{ .key = "cpu.cores" },
	{ .key = "cpu.threads" },
	{ .key = "cpu.l3_groups", .value = fact_words },
	{ .key = "kernel.release" },
	{ .key = "kernel.mitigations", .value = fact_mitigations },
	{ .key = "systemd.version" },
	{ .key = "cgroup.mode" },
};

_Static_assert(ELEMENTSOF(host_facts) == HOST_FACTS_N, "HOST_FACTS_N is host_facts[]'s size");

const char *host_fact_key(size_t k)
{
	return k < ELEMENTSOF(host_facts) ? host_facts[k].key : NULL;
}

static int flatten_into(const json_t *v, const char *prefix, json_t *out);

int host_fact_value(const json_t *flat, size_t k, char **ret)
{
	const struct host_fact *f = &host_facts[k];

	return f->value ? f->value(flat, f, ret) : value_dup(json_object_get(flat, f->key), ret);
}

int host_fact_values(const json_t *host, char **ret)
{
	json_t *flat = json_object();
	int r = flat ? 0 : -ENOMEM;

	for (size_t k = 0; k < ELEMENTSOF(host_facts); k++)
		ret[k] = NULL;
	if (r >= 0 && json_is_object(host))
		r = flatten_into(host, "", flat);
	for (size_t k = 0; r >= 0 && k < ELEMENTSOF(host_facts); k++) {
		const struct host_fact *f = &host_facts[k];

		r = f->value ? f->value(flat, f, &ret[k]) : value_dup(json_object_get(flat, f->key), &ret[k]);
	}
	json_decref(flat);
	if (r < 0)
		for (size_t k = 0; k < ELEMENTSOF(host_facts); k++) {
			free(ret[k]);
			ret[k] = NULL;
		}
	return r < 0 ? -ENOMEM : 0;
}

bool host_fact_is(const char *key)
{
	for (size_t i = 0; i < ELEMENTSOF(host_facts); i++)
		if (streq(host_facts[i].key, key))
			return true;
	return false;
}

bool host_fact_differs(char *const *vals, size_t n)
{
	for (size_t d = 1; d < n; d++)
		if (!streq_ptr(vals[0], vals[d]))
			return true;
	return false;
}


/* {"cpu": {"vendor": "X"}} into {"cpu.vendor": "X"}; arrays stay whole. */
static int flatten_into(const json_t *v, const char *prefix, json_t *out)
{
	const char *key;
	json_t *child;

	if (!json_is_object(v))
		return json_object_set(out, prefix, (json_t *)v);
	json_object_foreach((json_t *)v, key, child)
	{
		_cleanup_free_ char *name = NULL;
		int r;

		if (xasprintf(&name, "%s%s%s", prefix, *prefix ? "." : "", key) < 0)
			return -ENOMEM;
		r = flatten_into(child, name, out);
		if (r < 0)
			return r;
	}
	return 0;
}

int host_facts_flatten(const json_t *host, json_t *out)
{
	return flatten_into(host, "", out);
}

int compare_host_differences(const json_t *a, const json_t *b, char **ret)
{
	_cleanup_(json_decrefp) json_t *fa = json_object(), *fb = json_object();
	char *s = NULL;
	size_t len = 0, n = 0;
	FILE *f;
	int r = 0;

	*ret = NULL;
	if (!fa || !fb || flatten_into(a, "", fa) < 0 || flatten_into(b, "", fb) < 0 || !(f = open_memstream(&s, &len)))
		return -ENOMEM;
	for (size_t k = 0; k < ELEMENTSOF(host_facts) && r >= 0; k++) {
		const struct host_fact *h = &host_facts[k];
		_cleanup_free_ char *x = NULL, *y = NULL;

		r = h->value ? h->value(fa, h, &x) : value_dup(json_object_get(fa, h->key), &x);
		if (r >= 0)
			r = h->value ? h->value(fb, h, &y) : value_dup(json_object_get(fb, h->key), &y);
		if (r >= 0 && !streq_ptr(x, y))
			fprintf(f, "%s%s (%s against %s)", n++ ? ", " : "", h->key, x ?: "none", y ?: "none");
	}
	if (fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0 || n == 0) {
		free(s);
		return r;
	}
	*ret = s;
	return 0;
}

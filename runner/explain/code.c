/* What a results directory may choose when explain re-measures from it
 * (see code.h). */
#include <limits.h>
#include <stdio.h>

#include "explain/code.h"
#include "common/text.h"
#include "common/trust.h"
#include "common/util.h"

/* One value that names code: taken if the host's, else said (and counted). */
static void check_one(const char *file, const char *key, const char *name, const char *value, bool trusted,
		      unsigned *bad)
{
	_cleanup_free_ char *why = NULL, *shown = text_escape(value);
	int r = name ? trust_env_value(name, value, &why) : trust_code_file(value[0] == '-' ? value + 1 : value, &why);

	if (r >= 0)
		return;
	if (trusted) {
		log_warning("explain: %s: %s=%s chooses code that is not the host's (%s); taken, as --%s says", file, key,
			    strempty(shown), why ? why : strerror(-r), EXPLAIN_TRUST_OPTION);
		return;
	}
	log_error("explain: %s: %s=%s chooses code that root would run, and %s", file, key, strempty(shown),
		  why ? why : strerror(-r));
	(*bad)++;
}

/* A placement's environment (env.NAME, proxy.env.NAME): what a hybrid takes. */
static void check_placement(const struct placement *p, const char *path, bool trusted, unsigned *bad)
{
	for (size_t k = 0; k < p->n; k++) {
		const char *key = p->attrs[k].key;
		const char *name = strncmp(key, PLACEMENT_PROXY_PREFIX, strlen(PLACEMENT_PROXY_PREFIX)) == 0
					   ? key + strlen(PLACEMENT_PROXY_PREFIX) : key;

		if (strncmp(name, "env.", 4) == 0 && trust_env_chooses_code(name + 4))
			check_one(path, key, name + 4, p->attrs[k].value, trusted, bad);
	}
}

/* A section's Environment= (NAME=VALUE words) and EnvironmentFile=. */
static void check_spec(const struct context_spec *c, const char *file, bool trusted, unsigned *bad)
{
	char key[128];

	for (size_t i = 0; i < c->n_props; i++) {
		const char *row = c->props[i].def->name;

		snprintf(key, sizeof(key), "%s: %s", c->name, row);
		if (streq(row, "EnvironmentFile"))
			check_one(file, key, NULL, c->props[i].text, trusted, bad);
		if (!streq(row, "Environment") && !streq(row, "environment"))
			continue;
		for (char *const *w = c->props[i].strv; w && *w; w++) {
			_cleanup_free_ char *name = strndup(*w, strcspn(*w, "="));

			if (name && trust_env_chooses_code(name) && (*w)[strlen(name)] == '=') {
				snprintf(key, sizeof(key), "%s: %s=%s", c->name, row, name);
				check_one(file, key, name, *w + strlen(name) + 1, trusted, bad);
			}
		}
	}
}

/* The same program as the engine's own (mysqld is mariadbd here)? */
static bool same_program(const char *a, const char *b)
{
	_cleanup_free_ char *pa = NULL, *pb = NULL, *ra = NULL, *rb = NULL;

	if (!executable_in_path(a, &pa) || !executable_in_path(b, &pb))
		return false;
	ra = realpath(pa, NULL);
	rb = realpath(pb, NULL);
	return ra && rb && streq(ra, rb);
}

/* The server's binary: the host's own engine's, unless trusted. */
static void check_binary(const struct experiment *e, const char *file, bool trusted, unsigned *bad)
{
	const struct server_engine *engine = server_engine_named(e->engine);

	if (!e->binary || !engine || same_program(e->binary, engine->binary))
		return;
	if (trusted) {
		log_warning("explain: %s: binary=%s is not %s's own (%s); taken, as --%s says", file, e->binary, engine->name,
			    engine->binary, EXPLAIN_TRUST_OPTION);
		return;
	}
	log_error("explain: %s: binary=%s chooses the program the server runs, and is not %s's own (%s)", file,
		  e->binary, engine->name, engine->binary);
	(*bad)++;
}

int explain_check_code(const char *dir, const struct experiment *e, const struct placement *pa, const char *pa_path,
		       const struct placement *pb, const char *pb_path, bool trusted)
{
	_cleanup_free_ char *file = NULL;
	unsigned bad = 0;

	if (xasprintf(&file, "%s/experiment.json", dir) < 0)
		return log_error_errno(-ENOMEM, "explain: %m");
	check_binary(e, file, trusted, &bad);
	for (size_t i = 0; i < e->n_contexts; i++)
		check_spec(&e->contexts[i], file, trusted, &bad);
	for (size_t i = 0; i < e->n_proxies; i++)
		check_spec(&e->proxies[i], file, trusted, &bad);
	check_placement(pa, pa_path, trusted, &bad);
	check_placement(pb, pb_path, trusted, &bad);
	if (!bad)
		return 0;
	log_error("explain: refused: %s names code that is not the host's (%u setting%s above), which the hybrids would "
		  "run; --%s takes it, for a directory you made yourself",
		  dir, bad, bad == 1 ? "" : "s", EXPLAIN_TRUST_OPTION);
	return -EINVAL;
}

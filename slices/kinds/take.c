/* How a context that forks the server itself (raw, scope) takes one
 * attribute as another context's placement shows it: the setting that
 * reproduces the value read there.  explain builds its hybrids with these
 * (a shell-started server given the service's affinity, environment,
 * session, ...); each row of the attribute table names its own. */
#include <ctype.h>
#include <stdio.h>

#include "slices/attr/attrs.h"
#include "slices/attr/props.h"
#include "slices/kinds/context.h"
#include "common/secret.h"
#include "common/util.h"

/* Sets d to text in spec, replacing a setting of the same row. */
static int spec_put(struct context_spec *spec, const struct prop_def *d, const char *text)
{
	struct prop_value v;
	size_t i = 0;
	int r = prop_parse(d->name, text, &v);

	if (r < 0)
		return r == -ENOMEM ? r : -EOPNOTSUPP;
	while (i < spec->n_props && spec->props[i].def != d)
		i++;
	if (i == CONTEXT_PROPS_MAX) {
		prop_value_done(&v);
		return -E2BIG;
	}
	if (i < spec->n_props)
		prop_value_done(&spec->props[i]);
	else
		spec->n_props++;
	spec->props[i] = v;
	return 0;
}

/* The value of the row's first key, as the row's parser takes it (Nice's
 * "5", CPUAffinity's "0-1", User's "mysql", ...). */
int take_value(const struct placement *from, const struct prop_def *d, struct context_spec *to)
{
	const char *v = placement_get(from, d->keys[0]);

	return v ? spec_put(to, d, v) : -EOPNOTSUPP;
}

/* /proc/PID/limits says "unlimited" where systemd says infinity. */
int take_limit(const struct placement *from, const struct prop_def *d, struct context_spec *to)
{
	const char *v = placement_get(from, d->keys[0]);

	return !v ? -EOPNOTSUPP : spec_put(to, d, streq(v, "unlimited") ? "infinity" : v);
}

/* CapBnd's hex mask as the capability names the parser takes. */
int take_caps(const struct placement *from, const struct prop_def *d, struct context_spec *to)
{
	const char *v = placement_get(from, d->keys[0]);
	char names[2048] = "";
	unsigned long long mask;
	char *end;

	if (!v)
		return -EOPNOTSUPP;
	errno = 0;
	mask = strtoull(v, &end, 16);
	if (errno || *end || end == v)
		return -EOPNOTSUPP;
	for (unsigned cap = 0; cap < 64 && cap_name(cap); cap++)
		if (mask & (1ULL << cap))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", *names ? " " : "",
				 cap_name(cap));
	/* An empty bounding set has no words: the parser's "~all" is the inverse of every name. */
	return *names ? spec_put(to, d, names) : -EOPNOTSUPP;
}

/* The session: a leader of its own (a service's, or session = new) or
 * the starter's. */
int take_session(const struct placement *from, const struct prop_def *d _unused_, struct context_spec *to)
{
	const char *v = placement_get(from, "session.is_leader");

	if (!v || !context_ops_for(to->kind)->session)
		return -EOPNOTSUPP;
	to->session = streq(v, "yes") ? SESSION_NEW : SESSION_INHERIT;
	return 0;
}

/* The whole environment, as NAME=VALUE words: systemd's per-invocation
 * variables are left out (they name a start), a withheld secret or a
 * value with blanks cannot be reproduced from the placement. */
int take_environment(const struct placement *from, const struct prop_def *d, struct context_spec *to)
{
	_cleanup_free_ char *words = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&words, &len);
	bool first = true;

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < from->n; i++) {
		const char *k = from->attrs[i].key, *v = from->attrs[i].value;

		if (strncmp(k, "env.", 4) != 0 || placement_key_is_identity(k))
			continue;
		if (strstr(v, SECRET_WITHHELD_PART) || strstr(v, SECRET_WITHHELD) || strpbrk(v, " \t\n")) {
			fclose(f);
			return -EOPNOTSUPP;
		}
		fprintf(f, "%s%s=%s", first ? "" : " ", k + 4, v);
		first = false;
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	return spec_put(to, d, words);
}

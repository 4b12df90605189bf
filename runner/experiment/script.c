/* The user's own workload as the experiment takes it: its scripts' paths
 * (set_workload_scripts()) and the trust gate's column of them
 * (allow_script_key()).  What the tools do with them is oltp/script.c's. */
#include <limits.h>
#include <stdio.h>

#include "experiment/script.h"
#include "oltp/script.h"
#include "common/trust.h"

/* One word, "PATH[@WEIGHT]", its path made absolute, appended to *joined. */
static int add_script(struct parser *p, const struct key_def *k, const char *word, size_t len, char **joined)
{
	const char *at = memrchr(word, '@', len);
	size_t path_len = at ? (size_t)(at - word) : len;
	_cleanup_free_ char *given = strndup(word, path_len), *path = NULL, *real = NULL, *weight = NULL;
	char *more;

	if (!given || where_path(p, given, &path) < 0)
		return -ENOMEM;
	if (at && (len - path_len < 2 || strspn(at + 1, "0123456789") != len - path_len - 1 || len - path_len > 7))
		return fail_at(p, p->line, k->name, "bad weight '%.*s' of %s (a whole number, pgbench's @WEIGHT)",
			       (int)(len - path_len - 1), at + 1, given);
	/* experiment.json's are absolute already, and need not be there still. */
	real = p->from_json ? strdup(path) : realpath(path, NULL);
	if (!real)
		return errno == ENOMEM ? -ENOMEM : fail_at(p, p->line, k->name, "%s: %m", path);
	if (strchr(real, ' '))
		return fail_at(p, p->line, k->name, "%s: a script's path with a blank", real);
	if (at && !(weight = strndup(at, len - path_len)))
		return -ENOMEM;
	if (xasprintf(&more, "%s%s%s%s", strempty(*joined), *joined ? " " : "", real, strempty(weight)) < 0)
		return -ENOMEM;
	free(*joined);
	*joined = more;
	return 0;
}

int set_workload_scripts(struct parser *p, const struct key_def *k, const char *value)
{
	struct experiment *e = p->e;
	_cleanup_free_ char *joined = NULL;
	enum oltp_workload w;

	if (oltp_script_workload(value, &w) < 0)
		return -EINVAL;
	for (const char *s = value + strspn(value, " "); *s; s += strspn(s, " ")) {
		size_t len = strcspn(s, " ");
		int r = add_script(p, k, s, len, &joined);

		if (r < 0)
			return r;
		s += len;
	}
	if (w == OLTP_WORKLOAD_LUA_SCRIPT && strchr(joined, '@'))
		return fail_at(p, p->line, k->name, "a weight is pgbench's; sysbench runs one script");
	free(e->workload_scripts);
	e->workload_scripts = joined;
	e->oltp.scripts = joined;
	joined = NULL;
	e->oltp.workload = w;
	return 0;
}

/* Each script's file: root's alone, as a binary must be. */
static int trust_scripts(struct parser *p, const struct key_def *k, unsigned line)
{
	const char *s = p->e->workload_scripts;

	for (s += strspn(s, " "); *s; s += strspn(s, " ")) {
		size_t len = strcspn(s, " "), path_len = len;
		_cleanup_free_ char *path = NULL, *why = NULL;
		const char *at = memrchr(s, '@', len);
		int r;

		if (at)
			path_len = (size_t)(at - s);
		path = strndup(s, path_len);
		if (!path)
			return -ENOMEM;
		s += len;
		if (p->from_json && access(path, F_OK) < 0)
			continue;
		r = trust_code_file(path, &why);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return fail_at(p, line, k->name, "%s: refused, since a script is code that runs as root (%s); "
				       "copy it where root alone can change it", path, why ? why : strerror(-r));
	}
	return 0;
}

int allow_script_key(struct parser *p, const struct key_def *k, size_t i)
{
	unsigned line = p->key_line[i][k - key_table];
	_cleanup_free_ char *why = NULL;
	struct oltp_options o;
	int r;

	if (!p->e->workload_scripts)
		return oltp_workload_def(p->e->oltp.workload)->user_script
			       ? fail_at(p, line, k->name, "%s names no script: give the script's file",
					 oltp_workload_name(p->e->oltp.workload))
			       : 0;
	r = p->trust_code ? 0 : trust_scripts(p, k, line);
	if (r < 0 || p->from_json)
		return r;
	oltp_options_default(&o);
	o.workload = p->e->oltp.workload;
	o.scripts = p->e->workload_scripts;
	r = oltp_script_check(&o, &why);
	if (r == -ENOMEM)
		return r;
	return r < 0 ? fail_at(p, line, k->name, "%s", why ? why : strerror(-r)) : 0;
}

/* Where the experiment being read is (where.h): a message that names the
 * file's line, or the command line's option, of what was wrong. */
#include <stdarg.h>
#include <stdio.h>

#include "experiment/where.h"

/* The command line's option given as line, or key when none was. */
static const char *option_at_line(const struct parser *p, unsigned line, const char *key)
{
	for (size_t i = 0; line && i < _KEY_MAX; i++)
		if (p->key_line[0][i] == line && key_table[i].option)
			return key_table[i].option;
	return strempty(key);
}

int fail_at(struct parser *p, unsigned line, const char *key, const char *fmt, ...)
{
	_cleanup_free_ char *why = NULL;
	va_list ap;

	if (p->msg)
		return -EINVAL;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	if (p->options) /* the command line: the option at that line, else the key */
		xasprintf(&p->msg, "--%s: %s", option_at_line(p, line, key), why ? why : "bad input");
	else if (p->from_json) /* experiment.json has no lines worth naming */
		xasprintf(&p->msg, "%s: %s%s%s", p->path, strempty(key), key ? ": " : "", why ? why : "bad input");
	else
		xasprintf(&p->msg, "%s:%u: %s%s%s", p->path, line, strempty(key), key ? ": " : "", why ? why : "bad input");
	return -EINVAL;
}

char *section_instance_name(struct experiment *e, const struct section_def *s, size_t i)
{
	return (char *)e + s->names + i * s->stride;
}

const char *section_where(const struct parser *p, char *buf, size_t len)
{
	const struct section_def *s = &section_table[p->section];

	if (s->named)
		snprintf(buf, len, "[%s %s]", s->name, section_instance_name(p->e, s, p->instance));
	else
		snprintf(buf, len, "[%s]", s->name);
	return buf;
}

int where_path(const struct parser *p, const char *path, char **ret)
{
	const char *slash = strrchr(p->path, '/');

	if (path[0] == '/' || !slash)
		return (*ret = strdup(path)) ? 0 : -ENOMEM;
	return xasprintf(ret, "%.*s/%s", (int)(slash - p->path), p->path, path);
}

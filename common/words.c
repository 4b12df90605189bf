#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/words.h"

int word_lookup(const struct word *t, const char *s, int *ret)
{
	for (; s && t->name; t++)
		if (strcmp(t->name, s) == 0) {
			*ret = t->value;
			return 0;
		}
	return -EINVAL;
}

const char *word_name(const struct word *t, int value)
{
	for (; t->name; t++)
		if (t->value == value)
			return t->name;
	return NULL;
}

/* Whether t[i] is the first word of its value. */
static bool is_name(const struct word *t, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (t[k].value == t[i].value)
			return false;
	return true;
}

const char *word_join(const struct word *t, const char *sep, const char *last_sep, char *buf, size_t len)
{
	size_t n = 0, off = 0, seen = 0;

	for (size_t i = 0; t[i].name; i++)
		n += is_name(t, i);
	buf[0] = 0;
	for (size_t i = 0; t[i].name && off < len; i++) {
		if (!is_name(t, i))
			continue;
		seen++;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", seen == 1 ? "" : seen == n ? last_sep : sep, t[i].name);
	}
	return buf;
}

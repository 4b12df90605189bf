/* The words of an enum: one table per enum, the first word of a value its
 * name and any later word for the same value an alias, so that every
 * parser accepts the same words and every message lists them the same way.
 * A table ends with { NULL }. */
#pragma once

#include <stddef.h>

struct word {
	const char *name;
	int value;
};

/* The value of s; -EINVAL if no word of t is s. */
int word_lookup(const struct word *t, const char *s, int *ret);
/* The name of value, NULL if none. */
const char *word_name(const struct word *t, int value);
/* The name of each value joined by sep, the last two by last_sep, in buf. */
const char *word_join(const struct word *t, const char *sep, const char *last_sep, char *buf, size_t len);
/* "a, b or c", for messages and help. */
static inline const char *word_list(const struct word *t, char *buf, size_t len)
{
	return word_join(t, ", ", " or ", buf, len);
}

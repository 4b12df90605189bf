/* The key table's look-ups (key_table.c). */
#pragma once

#include <stddef.h>

#include "experiment/keys.h"

/* The row of key name in section s: a named one, else the section's
 * property row; NULL if neither. */
const struct key_def *key_find(enum section s, const char *name);
/* The names of s's keys but its property row, "a, b" + last_sep + "c". */
const char *key_list(enum section s, const char *last_sep, char *buf, size_t len);

/* The server's profile as explain quotes it beside the figures of
 * mechanism (explain/profile.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define EXPLAIN_PROFILE_STARTS_MAX 128

struct explain_record;
/* The paragraph comparing A's profiled steps among steps (a stage's) with
 * B's, at the record's level, into buf ("" where either has none).  0 or
 * -ENOMEM. */
int explain_profile_paragraph(const json_t *steps, const struct explain_record *r, char *buf, size_t len);

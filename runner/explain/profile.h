/* The server's profile as explain quotes it beside the figures of
 * mechanism (explain/profile.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define EXPLAIN_PROFILE_STARTS_MAX 128

/* What the paragraph needs of explain's record: the two contexts' names,
 * whether the closure of the factors is A, the level. */
struct explain_sides {
	const char *a, *b;
	bool closure_is_a;
	double level;
};

/* The paragraph comparing A's profiled steps among steps (a stage's, its
 * contexts named "a", "b", "closure" and "mix-..." as explain runs them)
 * with B's, into buf ("" where either has none).  0 or -ENOMEM. */
int explain_profile_paragraph(const json_t *steps, const struct explain_sides *s, char *buf, size_t len);

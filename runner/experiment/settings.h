/* The settings walked by the key table (settings.c). */
#pragma once

#include <jansson.h>

#include "experiment/where.h"

/* e's settings into experiment.json's j: [experiment]'s at its top,
 * [server]'s and [client]'s in members of their own.  -ENOMEM. */
int settings_to_json(const struct experiment *e, json_t *j);
/* j's settings into p's experiment, each through set_key() as if it came
 * from a file: the same ranges, words and checks. */
int settings_from_json(struct parser *p, const json_t *j);

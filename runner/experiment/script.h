/* workload = FILE.lua, or FILE.sql[@WEIGHT] ...: the user's own scripts
 * as the key table takes them (experiment/script.c). */
#pragma once

#include "experiment/where.h"

/* The scripts of value (oltp_script_workload() said it names some) into
 * e->workload_scripts: each path relative to the experiment file made
 * absolute, a pgbench weight a whole number; e->workload the scripts'. */
int set_workload_scripts(struct parser *p, const struct key_def *k, const char *value);

/* The gate's column of the workload row: each script a file root alone
 * could have put there (it is code root runs), then read by its tool,
 * which names the file and the line of what it cannot parse.  A results
 * directory's scripts are checked only where they still are. */
int allow_script_key(struct parser *p, const struct key_def *k, size_t i);

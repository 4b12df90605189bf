/* The user's own workload (oltp/script.c): the scripts of
 * oltp_options.scripts handed to their tool, checked by it before any
 * server starts, and recorded with their content and hash. */
#pragma once

#include <jansson.h>

#include "oltp/options.h"

struct tool_argv;

/* Whether a workload's value names the user's scripts rather than a
 * workload's word: "FILE.lua" (sysbench's) or "FILE.sql[@WEIGHT] ..."
 * (pgbench's), *ret the workload; -EINVAL if it names none. */
int oltp_script_workload(const char *value, enum oltp_workload *ret);

/* The scripts as the tool's arguments: sysbench's one path, pgbench's
 * --file=FILE[@WEIGHT] each. */
int oltp_script_args(const struct oltp_options *o, struct tool_argv *a);

/* The options the user's sysbench script declares, as its help lists
 * them ("  --tables=N ..."), in *ret_help (to free). */
int oltp_script_help(const struct oltp_options *o, char **ret_help);

/* 0 if o->workload's tool parses every script of o->scripts; -EINVAL with
 * the tool's own complaint ("x.lua:2: unexpected symbol near '='") in
 * *ret_why (to free) if not.  The scripts run as root here: only a script
 * the trust gate took may be checked. */
int oltp_script_check(const struct oltp_options *o, char **ret_why);

/* An array of {"file", "weight", "sha256", "bytes", "base64"} (the
 * content), one per script of scripts; NULL if one cannot be read (or no
 * memory). */
json_t *oltp_scripts_json(const char *scripts);
/* Whether the scripts recorded so (a results directory's) are the files
 * as they are now, by their SHA-256: 0; -ESTALE with *ret_why (to free)
 * naming the first that changed or cannot be read; -ENOMEM. */
int oltp_scripts_unchanged(const json_t *recorded, char **ret_why);

/* The managed server as the verbs use it: where its state lives, the
 * dedicated user it runs as in every context, and a start that is only
 * done when the server answers.  One server in one context as a whole
 * (its slices, proxy, client wiring, placement and stop) is
 * managed/unit.h's. */
#pragma once

#include "slices/kinds/context.h"
#include "slices/server/server.h"

/* The state and run directories (overridable by SLICEBENCH_STATE_DIR and
 * SLICEBENCH_RUN_DIR) and server_config_fill()'s defaults, for the fields
 * the caller left unset. */
void managed_config_default(struct server_config *cfg);
/* SLICEBENCH_STATE_DIR and SLICEBENCH_RUN_DIR, if set: absolute, without a
 * blank or a control character, no symbolic link, a directory if there
 * (the run directory root's alone).  -EINVAL with why in *ret_msg. */
int managed_check_environment(char **ret_msg);
/* useradd --system the dedicated user if it is missing; an existing user of
 * that name is used as it is. */
int managed_ensure_user(const char *name);
/* The state directory of a server set up by managed_setup() (its
 * datadir's parent), where the records of what starts are kept; NULL: no
 * memory. */
char *managed_state_dir(const struct server *s);
/* Starts the server in the context and waits until it answers a ping.  On
 * failure everything start made is cleaned up and *ret_msg (if not NULL)
 * holds the server log's last lines. */
int managed_start(struct context *c, char **ret_msg);
/* Everything before the first start, logged once as verb: the state
 * directory's lock for this process (-EBUSY if another slicebench holds
 * it), removal of what stale records name, the server's user, and its
 * datadir and option file. */
int managed_setup(const char *verb, const struct server_config *cfg, struct server *ret);
/* Stops the server and removes the context's units or cgroups. */
int managed_stop(struct context *c);

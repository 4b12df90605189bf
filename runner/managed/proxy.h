/* A context's [proxy] as the managed floor starts it. */
#pragma once

#include <stddef.h>

#include "slices/kinds/context.h"
#include "slices/server/server.h"

struct experiment;
/* The index-th [proxy] of e set up in front of backend (proxy_setup()). */
int managed_proxy_setup(const struct experiment *e, size_t i, const struct server *backend, struct server *ret);
/* The context the index-th [proxy] of e runs in for one start, around
 * proxy (managed_proxy_setup()'s): spec a copy of the section's (its
 * settings borrowed), named proxy-NAME so that its unit and cgroup stand
 * apart from any context's. */
void managed_proxy_context(const struct experiment *e, size_t i, const struct server *proxy, enum cgroup_mode mode,
			   struct context_spec *spec, struct context *ret);
/* The proxy's context for one unit (c->server the proxy's, set up by
 * managed_proxy_setup()): its account on the running backend, then the
 * proxy started and answering through to the server; on failure nothing
 * of the proxy's is left and *ret_msg says why.  managed_stop() stops it. */
int managed_proxy_start(struct context *c, const struct server *backend, char **ret_msg);

/* A context's [proxy]: its server set up once in front of the managed
 * one, its context for one start, and its start (its account on the
 * running backend first). */
#include <stdio.h>

#include "experiment/experiment.h"
#include "managed/managed.h"
#include "managed/proxy.h"
#include "slices/server/proxy.h"
#include "common/util.h"

int managed_proxy_setup(const struct experiment *e, size_t i, const struct server *backend, struct server *ret)
{
	return proxy_setup(proxy_engine_named(e->proxy_engine[i]), e->proxy_binary[i], e->proxies[i].name, (unsigned)i,
			   backend, e->max_connections, ret);
}

void managed_proxy_context(const struct experiment *e, size_t i, const struct server *proxy, enum cgroup_mode mode,
			   struct context_spec *spec, struct context *ret)
{
	*spec = e->proxies[i];
	snprintf(spec->name, sizeof(spec->name), "proxy-%s", e->proxies[i].name);
	*ret = (struct context){ .ops = context_ops_for(spec->kind), .spec = spec, .server = proxy, .mode = mode };
}

int managed_proxy_start(struct context *c, const struct server *backend, char **ret_msg)
{
	int r = proxy_account(c->server, backend);

	if (r < 0) {
		if (ret_msg)
			xasprintf(ret_msg, "the proxy's account %s cannot be made on the server", backend->user);
		return r;
	}
	return managed_start(c, ret_msg);
}

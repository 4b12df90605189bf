/* The tables that everything else is derived from, walked row by row: a
 * row that is incomplete or contradicts itself fails here, before any
 * context starts.  The kinds of context (slices/context.c). */
#include <string.h>

#include "slices/context.h"
#include "tap.h"
#include "common/util.h"

static void check_kinds(void)
{
	const char *all = context_kind_list(false), *with_session = context_kind_list(true);
	size_t n = 0;

	for (enum context_kind k = 0; context_ops_for(k); k++, n++) {
		const struct context_ops *o = context_ops_for(k);
		const char *name = o->name ? o->name : "(unnamed)";

		ok(o->name && name_is_valid(o->name), "kind %d has a valid name (%s)", (int)k, name);
		is_int(context_kind_from_string(name), k, "%s: parsing its name gives its row", name);
		ok(o->start && o->stop && o->cleanup, "%s: start, stop and cleanup", name);
		ok(strstr(all, name) != NULL, "%s is in the kind list of messages (%s)", name, all);
		ok(!o->session == !strstr(with_session, name), "%s: the session list (%s) agrees with .session", name,
		   with_session);
		/* systemd applies exec settings only to a unit it starts, and a
		 * unit of ours needs a manager to live on. */
		ok(!o->exec_by_systemd || o->unit_suffix, "%s: exec settings by systemd only with a unit of its own", name);
		ok(!o->unit_suffix || o->manager != MANAGER_NONE, "%s: a unit only with a manager", name);
		ok(o->cgroup != CGROUP_BY_SYSTEMD || o->manager != MANAGER_NONE, "%s: cgroup settings by systemd need a manager",
		   name);
		/* A kind that forks the server itself applies exec settings there,
		 * so it is the one that can choose the session too. */
		ok(!o->session || !o->exec_by_systemd, "%s: a session is chosen only where slicebench forks", name);
	}
	cmp_ok((double)n, ">=", 4, "at least the four kinds");
	is_int(context_kind_from_string("client"), CONTEXT_KIND_INVALID, "client is not a kind of context");
	is_int(context_kind_from_string(""), CONTEXT_KIND_INVALID, "nor is the empty string");
}

int main(void)
{
	check_kinds();
	return done_testing();
}

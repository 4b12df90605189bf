/* What a started server's placement adds to the snapshot: the unit and
 * slice its manager reports, the proxy's placement beside it, the
 * client's CPUs, a capture's comparison; and the warnings of settings not
 * in force. */
#include <pwd.h>

#include "slices/sys/bus.h"
#include "slices/attr/capture.h"
#include "slices/attr/snapshot.h"
#include "slices/server/proxy.h"
#include "oltp/options.h"
#include "common/topology.h"
#include "managed/placement.h"
#include "common/util.h"

void managed_warn_not_in_force(const char *what, const struct placement *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (strncmp(p->attrs[i].key, "in_force.", 9) == 0 && strncmp(p->attrs[i].value, "no", 2) == 0)
			log_warning("%s: %s= is not in force: %s", what, p->attrs[i].key + 9, p->attrs[i].value + 4);
}

int managed_replay_compare(const char *what, const struct context *c, struct placement *p)
{
	size_t same, total;
	int r;

	if (!c->spec->replays)
		return 0;
	r = capture_compare(c->spec->replays, p, &same, &total);
	if (r >= 0)
		log_info("%s: reproduced %zu of %zu attributes of the capture; differs: %s", what, same, total,
			 placement_get(p, "replay.differs"));
	return r;
}

int managed_unit_facts(sd_bus *bus, pid_t pid, struct placement *p)
{
	_cleanup_free_ char *unit = NULL, *slice = NULL;
	size_t n;
	int r;

	r = bus_get_unit_by_pid(bus, pid, &unit, NULL);
	if (r < 0)
		return r;
	/* Slice= lives on the unit type's own interface. */
	n = strlen(unit);
	r = bus_unit_get_string(bus, unit,
				n > 6 && streq(unit + n - 6, ".scope") ? "org.freedesktop.systemd1.Scope"
								       : "org.freedesktop.systemd1.Service",
				"Slice", &slice, NULL);
	if (r >= 0)
		r = placement_set(p, "unit", unit);
	if (r >= 0)
		r = placement_set(p, "slice", slice);
	return r;
}

int managed_systemd_facts(const struct context *c, struct placement *p)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	struct passwd *pw;
	int r;

	switch (c->ops->manager) {
	case MANAGER_SYSTEM:
		r = bus_open_system(&bus);
		break;
	case MANAGER_USER:
		pw = getpwnam(c->server->user);
		r = pw ? bus_open_user_manager(pw->pw_uid, &bus) : -ESRCH;
		break;
	default:
		return 0;
	}
	return r < 0 ? r : managed_unit_facts(bus, c->pid, p);
}

int managed_proxy_placement(const struct context *proxy, const struct server *backend, struct placement *p)
{
	_cleanup_(placement_done) struct placement q = {};
	_cleanup_free_ char *chain = NULL;
	const struct proxy_engine *pe = proxy_engine_of(proxy->server->engine);
	unsigned bad = 0;
	int r;

	r = placement_snapshot(proxy->pid, getpid(), proxy->mode, &q);
	if (r >= 0)
		r = managed_systemd_facts(proxy, &q);
	if (r >= 0)
		r = placement_verify(&q, proxy->spec, proxy->mode, &bad);
	if (r >= 0 && bad)
		managed_warn_not_in_force("proxy", &q);
	if (r >= 0)
		r = placement_set(&q, "engine", pe ? pe->name : proxy->server->engine->name);
	if (r >= 0)
		r = placement_setf(&q, "pid", "%d", (int)proxy->pid);
	for (size_t i = 0; r >= 0 && i < q.n; i++) {
		_cleanup_free_ char *key = NULL;

		r = xasprintf(&key, PLACEMENT_PROXY_PREFIX "%s", q.attrs[i].key);
		if (r >= 0)
			r = placement_set(p, key, q.attrs[i].value);
	}
	if (r >= 0 && pe)
		r = proxy_chain(pe, backend, &chain);
	if (r >= 0 && chain)
		r = placement_set(p, "chain", chain);
	return r;
}

int managed_client_placement(const struct oltp_options *o, struct placement *p)
{
	long cpus[OLTP_MAX_CPUS];
	char list[256] = "all";

	for (size_t k = 0; k < o->n_client_cpus; k++)
		cpus[k] = o->client_cpus[k];
	if (o->n_client_cpus && cpu_list_format(cpus, o->n_client_cpus, list, sizeof(list)) < 0)
		return -ENOMEM;
	return placement_set(p, "client.cpus", list);
}

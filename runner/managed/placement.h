/* What a started server's placement adds to the snapshot
 * (slices/attr/snapshot.h): the facts its manager reports, its proxy's
 * placement, the client's CPUs, a capture's comparison. */
#pragma once

#include <systemd/sd-bus.h>

#include "slices/kinds/context.h"
#include "slices/attr/placement.h"

/* One warning per setting that placement_verify() found not in force. */
void managed_warn_not_in_force(const char *what, const struct placement *p);
/* unit and slice as the context's manager reports them (GetUnitByPID and
 * the unit's Slice=), over the cgroup path's reading; raw: nothing. */
int managed_systemd_facts(const struct context *c, struct placement *p);
/* A context that replays a capture (from = FILE): its placement p
 * compared with the snapshot, replay.* set in p and said as what (the
 * unit's name) in one line; nothing for another context. */
int managed_replay_compare(const char *what, const struct context *c, struct placement *p);
/* The same for any process, on a bus already open (place --pid). */
int managed_unit_facts(sd_bus *bus, pid_t pid, struct placement *p);
/* The proxy's placement, read back and checked against its settings,
 * into p under PLACEMENT_PROXY_PREFIX, with the chain (proxy.engine,
 * chain) beside it. */
int managed_proxy_placement(const struct context *proxy, const struct server *backend, struct placement *p);
/* client.cpus: the CPUs a step pins the client threads to (o's, from
 * client-cpus or [client] cpus), "all" when none are given. */
struct oltp_options;
int managed_client_placement(const struct oltp_options *o, struct placement *p);

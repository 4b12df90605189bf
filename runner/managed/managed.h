/* The managed server as the verbs use it: where its state lives, the
 * dedicated user it runs as in every context, and a start that is only
 * done when the server answers. */
#pragma once

#include "slices/kinds/context.h"
#include "slices/around/neighbour.h"
#include "slices/server/server.h"
#include "slices/around/slice.h"

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
/* Starts the server in the context and waits until it answers a ping.  On
 * failure everything start made is cleaned up and *ret_msg (if not NULL)
 * holds the server log's last lines. */
int managed_start(struct context *c, char **ret_msg);
/* Everything before the first start, logged once as verb: the state
 * directory's lock for this process (-EBUSY if another slicebench holds
 * it), removal of what stale records name, the server's user, and its
 * datadir and option file. */
int managed_setup(const char *verb, const struct server_config *cfg, struct server *ret);
/* The experiment's slice tree for one server's run: made and recorded for
 * cleanup; on failure nothing is left and *ret_msg says why.  Stop removes
 * it (children first) and its record. */
int managed_slices_start(struct slice_tree *t, const struct server *s, char **ret_msg);
void managed_slices_stop(struct slice_tree *t, const struct server *s);
/* An oltp neighbour's own server: MariaDB in STATE/slicebench-neighbour-NAME
 * (its datadir made once, server_setup()'s), as the run's user, with a
 * small buffer pool and a socket directory of its own; logged once as verb. */
#define NEIGHBOUR_OLTP_BUFFER_POOL "32M"
#define NEIGHBOUR_OLTP_TABLE_SIZE 1000 /* its one sbtest table's rows */
int managed_neighbour_server_setup(const char *verb, const struct server_config *run_cfg, const char *name,
				   struct server *ret);
/* A neighbour for one step, started in its place, recorded for cleanup,
 * and (oltp) answering on its socket; on failure nothing is left and
 * *ret_msg says why.  Stop removes it and its record; n->failure stays
 * for the caller. */
int managed_neighbour_start(struct neighbour *n, const struct server *s, char **ret_msg);
void managed_neighbour_stop(struct neighbour *n, const struct server *s);
/* The index-th [proxy] of e set up in front of backend (proxy_setup()). */
struct experiment;
int managed_proxy_setup(const struct experiment *e, size_t i, const struct server *backend, struct server *ret);
/* The context the index-th [proxy] of e runs in for one start, around
 * proxy (managed_proxy_setup()'s): spec a copy of the section's (its
 * settings borrowed), named proxy-NAME so that its unit and cgroup stand
 * apart from any context's. */
void managed_proxy_context(const struct experiment *e, size_t i, const struct server *proxy, enum cgroup_mode mode,
			   struct context_spec *spec, struct context *ret);
/* The proxy's context for one unit (c->server the proxy's, set up by
 * proxy_setup()): its account on the running backend, then the proxy
 * started and answering through to the server; on failure nothing of the
 * proxy's is left and *ret_msg says why.  managed_stop() stops it. */
int managed_proxy_start(struct context *c, const struct server *backend, char **ret_msg);
/* The proxy's placement, read back and checked against its settings,
 * into p under PLACEMENT_PROXY_PREFIX, with the chain (proxy.engine,
 * chain) beside it. */
int managed_proxy_placement(const struct context *proxy, const struct server *backend, struct placement *p);

/* client.cpus: the CPUs a step pins the client threads to (o's, from
 * client-cpus or [client] cpus), "all" when none are given. */
struct oltp_options;
int managed_client_placement(const struct oltp_options *o, struct placement *p);

/* Stops the server and removes the context's units or cgroups. */
int managed_stop(struct context *c);

/* One warning per setting that placement_verify() found not in force. */
struct placement;
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

/* The experiment's neighbours as the managed floor starts them: an oltp
 * neighbour's own server, and a neighbour recorded for cleanup while it
 * runs. */
#pragma once

#include "slices/around/neighbour.h"
#include "slices/server/server.h"

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
 * for the caller.  s: the managed server, whose state directory keeps
 * the record. */
int managed_neighbour_start(struct neighbour *n, const struct server *s, char **ret_msg);
void managed_neighbour_stop(struct neighbour *n, const struct server *s);

/* The neighbours' part of the managed floor: an oltp neighbour's own
 * server set up once, and a neighbour started and stopped with its record
 * under STATE/live/. */
#include "managed/managed.h"
#include "managed/neighbour.h"
#include "managed/state.h"
#include "common/util.h"

int managed_neighbour_start(struct neighbour *n, const struct server *s, char **ret_msg)
{
	_cleanup_free_ char *state_dir = managed_state_dir(s);
	int r;

	if (!state_dir)
		return -ENOMEM;
	r = neighbour_start(n);
	/* Recorded while the step runs, and before a server comes up, for
	 * cleanup after a SIGKILL. */
	if (r >= 0 && (r = state_record_neighbour(state_dir, n)) < 0)
		neighbour_stop(n);
	if (r >= 0 && (r = neighbour_wait_ready(n)) < 0)
		state_forget_neighbour(state_dir, n);
	if (r < 0 && ret_msg && n->failure) {
		*ret_msg = n->failure;
		n->failure = NULL;
	}
	return r;
}

int managed_neighbour_server_setup(const char *verb, const struct server_config *run_cfg, const char *name,
				   struct server *ret)
{
	_cleanup_free_ char *state_dir = NULL;
	struct server_config cfg = { .engine = server_engine_mariadb.name, .run_dir = run_cfg->run_dir,
				     .user = run_cfg->user, .buffer_pool = NEIGHBOUR_OLTP_BUFFER_POOL,
				     .out_fd = run_cfg->out_fd };
	int r;

	if (xasprintf(&state_dir, "%s/slicebench-neighbour-%s", run_cfg->state_dir, name) < 0)
		return log_error_errno(-ENOMEM, "%s: neighbour %s: %m", verb, name);
	cfg.state_dir = state_dir;
	r = server_setup(&cfg, ret);
	if (r < 0)
		return log_error_errno(r, "%s: cannot set up neighbour %s's server in %s: %m%s", verb, name, state_dir,
				       r == -EEXIST ? " (a datadir there that slicebench did not make; refusing to touch it)"
				       : r == -EINTR ? " (interrupted; the half-made datadir is removed)"
						     : "");
	return 0;
}

void managed_neighbour_stop(struct neighbour *n, const struct server *s)
{
	_cleanup_free_ char *state_dir = managed_state_dir(s);

	neighbour_stop(n);
	if (state_dir)
		state_forget_neighbour(state_dir, n);
}

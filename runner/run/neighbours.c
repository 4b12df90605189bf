/* The experiment's neighbours beside one step: a hog, a command or a
 * second server with its own client, each in its slice of the unit's tree
 * or the kind's default place, started before the step's warm-up and
 * stopped after it. */
#include "run/runner.h"
#include "managed/neighbour.h"

/* One step's neighbours: their processes in their places, and the oltp
 * neighbours' clients. */
struct step_neighbours {
	struct neighbour nb[EXP_NEIGHBOURS_MAX];
	struct oltp_background *client[EXP_NEIGHBOURS_MAX];
	size_t n;
};

/* The oltp neighbours' clients stopped, before their servers are: their
 * TPS in s's measured seconds into s (NULL: not wanted), and a client that failed on its own
 * fails the step with its reason. */
static void step_clients_stop(struct step_neighbours *sn, struct step_result *s)
{
	for (size_t i = 0; i < sn->n; i++) {
		struct step_result c = {};
		int r;

		if (!sn->client[i])
			continue;
		r = oltp_background_stop(sn->client[i], s, &c);
		sn->client[i] = NULL;
		if (s && r >= 0 && s->n_neighbour_tps < OLTP_NEIGHBOURS_MAX) {
			s->neighbour_tps_names[s->n_neighbour_tps] = sn->nb[i].spec->name;
			s->neighbour_tps[s->n_neighbour_tps++] = c.tps;
		}
		if (s && !s->failed && (r < 0 || c.failed)) {
			s->failed = true;
			snprintf(s->reason, sizeof(s->reason), "neighbour %s's client: %.190s", sn->nb[i].spec->name,
				 r < 0 ? strerror(-r) : c.reason);
		}
		step_result_done(&c);
	}
}

static void step_neighbours_stop(struct runner *rn, struct step_neighbours *sn)
{
	step_clients_stop(sn, NULL);
	for (size_t i = 0; i < sn->n; i++) {
		managed_neighbour_stop(&sn->nb[i], &rn->servers.server);
		neighbour_done(&sn->nb[i]);
	}
	sn->n = 0;
}

/* An oltp neighbour's server, once it answers: its small table made (or
 * found, from an earlier step) and its client started against it. */
static int neighbour_client_start(struct neighbour *n, struct oltp_background **ret, char **ret_msg)
{
	_cleanup_free_ char *msg = NULL;
	struct oltp_options o;
	int r;

	oltp_options_default(&o);
	o.socket = n->server->socket;
	o.table_size = NEIGHBOUR_OLTP_TABLE_SIZE;
	o.server_pid = n->pid; /* its client fails once its server is gone */
	r = oltp_prepare(&o, &msg);
	if (r >= 0)
		r = oltp_background_start(&o, n->spec->threads, ret);
	if (r < 0)
		xasprintf(ret_msg, "neighbour %s: %s: %s", n->spec->name, msg ? "preparing its table" : "starting its client",
			  msg ? msg : strerror(-r));
	return r;
}

/* The experiment's neighbours for one step, each in its slice of the
 * unit's tree or the kind's default place, made as the server's context
 * makes its own; their cpu cgroups go to the step's telemetry.  On failure
 * none is left and *ret_msg says why. */
static int step_neighbours_start(struct runner *rn, const struct managed_unit *u, struct step_neighbours *sn,
				 struct oltp_options *o, char **ret_msg)
{
	const struct experiment *e = rn->e;
	const struct context *c = &u->c;
	int r = 0;

	o->n_neighbours = 0;
	for (size_t i = 0; i < e->n_neighbours && r >= 0; i++) {
		int slice = e->neighbour_slice[i];
		struct neighbour *n = &sn->nb[i];

		*n = (struct neighbour){ .spec = &e->neighbours[i], .mode = c->mode,
					 .by_systemd = c->ops->manager != MANAGER_NONE,
					 .slice = slice >= 0 ? slice_tree_slot(&u->tree, (size_t)slice) : NULL,
					 .server = &rn->servers.neighbours[i], .user = rn->servers.server.user };
		r = managed_neighbour_start(n, &rn->servers.server, ret_msg);
		if (r < 0) {
			neighbour_done(n);
			break;
		}
		sn->n++;
		if (n->spec->kind == NEIGHBOUR_OLTP)
			r = neighbour_client_start(n, &sn->client[i], ret_msg);
		o->neighbour_names[i] = n->spec->name;
		o->neighbour_cpu_cgroups[i] = n->cpu_dir;
		o->neighbour_pids[i] = n->pid;
		o->n_neighbours++;
	}
	if (r < 0)
		step_neighbours_stop(rn, sn);
	return r;
}

/* One step with the experiment's neighbours beside it: they start before
 * its warm-up and stop after it, and one that ended on its own during the
 * step fails the step.  o is the step's copy of the unit's options, which
 * must live as long as *s: its samples name the neighbours from it. */
int runner_step(struct runner *rn, const struct managed_unit *u, struct oltp_options *o, unsigned threads,
		struct step_result *s)
{
	struct step_neighbours sn = {};
	_cleanup_free_ char *msg = NULL;
	int r;

	r = step_neighbours_start(rn, u, &sn, o, &msg);
	if (r < 0) {
		*s = (struct step_result){ .threads = threads, .failed = true };
		(void)text_copy(s->reason, sizeof(s->reason), msg ? msg : strerror(-r));
		return 0;
	}
	r = oltp_step(o, threads, s);
	/* A server that died says so better than its client's lost connections. */
	for (size_t i = 0; r >= 0 && i < sn.n; i++)
		if (neighbour_check(&sn.nb[i]) < 0 && !s->failed) {
			s->failed = true;
			(void)text_copy(s->reason, sizeof(s->reason), strempty(sn.nb[i].failure));
		}
	step_clients_stop(&sn, r >= 0 ? s : NULL);
	step_neighbours_stop(rn, &sn);
	return r;
}

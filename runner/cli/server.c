/* The managed server around the work of sweep and place: set up, a unit
 * started in a context of the command line or of --experiment, stopped
 * (or kept) afterwards. */
#include <stdio.h>

#include "slices/sys/cgmode.h"
#include "cli/args.h"
#include "common/interrupt.h"
#include "experiment/experiment.h"
#include "experiment/parse.h"
#include "managed/unit.h"
#include "common/util.h"

/* Whatever of the unit did not start, said: the server's failure or its
 * proxy's. */
static void unit_start_failed(const struct managed_unit *u, int r, const char *msg)
{
	if (u->proxy_failed)
		log_error("%s: %s: [proxy %s] did not start as %s: %s", u->verb, u->names.name,
			  u->e->proxies[u->proxy_index].name, context_kind_to_string(u->proxy_spec.kind), strempty(msg));
	else
		log_error_errno(r, "%s: %s: the server did not start as %s: %m%s%s", u->verb, u->names.name,
				context_kind_to_string(u->spec.kind), msg ? "; " : "", strempty(msg));
}

int cli_unit_run(struct sweep_args *a, struct managed_unit *u, int (*f)(struct sweep_args *, struct managed_unit *))
{
	_cleanup_free_ char *msg = NULL;
	int r, result;

	r = managed_unit_init(u);
	if (r < 0)
		return log_error_errno(r, "%s: %s: %m", u->verb, u->given ? u->given->name : u->e->contexts[u->ctx].name);
	r = managed_unit_start(u, &a->o, &msg);
	if (r < 0) {
		unit_start_failed(u, r, msg);
		managed_unit_stop(u);
		return r;
	}
	result = interrupt_signal ? -EINTR : f(a, u);
	if (a->keep_this && !interrupt_signal) {
		fprintf(stderr, "%s: left %s running (PID %d); slicebench cleanup stops it\n", u->verb, u->names.name,
			(int)u->c.pid);
		managed_unit_leave(u);
		return result;
	}
	r = managed_unit_stop(u);
	if (r < 0)
		log_warning_errno(r, "%s: %s: stopping the server: %m", u->verb, u->names.name);
	return interrupt_signal ? -EINTR : result;
}

int cli_servers_setup(const char *verb, const struct sweep_args *a, struct managed_servers *ret)
{
	/* Before the first child: a signal from here on ends the verb cleanly. */
	interrupt_catch();
	return managed_servers_setup(verb, a->loaded ? a->loaded : &a->e, -1, ret);
}

int with_managed_server(const char *verb, struct sweep_args *a, int (*f)(struct sweep_args *, struct managed_unit *))
{
	struct managed_servers s = {};
	struct managed_unit u = { .verb = verb, .e = &a->e, .servers = &s, .given = &a->spec };
	int r;

	r = cli_servers_setup(verb, a, &s);
	if (r >= 0)
		r = cli_unit_run(a, &u, f);
	managed_servers_done(&s);
	return r;
}

void sweep_args_done(struct sweep_args *a)
{
	for (size_t i = 0; i < a->spec.n_props; i++)
		prop_value_done(&a->spec.props[i]);
	a->spec.n_props = 0;
	experiment_done(&a->e);
	if (a->settings)
		free(a->settings->msg);
	free(a->settings);
	a->settings = NULL;
}


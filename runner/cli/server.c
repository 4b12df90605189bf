/* The managed server around the work of sweep and place: set up, started
 * in the context of the command line, stopped (or kept) afterwards. */
#include <stdio.h>

#include "slices/sys/cgmode.h"
#include "cli/args.h"
#include "common/interrupt.h"
#include "experiment/experiment.h"
#include "experiment/parse.h"
#include "managed/managed.h"
#include "common/util.h"

int with_managed_server(const char *verb, struct sweep_args *a, int (*f)(struct sweep_args *, struct context *))
{
	_cleanup_free_ char *msg = NULL, *cpu_dir = NULL, *usage_dir = NULL;
	struct server_config cfg = {};
	struct server s = {};
	struct context c = {};
	int r, result;

	/* Before the first child: a signal from here on ends the verb cleanly. */
	interrupt_catch();
	if (a->loaded)
		experiment_server_config(a->loaded, &cfg);
	else
		cfg.engine = a->engine;
	managed_config_default(&cfg);
	r = managed_setup(verb, &cfg, &s);
	if (r < 0)
		return r;
	c = (struct context){ .ops = context_ops_for(a->spec.kind), .spec = &a->spec, .server = &s,
			      .mode = cgroup_mode_detect() };
	r = managed_start(&c, &msg);
	if (r < 0) {
		log_error_errno(r, "%s: the server did not start as %s: %m%s%s", verb, context_kind_to_string(a->spec.kind),
				msg ? "; " : "", strempty(msg));
		server_done(&s);
		return r;
	}
	a->o.socket = s.socket;
	a->o.server_pid = c.pid;
	if (cgroup_cpu_dir(c.pid, c.mode, &cpu_dir) >= 0)
		a->o.server_cpu_cgroup = cpu_dir;
	if (cgroup_own_usage_dir(c.pid, c.mode, &usage_dir) >= 0)
		a->o.server_usage_cgroup = usage_dir;
	result = interrupt_signal ? -EINTR : f(a, &c);
	if (a->keep_this && !interrupt_signal) {
		/* Its record stays under STATE/live/, so that cleanup stops it. */
		fprintf(stderr, "%s: left %s running (PID %d); slicebench cleanup stops it\n", verb, a->spec.name,
			(int)c.pid);
		server_done(&s);
		return result;
	}
	r = managed_stop(&c);
	if (r < 0)
		log_warning_errno(r, "%s: stopping the server: %m", verb);
	server_done(&s);
	return interrupt_signal ? -EINTR : result;
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


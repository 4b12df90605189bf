/* The options prepare, sweep and place share (the server, the dataset, the
 * workload, the context), parsed into one struct, and the managed server
 * that sweep and place start around their work. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cli/options.h"
#include "experiment/experiment.h"
#include "oltp/options.h"
#include "slices/kinds/context.h"

#define SWEEP_MAX_STEPS EXP_THREADS_MAX

struct parser;
struct sweep_args {
	/* The settings an experiment file gives too, parsed by the key
	 * table's rows into e; what they make of o, threads, spec and engine
	 * is set after the parse. */
	struct experiment e;
	struct parser *settings;
	struct oltp_options o;
	long threads[SWEEP_MAX_STEPS];
	size_t n_threads;
	bool json;
	bool in_context; /* --context: start the managed server there */
	struct context_spec spec;
	/* place: the contexts named on the command line, and where to put
	 * their snapshots when there are several */
	const char *experiment;
	const struct experiment *loaded; /* its [server] settings apply */
	const char *engine;		 /* --engine, or the workload's; NULL: the default */
	char **places;
	size_t n_places;
	bool keep, keep_this;
	json_t *all;
	long server_pid; /* --server-pid, into o.server_pid */
	/* place --pid, --unit: a running server captured, nothing started */
	long pid;
	const char *unit;
};

extern const struct cli_verb cli_prepare, cli_sweep, cli_place;

/* The command line of one of the three.  signify's shape: <0 bad usage
 * (logged), 0 help printed, >0 go on. */
int sweep_parse_argv(const struct cli_verb *v, int argc, char **argv, struct sweep_args *a);
void sweep_args_done(struct sweep_args *a);

/* place --pid PID, place --unit NAME (runner/cli/capture.c): the
 * snapshot of a server slicebench did not start, printed; 0 or -errno,
 * logged (-EINVAL: no such process or unit). */
int place_capture(const struct sweep_args *a);

/* The dataset of o, made or checked; logged as verb. */
int cli_prepare_dataset(const char *verb, const struct oltp_options *o);

/* The servers of --experiment, else of the command line's settings, set
 * up once before the first unit (managed_servers_setup()), after
 * interrupt_catch(). */
struct managed_servers;
struct managed_unit;
int cli_servers_setup(const char *verb, const struct sweep_args *a, struct managed_servers *ret);
/* Unit u (verb, e, servers and its context given) started with a->o
 * pointed at it, f run with it, and stopped, or left running with
 * a->keep_this.  Returns f's result (0 or -errno, logged), -EINTR when a
 * signal came, or -errno (logged) if it did not start. */
int cli_unit_run(struct sweep_args *a, struct managed_unit *u, int (*f)(struct sweep_args *, struct managed_unit *));
/* The managed server started in a->spec (cli_servers_setup() and
 * cli_unit_run() for one unit). */
int with_managed_server(const char *verb, struct sweep_args *a, int (*f)(struct sweep_args *, struct managed_unit *));

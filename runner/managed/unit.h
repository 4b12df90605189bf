/* One server started in one context: the core object that run, place and
 * sweep share, as sysbench's sb_operations_t is for a test but without
 * its globals.  A unit is made from an experiment, a context and a vary
 * value; its start makes the experiment's slices, starts the server and
 * waits until it answers, starts the context's [proxy] in front of it and
 * points the client's options at them; its placement is read back in one
 * sequence with one error policy; its stop undoes whatever of that was
 * made, in the reverse order.  The servers it starts are set up once per
 * verb (struct managed_servers). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "experiment/experiment.h"
#include "slices/around/slice.h"
#include "slices/attr/placement.h"
#include "slices/kinds/context.h"
#include "slices/server/datadir.h"
#include "slices/server/server.h"

struct oltp_options;

/* The servers a verb starts, set up once before its first unit. */
struct managed_servers {
	struct server server;
	struct server neighbours[EXP_NEIGHBOURS_MAX]; /* the oltp neighbours' own, by index */
	struct server proxies[EXP_PROXIES_MAX];       /* [proxy NAME]'s, by index */
	/* The dataset's template datadir (slices/server/datadir.h), of which
	 * each unit's server takes a pristine copy before it starts; NULL:
	 * none, the datadir as it is. */
	struct datadir_template *template;
};

/* Everything before the first start, logged once as verb: the managed
 * server with e's [server] settings (managed_setup()), and e's proxies
 * in front of it; a datadir made now writes its installer's chatter to
 * out_fd (-1: the terminal's). */
int managed_servers_setup(const char *verb, const struct experiment *e, int out_fd, struct managed_servers *ret);
/* e's oltp neighbours' own servers, for the steps that start them beside
 * a unit; logged once as verb. */
int managed_servers_neighbours(const char *verb, const struct experiment *e, int out_fd, struct managed_servers *s);
/* What every server forked prints goes to fd (a run's log). */
void managed_servers_output_to(struct managed_servers *s, int fd);
void managed_servers_done(struct managed_servers *s);

/* A unit's names, made in one place: the column its steps are recorded
 * under (the context's name, or NAME-live for mode = live's units beside
 * restart's) and its name in the results directory (results_unit_name()).
 * -ENAMETOOLONG if either would be cut. */
struct managed_unit_names {
	char column[64];
	char name[96];
};
int managed_unit_names(const struct experiment *e, size_t ctx, size_t v, unsigned repeat, bool live,
		       struct managed_unit_names *ret);

/* What a unit's start is doing, for the caller's progress line. */
enum managed_stage {
	MANAGED_STARTING_SERVER,
	MANAGED_COPIED_DATADIR, /* the pristine copy of the template is made (u->copy) */
	MANAGED_STARTING_PROXY,
};

struct managed_unit {
	/* Given before managed_unit_init(). */
	const char *verb; /* what its warnings begin with */
	const struct experiment *e;
	struct managed_servers *servers;
	size_t ctx, v;	 /* e's context and vary value */
	unsigned repeat; /* from 1 in a run; 0: none (place, sweep), and the unit is named by its context alone */
	bool live;	 /* one of mode = live's units */
	/* A context that is not one of e's (place's kinds, sweep --context):
	 * its spec, validated; e gives the settings only.  NULL: e's ctx. */
	const struct context_spec *given;
	/* Progress: called as each stage of the start begins; NULL: none. */
	void (*progress)(void *userdata, const struct managed_unit *u, enum managed_stage stage);
	void *userdata;

	/* Its names (managed_unit_init(), managed_unit_at_value()). */
	struct managed_unit_names names;

	/* Made by managed_unit_start(), undone by managed_unit_stop(). */
	struct context_spec spec;
	struct context c; /* c.ops NULL: the spec could not be made, nothing started */
	struct datadir_copy copy; /* the server's pristine datadir, with a template */
	pid_t server_pid; /* the server's PID as it started; c.pid is 0 once it is gone */
	struct slice_tree tree;
	struct prop_value slice_vary; /* a [vary] value that goes to a slice */
	char *cpu_dir, *usage_dir;    /* the server's cgroups, which the step's telemetry reads */
	bool started;		      /* managed_start() succeeded */
	int proxy_index;	      /* its [proxy] in e->proxies; -1: none */
	struct context_spec proxy_spec;
	struct context proxy; /* named proxy-NAME: its unit and cgroup apart from any context's */
	bool proxy_started;
	bool proxy_failed; /* the server started, and the proxy did not */
};

/* Its names made; nothing started.  <0 (not logged) if a name would be
 * cut. */
int managed_unit_init(struct managed_unit *u);
/* mode = live: the same running unit at another vary value, renamed. */
int managed_unit_at_value(struct managed_unit *u, size_t v);
/* The unit started: a pristine copy of the dataset's template, the
 * experiment's slices, the server answering in its context (the vary
 * value's spec), the context's proxy in front of it, and
 * o pointed at them (socket, PIDs, cgroups, the context's client CPUs).
 * On failure *ret_msg says why and managed_unit_stop() undoes what was
 * made; u->proxy_failed says the server started and its proxy did not
 * (-EIO).  Nothing logged. */
int managed_unit_start(struct managed_unit *u, struct oltp_options *o, char **ret_msg);
/* The placement of the started unit, one sequence for run, place and
 * sweep: the snapshot, checked against its settings (a setting not in
 * force is warned), the facts the server and its manager report and its
 * slices' settings (each warned and left out if it cannot be read), the
 * proxy's placement, the client's CPUs (o's), a capture's comparison. */
int managed_unit_placement(const struct managed_unit *u, const struct oltp_options *o, struct placement *p);
/* Undoes managed_unit_start, in any state it left: the proxy stopped,
 * then the server, then the slices removed. */
int managed_unit_stop(struct managed_unit *u);
/* place --keep: the server and its proxy left running and recorded, so
 * that `slicebench cleanup` stops them; the unit's memory freed. */
void managed_unit_leave(struct managed_unit *u);

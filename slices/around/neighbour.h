/* Neighbours: a competing workload beside the server, as a real host has
 * its backups and agents.  Each runs in a place of its own, made as the
 * server's context makes its own: a transient scope on the system manager
 * for the systemd kinds, a cgroup in cgroupfs for raw; in a slice of the
 * experiment's, or the kind's default place (system.slice, the root).  It
 * carries slicebench's prefix (slicebench-neighbour-NAME-PID.scope,
 * slicebench-raw-neighbour-NAME-PID), so that cleanup finds it, and its
 * cgroup's CPU time is what the step's telemetry records for it.  An oltp
 * neighbour's process is a second managed server (slices/server/server.h)
 * of its own datadir and socket; its client is the run's (runner/run).
 * Nothing here logs; a failure is said in n->failure. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "common/words.h"
#include "slices/sys/cgmode.h"

struct server;

#define NEIGHBOUR_NAME_MAX 41
#define NEIGHBOUR_THREADS_MAX 1024
/* oltp: client threads against its own server, whose max_connections
 * (SERVER_DEFAULT_MAX_CONNECTIONS) is far above */
#define NEIGHBOUR_OLTP_THREADS_MAX 64

enum neighbour_kind {
	NEIGHBOUR_HOG,	   /* slicebench hog: threads at a duty cycle */
	NEIGHBOUR_COMMAND, /* a command line of the user's (stress-ng, a backup) */
	NEIGHBOUR_OLTP,	   /* a second mariadbd and an OLTP client against it */
};
/* hog, command, oltp */
extern const struct word neighbour_kind_words[];

/* A [neighbour NAME] section. */
struct neighbour_spec {
	char name[NEIGHBOUR_NAME_MAX];
	enum neighbour_kind kind;
	unsigned threads, duty; /* hog: threads and the percentage of each period they run; oltp: client threads */
	char **argv;		/* command: its words, argv[0] looked up in PATH */
};

/* One neighbour's run beside one step. */
struct neighbour {
	const struct neighbour_spec *spec;
	enum cgroup_mode mode;
	bool by_systemd; /* a scope on the system manager; else a cgroup of cgroupfs */
	/* The slice it goes in, as the server's context takes it (a slice
	 * unit's name, or raw's cgroup path); NULL: the kind's default. */
	const char *slice;
	pid_t pid;
	char *unit;    /* by_systemd: its scope */
	char *cgroup;  /* raw: the cgroup made for it, relative to the hierarchies' roots */
	char *cpu_dir; /* the directory counting its cgroup's CPU time; NULL: only its process's is known */
	sd_bus *bus;
	const struct server *server; /* oltp: its own server, set up by the caller; what runs is its mariadbd */
	/* The account it runs as, the run's server's: never root, whatever
	 * its kind (the experiment file chose its command). */
	const char *user;
	char *failure; /* why start failed, or how it ended before it was stopped */
};

/* The argv a neighbour runs (the hog: this binary's hog verb; oltp: its
 * server's, s); free with strv_free(). */
int neighbour_argv(const struct neighbour_spec *spec, const struct server *s, char ***ret);
/* Starts it in its scope or cgroup; half-started, it is stopped again. */
int neighbour_start(struct neighbour *n);
/* oltp: waits until its server answers on its socket (the caller records
 * it for cleanup first: a server coming up takes seconds); the other
 * kinds run at once.  On failure it is stopped and n->failure says why. */
int neighbour_wait_ready(struct neighbour *n);
/* 0 while it runs; -ECHILD once it has exited, with how in n->failure. */
int neighbour_check(struct neighbour *n);
/* Stops it (SIGTERM, then SIGKILL) and removes its scope or cgroup; safe
 * on a half-started one and twice.  n->failure stays for the caller. */
void neighbour_stop(struct neighbour *n);
void neighbour_done(struct neighbour *n);

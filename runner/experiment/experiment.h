/* Experiment files (experiments/NAME.ini), after fio's job files: INI with
 * [experiment], [server], [client], one [context NAME] per context and an
 * optional [vary]; every key comes from one typed table, and the whole file
 * is validated (against the kinds and the cgroup mode) before anything
 * starts. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "slices/kinds/context.h"
#include "slices/around/neighbour.h"
#include "slices/around/slice.h"
#include "oltp/options.h"

#define EXP_CONTEXTS_MAX 40
#define EXP_THREADS_MAX 64
/* The most threads of one step (the key table's and the results' limit). */
#define EXP_THREAD_COUNT_MAX OLTP_STEP_THREADS_MAX
#define EXP_VARY_MAX 16
#define EXP_SLICES_MAX 16
#define EXP_NEIGHBOURS_MAX 4
/* As many as contexts: explain's hybrids each take a proxy of their own. */
#define EXP_PROXIES_MAX EXP_CONTEXTS_MAX
/* The largest experiment file read (the largest shipped is a few kB). */
#define EXP_FILE_MAX 1048576

/* [vary] mode: a fresh server for every value (restart), or one per repeat
 * with the setting changed between steps (live); both, to tell how much of
 * the noise the restarts bring. */
enum {
	VARY_RESTART = 1u << 0,
	VARY_LIVE = 1u << 1,
};

enum on_error {
	ON_ERROR_CONTINUE, /* record the failed step, go on with the next context */
	ON_ERROR_STOP,
};

struct experiment {
	char *path;
	char name[48]; /* the file's stem, a valid name */
	char *description;
	/* [experiment] */
	long threads[EXP_THREADS_MAX];
	size_t n_threads;
	/* The workload's settings (warmup, duration, workload, tables,
	 * table-size, range-size, scale, driver, rand-type, [client]'s
	 * threads, wakeups and profile): the key table's rows point into the
	 * engine's own options, from oltp_options_default() up, which a run
	 * takes whole (its database's name its own). */
	struct oltp_options oltp;
	/* The user's scripts (workload = FILE.lua ...), owned here; oltp.scripts
	 * points at them. */
	char *workload_scripts;
	unsigned repeat;
	/* repeat = auto: repeat is repeat-max, the most; the run stops adding
	 * interleaved repeats once every ratio is known to within +-until
	 * (a fraction, 0.05) at its confidence level */
	bool repeat_auto;
	unsigned repeat_max;
	double until;
	/* repeat = decide: a look after round look_every (2 at least) and
	 * every look_every rounds after, each ratio stopped when it is
	 * decided "different" or "the same within +-margin" (a fraction,
	 * 0.10), the run when all are (stats/sequential.h); repeat is
	 * repeat-max, the most, 0 until the run plans it when the file gives
	 * none. */
	bool repeat_decide;
	double margin;
	unsigned look_every;
	char baseline[48];
	enum on_error on_error;
	/* [server]: set, to the defaults if not in the file */
	char *engine, *binary, *buffer_pool, *server_user;
	char *server_groups; /* the groups beside the account's own a Group= may name, blank-separated; NULL: none */
	unsigned max_connections;
	/* [client] */
	enum oltp_pin pin;
	long client_cpus_list[OLTP_MAX_CPUS];
	size_t n_client_cpus;
	bool client_scope; /* the load generator in a transient scope of its own */
	/* [context NAME] */
	struct context_spec contexts[EXP_CONTEXTS_MAX];
	char *client_cpus[EXP_CONTEXTS_MAX]; /* client-cpus = LIST: this context's client; NULL: [client]'s */
	int context_slice[EXP_CONTEXTS_MAX]; /* Slice = NAME: its index in slices; -1: the kind's default */
	char *mirror_notes[EXP_CONTEXTS_MAX]; /* unit = NAME, from = FILE: what it reproduces and what not */
	/* from = FILE: the snapshot, which contexts[i].replays points to */
	struct placement *replays[EXP_CONTEXTS_MAX];
	size_t n_contexts;
	int context_proxy[EXP_CONTEXTS_MAX]; /* proxy = NAME: its index in proxies; -1: straight to the server */
	/* [proxy NAME]: a proxy between the client and the server, in a
	 * context of its own (its name, kind, session and settings) */
	struct context_spec proxies[EXP_PROXIES_MAX];
	char *proxy_engine[EXP_PROXIES_MAX]; /* haproxy, pgbouncer, proxysql */
	char *proxy_binary[EXP_PROXIES_MAX]; /* NULL: the engine's */
	size_t n_proxies;
	/* [slice NAME], parents before children; a parent the file only
	 * implies (db.slice of db-oltp.slice) is there without settings. */
	struct slice_spec slices[EXP_SLICES_MAX];
	size_t n_slices;
	/* [neighbour NAME]: competing workloads beside every step */
	struct neighbour_spec neighbours[EXP_NEIGHBOURS_MAX];
	int neighbour_slice[EXP_NEIGHBOURS_MAX]; /* Slice = NAME: its index in slices; -1: the kind's default */
	size_t n_neighbours;
	/* [vary]: one property and its values, crossed with the contexts, or
	 * set on one slice (vary_slice >= 0) of every context's tree */
	const struct prop_def *vary;
	char *vary_values[EXP_VARY_MAX];
	size_t n_vary;
	int vary_slice;
	unsigned vary_modes; /* VARY_RESTART, VARY_LIVE */
};

/* Finds NAME in $SLICEBENCH_EXPERIMENTS, ./experiments and the installed
 * directory, or takes a path (anything with a '/' or ending in .ini). */
int experiment_find(const char *name_or_path, char **ret_path);
/* The directories searched, in order, NULL-terminated (for list). */
const char *const *experiment_dirs(void);

/* Parses and validates.  On error *ret_msg is "FILE:LINE: KEY: why". */
int experiment_load(const char *path, enum cgroup_mode mode, struct experiment *ret, char **ret_msg);
/* The experiment a results directory was run with (its experiment.json);
 * [vary] is not carried over.  trust_code: a setting that chooses code
 * not root's is taken (explain --trust-results-code); else refused. */
int experiment_from_results(const char *dir, bool trust_code, struct experiment *ret, char **ret_msg);
void experiment_done(struct experiment *e);
/* One line per context that mirrors an installed unit: what it does not
 * reproduce. */
void experiment_log_mirrors(const struct experiment *e);

/* The trust gate's policy for e (slices/attr/gate.h): its server's
 * account, its [server] groups (allocated: experiment_gate_policy_done()),
 * and whether code not root's is taken. */
struct gate_policy;
int experiment_gate_policy(const struct experiment *e, bool trust_code, struct gate_policy *ret);
void experiment_gate_policy_done(struct gate_policy *pol);

/* The number of vary values, at least 1 (no [vary]: one unnamed value). */
static inline size_t experiment_n_values(const struct experiment *e) { return e->n_vary ? e->n_vary : 1; }
/* The context spec for context i with vary value v applied (it replaces a
 * property of the same name).  ret's props borrow from e; free with
 * experiment_spec_done(). */
int experiment_spec_for(const struct experiment *e, size_t i, size_t v, struct context_spec *ret);
/* Does the vary value go to the contexts (and not to a slice)? */
static inline bool experiment_varies_contexts(const struct experiment *e) { return e->n_vary && e->vary_slice < 0; }
void experiment_spec_done(const struct experiment *e, struct context_spec *s);

/* The index of context i's [proxy] in e->proxies, -1 for none (also in
 * an experiment made in code whose contexts left it 0 and has none). */
static inline int experiment_proxy_of(const struct experiment *e, size_t i)
{
	return e->context_proxy[i] >= 0 && (size_t)e->context_proxy[i] < e->n_proxies ? e->context_proxy[i] : -1;
}

/* The client placement of context i: its client-cpus, or [client]'s. */
void experiment_client_for(const struct experiment *e, size_t i, struct oltp_options *o);

json_t *experiment_to_json(const struct experiment *e);

/* The server settings of e, as server_setup() takes them (the directories
 * left to the caller); they borrow e's strings. */
void experiment_server_config(const struct experiment *e, struct server_config *ret);
/* Copies every setting of the workload, the server and the client (each key
 * of [experiment], [server] and [client] but description and baseline)
 * from one experiment to another, as an experiment made from another one
 * (explain's) takes them.  to's strings are its own. */
int experiment_copy_settings(const struct experiment *from, struct experiment *to);

/* [proxy NAME] k of from, with spec's kind, session and settings (k's own
 * when spec is NULL), in to under name (k's when NULL): one of to's
 * with the same engine, binary and settings is shared, so that the
 * contexts of an experiment made from another (explain's hybrids,
 * calibrate's twins) go through as few proxies as they differ in.
 * Returns its index in to, or -E2BIG, -ENOMEM. */
int experiment_add_proxy(struct experiment *to, const struct experiment *from, size_t k, const char *name,
			 const struct context_spec *spec);

/* One row of the key table as documentation sees it (the man page is made
 * from these, so that it cannot drift from the parser): every key of every
 * section. */
struct experiment_key_doc {
	const char *section; /* "experiment", "context", "vary", ... */
	const char *name;
	bool property; /* name stands for any systemd property of the attribute table */
	const char *syntax; /* the value's form: N, DURATION, LIST, ... */
	long min, max;      /* for N; both 0 when not bounded */
	const char *def;    /* as written in a file; NULL: none */
	const char *help;
};
/* Row i of the key table; -ENOENT past the last. */
int experiment_key_doc(size_t i, struct experiment_key_doc *ret);

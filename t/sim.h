/* The simulation tests' shared pieces (t/065, t/068): a seeded generator,
 * run directories written through results_put() as run writes them, the
 * rounds in an order drawn afresh, and the table of rates, each asserted
 * with its Wilson simulation interval. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/rng.h"
#include "explain/design.h"
#include "explain/record.h"

extern struct rng sim_gen;
/* The steps written since the last sim_fresh(): the host's drift counts them. */
extern size_t sim_steps_run;

/* A test's start: its scratch directory made into dir (under /dev/shm
 * when it can), the generator seeded, the table's header printed; returns
 * SLICEBENCH_SIM_SCALE (1 without), the factor on every count. */
size_t sim_start(char *dir, size_t len, uint64_t seed);

double sim_uniform(void);
/* Box and Muller's standard normal. */
double sim_gauss(void);

/* The share of a step's noise variance that its start shares with its
 * other steps (one server start runs every thread count): the default,
 * and the stress case.  SIM_SHARE_NONE: every step its own noise (what
 * the simulations drew before issue 43). */
#define SIM_START_SHARE 0.5
#define SIM_START_SHARE_STRESS 0.9
#define SIM_SHARE_NONE (-1.0)

/* What a simulated step's TPS is made of: the cell's true log TPS, the
 * noise of a start (a part shared by the start's steps, a part each
 * step's own), and the host's drift with the steps run so far. */
struct truth {
	double (*log_tps)(const void *ctx, size_t cell);
	const void *ctx;
	double sigma, drift; /* per step, as a fraction */
	/* Of sigma^2, the share a start's steps have in common; 0:
	 * SIM_START_SHARE, SIM_SHARE_NONE: none. */
	double start_share;
	bool slow_one_in_five; /* each cell has one start of every five 30% slow */
	bool fixed_order;
	const char *host;	/* the host.json's hostname; NULL: no host.json */
	const char *experiment; /* NULL: "sim" */
	double cpus;		/* the steps' "saturation" on so many CPUs; 0: none */
	const double *sigmas;	/* each cell's own sigma; NULL: sigma for every cell */
	unsigned tail_df;	/* a start's noise from Student's t on so many degrees of freedom (> 2), its SD
				 * the sigma; 0: normal */
	size_t seconds;		/* each step's per-second TPS (intervals_tps), so many; 0: none */
	double within;		/* their CV (AR(1), each start its own about this); 0: none */
	double first_ratio;	/* the first unit of every round runs at this ratio of its TPS (a cold host); 0: 1 */
	double last_ratio;	/* the last unit of every round at this ratio (a warm cache); 0: 1 */
	/* One start in so many stalls: OLTP_STALL_MIN_S + 1 seconds in a row
	 * near 0 TPS in each of its steps' seconds (t->seconds must be set),
	 * its TPS as much lower, which the start rule leaves out; 0: none. */
	unsigned stall_one_in;
	unsigned n_threads;	/* each unit runs 1, 2, 4, .. threads, so many; 0: 1 */
	/* Whether the start of cell in round fails (written as run writes a
	 * failed step: failed, its reason, 0 TPS); NULL: none fails. */
	bool (*fails)(const struct truth *t, size_t cell, unsigned round);
	const void *fail_ctx;
};

/* The per-second TPS of a step at tps into x[0..t->seconds): each start
 * its own CV about t->within (log-normal, SD 30%), the seconds an AR(1)
 * at 0.5 (a second that lost its CPU drags the next), their mean tps. */
void sim_seconds(double tps, const struct truth *t, double *x);

/* A run directory at path: contexts names[0..n) (the first the baseline),
 * rounds from..to, each round's units in the engine's balanced order
 * (run/order.h) from a seed of the generator's (or fixed), TPS drawn from
 * t.  Written through results_put(), as run writes them. */
void sim_write_rounds(const char *path, const char *const *names, size_t n, unsigned from, unsigned to,
		      const struct truth *t, unsigned total_rounds);

/* A fresh path dir/name for the next data set (sim_steps_run back to 0). */
const char *sim_fresh(const char *dir, const char *name);

struct rate {
	size_t hits, n;
};

/* One row of the table: the rate with its 95% simulation interval, and the
 * assertion ("<=" or ">=" the bound; "" none) judged by the 99% one. */
void sim_row(const char *what, const struct rate *r, const char *op, double bound);

/* "A gap under X cannot be told from noise (80% power)" tested as a
 * method, over sets data sets: printed(ctx) draws a fresh A/A data set
 * and returns the gap its output printed (NAN where it printed none, a
 * set that takes no part), found(ctx, gap) a fresh data set whose truth
 * is that gap and returns 1 where it is found, 0 where it is missed, -1
 * where it has no ratio (no part).  Counts into *ret; returns the
 * printed gaps' median. */
double sim_printed_gap_rate(size_t sets, double (*printed)(void *ctx), int (*found)(void *ctx, double gap), void *ctx,
			    struct rate *ret);

/* report's JSON of the run directory at path, parsed (to json_decref()). */
json_t *sim_report_json(const char *path);
/* A fixture's JSON text parsed; bails out if it does not parse. */
json_t *sim_json(const char *text);

/* Whether v's members lo and hi hold truth. */
bool sim_covers(const json_t *v, const char *lo, const char *hi, double truth);

/* ---- explain directories ---- */

/* Log TPS of a mix: B's, plus each factor's effect, plus the pair's. */
struct mixes {
	size_t n;
	double effect[FACTORS_MAX]; /* as a fraction of the gap */
	double together;	    /* the interaction of the pair, of the gap */
	unsigned pair;		    /* the pair's mask; 0: factors 0 and 1 */
	double gap;		    /* ln T(A) - ln T(B) */
	unsigned masks[DESIGN_MIXES_MAX];
};

/* A stage of design d under path/name, from m (t's ctx and log_tps set
 * to them). */
void sim_write_stage(const char *path, const char *name, const struct design *d, struct mixes *m, unsigned rounds,
		     struct truth *t);

/* The record of an explain directory of n factors, f0.., a against b at
 * 1 thread, experiment sim. */
void sim_record_init(struct explain_record *rec, size_t n);

/* An explain directory at path: the screen of m's n factors (every mix,
 * A their closure) in rounds, and its record (rec). */
void sim_explain_screen(const char *path, struct mixes *m, unsigned rounds, struct truth *t, struct explain_record *rec);
/* Its hold-out of set, rounds of them (wanted: what --width asked), added
 * to path and to rec. */
void sim_explain_holdout(const char *path, unsigned set, struct mixes *m, unsigned rounds, unsigned wanted,
			 struct truth *t, struct explain_record *rec);

/* What report prints of the explain directory at path, as a string (to
 * free()). */
enum sim_form { SIM_TEXT, SIM_JSON, SIM_HTML };
char *sim_explanation(const char *path, enum sim_form form);

/* ---- report's answers ---- */

/* The quickstart's shape: a baseline and 3 contexts, each unit at 1, 2
 * and 4 threads (set n_threads to SIM_QUICKSTART_THREADS). */
extern const char *const sim_quickstart[];
#define SIM_QUICKSTART_CONTEXTS 4
#define SIM_QUICKSTART_THREADS 3
/* Every cell at 1000 TPS: an A/A truth's log_tps. */
double sim_flat_tps(const void *ctx, size_t cell);

/* Whether any cell of any row of report's JSON is called significant
 * against its baseline: a false "significant" of the table's family. */
bool sim_any_significant(const json_t *rep);
/* The cell of report's JSON at row (thread count) and column; NULL: none. */
const json_t *sim_cell(const json_t *rep, size_t row, size_t col);
/* report's output of the run directory at path in format (to free()). */
char *sim_report_text(const char *path, int format);
/* compare's JSON of the run directories paths[0..n), labelled by their
 * last component (to json_decref()). */
json_t *sim_compare_json(const char *const *paths, size_t n);
/* Whether any row of compare's JSON calls one of what ("differ": a host's
 * ratio over the first's, the hosts differ; "ratios": a host's own ratio,
 * as compare's first table prints it) significant. */
bool sim_any_host_significant(const json_t *cmp, const char *what);

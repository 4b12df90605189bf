/* The report's model, the floor of report/ that reads: the document of
 * record (results_load()) read once into a table of TPS, a row per thread
 * count and a column per context (or context x vary value), each cell with
 * its repeats, failures and noises within a start and across starts, and
 * the places for what the judge (report/judge/) adds after it: the verdict
 * against the baseline (stats/block.h: log TPS ~ column + round,
 * Holm-adjusted across the table), with a vary its verdict against its
 * context's first value (CPUWeight=400 against CPUWeight=100), and the
 * noises' intervals.  Every renderer reads only this; the numbers are
 * formatted by the renderers and nowhere else. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "oltp/record.h"
#include "stats/block.h"
#include "stats/rank.h"
#include "stats/sequential.h"
#include "stats/spread.h"
#include "stats/stats.h"

struct model_profiles; /* report/judge/profiles.h */

#define GAP "\u2014" /* em dash: a cell without a value, never 0 */

/* A step whose per-second TPS has a coefficient of variation above this is
 * flagged as noisy within its start.  On a quiet machine here a step at
 * 1 thread stays near 4%; under a neighbour's compile it reaches 20-70%. */
#define MODEL_NOISY_CV 0.10
/* "The same" within it, for results that record no margin: the margin
 * key's default (experiment/key_table.c). */
#define MODEL_MARGIN 0.10

/* What a step's per-second telemetry comes to, one number per row, each
 * row reducing one key of the samples over the step's seconds; a cell holds
 * the median over its repeats.  The CSV and JSON renderers print every row
 * under its name. */
enum telemetry_reduce {
	REDUCE_MEAN,
	REDUCE_MIN,
	REDUCE_MAX,
	REDUCE_DELTA, /* last minus first: a cumulative counter */
	REDUCE_RATE,  /* the delta per second of t_s: a cumulative CPU time as CPUs used */
	REDUCE_STEP,  /* not the samples': the step's own key (an object's members summed) */
};
enum telemetry_summary {
	TEL_IDLE_PCT,
	TEL_THROTTLED,
	TEL_LOAD1_MIN,
	TEL_LOAD1_MAX,
	TEL_RUNNING_MEAN,
	TEL_RUNNING_MAX,
	TEL_BLOCKED_MEAN,
	TEL_BLOCKED_MAX,
	TEL_SERVER_CPU,
	TEL_CLIENT_CPU,
	TEL_PROXY_CPU,
	TEL_NEIGHBOURS_CPU,
	TEL_NEIGHBOURS_TPS,
	_TEL_MAX,
};
struct telemetry_summary_def {
	const char *name;   /* the cell's key in JSON, its column in CSV */
	const char *sample; /* the key of a telemetry sample it reduces (an object's members summed); REDUCE_STEP: the step's */
	enum telemetry_reduce reduce;
	int decimals; /* in CSV */
};
extern const struct telemetry_summary_def telemetry_summaries[_TEL_MAX];

/* A cell whose starts fail more often than this gets no ratio: what it
 * measured is a server that keeps failing, not a placement's TPS. */
#define MODEL_FAIL_MAX 0.20

struct cell {
	size_t n, n_failed; /* successful and failed steps (a step at 0 TPS is a failed one) */
	size_t n_zero;	    /* of the failed: steps that ran and completed no transaction */
	size_t n_stalled;   /* of the successful: steps with seconds at 0 TPS inside them */
	long long stalled_s;
	double *tps;	    /* the n successful repeats' TPS */
	double *within;	    /* the n_within successful steps' per-second CVs */
	size_t n_within;
	unsigned *round;    /* the round (repeat) of each */
	unsigned *slot;	    /* its place in its round's order, from 1; 0: not recorded */
	double median, min, max;
	double within_cv; /* noise within a start: the CV of a step's per-second TPS, median over the repeats */
	double across_cv; /* noise across starts: the CV of the repeats' TPS; NAN: fewer than 2 */
	size_t n_noisy;	  /* steps above MODEL_NOISY_CV */
	size_t n_saturated; /* steps whose client and server threads were more than their context's CPUs */
	bool too_many_failed; /* more than MODEL_FAIL_MAX of its starts failed: no ratio */
	double fail_lo, fail_hi; /* the failure rate's interval at the model's level (Wilson); NAN: no start */
	/* Against the baseline column, and against its context's column at
	 * the first vary value: the model's verdict (.ratio NAN: none), and
	 * the two cross-checks, Welch's t on the two columns alone and the
	 * rank-based interval.  A verdict's log(ratio), se and df (the
	 * model's, its starts the unit: report/judge/verdicts.c) are what a
	 * sequential look or an equivalence test is made from; its interval
	 * and p are Holm's step's. */
	struct stats_ratio vs_base, vs_first;
	struct stats_ratio welch_base, welch_first;
	struct stats_rank rank_base, rank_first;
	double p95_ms;		/* median over the repeats; NAN: none */
	double tel[_TEL_MAX];	/* medians over the repeats; NAN: none */
	/* The steps' evidence of mechanism, a median per row of
	 * oltp_mechanism_table() with its interval across the starts and that
	 * interval's coverage (stats/figure.h: below the model's level with
	 * fewer than 6 starts); NAN: none. */
	double mechanism[OLTP_MECHANISM_MAX];
	double mechanism_lo[OLTP_MECHANISM_MAX], mechanism_hi[OLTP_MECHANISM_MAX], mechanism_cover[OLTP_MECHANISM_MAX];
	/* Noise as a result (report/judge/noise.c), at the model's level: the CV
	 * across starts (the SD of log TPS over the successful starts, with
	 * its chi-square interval), the CV within a step (each successful
	 * step's per-second CV, their mean with a t interval across the
	 * starts), and this column's noise against its baseline's
	 * (Brown-Forsythe, Holm-adjusted across the table; .ratio NAN: none). */
	struct stats_interval cv_starts, cv_within;
	struct stats_spread_ratio noise_base;
	/* The answers (report/judge/decide.c): this ratio's decision
	 * against the baseline, the round of the look that made it (0:
	 * open), and for an open one the rounds a run would need at its
	 * spread to decide a gap of the margin (0: none to say; past
	 * SEQ_ROUNDS_MAX: no run can) and then, for a fixed design, the
	 * smallest gap the most rounds would decide (a fraction; NAN: none). */
	struct seq_hypothesis decision;
	bool decided_here; /* a ratio of the decisions' family */
	unsigned decided_round, rounds_to_decide;
	double decidable_margin;
	double spread; /* its spread between starts (ln TPS) at its look; NAN: none */
};

/* The verdict's ratio, and whether it is significant. */
static inline double cell_ratio(const struct cell *c)
{
	return c->vs_base.ratio;
}
static inline bool cell_significant(const struct cell *c)
{
	return c->vs_base.verdict == STATS_SIGNIFICANT;
}
/* Whether a cell takes part in the verdicts: it has starts, and they did
 * not fail too often (judged by model_judge(), report/judge/judge.h). */
static inline bool cell_takes_part(const struct cell *c)
{
	return c->n > 0 && !c->too_many_failed;
}

struct column {
	char *label;
	const char *context; /* borrowed from the document */
	const char *vary;    /* borrowed from the model's vary values; NULL without vary */
	size_t vary_index;
	long base; /* the baseline column with the same vary value; -1: none, or this is one */
	long first; /* the column of the same context at the first vary value; -1: none, or this is one */
	bool is_baseline;
};

/* repeat = decide: a look of the run (schedule.json's "looks"). */
struct model_look {
	unsigned round;
	bool final;
	const json_t *open; /* the contexts the run kept running after it, as recorded (borrowed) */
};

/* repeat = decide: the design the run recorded and the looks it took;
 * the decisions are made again from the steps by the judge.  A design
 * without looks (repeat = N or auto) is answered all the same, as one
 * look at its end (fixed). */
struct model_sequential {
	bool on, fixed;
	double margin; /* a fraction: schedule.json's, else experiment.json's, else MODEL_MARGIN */
	unsigned max_rounds, look_every;
	double planned_sigma; /* ln TPS between starts the plan assumed; 0: none recorded */
	const char *planned_from;
	struct model_look looks[SEQ_LOOKS_MAX];
	size_t n_looks;
	/* By the judge: how many ratios are decided each way and open,
	 * whether its decisions leave open what the run left open at each
	 * look, and the widest spread between starts the ratios met. */
	size_t n_different, n_same, n_open;
	bool as_run;
	double spread_seen;
};

/* What a cell's repeats are: each start's TPS, or (an open loop's other
 * models) each start's p50, p95 or p99 latency from the intended starts,
 * in ms, or the share of its arrivals late against the latency limit
 * (the skipped ones with them). */
enum model_measure {
	MODEL_TPS,
	MODEL_LATENCY_P50,
	MODEL_LATENCY_P95,
	MODEL_LATENCY_P99,
	MODEL_LATE_SHARE,
};
#define MODEL_LATENCIES 3 /* p50, p95, p99 */
/* "p50", "p95", "p99": a latency measure's key in a step's latency_ms. */
extern const char *const model_latency_keys[MODEL_LATENCIES];

/* An open-loop run's (the steps' "open_loop"): the rate its steps ran at,
 * whether a driver timed its latencies from the actual starts (sysbench
 * --rate), the steps whose arrivals outran the server, and the models of
 * its p50, p95 and p99 latencies, each judged as the TPS one is (built by
 * the document that judges the model; NULL: not built). */
struct model_open_loop {
	unsigned rate; /* 0: a closed loop */
	bool constant; /* arrivals every 1/rate, not a Poisson stream */
	bool from_start;
	json_t *outran; /* [{context, vary_value, threads, repeat, backlog_at_end, transactions}] */
	struct model *latency[MODEL_LATENCIES];
	/* With a latency limit (0: none): each cell's share of late
	 * arrivals, not judged (a share that is often 0 has no log) */
	double latency_limit_ms;
	struct model *late;
};

struct model {
	enum model_measure measure;
	const char *name, *baseline, *vary_property;
	const json_t *builds; /* the builds that measured it, results.json's "slicebench" (store/provenance.h) */
	struct column *cols;
	size_t ncols;
	long long *threads;
	size_t nrows;
	struct cell *cells; /* nrows x ncols */
	char **vary;	    /* owned vary values; a NULL entry without vary */
	size_t nvary;
	json_t *failures; /* [{context, vary_value, threads, repeat, reason}] */
	json_t *diffs;	  /* {context: {key: [baseline value, context value]}} */
	json_t *noisy;	  /* [{context, vary_value, threads, repeat, cv, stalled_s if > 0}]: steps above MODEL_NOISY_CV */
	json_t *saturated; /* [{context, vary_value, threads, repeat, saturation}]: the steps' "saturation" when saturated */
	double level;	  /* of the intervals, 0.95 */
	bool any_ns;	  /* a ratio whose interval contains 1, or that has none */
	bool any_vs_first; /* a ratio against a first vary value */
	double min_df;	  /* the fewest degrees of freedom behind an interval; INFINITY: none */
	size_t family_base, family_first; /* the ratios each table's Holm adjustment is across */
	unsigned pilot; /* repeat = auto: the pilot's rounds, whose spread the intervals take; 0: none */
	bool any_too_many_failed;
	/* Every start, and how many each rule of oltp_rules[] kept or left
	 * out; those that ran while the host was busy (common/load.h), the
	 * highest load among them and the host's CPUs. */
	size_t n_starts, removed[_OLTP_RULE_MAX];
	size_t n_busy, n_host_known; /* of those whose record says */
	double busy_load_max;
	unsigned busy_cpus;
	size_t family_noise; /* the noise verdicts the Holm adjustment is across */
	enum oltp_workload workload; /* what a step's size counts: its threads, pgbench's clients */
	/* The model's noise and place terms (report/judge/verdicts.c): the
	 * noise the table's fit ran on (stats/block.h); whether each ratio
	 * came from a fit of its own two columns (pair_fits), where the
	 * table's could not give each column its own; the share of the noise
	 * a start's steps shared (NAN: none shown); the place terms, the
	 * first and the last unit of a round against the units between
	 * (.ratio NAN: none), why there are none, and whether the ratios take
	 * them out; whether the rounds ran in one fixed order. */
	enum block_noise_model noise;
	bool pair_fits;
	double start_share;
	struct stats_ratio place[_BLOCK_PLACE_MAX];
	enum block_places_model places;
	bool places_in_ratios, order_fixed;
	/* Round r's units (round_slots[r - 1]): the highest place its steps
	 * carry, failed ones too; n_round_slots rounds. */
	unsigned *round_slots;
	size_t n_round_slots;
	struct model_sequential seq;
	/* The steps' profiles and their differences (report/judge/profiles.h),
	 * which the document that judges the model builds and frees; NULL:
	 * none (no step profiled, or not asked). */
	struct model_profiles *profiles;
	struct model_open_loop open_loop;
};

/* Whether the report has answers to lead with: different, the same or
 * undecided (report/judge/decide.c). */
static inline bool model_has_decisions(const struct model *m)
{
	return m->seq.on || m->seq.fixed;
}

/* "thread", "threads", "client" or "clients": n of what m's steps count. */
static inline const char *model_unit(const struct model *m, long long n)
{
	return oltp_size_unit(m->workload, n);
}

/* doc's model, its intervals to be at level (0.95), not yet judged
 * (report/judge/judge.h).  -EINVAL: doc is not a document of record, or
 * level is outside (0, 1); -EPROTONOSUPPORT: an unknown format_version;
 * -ENOMEM. */
int model_build(const json_t *doc, double level, struct model *ret);
/* The same of an open loop's p50, p95 and p99 latencies (m->open_loop.rate
 * > 0) into m->open_loop.latency, not yet judged, and with a latency limit
 * of its late shares into m->open_loop.late; 0 with nothing built for a
 * closed loop. */
int model_build_latency(struct model *m, const json_t *doc);
void model_done(struct model *m);

static inline struct cell *model_cell(const struct model *m, size_t row, size_t col)
{
	return &m->cells[row * m->ncols + col];
}

/* A note of step s into list: its context, vary value, threads and
 * repeat, and key: value (taken).  0 or -ENOMEM. */
int model_step_note(json_t *list, const json_t *s, const char *key, json_t *value);
/* Step s's open loop into m->open_loop (open_loop.c): its rate, where its
 * latencies count from, and the step among the outrun ones.  0 or -ENOMEM. */
int model_note_open_loop(struct model *m, const json_t *s);
/* Step s's late transactions and skipped arrivals, of all its arrivals
 * (open_loop.c); NAN: not recorded (no latency limit). */
double model_step_late_share(const json_t *s);
/* Whether step s is one of the cell's (its threads, context, vary value; values.c). */
bool model_step_in_cell(const struct model *m, const json_t *s, size_t row, size_t col);

/* A step's TPS as the verdicts take it: NAN for a step that failed or
 * completed nothing, which counts as a failure (a floor in its place
 * would be a made-up number in a mean).  report and explain share it. */
double report_step_tps(const json_t *step);

/* A scalar as text: strings as they are, numbers and booleans printed into
 * buf; NULL for null, absent and nested values. */
const char *scalar_str(const json_t *v, char *buf, size_t len);
/* m->diffs: each of the contexts' placement (in places) against the
 * baseline's, by diffs.c.  0 or -ENOMEM. */
int model_placement_diffs(struct model *m, const json_t *places, const char *const *contexts, size_t n);
/* A host or placement value as an owned string; *ret = NULL when absent. */
int value_dup(const json_t *v, char **ret);

/* qsort's comparisons of long long and of C strings, ascending. */
int cmp_ll(const void *a, const void *b);
int cmp_str(const void *a, const void *b);

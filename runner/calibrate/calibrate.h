/* slicebench calibrate: an A/A test of this host.  One context of an
 * experiment runs under two names, CONTEXT and CONTEXT-twin, once each in
 * every round, each round's order balanced (the run engine's
 * rounds), for --pairs rounds.  Nothing differs between the two, so that:
 * - the one model (stats/block.h: log TPS ~ cell + round) fitted to every
 *   round gives this host's sigma between starts, with Bonett's interval
 *   from the rounds' differences, which holds under heavy tails;
 * - the rounds cut into consecutive groups of the file's repeat rounds
 *   (at least 2), each group the size of one run of the file and judged
 *   by the report's own model and verdicts, count the A/A tests that call
 *   a difference "significant": the false-positive rate, with its Wilson
 *   interval, stated only from CALIBRATE_FP_TESTS_MIN tests or more;
 * - stats_design_mde() at this sigma says what gap a run of the file can
 *   tell from noise with 80% power at its report's Holm level.
 * The result goes to STATE/calibration.json (host/calibration.h), which
 * run's and explain's plans quote; the results directory is a normal one
 * (report DIR reads it). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define CALIBRATE_PAIRS_MIN 10
/* The fewest A/A tests a false-positive rate is stated from: at 150 a 5%
 * rate's Wilson interval is 2.7-9.3%, where 20 tests gave 1-24% and could
 * not tell 5% from 20%. */
#define CALIBRATE_FP_TESTS_MIN 150
#define CALIBRATE_PAIRS_MAX 1000
#define CALIBRATE_TWIN_SUFFIX "-twin"

struct calibrate_args {
	const char *experiment, *context, *out;
	unsigned pairs;
	uint64_t duration_ns; /* 0: the file's */
	long threads;	      /* 0: the file's first thread count */
	double confidence;    /* of the tests and the intervals, 0.95 */
	int order;	      /* enum run_order */
	uint64_t seed;
	bool seed_given, dry_run;
};

/* The plan (and, unless dry_run, the run, the analysis and the record).
 * Returns 0 or -errno, logged: -EINVAL for bad input (nothing started,
 * nothing written), -EINTR when a signal ended it, -EIO for any other
 * failure. */
int calibrate_run(const struct calibrate_args *a);

/* What the rounds of an A/A test come to. */
struct calibrate_result {
	size_t n_starts, n_failed; /* of both names, every round */
	unsigned rounds;	   /* the highest round with a step */
	double sigma, sigma_lo, sigma_hi, df; /* of ln TPS, from every round; NAN: too few */
	unsigned group_rounds, groups, false_positives; /* groups: those whose test had an interval */
	double fp_lo, fp_hi; /* Wilson's, at level; NAN: fewer than CALIBRATE_FP_TESTS_MIN tests */
	double level;
};

/* The A/A test of a and b (contexts of the document of record doc, one
 * thread count) at level, the groups of group_rounds (>= 2) rounds.
 * Pure.  -EBADMSG: doc has steps of other contexts or of several thread
 * counts; -EDOM: neither name has a successful step; -ENOMEM. */
int calibrate_analyse(const json_t *doc, const char *a, const char *b, unsigned group_rounds, double level,
		      struct calibrate_result *ret);

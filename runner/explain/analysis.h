/* explain's analysis: what the measured mixes say about the gap between A
 * and B, from the one model (stats/block.h) fitted to each stage's rounds.
 *
 * - The gap, ln T(A) - ln T(B), is a contrast of the model fitted to every
 *   start of every stage (a stage's rounds are blocks of their own), so
 *   that every mix bears on its interval through the pooled residual
 *   variance and the rounds.
 * - Each factor's share is its exact Shapley value over the full design:
 *   the average, over every order of adding the factors to B, of what it
 *   adds to log TPS, over the gap; the shares add up to the closure's.
 *   Fieller's interval from the screen's fit, Holm-adjusted across the
 *   factors.  (A bootstrap over the screen's rounds was dropped: at the
 *   default 3 rounds it has 10 distinct resamples, and at 5 it covered
 *   81-90%.)
 * - Each pair's interaction, the factorial contrast averaged over the other
 *   factors, is claimed only when its interval (Holm across the pairs)
 *   excludes 0.  "Alone" is what a factor moves added to B by itself.
 * - The set named is chosen on the screen (the fewest factors, by share,
 *   that reach SUFFICIENT_FIT of what the closure reaches) and its share
 *   comes from the hold-out rounds, which played no part in choosing it:
 *   half of what it moves added to B and half of what the closure loses
 *   without it.
 * Pure: numbers in, numbers out; explain/sentences.c says them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "explain/design.h"
#include "oltp/record.h"
#include "stats/block.h"
#include "stats/stats.h"

#define STAGE_STARTS_MAX 128
/* "Neither alone moves it" needs each member's share alone shown within
 * +-this (both ends of its interval), "they add" each pair's interaction. */
#define ANALYSIS_SMALL 0.10
/* The set named reaches this much of what the closure reaches. */
#define ANALYSIS_SUFFICIENT 0.80

/* One mix's starts in a stage. */
struct stage_mix {
	unsigned mask;
	size_t n, n_failed;
	size_t n_zero; /* of the failed: steps that ran and completed no transaction */
	double tps[STAGE_STARTS_MAX];
	unsigned round[STAGE_STARTS_MAX];
	unsigned slot[STAGE_STARTS_MAX]; /* its place in its round's order, from 1; 0: not recorded */
	double med;
	double mech[OLTP_MECHANISM_MAX]; /* medians over the starts; NAN: none */
	/* The run's failure rule (report_fails_too_often()): the failure
	 * rate's interval, and whether the mix failed too often to take part
	 * in the analysis (analysis_judge_failures()). */
	double fail_lo, fail_hi;
	bool too_many_failed;
};

/* A stage: a results directory of rounds, each mix once a round. */
struct stage {
	struct stage_mix mix[DESIGN_MIXES_MAX];
	size_t n_mix;
	unsigned n_rounds;
	/* The server's profile, A against B (explain/profile.h); "": not profiled. */
	char profile[2048];
};

struct analysis_inputs {
	size_t n_factors;
	const char *const *labels;
	bool closure_is_a;
	double level;
	const struct stage *fraction; /* the resolution IV screen; NULL: none */
	const struct stage *screen;   /* every mix of screen_factors */
	unsigned screen_factors;
	const struct stage *confirm; /* the hold-out rounds; NULL: not measured */
	unsigned named;		     /* the set they measured */
};

struct explanation {
	/* The gap, from every start */
	struct stats_ratio gap;
	double med_a, med_b;
	size_t n_a, n_b, n_starts;
	/* The screen: each factor (its index in the factor set) */
	unsigned factors;			/* the factors shared out: screen_factors */
	struct stats_share shapley[FACTORS_MAX]; /* Holm across the factors */
	/* The Shapley value's numerator as a ratio, exp(share * ln gap): what
	 * the factor moves the gap by, with its standard error and degrees of
	 * freedom (unadjusted), which compare of two hosts' explanations
	 * contrasts. */
	struct stats_ratio effect[FACTORS_MAX];
	struct stats_share alone[FACTORS_MAX];	 /* added to B by itself */
	double main_effect[FACTORS_MAX];	/* the fraction's, as a share of the gap; NAN: none */
	struct stats_share pair[FACTORS_MAX][FACTORS_MAX]; /* [j][k], j < k; Holm across the pairs */
	bool pair_claimed[FACTORS_MAX][FACTORS_MAX];
	size_t n_pairs;
	struct stats_ratio screen_gap; /* the screen's own gap: what the shares above are of */
	struct stats_share closure; /* the closure's share of the gap */
	struct stats_ratio closure_to_a; /* .ratio NAN when A is the closure */
	double sigma, df;		 /* the screen's residual spread */
	/* The set named (0: none), its share, and whether fresh rounds gave it;
	 * the gap that share is of, from the same stage (the hold-out's, else
	 * the screen's; every stage's when the set is all that differs, its
	 * share 1 by construction) */
	unsigned named;
	struct stats_share named_share;
	struct stats_ratio named_gap;
	bool held_out, by_construction;
	unsigned confirm_rounds;
	/* The hold-out's residual spread, and the one-sided p of the F test
	 * that it is wider than the screen's (NAN: no hold-out) */
	double confirm_sigma, confirm_df, wider_p;
	/* What moved with the gap: a row of oltp_mechanism_table() (-1: none),
	 * A's and B's medians and its correlation with log TPS across the mixes
	 * with Fisher's interval at in->level (NAN: fewer than 4 mixes) */
	long mechanism;
	double mech_a, mech_b, mech_r, mech_r_lo, mech_r_hi;
	size_t n_mixes;
	/* The mixes of every stage that failed too often to take part, and
	 * whether A or B of the screen is among them: then there is no gap,
	 * and nothing else is analysed. */
	size_t n_excluded;
	bool ends_failed;
};

/* Each mix of s judged by the run's failure rule at level. */
void analysis_judge_failures(struct stage *s, double level);

/* A share shown within +-ANALYSIS_SMALL of the gap: both ends of its
 * interval (an equivalence test at the interval's level). */
bool analysis_shown_small(const struct stats_share *s);

/* The explanation of the stages in in.  -EDOM: a stage without A or B;
 * -ENOMEM. */
int analysis_explain(const struct analysis_inputs *in, struct explanation *ret);

/* The fraction's main effects alone into x->main_effect (a stage of
 * in->fraction only: the screen is not measured yet). */
int analysis_main_effects(const struct analysis_inputs *in, struct explanation *x);

/* The set to name from a screen's explanation: the fewest factors, by
 * share, that reach ANALYSIS_SUFFICIENT of the closure's share; 0 when the
 * gap is not significant or no factor moves it. */
unsigned analysis_choose_set(const struct explanation *x);

/* The strongest DESIGN_FULL_MAX factors of a fraction's main effects, as a
 * mask. */
unsigned analysis_strongest(const struct explanation *x, size_t n_factors);

/* The hold-out rounds that make x->named's share's interval about width
 * wide (a fraction of the gap) at in->level, from the screen's spread: a
 * share's variance is sigma^2 sum (c_num - s c_den)^2 / R over the
 * hold-out's contrasts, with the screen's t (Stein's rule).  At least 2;
 * 0 when the set is every factor and A their closure (all that differs). */
unsigned analysis_confirm_rounds(const struct analysis_inputs *in, const struct explanation *x, double width);
/* That interval's width with R hold-out rounds, as predicted. */
double analysis_predicted_width(const struct analysis_inputs *in, const struct explanation *x, unsigned rounds);

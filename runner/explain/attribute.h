/* explain's analysis, inside explain/: what the measured mixes say about
 * the gap between A and B.  Each mix takes a set of factors from A and the
 * rest from B; its share of the gap, (T(mix) - T(B)) / (T(A) - T(B)) with T
 * the mean log TPS of the repeats, has Fieller's interval (report/stats.h);
 * a set whose complement was measured too is judged by the mean of that
 * share and what the closure loses without it (attribute_set_share()).
 * The cause named is the smallest set that accounts for the gap; a set whose
 * members do not move it alone is an interaction; the two-way interactions
 * of a full design are listed; and the figure of mechanism (oltp/oltp.h)
 * that moved with the gap is quoted.  Pure: numbers in, text out. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "oltp/oltp.h"
#include "stats/stats.h"

#define MIXES_MAX 64
#define REPEATS_MAX 64

/* The mixes measured: masks[i] is mix i's set of factors taken from A;
 * masks[0] is B (none). */
struct design {
	unsigned masks[MIXES_MAX];
	size_t n;
};

/* What the rounds measured: TPS per mix and repeat (n[m] of them, pooled
 * over the rounds that measured the mix), the medians, and per mix the median of
 * each figure of mechanism over its repeats (NAN: none). */
struct measured {
	double t[MIXES_MAX][REPEATS_MAX], med[MIXES_MAX];
	size_t n[MIXES_MAX];
	double mech[MIXES_MAX][OLTP_MECHANISM_MAX];
	size_t full;	/* the index of mix A */
	size_t closure; /* the index of the mix that takes every factor (full when it is A) */
	double level;
	/* A's own mix counts as a cause: A and B differ in nothing but the
	 * knobs, so that all of them together are all of the difference. */
	bool full_counts;
};


/* What the sentences name: the factors' labels, A and B, the threads. */
struct attribution_names {
	const char *const *labels; /* [n factors] */
	size_t n;
	const char *a, *b;
	long threads;
};

/* The share of the gap from B to A that mix i covers, with its interval. */
struct stats_share attribute_share(const struct measured *mz, size_t i);
/* The share of the gap that the set of mix i moves: the mean of what it
 * moves added to B and what the closure loses without it where both were
 * measured (its Shapley value up to pairs), else the first. */
struct stats_share attribute_set_share(const struct design *d, const struct measured *mz, size_t i);
/* "43-58%", "unbounded", or "no interval". */
const char *attribute_share_interval(const struct stats_share *s, char *buf, size_t len);
/* The index of the mix with exactly mask m in the design; -1: not measured. */
long mix_index(const struct design *d, unsigned m);
/* A against B judged as report judges a ratio: significant when its
 * interval excludes 1 (*ret may be NULL). */
bool attribute_gap(const struct measured *mz, struct stats_ratio *ret);
/* The mix named as the cause (0: none) and its share. */
size_t attribute_best_set(const struct design *d, const struct measured *mz, double *ret_share);
/* How well a share accounts for the gap: 1 at 100%. */
double attribute_fit(double share);
/* The screening's second round into masks (at most 4), how many. */
size_t attribute_strongest_combinations(const struct design *d, const struct measured *mz, size_t n,
					 unsigned *masks);
/* The mixes to measure again and pool, when the set named accounts for the
 * gap by a wide interval, into masks (at most 5); how many (0: none). */
size_t attribute_confirm_masks(const struct design *d, const struct measured *mz, unsigned *masks);
/* The verdict on the gap, the table of shares, the interactions, the
 * sentence naming the cause and the one quoting the mechanism, to out.
 * Returns whether the gap is significant (nothing is named otherwise). */
bool attribute_print(const struct attribution_names *names, const struct design *d, const struct measured *mz,
		     FILE *out);

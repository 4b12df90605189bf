/* Two contexts' profiles compared, the start as the unit: each figure of
 * profile/shares.h in each start of a side, its mean across the side's
 * starts with Student's interval (n - 1 degrees of freedom), and the
 * difference of the two means with Welch's interval and two-sided p,
 * Holm-adjusted across the shares tested, and apart across the off-CPU
 * reasons tested (two questions: what the CPU did, why it waited).  A figure is tested when it is
 * at least PROFILE_TEST_MIN_SHARE of the server's CPU (or, off-CPU,
 * PROFILE_TEST_MIN_MS a second) in one side's mean: a screen on size
 * alone, fixed before any difference is seen, so that the family is the
 * figures a reader could care about.  A side of one start has no interval
 * and its figures are not tested. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "profile/shares.h"

#define PROFILE_TEST_MIN_SHARE 0.005
#define PROFILE_TEST_MIN_MS 1.0

struct profile_side_figure {
	size_t n;
	double mean, lo, hi; /* lo, hi NAN: one start */
};

struct profile_diff_item {
	enum profile_item_kind kind;
	const char *name, *library; /* the starts' */
	struct profile_side_figure a, b;
	bool tested;
	double diff, lo, hi; /* a - b, its interval at its Holm step's level (NAN: not tested) */
	double se, df;       /* Welch's */
	double p_raw, p;     /* p Holm-adjusted across the family */
	bool significant;
	/* For a group: the library holding most of its samples in each side (NULL: none). */
	const char *top_library_a, *top_library_b;
};

struct profile_diff {
	double level;
	size_t family;	   /* the shares tested */
	size_t family_off; /* the off-CPU reasons tested */
	size_t n;
	struct profile_diff_item *items; /* the significant first, then by |diff| */
};

/* a[0..n_a) against b[0..n_b) at level (0.95); every name points into the starts. */
int profile_diff(const struct profile_shares *const *a, size_t n_a, const struct profile_shares *const *b,
		 size_t n_b, double level, struct profile_diff **ret);
void profile_diff_free(struct profile_diff *d);

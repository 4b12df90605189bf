/* Decide, then stop: group-sequential decisions over the rounds of a run
 * (or a stage of explain), each ratio stopped when it is decided, the error
 * rates held over every look and every ratio of the table.
 *
 * The looks.  A look after round r_j has information fraction
 * t_j = r_j / R, R the most rounds the plan allows.  Its boundary is a
 * Lan-DeMets spending function of O'Brien and Fleming's type,
 *
 *     alpha(t) = 2 - 2 Phi(z(1 - alpha/2) / sqrt(t)),
 *
 * the nominal level of each look found by the recursive integration of
 * Armitage, McPherson and Rowe (the standardised statistics of the looks
 * are a Brownian motion sampled at t_j), so that the chance of crossing at
 * any look under the null is alpha(t_j) - alpha(t_(j-1)).  A final look
 * (the plan's last round, or the last the budget leaves) spends what is
 * left.  The model's own t statistic (its estimate, standard error and
 * degrees of freedom: stats/block.h's) is judged against the nominal
 * level: early looks on few degrees of freedom are stricter still.
 *
 * Two families, each at alpha: "different" (H0: the ratio is 1) and "the
 * same within +-margin" (H0: |ln ratio| >= ln(1 + margin), two one-sided
 * tests, each at the look's one-sided nominal level).  Across the ratios
 * of a table each family is Holm's step-down in the group-sequential form
 * of Maurer and Bretz (2013): every hypothesis not yet rejected holds
 * alpha / (those not rejected) and its boundary at that level over all its
 * looks; a rejection passes its share on, and the rest are tested again
 * at the same look at the higher level.  A ratio decided one way stops,
 * and keeps its share of the other family (conservative).
 *
 * The interval printed beside a decision is the repeated confidence
 * interval of its look (its nominal level): it covers at the family's
 * level over every look, whenever the run stops.
 *
 * Pure: numbers in, numbers out; errors are -errno. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* The most looks a design takes (a look after each of repeat's 100 rounds). */
#define SEQ_LOOKS_MAX 128
/* The most rounds a run takes, repeat's and repeat-max's most
 * (experiment/key_table.c): the planner sizes no design beyond. */
#define SEQ_ROUNDS_MAX 100
/* A design's `every` (struct seq_design) when it looks once, after its
 * last round: a fixed design's (repeat = N). */
#define SEQ_EVERY_END UINT_MAX

/* The alpha an O'Brien-Fleming-type spending function has spent by
 * information fraction t (two-sided; t >= 1: all of it). */
double seq_spent(double alpha, double t);

/* The boundaries of looks at fractions t[0..k) (increasing, in (0, 1]),
 * the last spending all that is left when final: each look's critical
 * |Z| into ret_c[0..k) (INFINITY where it spends nothing).  -EINVAL: a
 * fraction out of order or range, k over SEQ_LOOKS_MAX. */
int seq_boundaries(double alpha, const double *t, size_t k, bool final, double *ret_c);

/* The nominal two-sided level of a critical |Z|: 2 (1 - Phi(c)). */
double seq_nominal_p(double c);

/* What a design of looks at t[0..k) does when the statistic's drift is
 * eta (its mean at t = 1: the true log ratio over the standard error of
 * the last look): outer[j] the |Z| at or above which look j stops
 * ("different"), inner[j] the |Z| at or below which it stops ("the same";
 * not above 0: none).  The chances of stopping each way by the end, and
 * the expected fraction at which it stops (1 where it never does). */
struct seq_operating {
	double p_outer, p_inner, expected_t;
};
int seq_operate(const double *t, size_t k, const double *outer, const double *inner, double eta,
		struct seq_operating *ret);

enum seq_answer {
	SEQ_OPEN,      /* undecided so far */
	SEQ_DIFFERENT, /* its interval excludes 1 at its look's level */
	SEQ_SAME,      /* within +-margin at its look's level */
};

/* One ratio at one look, as the model gives it: the log ratio, its
 * standard error and degrees of freedom; se NAN: no estimate there. */
struct seq_estimate {
	double d, se, df;
};

/* One ratio's decision and the figures that go with it: from the look
 * that decided it, else from the last look. */
struct seq_hypothesis {
	enum seq_answer answer;
	size_t look;	   /* the look that decided it (or the last one with an estimate), from 0 */
	double d, se, df;  /* there */
	double lo, hi;	   /* the log ratio's repeated confidence interval there; NAN: none */
	double level;	   /* its nominal confidence level (two-sided) */
	bool within;	   /* decided different, and the interval within +-margin all the same */
	bool estimated;	   /* some look had an estimate */
};

/* The looks of one table: its ratios as two families of hypotheses. */
struct seq_family {
	double alpha;  /* each family's: 1 - level */
	double margin; /* ln(1 + margin) */
	size_t n;
	struct seq_hypothesis *h; /* [n] */
	double t[SEQ_LOOKS_MAX];
	size_t looks; /* taken so far */
	/* Each family's boundaries at each Holm level (alpha / m for m
	 * hypotheses not rejected), as far as the looks have gone. */
	struct seq_cache *cache;
};

/* A family of n ratios at level (0.95), margin as a fraction (0.10).
 * -ENOMEM, -EINVAL. */
int seq_family_init(struct seq_family *f, size_t n, double level, double margin);
void seq_family_done(struct seq_family *f);

/* Look number f->looks at fraction t (final: the last there will be), with
 * est[0..n) each ratio's estimate there (an open ratio without one
 * waits).  Decides what it can: Holm's step-down within each family,
 * repeated at this look while it rejects.  -EINVAL: t not after the last
 * look's, or too many looks. */
int seq_family_look(struct seq_family *f, double t, bool final, const struct seq_estimate *est);

/* The rounds a design of looks every `every` rounds (seq_is_look()) up
 * to R needs, at a spread sigma between starts (ln TPS) and
 * `family` ratios of `cells` columns at `rows` thread counts, to decide
 * a ratio of (1 + margin) "different" with chance power and a ratio of 1
 * "the same within +-margin" with chance power, at the first Holm step
 * of each family (alpha / family): the fewest R, up to max (max + 1 when
 * none does).  The t statistic's degrees of freedom (stats_design_df())
 * cost it what a t quantile costs against the normal's. */
struct seq_design {
	double sigma, margin, level, power;
	size_t family, cells, rows;
	unsigned every, max;
};
unsigned seq_plan_rounds(const struct seq_design *d);
/* The smallest margin (a fraction, to half a point) such a design of at
 * most d->max rounds decides with power, where d->margin needs more;
 * NAN: none up to a tenfold ratio. */
double seq_plan_margin(const struct seq_design *d);
/* The chances and the expected rounds of such a design of R rounds at a
 * true log ratio theta: "different" (p_outer), "the same" (p_inner), and
 * the mean rounds it runs. */
int seq_plan_operate(const struct seq_design *d, unsigned rounds, double theta, struct seq_operating *ret,
		     double *ret_rounds);
/* Whether a design that looks every `every` rounds looks after round:
 * from round 2 on (one round leaves no spread to judge), at each
 * multiple of every; and always after its last. */
bool seq_is_look(unsigned every, unsigned round);
/* The rounds after which such a design of R rounds looks, R the last;
 * their number. */
size_t seq_look_rounds(unsigned every, unsigned rounds, unsigned *ret);

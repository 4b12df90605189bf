/* The statistics the report, compare, explain and run share: the median,
 * and how sure a ratio or a share is, from a handful of server restarts.
 * Small and pure: no JSON, no formatting, no logging.
 *
 * The unit of replication is the restart: each repeat starts a fresh
 * server, and a restart moves TPS by a few percent (buffer pool layout,
 * thread placement), more than the seconds within one start do.  So the
 * interval comes from the repeats, not from the per-second samples.
 *
 * Ratios: Welch's t on log TPS.  With a_i and b_j the repeats of the two
 * sides, d = mean(ln a) - mean(ln b), se^2 = var(ln a)/n_a + var(ln b)/n_b
 * (sample variances), Welch-Satterthwaite degrees of freedom, and the ratio
 * exp(d) (the ratio of the geometric means) with the interval
 * exp(d -+ t(1 - alpha/2, df) se) and the two-sided p-value of t = d / se.
 * The interval excludes 1 exactly when p < alpha: that is "significant".
 * With two repeats a side df is between 1 and 2 and t(0.975, 1) is 12.7:
 * the intervals are wide by construction, which the renderers say.
 *
 * Shares (explain), on the same scale: with x the repeats of a mix and a,
 * b the two ends, s = (mean ln x - mean ln b) / (mean ln a - mean ln b),
 * the part of the gap from b to a (as a log ratio) that the mix covers,
 * with Fieller's interval for that ratio of two correlated (both contain
 * mean ln b) differences of means, its t quantile at the
 * Welch-Satterthwaite degrees of freedom of
 * mean ln x - s mean ln a - (1 - s) mean ln b at the estimate s.  The
 * denominator is the gap that the ratio's test judges, so a significant gap
 * usually gives a bounded interval; when the gap is not clearly away from
 * zero the set is unbounded, and says so.
 *
 * Distribution functions are GSL's.  Errors are -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The default level of --confidence, and its open range in percent. */
#define STATS_CONFIDENCE_DEFAULT 0.95
#define STATS_CONFIDENCE_MIN_PCT 50.0
#define STATS_CONFIDENCE_MAX_PCT 99.9

/* qsort's comparison of two doubles, ascending. */
int stats_cmp_double(const void *a, const void *b);
/* The median of v[0..n), NAN for n == 0.  Sorts v in place. */
double stats_median(double *v, size_t n);

enum stats_verdict {
	STATS_SIGNIFICANT,     /* the interval excludes 1 (p < alpha) */
	STATS_NOT_SIGNIFICANT, /* it contains 1 */
	STATS_TOO_FEW,	       /* fewer than two repeats on a side: no interval */
	STATS_NO_SPREAD,       /* no variation on either side: no interval */
};

struct stats_ratio {
	size_t n_a, n_b;
	double ratio;	    /* geometric mean of a over that of b; NAN: a side is empty */
	double lo, hi;	    /* the interval at the level asked for; NAN: none (see verdict) */
	double p;	    /* two-sided p-value; NAN: none */
	double df;	    /* Welch-Satterthwaite degrees of freedom; NAN: none */
	enum stats_verdict verdict;
};

/* a against b at level (0.95).  -EINVAL: a level outside (0, 1); -EDOM: a
 * value that is not positive and finite (TPS has a logarithm). */
int stats_ratio(const double *a, size_t n_a, const double *b, size_t n_b, double level, struct stats_ratio *ret);

/* The two-sided critical value t(1 - (1 - level)/2, df). */
double stats_t_critical(double level, double df);

/* The interval's half-width relative to the ratio, exp(t se) - 1: the ratio
 * is known to within +-this.  INFINITY without an interval. */
double stats_ratio_precision(const struct stats_ratio *r);

struct stats_share {
	double share;	 /* NAN: a side is empty or the gap is zero */
	double lo, hi;	 /* -INFINITY / INFINITY when unbounded; NAN: no interval */
	double df;	 /* NAN: no interval */
	bool bounded;
};

/* The share of the gap from b to a that x covers, on log TPS, at level.
 * -EINVAL: a level outside (0, 1); -EDOM: a value that is not positive. */
int stats_share(const double *x, size_t n_x, const double *a, size_t n_a, const double *b, size_t n_b, double level,
		struct stats_share *ret);

/* A group of repeats in a share of contrasts: its values, and its
 * coefficients in the numerator and in the denominator (of mean log TPS). */
struct stats_term {
	const double *v;
	size_t n;
	double num, den;
};
#define STATS_TERMS_MAX 8

/* The general form of a share, on the same scale: sum(num_i mean ln v_i) over
 * sum(den_i mean ln v_i), the groups independent, with Fieller's interval
 * as above.  An interaction is one: (x_ij - x_i - x_j + b) / (a - b).
 * -EINVAL: a level outside (0, 1) or more than STATS_TERMS_MAX groups. */
int stats_share_of_contrast(const struct stats_term *t, size_t k, double level, struct stats_share *ret);

/* The coefficient of variation (sample standard deviation over the mean);
 * NAN with fewer than two values or a mean that is not positive. */
double stats_cv(const double *v, size_t n);

/* The mean and the sample variance (n - 1); NAN where undefined. */
void stats_mean_var(const double *v, size_t n, double *ret_mean, double *ret_var);

/* "95", "95%" or "97.5" into 0.95 / 0.975, within the open range above.
 * -EINVAL: not a number; -ERANGE: outside the range. */
int stats_parse_confidence(const char *s, double *ret);

/* explain's analysis (explain/attribute.h): shares, the set named, its
 * interactions, and the figure of mechanism that moved with the gap. */
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "common/util.h"
#include "explain/attribute.h"

/* A set is preferred to a smaller one only if it moves this much more of
 * the gap; a set accounts for the gap with a fit of SUFFICIENT_FIT; a
 * setting "moves" the gap alone when its share is at least MOVES_ALONE and
 * its interval excludes zero. */
#define LARGER_SET_MARGIN 0.10
#define SUFFICIENT_FIT 0.80
#define MOVES_ALONE 0.20
/* A figure of mechanism "moved" when A's and B's differ by this factor. */
#define MECHANISM_MOVED 1.5
/* The screening's second round takes the combinations of this many. */
#define SCREEN_STRONGEST 3
/* The set named is measured again when its share's interval is wider than
 * this, of the gap: 28-133% says it may be all of the gap, not how much. */
#define CONFIRM_WIDTH 0.50

/* "CPUQuota= + Nice=": the knobs taken from A in mix m. */
static void mix_label(const char *const *labels, size_t n, unsigned m, const char *sep, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t k = 0; k < n; k++)
		if ((m >> k) & 1)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? sep : "", labels[k]);
}

/* The share of the gap from B to A that mix i covers, with its interval.
 * A's own mix (the closure, when it is A) covers all of it by
 * construction: its repeats are the denominator's, not a sample beside
 * them. */
struct stats_share attribute_share(const struct measured *mz, size_t i)
{
	struct stats_share s;

	if (i == mz->full)
		return (struct stats_share){ .share = 1, .lo = 1, .hi = 1, .df = INFINITY, .bounded = true };
	if (stats_share(mz->t[i], mz->n[i], mz->t[mz->full], mz->n[mz->full], mz->t[0], mz->n[0], mz->level, &s) < 0)
		s = (struct stats_share){ .share = NAN, .lo = NAN, .hi = NAN, .df = NAN };
	return s;
}

/* The share of the gap that the set of mix i moves, with its interval:
 * the mean of what the set moves added to B and what the closure loses
 * without it, when the closure without it was measured too (the
 * screening's "A without each", every mix of a full design); otherwise
 * what it moves added to B.  With effects of single settings and of pairs
 * this mean is the set's Shapley value, its own effect and half of each
 * interaction it takes part in, so that a set's share and its
 * complement's add up to the closure's.  And as the mean of two
 * measurements it is the steadier: a setting whose hybrids land on the
 * client's CPU by lottery in some starts is judged by both. */
struct stats_share attribute_set_share(const struct design *d, const struct measured *mz, size_t i)
{
	unsigned all = d->masks[mz->closure], m = d->masks[i];
	long rest = mix_index(d, all & ~m);
	size_t c = mz->closure, f = mz->full;
	struct stats_share s;

	if (c == 0 || i == c || i == f || (m & ~all) || rest <= 0)
		return attribute_share(mz, i);
	/* x/2 - b/2 + c/2 - rest/2 over a - b; A may be the closure itself. */
	const struct stats_term t[] = {
		{ .v = mz->t[i], .n = mz->n[i], .num = 0.5 },
		{ .v = mz->t[0], .n = mz->n[0], .num = -0.5, .den = -1 },
		{ .v = mz->t[rest], .n = mz->n[rest], .num = -0.5 },
		{ .v = mz->t[c], .n = mz->n[c], .num = 0.5, .den = c == f },
		{ .v = mz->t[f], .n = mz->n[f], .den = 1 },
	};
	if (stats_share_of_contrast(t, c == f ? 4 : 5, mz->level, &s) < 0)
		s = (struct stats_share){ .share = NAN, .lo = NAN, .hi = NAN, .df = NAN };
	return s;
}

/* A share in whole percent, never "-0". */
static double pct(double share)
{
	double v = round(100 * share);

	return v == 0 ? 0 : v;
}

/* "43-58%", "unbounded", or "no interval". */
const char *attribute_share_interval(const struct stats_share *s, char *buf, size_t len)
{
	if (s->bounded)
		snprintf(buf, len, "%.0f-%.0f%%", pct(s->lo), pct(s->hi));
	else
		snprintf(buf, len, "%s", isnan(s->lo) ? "no interval" : "unbounded");
	return buf;
}

/* A against B judged as report judges a ratio: significant when its
 * interval excludes 1. */
bool attribute_gap(const struct measured *mz, struct stats_ratio *ret)
{
	struct stats_ratio r;

	if (stats_ratio(mz->t[mz->full], mz->n[mz->full], mz->t[0], mz->n[0], mz->level, &r) < 0)
		r = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN,
					  .verdict = STATS_TOO_FEW };
	if (ret)
		*ret = r;
	return r.verdict == STATS_SIGNIFICANT;
}

/* The index of the mix with exactly mask m in the design; -1: not measured. */
long mix_index(const struct design *d, unsigned m)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->masks[i] == m)
			return (long)i;
	return -1;
}

/* How well a share accounts for the gap: 1 at 100%, less as it falls
 * short or overshoots (a setting that moves TPS past A explains the gap no
 * better than one that stops short of it by as much). */
double attribute_fit(double share)
{
	return 1 - fabs(1 - share);
}

/* Does the set of mix i account for the gap: a share s (attribute_set_share())
 * with a fit of SUFFICIENT_FIT or more, or one whose interval excludes
 * none of the gap and none of nothing (bounded, holding 100% and not 0%)
 * when what the set moves added to B, `added`, is clear of nothing too.
 * Not by its interval alone: the stronger of two settings that act only
 * together has half of the gap or more for its share, and an interval as
 * wide as the noise, but it does not move the gap by itself. */
static bool accounts_for_gap(const struct stats_share *s, const struct stats_share *added)
{
	return attribute_fit(s->share) >= SUFFICIENT_FIT ||
	       (s->bounded && s->lo <= 1 && s->hi >= 1 && s->lo > 0 && added->bounded && added->lo > 0);
}

/* The set named as the cause.  The smallest set that accounts for the gap
 * (accounts_for_gap()), then the better fit; failing that, of
 * the sets whose fit is within LARGER_SET_MARGIN of the best, the smallest.
 * A's own mix is a candidate only when mz->full_counts, and its share is 1
 * by construction, so it is named only when no smaller set accounts for
 * the gap. */
size_t attribute_best_set(const struct design *d, const struct measured *mz, double *ret_share)
{
	double top = -INFINITY, best_fit = -INFINITY, best_share = NAN;
	size_t best = 0;

	for (size_t pass = 0; pass < 3 && !(pass == 2 && best); pass++)
		for (size_t i = 1; i < d->n; i++) {
			struct stats_share s = attribute_set_share(d, mz, i), added = attribute_share(mz, i);
			double share = s.share, fi = attribute_fit(share);
			int size = __builtin_popcount(d->masks[i]), best_size = __builtin_popcount(d->masks[best]);
			bool better = !best || size < best_size || (size == best_size && fi > best_fit);

			if (isnan(share) || (i == mz->full && !mz->full_counts && d->n > 2))
				continue;
			if (pass == 0)
				top = MAX(top, fi);
			else if (better && (pass == 1 ? accounts_for_gap(&s, &added) : fi >= top - LARGER_SET_MARGIN)) {
				best = i;
				best_fit = fi;
				best_share = share;
			}
		}
	*ret_share = best_share;
	return best;
}

/* Does setting k alone move the gap?  -1: its mix was not measured. */
static int moves_alone(const struct design *d, const struct measured *mz, size_t k, struct stats_share *ret)
{
	long i = mix_index(d, 1u << k);

	if (i < 0)
		return -1;
	*ret = attribute_share(mz, (size_t)i);
	return ret->share >= MOVES_ALONE && ret->bounded && ret->lo > 0;
}

/* The share of the gap that the pair j, k moves beyond each alone,
 * (T(jk) - T(j) - T(k) + T(B)) / (T(A) - T(B)); NAN share when a mix is
 * missing. */
static struct stats_share pair_interaction(const struct design *d, const struct measured *mz, size_t j, size_t k)
{
	long ij = mix_index(d, (1u << j) | (1u << k)), ej = mix_index(d, 1u << j), ek = mix_index(d, 1u << k);
	struct stats_share s = { .share = NAN, .lo = NAN, .hi = NAN, .df = NAN };
	size_t f = mz->full;

	if (ij < 0 || ej < 0 || ek < 0)
		return s;
	/* A may be the pair itself: one group with both coefficients. */
	const struct stats_term t[] = {
		{ .v = mz->t[ij], .n = mz->n[ij], .num = 1, .den = (size_t)ij == f },
		{ .v = mz->t[ej], .n = mz->n[ej], .num = -1 },
		{ .v = mz->t[ek], .n = mz->n[ek], .num = -1 },
		{ .v = mz->t[0], .n = mz->n[0], .num = 1, .den = -1 },
		{ .v = mz->t[f], .n = mz->n[f], .den = 1 },
	};
	if (stats_share_of_contrast(t, (size_t)ij == f ? 4 : 5, mz->level, &s) < 0)
		s = (struct stats_share){ .share = NAN, .lo = NAN, .hi = NAN, .df = NAN };
	return s;
}

/* Under a full design: the share each pair moves beyond its two settings
 * alone. */
static void print_interactions(const char *const *labels, size_t n, const struct design *d, const struct measured *mz,
			       FILE *out)
{
	char iv[32];
	bool any = false;

	for (size_t j = 0; j < n; j++)
		for (size_t k = j + 1; k < n; k++) {
			struct stats_share s = pair_interaction(d, mz, j, k);

			if (isnan(s.share))
				continue;
			if (!any)
				fprintf(out, "two-way interactions (the share a pair moves beyond its two settings alone):\n");
			fprintf(out, "  %s x %s: %.0f%% (%s)\n", labels[j], labels[k], pct(s.share),
			       attribute_share_interval(&s, iv, sizeof(iv)));
			any = true;
		}
}

/* What the set's members do alone: "; neither alone moves it (X 6%, Y 3%):
 * an interaction", "; alone X 30%, Y 25%, their interaction 45% (20-70%)",
 * or nothing when a member's mix is missing or all of them move it alone
 * and add up. */
static void print_set_parts(const char *const *labels, size_t n, const struct design *d, const struct measured *mz,
			    unsigned set, double set_share, FILE *out)
{
	char alone[512] = "", iv[32];
	double sum = 0;
	size_t members = 0, moving = 0;
	long first = -1, second = -1;

	for (size_t k = 0; k < n; k++) {
		struct stats_share s;
		int r;

		if (!((set >> k) & 1))
			continue;
		r = moves_alone(d, mz, k, &s);
		if (r < 0)
			return;
		*(first < 0 ? &first : &second) = (long)k;
		members++;
		moving += r;
		sum += s.share;
		snprintf(alone + strlen(alone), sizeof(alone) - strlen(alone), "%s%s %.0f%%", *alone ? ", " : "",
			 labels[k], pct(s.share));
	}
	if (moving == 0) {
		fprintf(out, "; %s alone moves it (%s): an interaction", members == 2 ? "neither" : "none of them", alone);
		return;
	}
	if (fabs(set_share - sum) < MOVES_ALONE)
		return;
	fprintf(out, "; alone %s", alone);
	if (members == 2) {
		struct stats_share s = pair_interaction(d, mz, (size_t)first, (size_t)second);

		fprintf(out, ", their interaction %.0f%% (%s)", pct(s.share), attribute_share_interval(&s, iv, sizeof(iv)));
	} else
		fprintf(out, ", the rest, %.0f%%, an interaction of them", pct((set_share - sum)));
}

/* The correlation across the measured mixes of a figure (its logarithm,
 * shares as they are) with the mean log TPS; NAN with fewer than 2. */
static double mechanism_correlation(const struct design *d, const struct measured *mz, size_t f, bool share)
{
	double x[MIXES_MAX], y[MIXES_MAX], mx, vx, my, vy, cov = 0;
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++) {
		double v = mz->mech[i][f], lt = 0;

		if (isnan(v) || (!share && v <= 0) || mz->n[i] == 0)
			continue;
		for (size_t r = 0; r < mz->n[i]; r++)
			lt += log(mz->t[i][r]);
		x[n] = share ? v : log(v);
		y[n++] = lt / (double)mz->n[i];
	}
	stats_mean_var(x, n, &mx, &vx);
	stats_mean_var(y, n, &my, &vy);
	for (size_t i = 0; i < n; i++)
		cov += (x[i] - mx) * (y[i] - my) / (double)(n - 1);
	return n >= 2 && vx > 0 && vy > 0 ? cov / sqrt(vx * vy) : NAN;
}

/* "610 us", "97%", "0.0512". */
static const char *mechanism_text(const struct oltp_mechanism_def *d, double v, char *buf, size_t len)
{
	if (!*d->unit)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.0f%s%s", v, streq(d->unit, "%") ? "" : " ", d->unit);
	return buf;
}

/* The figure of mechanism that moved with the gap: of those whose A and B
 * differ by MECHANISM_MOVED or more, the one that follows TPS across the
 * mixes most closely. */
static void print_evidence(const struct attribution_names *v, const struct design *d, const struct measured *mz,
			   FILE *out)
{
	size_t n, best = SIZE_MAX;
	const struct oltp_mechanism_def *defs = oltp_mechanism_table(&n);
	double best_r = 0;
	char abuf[32], bbuf[32];

	for (size_t f = 0; f < n; f++) {
		double a = mz->mech[mz->full][f], b = mz->mech[0][f], r;

		if (!(a > 0 && b > 0) || MAX(a, b) / MIN(a, b) < MECHANISM_MOVED)
			continue;
		r = mechanism_correlation(d, mz, f, streq(defs[f].unit, "%"));
		if (!isnan(r) && fabs(r) > fabs(best_r)) {
			best_r = r;
			best = f;
		}
	}
	if (best == SIZE_MAX) {
		fprintf(out, "No figure of mechanism moved with it (run-queue wait, migrations, involuntary switches, "
		       "the server on a client's CPU: none differs %.1fx between %s and %s).\n", MECHANISM_MOVED, v->a,
		       v->b);
		return;
	}
	fprintf(out, "What moved with it: %s %s against %s (%s against %s; r = %.2f with log TPS across the %zu mixes).\n",
	       defs[best].label, mechanism_text(&defs[best], mz->mech[mz->full][best], abuf, sizeof(abuf)),
	       mechanism_text(&defs[best], mz->mech[0][best], bbuf, sizeof(bbuf)), v->a, v->b, best_r, d->n);
}

/* The screening's second round: the pairs and the triple of the
 * SCREEN_STRONGEST settings that were not measured yet, a setting's
 * strength the larger of what it moves alone and what A loses without it. */
size_t attribute_strongest_combinations(const struct design *d, const struct measured *mz, size_t n, unsigned *masks)
{
	unsigned all = (1u << n) - 1, top = 0, candidates[4];
	size_t n_masks = 0;

	for (size_t pick = 0; pick < SCREEN_STRONGEST && pick < n; pick++) {
		double best = -INFINITY;
		size_t which = 0;

		for (size_t k = 0; k < n; k++) {
			long alone = mix_index(d, 1u << k), without = mix_index(d, all & ~(1u << k));
			double strength = MAX(alone < 0 ? -INFINITY : attribute_share(mz, (size_t)alone).share,
					      without < 0 ? -INFINITY : 1 - attribute_share(mz, (size_t)without).share);

			if (!((top >> k) & 1) && strength > best) {
				best = strength;
				which = k;
			}
		}
		top |= 1u << which;
	}
	/* Every subset of two or more of the top settings. */
	for (unsigned m = top; m; m = (m - 1) & top)
		if (__builtin_popcount(m) >= 2 && mix_index(d, m) < 0 && n_masks < ELEMENTSOF(candidates) &&
		    d->n + n_masks < MIXES_MAX)
			candidates[n_masks++] = m;
	memcpy(masks, candidates, n_masks * sizeof(unsigned));
	return n_masks;
}

/* The confirmation: when the set named accounts for the gap
 * (accounts_for_gap()) by an interval wider than CONFIRM_WIDTH, the mixes
 * its share rests on (B, the set, the closure without it, the closure and
 * A) into masks, to be measured again and pooled; how many (0: none).  A
 * start that lands badly (a free server on the client's CPU, a slow second
 * on the host) moves a mean of five by a fifth of the gap; the set's
 * interval says so, and more repeats of these mixes, not larger sets, are
 * what narrows it. */
size_t attribute_confirm_masks(const struct design *d, const struct measured *mz, unsigned *masks)
{
	double share;
	size_t best = attribute_best_set(d, mz, &share), n = 0;
	struct stats_share s, added;
	long mixes[5];

	if (!best || best == mz->full || !attribute_gap(mz, NULL))
		return 0;
	s = attribute_set_share(d, mz, best);
	added = attribute_share(mz, best);
	if (!accounts_for_gap(&s, &added) || (s.bounded && s.hi - s.lo <= CONFIRM_WIDTH))
		return 0;
	mixes[0] = 0;
	mixes[1] = (long)best;
	mixes[2] = mix_index(d, d->masks[mz->closure] & ~d->masks[best]);
	mixes[3] = (long)mz->closure;
	mixes[4] = (long)mz->full;
	for (size_t i = 0; i < ELEMENTSOF(mixes); i++) {
		bool seen = mixes[i] < 0;

		for (size_t j = 0; j < i && !seen; j++)
			seen = mixes[j] == mixes[i];
		if (!seen)
			masks[n++] = d->masks[mixes[i]];
	}
	return n;
}

/* Long because it prints the analysis in its order: the verdict on the
 * gap, the table of shares, the interactions, the sentence, the evidence. */
bool attribute_print(const struct attribution_names *names, const struct design *d, const struct measured *mz,
		     FILE *out)
{
	const char *const *labels = names->labels;
	const double *med = mz->med;
	double best_share;
	char verdict[REPORT_RATIO_MAX], iv[32];
	struct stats_ratio gap;
	size_t n = names->n, full = mz->full, best;

	attribute_gap(mz, &gap);
	report_format_ratio(&gap, verdict, sizeof(verdict));
	fprintf(out, "\n%s vs %s at %ld thread%s: %.1f vs %.1f TPS (medians), %s at %g%%, ", names->a, names->b,
		names->threads, names->threads == 1 ? "" : "s", med[full], med[0], isnan(gap.ratio) ? "no ratio" : verdict,
		100 * mz->level);
	if (mz->n[full] == mz->n[0])
		fprintf(out, "%zu repeats each\n", mz->n[0]);
	else
		fprintf(out, "%zu and %zu repeats\n", mz->n[full], mz->n[0]);
	if (gap.verdict != STATS_SIGNIFICANT) {
		fprintf(out, "No significant gap: %s, so no cause is named.\n",
		       gap.verdict == STATS_NOT_SIGNIFICANT ? "the interval of the ratio contains 1"
		       : gap.verdict == STATS_NO_SPREAD   ? "the repeats have no spread to judge it by"
							  : "fewer than two repeats a side give no interval");
		return false;
	}
	fprintf(out, "%-44s %10s %10s %8s %s\n", "taken from A, the rest from B", "TPS", "added to B", "share",
		"interval (Fieller)");
	for (size_t i = 1; i < d->n; i++) {
		struct stats_share sh = attribute_set_share(d, mz, i);
		char label[256];

		/* A itself, apart from the hybrids: 100% by construction. */
		if (d->masks[i] & ~((1u << n) - 1))
			continue;
		mix_label(labels, n, d->masks[i], " + ", label, sizeof(label));
		fprintf(out, "%-44s %10.1f %9.0f%% %7.0f%% %s\n", label, med[i], pct(attribute_share(mz, i).share),
			pct(sh.share), i == full ? "A itself" : attribute_share_interval(&sh, iv, sizeof(iv)));
	}
	fprintf(out, "(TPS: median of the repeats; added to B: what the set moves from B, of the gap in mean log TPS; "
		"share: the mean of that and what the closure loses without the set, where both were measured, "
		"with Fieller's %g%% interval)\n",
		100 * mz->level);
	if (d->n < (1u << n))
		fprintf(out, "(%zu factors: a screening design, each alone and A without each, then combinations of the "
		       "strongest; not every combination was measured)\n",
		       n);
	print_interactions(labels, n, d, mz, out);
	best = attribute_best_set(d, mz, &best_share);
	if (best) {
		struct stats_share sh = attribute_set_share(d, mz, best);
		char label[256];
		bool set = __builtin_popcount(d->masks[best]) > 1;

		mix_label(labels, n, d->masks[best], set ? " and " : "", label, sizeof(label));
		/* A's own mix: the share is 1 by construction, with no interval. */
		if (best == full)
			snprintf(iv, sizeof(iv), "all that differs");
		else
			attribute_share_interval(&sh, iv, sizeof(iv));
		fprintf(out, "\n%s %s %.0f%% (%s) of the gap at %ld thread%s (%s at %.2fx of %s)", label,
		       set ? "together explain" : "explains", pct(best_share), iv,
		       names->threads, names->threads == 1 ? "" : "s", names->a, gap.ratio, names->b);
		if (set)
			print_set_parts(labels, n, d, mz, d->masks[best], best_share, out);
		if (attribute_fit(best_share) < 0.9)
			fprintf(out, "; %.0f%% %s", pct(fabs(1 - best_share)),
			       best_share < 1 ? "stays unexplained" : "is an overshoot past A");
		fprintf(out, ".\n");
	}
	print_evidence(names, d, mz, out);
	return true;
}

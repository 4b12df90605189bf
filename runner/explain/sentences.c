/* explain's sentences (explain/sentences.h). */
#include <math.h>
#include <string.h>

#include "explain/sentences.h"
#include "report/report.h"
#include "common/util.h"

/* A share in whole percent, never "-0". */
static double pct(double share)
{
	double v = round(100 * share);

	return v == 0 ? 0 : v;
}

const char *sentences_interval(const struct stats_share *s, char *buf, size_t len)
{
	if (s->bounded)
		snprintf(buf, len, "%.0f-%.0f%%", pct(s->lo), pct(s->hi));
	else
		snprintf(buf, len, "%s", isnan(s->lo) ? "no interval" : "unbounded");
	return buf;
}

static const char *plural(long n)
{
	return n == 1 ? "" : "s";
}

/* The gap: its verdict from every start, or why nothing is named. */
static bool print_gap(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	char verdict[REPORT_RATIO_MAX];
	const struct stats_ratio *g = &x->gap;

	report_format_ratio(g, verdict, sizeof(verdict));
	fprintf(out, "\n%s vs %s at %ld thread%s: %.1f vs %.1f TPS (medians), %s at %g%%, %zu and %zu repeats; the "
		     "interval from all %zu starts of the %zu mixes (log TPS ~ mix + round)\n",
		rec->a, rec->b, rec->threads, plural(rec->threads), x->med_a, x->med_b,
		isnan(g->ratio) ? "no ratio" : verdict, 100 * rec->level, x->n_a, x->n_b, x->n_starts, x->n_mixes);
	if (g->verdict == STATS_SIGNIFICANT)
		return true;
	fprintf(out, "No significant gap: %s, so no cause is named",
		g->verdict == STATS_NOT_SIGNIFICANT ? "the interval of the ratio contains 1"
		: g->verdict == STATS_NO_SPREAD	   ? "the repeats have no spread to judge it by"
						   : "too few starts give no interval");
	if (!isnan(g->mde))
		fprintf(out, "; at sigma %.1f%% with %zu and %zu repeats, a gap under %.2fx cannot be told from noise "
			     "(%.0f%% power)",
			100 * g->sigma, g->n_a, g->n_b, g->mde, 100 * STATS_POWER);
	fprintf(out, ".\n");
	return false;
}

/* Each factor's share, its interval, what it moves alone. */
static void print_factors(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	char iv[32], alone[32];
	size_t family = 0;

	for (size_t k = 0; k < rec->n_factors; k++)
		family = MAX(family, x->shapley[k].family);
	fprintf(out, "%-40s %7s %-22s %7s\n", "factor", "share", "interval (Fieller)", "alone");
	for (size_t k = 0; k < rec->n_factors; k++) {
		if (!((x->factors >> k) & 1)) {
			fprintf(out, "%-40s %7s (screened out: main effect %.0f%%)\n", rec->labels[k], "",
				pct(x->main_effect[k]));
			continue;
		}
		snprintf(alone, sizeof(alone), "%.0f%%", pct(x->alone[k].share));
		fprintf(out, "%-40s %6.0f%% %-22s %7s", rec->labels[k], pct(x->shapley[k].share),
			sentences_interval(&x->shapley[k], iv, sizeof(iv)), alone);
		fputc('\n', out);
	}
	fprintf(out, "%-40s %6.0f%% %s\n", rec->closure_is_a ? "all of them (A itself)" : "all of them (the closure)",
		pct(x->closure.share), rec->closure_is_a ? "" : sentences_interval(&x->closure, iv, sizeof(iv)));
	fprintf(out, "(share: the factor's exact Shapley value, what it adds to log TPS averaged over every order of "
		     "adding the factors to %s, of the gap; %g%% intervals from the model, Holm-adjusted across the %zu "
		     "factor%s; alone: added to %s by itself)\n",
		rec->b, 100 * rec->level, family, plural((long)family), rec->b);
}

/* The pairs' interactions, those claimed first. */
static void print_pairs(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	char iv[32];

	if (x->n_pairs == 0)
		return;
	fprintf(out, "two-way interactions (what a pair moves beyond each alone, averaged over the others, of the gap; "
		     "Holm across the %zu pair%s; claimed only where the interval excludes 0):\n",
		x->n_pairs, plural((long)x->n_pairs));
	for (size_t j = 0; j < rec->n_factors; j++)
		for (size_t k = j + 1; k < rec->n_factors; k++)
			if (!isnan(x->pair[j][k].share))
				fprintf(out, "  %s x %s: %.0f%% (%s)%s\n", rec->labels[j], rec->labels[k],
					pct(x->pair[j][k].share), sentences_interval(&x->pair[j][k], iv, sizeof(iv)),
					x->pair_claimed[j][k] ? ": an interaction" : "");
}

/* The interaction of the named set's members: a pair's, or none. */
static const struct stats_share *set_pair(const struct explanation *x, unsigned set, size_t *ret_j, size_t *ret_k)
{
	for (size_t j = 0; j < FACTORS_MAX; j++)
		for (size_t k = j + 1; k < FACTORS_MAX; k++)
			if ((set >> j) & 1 && (set >> k) & 1 && !isnan(x->pair[j][k].share)) {
				*ret_j = j;
				*ret_k = k;
				return &x->pair[j][k];
			}
	return NULL;
}

/* How the members of a set of two or more combine: an interaction shown,
 * addition shown, or, at this noise, neither. */
static void print_set_parts(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	char alone[512] = "", iv[32];
	bool all_small = true;
	size_t j = 0, k = 0;
	const struct stats_share *pair = set_pair(x, x->named, &j, &k);

	for (size_t f = 0; f < rec->n_factors; f++) {
		if (!((x->named >> f) & 1))
			continue;
		all_small &= x->alone[f].bounded && x->alone[f].hi < ANALYSIS_SMALL;
		snprintf(alone + strlen(alone), sizeof(alone) - strlen(alone), "%s%s %.0f%% (%s)", *alone ? ", " : "",
			 rec->labels[f], pct(x->alone[f].share), sentences_interval(&x->alone[f], iv, sizeof(iv)));
	}
	if (!pair)
		return;
	if (x->pair_claimed[j][k] && all_small)
		fprintf(out, "; neither alone moves it (%s): an interaction, %.0f%% (%s) of the gap beyond each alone",
			alone, pct(pair->share), sentences_interval(pair, iv, sizeof(iv)));
	else if (x->pair_claimed[j][k])
		fprintf(out, "; alone %s, their interaction %.0f%% (%s)", alone, pct(pair->share),
			sentences_interval(pair, iv, sizeof(iv)));
	else if (pair->bounded && pair->lo > -ANALYSIS_SMALL && pair->hi < ANALYSIS_SMALL)
		fprintf(out, "; they add: alone %s, their interaction %.0f%% (%s), within +-%.0f points", alone,
			pct(pair->share), sentences_interval(pair, iv, sizeof(iv)), 100 * ANALYSIS_SMALL);
	else {
		double half = pair->bounded ? (pair->hi - pair->lo) / 2 : NAN;

		fprintf(out, "; at this noise it cannot tell whether they add or interact (alone %s; their interaction "
			     "%.0f%% (%s))", alone, pct(pair->share), sentences_interval(pair, iv, sizeof(iv)));
		if (half > 0)
			fprintf(out, ": about %.0f times the rounds would tell one of %.0f points", ceil(pow(half / ANALYSIS_SMALL, 2)),
				100 * ANALYSIS_SMALL);
	}
}

/* The sentence naming the cause, with where its share comes from. */
static void print_named(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	char label[512], iv[32];
	const char *labels[FACTORS_MAX];
	bool set = __builtin_popcount(x->named) > 1;
	double s = x->named_share.share;

	for (size_t k = 0; k < rec->n_factors; k++)
		labels[k] = rec->labels[k];
	if (!x->named) {
		fprintf(out, "\nNo set of these factors moves the gap toward %s.\n", rec->a);
		return;
	}
	design_mix_label(labels, rec->n_factors, x->named, set ? " and " : "", label, sizeof(label));
	fprintf(out, "\n%s %s %.0f%% (%s) of the gap at %ld thread%s (%s at %.2fx of %s)", label,
		set ? "together explain" : "explains", pct(s), sentences_interval(&x->named_share, iv, sizeof(iv)),
		rec->threads, plural(rec->threads), rec->a, x->gap.ratio, rec->b);
	if (x->held_out)
		fprintf(out, ", measured in %u fresh round%s that played no part in choosing it", x->confirm_rounds,
			plural(x->confirm_rounds));
	else if (x->named == x->factors && rec->closure_is_a)
		fprintf(out, ", all that differs: %s is their closure", rec->a);
	else
		fprintf(out, ", chosen and sized on the same rounds (no hold-out was measured: its interval is optimistic)");
	if (x->held_out && x->named_share.bounded && x->named_share.hi - x->named_share.lo > rec->width) {
		fprintf(out, " (an interval %.0f points wide, where %.0f were asked: ",
			100 * (x->named_share.hi - x->named_share.lo), 100 * rec->width);
		if (x->confirm_rounds < rec->stage[STAGE_CONFIRM].rounds_wanted)
			fprintf(out, "%u rounds were wanted, and the budget left %u)",
				rec->stage[STAGE_CONFIRM].rounds_wanted, x->confirm_rounds);
		else
			fprintf(out, "the hold-out's spread was wider than the screen's, from which its rounds were sized)");
	}
	if (set)
		print_set_parts(rec, x, out);
	if (fabs(1 - s) > 0.1)
		fprintf(out, "; %.0f%% %s", pct(fabs(1 - s)), s < 1 ? "stays unexplained" : "is an overshoot past A");
	fprintf(out, ".\n");
}

/* How close the closure comes to A, and what no hybrid could take. */
static void print_closure(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	const struct stats_ratio *c = &x->closure_to_a;
	char iv[32];

	if (!rec->closure_is_a && !isnan(c->ratio)) {
		struct stats_share rest = { .share = 1 - x->closure.share, .lo = 1 - x->closure.hi,
					    .hi = 1 - x->closure.lo, .bounded = x->closure.bounded };

		if (isnan(c->lo))
			fprintf(out, "The hybrid with all %zu attributes of %s reaches %.0f%% of its TPS (no interval)",
				rec->n_factors, rec->a, 100 * c->ratio);
		else
			fprintf(out, "The hybrid with all %zu attributes of %s reaches %.0f%% (%.0f-%.0f%%) of its TPS",
				rec->n_factors, rec->a, 100 * c->ratio, 100 * c->lo, 100 * c->hi);
		fprintf(out, "; the rest, %.0f%% (%s) of the gap, is what it cannot reproduce.\n", pct(rest.share),
			sentences_interval(&rest, iv, sizeof(iv)));
	}
	if (*rec->unmovable)
		fprintf(out, "Differs and no hybrid can take it: %s (part of what stays unexplained).\n", rec->unmovable);
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

static void print_evidence(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	size_t n;
	const struct oltp_mechanism_def *defs = oltp_mechanism_table(&n);
	char a[32], b[32];

	if (x->mechanism < 0) {
		fprintf(out, "No figure of mechanism moved with it (run-queue wait, migrations, involuntary switches, "
			     "the server on a client's CPU: none differs 1.5x between %s and %s).\n",
			rec->a, rec->b);
		return;
	}
	fprintf(out, "What moved with it: %s %s against %s (%s against %s; r = %.2f with log TPS across the %zu mixes).\n",
		defs[x->mechanism].label, mechanism_text(&defs[x->mechanism], x->mech_a, a, sizeof(a)),
		mechanism_text(&defs[x->mechanism], x->mech_b, b, sizeof(b)), rec->a, rec->b, x->mech_r, x->n_mixes);
}

void sentences_print(const struct explain_record *rec, const struct analysis_inputs *in _unused_,
		     const struct explanation *x, FILE *out)
{
	if (!print_gap(rec, x, out))
		return;
	print_factors(rec, x, out);
	print_pairs(rec, x, out);
	print_named(rec, x, out);
	print_closure(rec, x, out);
	print_evidence(rec, x, out);
}

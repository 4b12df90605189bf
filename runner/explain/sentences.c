/* explain's sentences (explain/sentences.h). */
#include <math.h>
#include <string.h>

#include "explain/sentences.h"
#include "report/render/cells.h"
#include "report/report.h"
#include "common/util.h"

/* A share in whole percent, never "-0". */
static double pct(double share)
{
	double v = round(100 * share);

	return v == 0 ? 0 : v;
}

/* "43%", or "none". */
static const char *share_text(double share, char *buf, size_t len)
{
	if (isnan(share))
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%.0f%%", pct(share));
	return buf;
}

const char *sentences_interval(const struct stats_share *s, char *buf, size_t len)
{
	if (s->bounded)
		snprintf(buf, len, "%.0f%s%.0f%%", pct(s->lo), pct(s->lo) < 0 || pct(s->hi) < 0 ? " to " : "-", pct(s->hi));
	else
		(void)text_copy(buf, len, isnan(s->lo) ? "no interval" : "unbounded");
	return buf;
}

static const char *plural(long n)
{
	return n == 1 ? "" : "s";
}

void sentences_mix_label(const struct explain_record *rec, const char *const *labels, unsigned mask, char *buf,
			 size_t len)
{
	unsigned closure = (1u << rec->n_factors) - 1;

	if (mask == 0)
		snprintf(buf, len, "B: %s", rec->b);
	else if (design_is_a(mask, closure, rec->closure_is_a))
		snprintf(buf, len, "A: %s", rec->a);
	else
		design_mix_label(labels, rec->n_factors, mask, " + ", buf, len);
}

const char *sentences_failure(const struct explain_record *rec, const char *const *labels, enum explain_stage s,
			      const struct stage_mix *m, char *buf, size_t len)
{
	char label[512], zero[64] = "";
	size_t starts = m->n + m->n_failed;

	sentences_mix_label(rec, labels, m->mask, label, sizeof(label));
	if (m->n_zero)
		snprintf(zero, sizeof(zero), "; %zu of them completed no transaction", m->n_zero);
	snprintf(buf, len, "%s, %s: %zu of %zu starts failed (%.0f%%, %.0f-%.0f%%%s)%s", explain_stage_dir(s), label,
		 m->n_failed, starts, 100.0 * (double)m->n_failed / (double)starts, 100 * m->fail_lo, 100 * m->fail_hi,
		 zero, m->too_many_failed ? ": more than a fifth, so it takes no part" : "");
	return buf;
}

/* Each mix with failed starts, stage by stage. */
static void print_failures(const struct explain_record *rec, const struct analysis_inputs *in, FILE *out)
{
	char line[1024];
	bool said = false;

	for (size_t s = 0; s < _STAGE_MAX; s++) {
		const struct stage *st = explain_stage_of(in, (enum explain_stage)s);

		for (size_t i = 0; st && i < st->n_mix; i++) {
			if (st->mix[i].n_failed == 0)
				continue;
			if (!said)
				fprintf(out, "failures (report of the stage's directory gives each step's reason):\n");
			said = true;
			fprintf(out, "  %s\n", sentences_failure(rec, in->labels, (enum explain_stage)s, &st->mix[i], line,
								 sizeof(line)));
		}
	}
}

/* The gap: its verdict from every start, or why nothing is named. */
static bool print_gap(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	char verdict[REPORT_RATIO_MAX];
	const struct stats_ratio *g = &x->gap;

	report_format_ratio(g, verdict, sizeof(verdict));
	if (x->ends_failed) {
		fprintf(out, "\n%s vs %s at %ld thread%s: no gap: %s's or %s's starts on the screen failed too often to take "
			     "part (above), so no cause is named.\n", rec->a, rec->b, rec->threads, plural(rec->threads),
			rec->a, rec->b);
		return false;
	}
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

/* The gap a share is of, "1.21x (1.12-1.30)". */
static const char *gap_text(const struct stats_ratio *g, char *buf, size_t len)
{
	if (isnan(g->ratio))
		snprintf(buf, len, "no ratio");
	else if (isnan(g->lo))
		snprintf(buf, len, "%.2fx", g->ratio);
	else
		snprintf(buf, len, "%.2fx (%.2f-%.2f)", g->ratio, g->lo, g->hi);
	return buf;
}

/* Each factor's share, its interval, what it moves alone; all of the
 * screen's gap, which the caption gives. */
static void print_factors(const struct explain_record *rec, const struct analysis_inputs *in,
			  const struct explanation *x, FILE *out)
{
	char iv[32], alone[32], share[32], gap[64];
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
		fprintf(out, "%-40s %7s %-22s %7s", rec->labels[k], share_text(x->shapley[k].share, share, sizeof(share)),
			sentences_interval(&x->shapley[k], iv, sizeof(iv)), share_text(x->alone[k].share, alone, sizeof(alone)));
		fputc('\n', out);
	}
	fprintf(out, "%-40s %7s %s\n", rec->closure_is_a ? "all of them (A itself)" : "all of them (the closure)",
		share_text(x->closure.share, share, sizeof(share)),
		rec->closure_is_a ? "" : sentences_interval(&x->closure, iv, sizeof(iv)));
	fprintf(out, "(share: the factor's exact Shapley value, what it adds to log TPS averaged over every order of "
		     "adding the factors to %s, of the screen's gap, %s at %s of %s in its %u round%s; %g%% intervals from "
		     "the model, Holm-adjusted across the %zu factor%s with a share; alone: added to %s by itself)\n",
		rec->b, rec->a, gap_text(&x->screen_gap, gap, sizeof(gap)), rec->b, in->screen->n_rounds,
		plural(in->screen->n_rounds), 100 * rec->level, family, plural((long)family), rec->b);
}

/* The pairs' interactions, those claimed first. */
static void print_pairs(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	char iv[32];
	size_t family = 0;

	for (size_t j = 0; j < rec->n_factors; j++)
		for (size_t k = j + 1; k < rec->n_factors; k++)
			family = MAX(family, isnan(x->pair[j][k].share) ? 0 : x->pair[j][k].family);
	if (family == 0)
		return;
	fprintf(out, "two-way interactions (what a pair moves beyond each alone, averaged over the others, of the "
		     "screen's gap; Holm across the %zu pair%s; claimed only where the interval excludes 0):\n",
		family, plural((long)family));
	for (size_t j = 0; j < rec->n_factors; j++)
		for (size_t k = j + 1; k < rec->n_factors; k++)
			if (!isnan(x->pair[j][k].share))
				fprintf(out, "  %s x %s: %.0f%% (%s)%s\n", rec->labels[j], rec->labels[k],
					pct(x->pair[j][k].share), sentences_interval(&x->pair[j][k], iv, sizeof(iv)),
					x->pair_claimed[j][k] ? ": an interaction" : "");
}

/* The members' shares alone, "f0 2% (-5 to 8%), f1 ...", into buf; true
 * when each is shown within +-ANALYSIS_SMALL. */
static bool set_alone(const struct explain_record *rec, const struct explanation *x, char *buf, size_t len)
{
	bool small = true;
	char iv[32];

	*buf = '\0';
	for (size_t f = 0; f < rec->n_factors; f++) {
		if (!((x->named >> f) & 1))
			continue;
		small &= analysis_shown_small(&x->alone[f]);
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s %.0f%% (%s)", *buf ? ", " : "", rec->labels[f],
			 pct(x->alone[f].share), sentences_interval(&x->alone[f], iv, sizeof(iv)));
	}
	return small;
}

/* What the pairs of the named set show, each pair named. */
struct set_pairs {
	char claimed[512], small[512], open[512]; /* "f0 x f1 22% (3-42%), ..." of each kind */
	size_t n, n_claimed, n_small;
	double open_mde; /* of the widest open pair: the interaction its rounds detect at STATS_POWER; NAN: none */
};

static void add_pair(char *buf, size_t len, const struct explain_record *rec, size_t j, size_t k,
		     const struct stats_share *p)
{
	char iv[32];

	snprintf(buf + strlen(buf), len - strlen(buf), "%s%s x %s %.0f%% (%s)", *buf ? ", " : "", rec->labels[j],
		 rec->labels[k], pct(p->share), sentences_interval(p, iv, sizeof(iv)));
}

/* Every pair of the set, as the table judged it: claimed, shown within
 * +-ANALYSIS_SMALL, or neither. */
static void judge_pairs(const struct explain_record *rec, const struct explanation *x, struct set_pairs *sp)
{
	*sp = (struct set_pairs){ .open_mde = NAN };
	for (size_t j = 0; j < rec->n_factors; j++)
		for (size_t k = j + 1; k < rec->n_factors; k++) {
			const struct stats_share *p = &x->pair[j][k];

			if (!((x->named >> j) & 1) || !((x->named >> k) & 1) || isnan(p->share))
				continue;
			sp->n++;
			if (x->pair_claimed[j][k]) {
				sp->n_claimed++;
				add_pair(sp->claimed, sizeof(sp->claimed), rec, j, k, p);
			} else if (analysis_shown_small(p)) {
				sp->n_small++;
				add_pair(sp->small, sizeof(sp->small), rec, j, k, p);
			} else {
				double mde = p->bounded ? log(stats_mde((p->hi - p->lo) / 2 / stats_t_critical(p->level, p->df),
									p->df, p->level, STATS_POWER))
							: NAN;

				add_pair(sp->open, sizeof(sp->open), rec, j, k, p);
				sp->open_mde = isnan(sp->open_mde) || mde > sp->open_mde ? mde : sp->open_mde;
			}
		}
}

/* How the members of a set of two or more combine, on the screen (whose
 * table the pairs are of): an interaction shown, addition shown (each
 * pair's interaction within +-ANALYSIS_SMALL), or, at this noise,
 * neither; each pair named. */
static void print_set_parts(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	char alone[512];
	bool small = set_alone(rec, x, alone, sizeof(alone)), two = __builtin_popcount(x->named) == 2;
	struct set_pairs sp;
	double more;

	judge_pairs(rec, x, &sp);
	if (sp.n == 0)
		return;
	if (sp.n_claimed && small)
		fprintf(out, "; on the screen %s alone moves it by %.0f points or more (%s): an interaction, %s of the gap "
			     "beyond each alone", two ? "neither" : "none", 100 * ANALYSIS_SMALL, alone, sp.claimed);
	else if (sp.n_claimed)
		fprintf(out, "; on the screen alone %s, and %s interact%s: %s of the gap beyond each alone", alone,
			sp.n_claimed == 1 ? "one pair" : "pairs", sp.n_claimed == 1 ? "s" : "", sp.claimed);
	else if (sp.n_small == sp.n)
		fprintf(out, "; on the screen %s: alone %s; %s, within +-%.0f points", two ? "they add" : "each pair adds",
			alone, sp.small, 100 * ANALYSIS_SMALL);
	else {
		fprintf(out, "; at this noise the screen cannot tell whether they add or interact (alone %s; %s)", alone,
			sp.open);
		/* The rounds that make the widest open pair's interval tell one
		 * of ANALYSIS_SMALL from none at STATS_POWER. */
		more = ceil(pow(sp.open_mde / ANALYSIS_SMALL, 2));
		if (more >= 2)
			fprintf(out, ": about %.0f times the rounds would tell one of %.0f points at %.0f%% power", more,
				100 * ANALYSIS_SMALL, 100 * STATS_POWER);
	}
}

/* Why the hold-out's interval is wider than --width asked: the rounds the
 * budget cut, else what the hold-out's own fit shows (its spread by the F
 * test, its gap).  Its t is not a reason: the rounds were sized at the
 * hold-out's own degrees of freedom (analysis_confirm_rounds). */
static void print_width(const struct explain_record *rec, const struct explanation *x, FILE *out)
{
	const struct stats_share *s = &x->named_share;

	/* Compared as printed: "20 points wide, where 20 were asked" is no reason to explain. */
	if (!x->held_out || !s->bounded || round(100 * (s->hi - s->lo)) <= round(100 * rec->width))
		return;
	fprintf(out, " (an interval %.0f points wide, where %.0f were asked", 100 * (s->hi - s->lo), 100 * rec->width);
	if (x->confirm_rounds < rec->stage[STAGE_CONFIRM].rounds_wanted) {
		fprintf(out, ": %u rounds were wanted, and the budget left %u)", rec->stage[STAGE_CONFIRM].rounds_wanted,
			x->confirm_rounds);
		return;
	}
	fprintf(out, ", of rounds sized from the screen's spread at the hold-out's own t (%.0f degrees of freedom): "
		     "its spread %s than the screen's (%.1f%% against %.1f%%, F test p = %.2g)",
		x->confirm_df, x->wider_p < 1 - rec->level ? "was wider" : "is not shown wider", 100 * x->confirm_sigma,
		100 * x->sigma, x->wider_p);
	if (fabs(log(x->named_gap.ratio)) < 0.9 * fabs(log(x->screen_gap.ratio)))
		fprintf(out, "; its gap is %.2fx where the screen's was %.2fx", x->named_gap.ratio, x->screen_gap.ratio);
	fputc(')', out);
}

/* What the named set's share leaves, only where its interval shows it:
 * some of the gap unexplained (the interval below 1), or an overshoot
 * past A (above). */
static void print_rest(const struct explanation *x, FILE *out)
{
	const struct stats_share *s = &x->named_share;
	struct stats_share rest = { .share = 1 - s->share, .lo = 1 - s->hi, .hi = 1 - s->lo, .bounded = true };
	struct stats_share over = { .share = s->share - 1, .lo = s->lo - 1, .hi = s->hi - 1, .bounded = true };
	char iv[32];

	if (s->bounded && s->hi < 1)
		fprintf(out, "; %.0f%% (%s) of it stays unexplained", pct(rest.share), sentences_interval(&rest, iv, sizeof(iv)));
	else if (s->bounded && s->lo > 1)
		fprintf(out, "; it overshoots A by %.0f%% (%s) of the gap", pct(over.share),
			sentences_interval(&over, iv, sizeof(iv)));
}

/* The sentence naming the cause: its share, the gap that share is of and
 * the stage both come from, what the set's members do, what is left. */
static void print_named(const struct explain_record *rec, const struct analysis_inputs *in,
			const struct explanation *x, FILE *out)
{
	char label[512], iv[32], gap[64];
	const char *labels[FACTORS_MAX];
	bool set = __builtin_popcount(x->named) > 1, missing = false;

	for (size_t k = 0; k < rec->n_factors; k++) {
		labels[k] = rec->labels[k];
		missing |= (x->factors >> k & 1) && isnan(x->shapley[k].share);
	}
	if (!x->named && missing && x->n_excluded)
		fprintf(out, "\nNo set of these factors is named: %zu mix%s failed too often to take part (above), and "
			     "a share needs every mix.\n", x->n_excluded, x->n_excluded == 1 ? "" : "es");
	else if (!x->named)
		fprintf(out, "\nNo set of these factors moves the gap toward %s.\n", rec->a);
	if (!x->named)
		return;
	design_mix_label(labels, rec->n_factors, x->named, set ? " and " : "", label, sizeof(label));
	gap_text(&x->named_gap, gap, sizeof(gap));
	if (x->by_construction)
		fprintf(out, "\n%s %s all that differs between %s and %s at %ld thread%s (%s is their closure): %s the whole "
			     "gap, %s, by construction", label, set ? "are" : "is", rec->a, rec->b, rec->threads,
			plural(rec->threads), rec->a, set ? "together they are" : "it is", gap);
	else if (x->held_out && isnan(x->named_share.share))
		fprintf(out, "\n%s, named on the screen, %s no share in the hold-out's %u fresh round%s: %s", label,
			set ? "have" : "has", x->confirm_rounds, plural(x->confirm_rounds),
			x->n_excluded ? "a mix it needs failed too often to take part (above)" : "its mixes gave no value");
	else if (x->held_out)
		fprintf(out, "\n%s %s %.0f%% (%s) of the gap in the hold-out's %u fresh round%s at %ld thread%s (%s at %s of "
			     "%s there), which played no part in choosing %s", label, set ? "together explain" : "explains",
			pct(x->named_share.share), sentences_interval(&x->named_share, iv, sizeof(iv)), x->confirm_rounds,
			plural(x->confirm_rounds), rec->threads, plural(rec->threads), rec->a, gap, rec->b, set ? "them" : "it");
	else
		fprintf(out, "\n%s %s %.0f%% (%s) of the gap in the screen's %u round%s at %ld thread%s (%s at %s of %s "
			     "there), which also chose %s (no hold-out was measured: its interval is optimistic)", label,
			set ? "together explain" : "explains", pct(x->named_share.share),
			sentences_interval(&x->named_share, iv, sizeof(iv)), in->screen->n_rounds,
			plural(in->screen->n_rounds), rec->threads, plural(rec->threads), rec->a, gap, rec->b, set ? "them" : "it");
	print_width(rec, x, out);
	if (set)
		print_set_parts(rec, x, out);
	print_rest(x, out);
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

	/* The allocator is no figure of telemetry, but a factor that moves
	 * LD_PRELOAD moves it: named, as the placements read it. */
	if (*rec->allocator_a)
		fprintf(out, "The allocator moved with LD_PRELOAD: %s in %s against %s in %s (the placements' mapped "
			     "libraries).\n", rec->allocator_a, rec->a, rec->allocator_b, rec->b);
	if (x->mechanism < 0) {
		fprintf(out, "No figure of mechanism moved with it (run-queue wait, migrations, voluntary and involuntary switches, "
			     "the server on a client's CPU: none differs 1.5x between %s and %s).\n",
			rec->a, rec->b);
		return;
	}
	fprintf(out, "What moved with it: %s %s against %s (%s against %s; r = %.2f with log TPS across the %zu mixes",
		defs[x->mechanism].label, mechanism_text(&defs[x->mechanism], x->mech_a, a, sizeof(a)),
		mechanism_text(&defs[x->mechanism], x->mech_b, b, sizeof(b)), rec->a, rec->b, x->mech_r, x->n_mixes);
	if (isnan(x->mech_r_lo))
		fputs(", too few for an interval).\n", out);
	else
		fprintf(out, ", %.2f to %.2f at %.0f%%, Fisher's z).\n", x->mech_r_lo, x->mech_r_hi, 100 * rec->level);
}

void sentences_print(const struct explain_record *rec, const struct analysis_inputs *in,
		     const struct explanation *x, FILE *out)
{
	/* The detail first and the answer last, whole within a screen: the
	 * failures, the factors, the pairs and the evidence, then the gap,
	 * the set that explains it and what no hybrid reproduces. */
	fputc('\n', out);
	print_failures(rec, in, out);
	if (!x->ends_failed && x->gap.verdict == STATS_SIGNIFICANT) {
		print_factors(rec, in, x, out);
		print_pairs(rec, x, out);
		print_evidence(rec, x, out);
		if (in->screen && in->screen->profile[0])
			fputs(in->screen->profile, out);
	}
	if (!print_gap(rec, x, out))
		return;
	print_named(rec, in, x, out);
	print_closure(rec, x, out);
}

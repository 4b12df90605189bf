/* explain's designs and analysis (runner/explain/design.c, analysis.c,
 * sentences.c) on stages whose TPS is written here, no prerequisites: the
 * full design and the resolution IV fraction; the exact Shapley shares of
 * two settings that add up, their sum the closure's; a pair that moves the
 * gap only together, claimed as an interaction with each alone shown
 * small; a single cause beside an idle setting; no gap, with what it could
 * have seen; the figure of mechanism quoted; and the hold-out's rounds,
 * more of them for a noisier screen.  t/065 tests the method's coverage
 * and error rates on hundreds of seeded data sets; t/080-085 make the
 * effects for real. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/analysis.h"
#include "explain/design.h"
#include "explain/sentences.h"
#include "stats/stats.h"
#include "tap.h"
#include "common/util.h"

static struct stage screen;

/* The noise of round r, +-1% in a fixed pattern, so that the residuals
 * have a spread and the shares an interval. */
static double wobble(size_t mix, unsigned r)
{
	static const double w[] = { 1.0, 1.01, 0.99, 1.005, 0.995 };

	return w[(mix * 3 + r) % ELEMENTSOF(w)];
}

/* The stage of design d over rounds, TPS from log_tps(mask). */
static void make_stage(const struct design *d, unsigned rounds, double (*log_tps)(unsigned), double wait_a)
{
	screen = (struct stage){ .n_mix = d->n, .n_rounds = rounds };
	for (size_t i = 0; i < d->n; i++) {
		struct stage_mix *m = &screen.mix[i];

		m->mask = d->masks[i];
		for (unsigned r = 1; r <= rounds; r++) {
			m->tps[m->n] = exp(log_tps(m->mask)) * wobble(i, r);
			m->round[m->n++] = r;
		}
		m->med = exp(log_tps(m->mask));
		for (size_t k = 0; k < OLTP_MECHANISM_MAX; k++)
			m->mech[k] = NAN;
		/* server_runq_wait_us, the table's first row: high in B, low in A */
		m->mech[0] = m->mask == EXPLAIN_A || m->mask == 3 ? wait_a : 10 * wait_a;
	}
}

static const char *const labels[] = { "CPUAffinity=", "Nice=", "LimitNOFILE=" };

/* The allocators the record holds when a factor moved LD_PRELOAD; NULL: none. */
static const char *moved_allocator[2];

static char *explain_text(const struct analysis_inputs *in, const struct explanation *x)
{
	struct explain_record rec = { .threads = 1, .level = in->level, .width = 0.2, .n_factors = in->n_factors,
				      .closure_is_a = in->closure_is_a };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	snprintf(rec.a, sizeof(rec.a), "service");
	snprintf(rec.b, sizeof(rec.b), "shell");
	if (moved_allocator[0]) {
		snprintf(rec.allocator_a, sizeof(rec.allocator_a), "%s", moved_allocator[0]);
		snprintf(rec.allocator_b, sizeof(rec.allocator_b), "%s", moved_allocator[1]);
	}
	for (size_t k = 0; k < in->n_factors; k++)
		snprintf(rec.labels[k], sizeof(rec.labels[k]), "%s", labels[k]);
	if (!f)
		bail_out("open_memstream: %m");
	sentences_print(&rec, in, x, f);
	fclose(f);
	return text;
}

static void explain_of(size_t n, unsigned rounds, double (*log_tps)(unsigned), struct analysis_inputs *in,
		       struct explanation *x)
{
	struct design d;

	design_full((1u << n) - 1, EXPLAIN_A, &d);
	make_stage(&d, rounds, log_tps, 50);
	*in = (struct analysis_inputs){ .n_factors = n, .labels = labels, .level = 0.95, .screen = &screen,
					.screen_factors = (1u << n) - 1 };
	if (analysis_explain(in, x) < 0)
		bail_out("analysis_explain failed");
}

/* Two settings of half the gap each (log 1.5 in all); A is B with both. */
static double additive(unsigned m)
{
	double half = log(1.5) / 2;

	m = m == EXPLAIN_A ? 3 : m;
	return log(1000) + half * (m & 1) + half * ((m >> 1) & 1);
}

/* Nothing alone, 1.5x together. */
static double interaction(unsigned m)
{
	return log(1000) + ((m == EXPLAIN_A || m == 3) ? log(1.5) : 0);
}

/* The first setting all of it, the second none. */
static double single(unsigned m)
{
	return log(1000) + ((m == EXPLAIN_A || (m & 1)) ? log(1.3) : 0);
}

static double none(unsigned m _unused_)
{
	return log(1000);
}

static void check_designs(void)
{
	struct design d;
	bool orthogonal = true;

	design_full(7, EXPLAIN_A, &d);
	ok(d.n == 9 && d.masks[0] == 0 && d.masks[7] == 7 && d.masks[8] == EXPLAIN_A,
	   "every mix of three factors, B first, then A (%zu)", d.n);
	design_full(7, 7, &d);
	is_int((long)d.n, 8, "A is the closure: not measured apart");
	design_fraction(7, false, &d);
	is_int((long)d.n, 17, "seven factors: 16 mixes of the fraction (B and the closure among them) and A");
	/* Resolution IV: no main effect aliased with a two-factor interaction. */
	for (size_t k = 0; k < 7; k++)
		for (size_t i = 0; i < 7; i++)
			for (size_t j = i + 1; j < 7; j++) {
				long sum = 0;

				if (k == i || k == j)
					continue;
				for (size_t r = 0; r < d.n; r++)
					if (d.masks[r] != EXPLAIN_A)
						sum += (d.masks[r] >> k & 1 ? 1 : -1) * (d.masks[r] >> i & 1 ? 1 : -1) *
						       (d.masks[r] >> j & 1 ? 1 : -1);
				orthogonal &= sum == 0;
			}
	ok(orthogonal, "the fraction: every main effect orthogonal to every interaction of two");
	design_fraction(12, true, &d);
	is_int((long)d.n, 32, "twelve factors: 32 mixes, A the closure");
}

static void check_additive(void)
{
	struct analysis_inputs in;
	struct explanation x;
	char *text;

	explain_of(2, 3, additive, &in, &x);
	ok(x.gap.verdict == STATS_SIGNIFICANT && fabs(x.gap.ratio - 1.5) < 0.02, "additive: the gap 1.5x (%.3f)",
	   x.gap.ratio);
	ok(fabs(x.shapley[0].share - 0.5) < 0.03 && fabs(x.shapley[1].share - 0.5) < 0.03,
	   "additive: each share 50%% (%.3f, %.3f)", x.shapley[0].share, x.shapley[1].share);
	ok(fabs(x.shapley[0].share + x.shapley[1].share - x.closure.share) < 1e-9,
	   "the shares add up to the closure's (%.4f)", x.closure.share);
	is_int(x.shapley[0].family, 2, "the shares' Holm family is the factors");
	ok(!x.pair_claimed[0][1], "additive: no interaction claimed (%.3f, %.3f..%.3f)", x.pair[0][1].share,
	   x.pair[0][1].lo, x.pair[0][1].hi);
	is_int(analysis_choose_set(&x), 3, "additive: both are named, neither reaches 80%% alone");
	in.named = 3;
	if (analysis_explain(&in, &x) < 0)
		bail_out("analysis_explain failed");
	text = explain_text(&in, &x);
	diag("%s", text);
	ok(strstr(text, "CPUAffinity= and Nice= together explain ") && strstr(text, "; on the screen they add: alone "),
	   "the sentence: together, and they add");
	ok(strstr(text, " of the gap in the screen's 3 rounds at 1 thread (service at 1.50x (") &&
	   strstr(text, "which also chose them (no hold-out was measured: its interval is optimistic)"),
	   "without a hold-out it says the share and its gap are the screen's, and its interval optimistic");
	free(text);
}

static void check_interaction(void)
{
	struct analysis_inputs in;
	struct explanation x;
	char *text;

	explain_of(2, 3, interaction, &in, &x);
	ok(x.pair_claimed[0][1] && fabs(x.pair[0][1].share - 1) < 0.05, "interaction: claimed, all of the gap (%.3f)",
	   x.pair[0][1].share);
	ok(analysis_shown_small(&x.alone[0]) && analysis_shown_small(&x.alone[1]), "each alone shown within +-10 points");
	is_int(analysis_choose_set(&x), 3, "interaction: both named");
	in.named = 3;
	if (analysis_explain(&in, &x) < 0)
		bail_out("analysis_explain failed");
	text = explain_text(&in, &x);
	ok(strstr(text, "; on the screen neither alone moves it by 10 points or more (") && strstr(text, "): an interaction"),
	   "the sentence: neither alone moves it, an interaction");
	ok(strstr(text, "What moved with it: server run-queue wait"), "the figure of mechanism that moved is quoted");
	ok(strstr(text, ", too few for an interval).") || strstr(text, "at 95%, Fisher's z)."),
	   "with its correlation's interval, or why it has none (%s)", strstr(text, "What moved") ?: "");
	ok(!strstr(text, "allocator"), "no allocator is named where none moved");
	free(text);
	moved_allocator[0] = "jemalloc";
	moved_allocator[1] = "glibc";
	text = explain_text(&in, &x);
	moved_allocator[0] = moved_allocator[1] = NULL;
	ok(strstr(text, "\nThe allocator moved with LD_PRELOAD: jemalloc in service against glibc in shell (") &&
	   strstr(text, "What moved with it: server run-queue wait"),
	   "where a factor moved LD_PRELOAD, the mechanism lines name the allocator of each side");
	free(text);
}

static void check_single_and_none(void)
{
	struct analysis_inputs in;
	struct explanation x;
	struct design holdout;
	double w5, w20, mixes;
	char *text;

	explain_of(2, 3, single, &in, &x);
	ok(fabs(x.shapley[0].share - 1) < 0.05 && fabs(x.shapley[1].share) < 0.05, "single: 100%% and 0%% (%.3f, %.3f)",
	   x.shapley[0].share, x.shapley[1].share);
	is_int(analysis_choose_set(&x), 1, "single: CPUAffinity= alone is named");
	x.named = 1;
	w5 = analysis_predicted_width(&in, &x, 5);
	w20 = analysis_predicted_width(&in, &x, 20);
	/* 1/sqrt(rounds), and the t of the hold-out's own degrees of freedom:
	 * (rounds - 1)(mixes - 1). */
	design_holdout(x.named, in.screen_factors, in.closure_is_a, &holdout);
	mixes = (double)holdout.n;
	ok(w20 < w5 && fabs(w5 / w20 - 2 * stats_t_critical(0.95, 4 * (mixes - 1)) /
					 stats_t_critical(0.95, 19 * (mixes - 1))) < 1e-9,
	   "the hold-out's width falls as t(its df)/sqrt(rounds) (%.3f, %.3f, %zu mixes)", w5, w20, holdout.n);
	ok(analysis_predicted_width(&in, &x, analysis_confirm_rounds(&in, &x, w5 / 3)) <= w5 / 3,
	   "and the rounds asked for reach the width asked");
	explain_of(2, 3, none, &in, &x);
	ok(x.gap.verdict != STATS_SIGNIFICANT, "no gap: not significant (%.3f)", x.gap.ratio);
	is_int(analysis_choose_set(&x), 0, "no gap: nothing named");
	text = explain_text(&in, &x);
	ok(strstr(text, "No significant gap: the interval of the ratio contains 1, so no cause is named; at sigma ") &&
		   strstr(text, "cannot be told from noise (80% power)"),
	   "no gap: said, with the smallest gap these starts could have seen");
	free(text);
}

/* The medians beside the gap are of the starts its interval is of: every
 * stage's (a pq explain printed the screen's medians, 0.72x apart, beside
 * a gap of 0.90x from the fraction's starts and the screen's). */
static void check_medians_of_the_gap(void)
{
	struct analysis_inputs in;
	struct explanation x;
	struct stage fraction;
	double a[6], b[6];
	size_t na = 0, nb = 0;

	explain_of(2, 3, single, &in, &x);
	fraction = screen;
	for (size_t i = 0; i < fraction.n_mix; i++)
		for (size_t k = 0; k < fraction.mix[i].n; k++)
			fraction.mix[i].tps[k] *= fraction.mix[i].mask == EXPLAIN_A ? 1.25 : 0.9;
	in.fraction = &fraction;
	if (analysis_explain(&in, &x) < 0)
		bail_out("analysis_explain failed");
	for (const struct stage *st = &fraction; st; st = st == &fraction ? &screen : NULL)
		for (size_t i = 0; i < st->n_mix; i++)
			for (size_t k = 0; k < st->mix[i].n; k++) {
				if (st->mix[i].mask == EXPLAIN_A)
					a[na++] = st->mix[i].tps[k];
				if (st->mix[i].mask == 0)
					b[nb++] = st->mix[i].tps[k];
			}
	ok(na == 6 && nb == 6 && x.med_a == stats_median(a, na) && x.med_b == stats_median(b, nb),
	   "the medians beside the gap are over both stages' starts (%.1f, %.1f of %zu and %zu)", x.med_a, x.med_b, na,
	   nb);
}

int main(void)
{
	check_designs();
	check_additive();
	check_interaction();
	check_single_and_none();
	check_medians_of_the_gap();
	return done_testing();
}

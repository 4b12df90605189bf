/* repeat = decide, tested as a statistician tests a method: runs written
 * round by round as the engine writes them, a look after each round judged
 * by the engine's own callback (report_look()), the contexts decided left
 * out of the rounds after, and the decisions read back by report
 * (t/seqsim.h).  Each rate with its simulation interval; the noise of a
 * start shared by its thread counts (half its variance).  A fixed design
 * (repeat = N) is answered once, at its end: its errors each way, and the
 * rounds its "undecided" names, run.
 *
 *   SLICEBENCH_SIM_SCALE=3 build/t/190-decide-simulation.t   (doc/statistics.md's counts) */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"

#include "stats/sequential.h"
#include "stats/stats.h"
#include "seqsim.h"
#include "sim.h"
#include "tap.h"

#define MARGIN 0.10
#define SHARE 0.5

/* The planner's most rounds for a table of `family` ratios. */
static unsigned planned(double sigma, size_t family, size_t cells, size_t rows)
{
	struct seq_design d = { .sigma = sigma, .margin = MARGIN, .level = 0.95, .power = STATS_POWER, .family = family,
				.cells = cells, .rows = rows, .every = 1, .max = 100 };

	return seq_plan_rounds(&d);
}

/* The boundaries spend what the spending function says, look by look. */
static void boundaries(void)
{
	double t[5] = { 0.2, 0.4, 0.6, 0.8, 1 }, c[5], spent = 0, prev = 0;
	struct seq_operating o;

	seq_boundaries(0.05, t, 5, true, c);
	for (size_t j = 0; j < 5; j++) {
		double cj[5];

		memcpy(cj, c, sizeof(c));
		for (size_t k = j + 1; k < 5; k++)
			cj[k] = INFINITY;
		seq_operate(t, 5, cj, NULL, 0, &o);
		spent = o.p_outer;
		cmp_ok(fabs(spent - prev - (seq_spent(0.05, t[j]) - seq_spent(0.05, j ? t[j - 1] : 0))), "<", 1e-5,
		       "look %zu at t = %.1f spends alpha(t) - alpha(t') under the null (|Z| >= %.3f)", j + 1, t[j], c[j]);
		prev = spent;
	}
	cmp_ok(fabs(c[4] - 2.0635), "<", 2e-3, "the last of five equal looks at 0.05 is 2.06 (Lan-DeMets O'Brien-Fleming)");
}

/* What the tables of one case came to: how many have a ratio answered
 * the case's answer (any) and all of them so (all); each ratio so (each);
 * report's decisions leaving open what the run's looks did (as_run);
 * every "different" the table's significant verdict (agree); the mean
 * starts; the median rounds an undecided ratio names (NAN: none). */
struct tally {
	struct rate any, all, each, as_run, agree;
	double starts, to_decide;
};

/* The quickstart's shape, a baseline and 3 contexts at 1, 2 and 4
 * threads, every context at ratio to the baseline, sigma 5%, run as d
 * says: its tables' answers tallied against `answer` ('d'ifferent,
 * 's'ame). */
static void quickstart(size_t sets, const struct seqsim_design *d, double ratio, char answer, struct tally *ret)
{
	struct seqsim_truth t = { .n = 4, .sigma = 0.05, .start_share = SHARE, .threads = 3 };
	double named[sets + 1];
	size_t n_named = 0;

	*ret = (struct tally){};
	for (size_t c = 1; c < t.n; c++)
		t.log_ratio[c] = log(ratio);
	for (size_t i = 0; i < sets; i++) {
		struct seqsim_result r;
		bool some = false, every = true, agree;

		seqsim_run(&t, d, false, &r);
		agree = r.n == 9;
		for (size_t k = 0; k < r.n; k++) {
			some |= r.answer[k] == answer;
			every &= r.answer[k] == answer;
			ret->each.hits += r.answer[k] == answer;
			agree &= (r.answer[k] == 'd') == r.significant[k];
		}
		ret->each.n += r.n;
		ret->any.hits += some;
		ret->all.hits += every;
		ret->as_run.hits += r.as_run;
		ret->agree.hits += agree;
		ret->any.n++, ret->all.n++, ret->as_run.n++, ret->agree.n++;
		ret->starts += (double)r.starts / (double)sets;
		if (r.rounds_to_decide)
			named[n_named++] = r.rounds_to_decide;
	}
	ret->to_decide = n_named ? stats_median(named, n_named) : NAN;
}

/* The fewest rounds of a fixed design (one analysis at the end) of one
 * ratio with at least power p at the true log ratio theta. */
static unsigned fixed_rounds(double sigma, double theta, double p)
{
	unsigned f = 2;

	while (f < 1000 && stats_power(theta / (sigma * sqrt(2.0 / f)), stats_design_df(f, 1, STATS_PLAN_START_SHARE), 0.95) < p)
		f++;
	return f;
}

/* One ratio (two contexts, 1 thread) at the planner's rounds for a gap of
 * the margin: its power, the coverage of the decided intervals, the mean
 * starts against the fixed design of equal power. */
static void one_ratio(size_t sets, double sigma, double ratio)
{
	unsigned rounds = planned(sigma, 1, 2, 1), f;
	struct seqsim_truth t = { .n = 2, .log_ratio = { 0, log(ratio) }, .sigma = sigma, .start_share = SHARE, .threads = 1 };
	struct seqsim_design d = { .margin = MARGIN, .level = 0.95, .max_rounds = rounds, .every = 1 };
	struct rate power = {}, cover = {};
	double starts = 0;
	char what[200];

	for (size_t i = 0; i < sets; i++) {
		struct seqsim_result r;

		seqsim_run(&t, &d, false, &r);
		power.hits += r.answer[0] == 'd';
		power.n++;
		if (r.answer[0] == 'd') {
			cover.hits += r.lo[0] <= ratio && ratio <= r.hi[0];
			cover.n++;
		}
		starts += (double)r.starts / (double)sets;
	}
	f = fixed_rounds(sigma, log(ratio), MIN(0.99, (double)power.hits / (double)power.n));
	snprintf(what, sizeof(what), "a true %.2fx at sigma %.0f%%, the planner's %u rounds: decided different", ratio,
		 100 * sigma, rounds);
	sim_row(what, &power, ">=", 0.80);
	snprintf(what, sizeof(what), "the same: the interval of a decision covers %.2fx", ratio);
	sim_row(what, &cover, ">=", 0.93);
	printf("# | the same: mean starts %.1f against %u of the fixed design of equal power (%u rounds): %.0f%% | | |\n",
	       starts, 2 * f, f, 100 * starts / (2 * f));
	diag("sigma %.0f%%, %.2fx: mean starts %.1f, the fixed design of equal power %u (%.0f%%)", 100 * sigma, ratio,
	     starts, 2 * f, 100 * starts / (2 * f));
}

/* The planner's rounds for a fixed design (one look, at its end). */
static unsigned planned_fixed(double sigma, size_t family, size_t cells, size_t rows)
{
	struct seq_design d = { .sigma = sigma, .margin = MARGIN, .level = 0.95, .power = STATS_POWER, .family = family,
				.cells = cells, .rows = rows, .every = SEQ_EVERY_END, .max = SEQ_ROUNDS_MAX };

	return seq_plan_rounds(&d);
}

/* Past repeat's most rounds an undecided answer names the gap those
 * rounds would decide: the smallest margin the planner gives them. */
static void decidable_margin(void)
{
	struct seq_design d = { .sigma = 0.364, .margin = MARGIN, .level = 0.95, .power = STATS_POWER, .family = 9,
				.cells = 4, .rows = 3, .every = SEQ_EVERY_END, .max = SEQ_ROUNDS_MAX };
	double m = seq_plan_margin(&d);
	unsigned at, below;

	d.margin = m;
	at = seq_plan_rounds(&d);
	d.margin = m - 0.01;
	below = seq_plan_rounds(&d);
	cmp_ok(at, "<=", SEQ_ROUNDS_MAX, "at a spread of 36.4%% (the kept quickstart's) %u rounds decide a %.1f%% gap "
	       "(in %u rounds)", SEQ_ROUNDS_MAX, 100 * m, at);
	cmp_ok(below, ">", SEQ_ROUNDS_MAX, "and not a point less (%u rounds)", below);
}

/* A fixed design's answers: its errors each way, and the rounds its
 * "undecided" names, run. */
static void fixed_designs(size_t k)
{
	unsigned plan = planned_fixed(0.05, 9, 4, 3);
	struct seqsim_design d = { .margin = MARGIN, .level = 0.95, .max_rounds = 2, .fixed = true };
	struct rate agree = {};
	struct tally t;
	char what[200];

	quickstart(100 * k, &d, 1.0, 'd', &t);
	sim_row("repeat = 2, A/A, quickstart shape, sigma 5%: a table with a ratio answered different", &t.any, "<=", 0.05);
	diag("repeat = 2, A/A: undecided ratios name %.0f rounds (median) to decide a 10%% gap; the planner's for the "
	     "true sigma %u", t.to_decide, plan);
	agree = t.agree;
	d.max_rounds = plan;
	quickstart(100 * k, &d, 1.15, 's', &t);
	snprintf(what, sizeof(what), "repeat = %u, every context truly 1.15x: a table with a ratio answered the same "
		 "within +-10%%", plan);
	sim_row(what, &t.any, "<=", 0.05);
	agree.hits += t.agree.hits, agree.n += t.agree.n;
	quickstart(100 * k, &d, 1.0, 's', &t);
	snprintf(what, sizeof(what), "repeat = %u (the rounds an undecided answer names at sigma 5%%), A/A: a ratio "
		 "answered the same within +-10%%", plan);
	sim_row(what, &t.each, ">=", 0.80);
	agree.hits += t.agree.hits, agree.n += t.agree.n;
	quickstart(100 * k, &d, 1.10, 'd', &t);
	snprintf(what, sizeof(what), "repeat = %u, every context truly 1.10x (the margin): a ratio answered different", plan);
	sim_row(what, &t.each, ">=", 0.80);
	agree.hits += t.agree.hits, agree.n += t.agree.n;
	sim_row("the four fixed cases: \"different\" is the table's significant verdict, ratio for ratio", &agree, ">=", 1.0);
}

int main(void)
{
	char dir[256];
	size_t k = sim_start(dir, sizeof(dir), 190);
	unsigned rounds = planned(0.05, 9, 4, 3);
	struct seqsim_design d = { .margin = MARGIN, .level = 0.95, .max_rounds = rounds, .every = 1 };
	struct tally t;
	char what[200];

	boundaries();
	quickstart(100 * k, &d, 1.0, 'd', &t);
	snprintf(what, sizeof(what), "A/A, quickstart shape, sigma 5%%, the planner's %u rounds: a table with a ratio "
		 "called different", rounds);
	sim_row(what, &t.any, "<=", 0.05);
	sim_row("the same: report's decisions leave open what the run's looks did", &t.as_run, ">=", 1.0);
	quickstart(100 * k, &d, 1.0, 's', &t);
	sim_row("the same: every ratio of the table the same within +-10% (not asserted)", &t.all, "", 0);
	printf("# | the same: mean starts %.1f against the fixed design's %u | | |\n", t.starts, 4 * rounds);
	quickstart(100 * k, &d, 1.15, 's', &t);
	sim_row("every context truly 1.15x (1.5 times the margin): a table with a ratio called the same within +-10%",
		&t.any, "<=", 0.05);
	for (size_t s = 0; s < 3; s++)
		for (size_t g = 0; g < 2; g++)
			one_ratio(60 * k, (double[]){ 0.03, 0.05, 0.10 }[s], (double[]){ 1.10, 1.20 }[g]);
	fixed_designs(k);
	decidable_margin();
	(void)remove_tree(dir); /* sim_start()'s, which these runs in memory leave empty */
	return done_testing();
}

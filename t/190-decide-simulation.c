/* repeat = decide, tested as a statistician tests a method: runs written
 * round by round as the engine writes them, a look after each round judged
 * by the engine's own callback (report_look()), the contexts decided left
 * out of the rounds after, and the decisions read back by report
 * (t/seqsim.h).  Each rate with its simulation interval; the noise of a
 * start shared by its thread counts (half its variance).
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

/* The quickstart's shape: a baseline and 3 contexts at 1, 2 and 4 threads,
 * every context at ratio to the baseline, sigma 5%: how often a table has
 * a ratio called different (answer 'd') or the same ('s'), and whether
 * report's decisions leave open what the run's looks did. */
static void quickstart(size_t sets, double ratio, char answer, struct rate *any, struct rate *all, struct rate *as_run,
		       double *starts)
{
	unsigned rounds = planned(0.05, 9, 4, 3);
	struct seqsim_truth t = { .n = 4, .sigma = 0.05, .start_share = SHARE, .threads = 3 };
	struct seqsim_design d = { .margin = MARGIN, .level = 0.95, .max_rounds = rounds, .every = 1 };

	for (size_t c = 1; c < t.n; c++)
		t.log_ratio[c] = log(ratio);
	*starts = 0;
	for (size_t i = 0; i < sets; i++) {
		struct seqsim_result r;
		bool some = false, every = true;

		seqsim_run(&t, &d, false, &r);
		for (size_t k = 0; k < r.n; k++) {
			some |= r.answer[k] == answer;
			every &= r.answer[k] == answer;
		}
		any->hits += some;
		all->hits += every;
		as_run->hits += r.as_run;
		any->n++, all->n++, as_run->n++;
		*starts += (double)r.starts / (double)sets;
	}
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

int main(void)
{
	char dir[256];
	size_t k = sim_start(dir, sizeof(dir), 190);
	struct rate any = {}, all = {}, as_run = {}, same_any = {}, same_all = {}, as_run2 = {};
	double starts, starts2;
	char what[200];

	boundaries();
	quickstart(100 * k, 1.0, 'd', &any, &all, &as_run, &starts);
	snprintf(what, sizeof(what), "A/A, quickstart shape, sigma 5%%, the planner's %u rounds: a table with a ratio "
		 "called different", planned(0.05, 9, 4, 3));
	sim_row(what, &any, "<=", 0.05);
	sim_row("the same: report's decisions leave open what the run's looks did", &as_run, ">=", 1.0);
	quickstart(100 * k, 1.0, 's', &same_any, &same_all, &as_run2, &starts2);
	sim_row("the same: every ratio of the table the same within +-10% (not asserted)", &same_all, "", 0);
	printf("# | the same: mean starts %.1f against the fixed design's %u | | |\n", starts2, 4 * planned(0.05, 9, 4, 3));
	memset(&any, 0, sizeof(any));
	memset(&all, 0, sizeof(all));
	quickstart(100 * k, 1.15, 's', &any, &all, &as_run, &starts);
	sim_row("every context truly 1.15x (1.5 times the margin): a table with a ratio called the same within +-10%",
		&any, "<=", 0.05);
	for (size_t s = 0; s < 3; s++)
		for (size_t g = 0; g < 2; g++)
			one_ratio(60 * k, (double[]){ 0.03, 0.05, 0.10 }[s], (double[]){ 1.10, 1.20 }[g]);
	return done_testing();
}

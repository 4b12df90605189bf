/* slicebench explain EXPERIMENT A B: which attributes account for the TPS
 * gap between two contexts, of one kind or of two.  The factors are the
 * attributes in which A and B differ (explain/factors.h).  A file's
 * contexts are first started once each to read their placements
 * (DIR/placed); a results directory has them.
 *
 * Each stage is a synthetic experiment whose contexts are mixes
 * (explain/design.h), run by the run engine in rounds whose order is drawn
 * afresh (DIR/STAGE, a results directory of its own):
 * - beyond 5 factors, a resolution IV fraction (DIR/fraction), from whose
 *   main effects the strongest 5 are kept;
 * - the screen (DIR/screen): every mix of the factors shared out, from
 *   which each factor's exact Shapley share and the set to name are found;
 * - the hold-out (DIR/confirm): the set's mixes measured in fresh rounds,
 *   as many as the screen's spread says --width needs, within --budget,
 *   which alone give the named share and its interval.
 * explain.json records the design; the analysis and its sentences
 * (explain/analysis.h, explain/sentences.h) read only the directory, so
 * that report DIR says the same later. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "report/report.h"
#include "stats/stats.h"
#include "experiment/experiment.h"
#include "store/results.h"
#include "run/run.h"
#include "managed/managed.h"
#include "host/calibration.h"
#include "slices/attr/snapshot.h"
#include "common/rng.h"
#include "common/util.h"
#include "explain/explain.h"
#include "explain/design.h"
#include "explain/code.h"
#include "explain/factors.h"
#include "explain/reading.h"
#include "explain/record.h"

/* A run of explain: what it was asked, what it found, where it writes. */
struct explainer {
	struct explain_args args;
	struct experiment e;
	size_t ia, ib;
	struct placement pa, pb;
	struct factor_set fs;
	struct explain_record rec;
	char *dir;
	uint64_t start_ns;
	double measured_unit_s; /* what a unit of the stages so far took; 0: none run yet */
	char *command;		/* the command line that explains it again, as asked */
};

static unsigned all_factors(const struct explainer *x)
{
	return (1u << x->fs.n) - 1;
}

/* A's mask: A itself, which is the closure when A is of the hybrids' kind. */
static unsigned a_mask(const struct explainer *x)
{
	return x->fs.closure_is_a ? all_factors(x) : EXPLAIN_A;
}

/* The first stage's design: every mix, or the fraction. */
static void first_design(const struct explainer *x, struct design *d)
{
	if (x->fs.n <= DESIGN_FULL_MAX)
		design_full(all_factors(x), a_mask(x), d);
	else
		design_fraction(x->fs.n, x->fs.closure_is_a, d);
}

static bool has_proxy_factor(const struct factor_set *fs)
{
	for (size_t k = 0; k < fs->n; k++)
		if (fs->f[k].proxy)
			return true;
	return false;
}

static bool is_results_dir(const char *path)
{
	_cleanup_free_ char *p = NULL;

	return xasprintf(&p, "%s/experiment.json", path) >= 0 && access(p, R_OK) == 0;
}

static int context_index(const struct experiment *e, const char *name, size_t *ret)
{
	for (size_t i = 0; i < e->n_contexts; i++)
		if (streq(e->contexts[i].name, name)) {
			*ret = i;
			return 0;
		}
	return log_error_errno(-ENOENT, "explain: %s has no context '%s'", e->path, name);
}

/* One unit: a server start and warm-up, then the step.  Before any stage
 * ran, a start is taken at 6 s; after, at what the units took here, so
 * that the hold-out is sized to the budget by this host's pace. */
static double unit_seconds(const struct explainer *x)
{
	if (x->measured_unit_s > 0)
		return x->measured_unit_s;
	return 6 + (double)((x->e.oltp.warmup_ns ? x->e.oltp.warmup_ns : NSEC_PER_SEC) + x->args.duration_ns) / 1e9;
}

/* The starts that read a file's contexts' placements: A and B once each,
 * a second's step. */
static double place_seconds(const struct explainer *x)
{
	return 2 * (unit_seconds(x) - (double)x->args.duration_ns / 1e9 + 1);
}

/* The synthetic experiment of one stage: e's workload, a context per mix,
 * `repeat` rounds. */
static int stage_experiment(const struct explainer *x, const struct design *d, unsigned repeat, bool placed,
			    struct experiment *ret)
{
	const struct factor_pair pair = { &x->e, x->ia, x->ib, placed ? NULL : &x->pa, placed ? NULL : &x->pb };
	int r;

	*ret = (struct experiment){};
	r = experiment_copy_settings(&x->e, ret);
	memcpy(ret->name, "explain", sizeof("explain"));
	ret->path = strdup(x->e.path);
	xasprintf(&ret->description, "explain %s: %s against %s", x->e.name, x->args.a, x->args.b);
	ret->threads[0] = x->args.threads;
	ret->n_threads = 1;
	ret->oltp.warmup_ns = x->e.oltp.warmup_ns ? x->e.oltp.warmup_ns : NSEC_PER_SEC;
	ret->oltp.duration_ns = placed ? NSEC_PER_SEC : x->args.duration_ns;
	ret->repeat = repeat;
	snprintf(ret->baseline, sizeof(ret->baseline), "b");
	for (size_t i = 0; i < d->n && r >= 0; i++) {
		char name[48];

		design_mix_name(d->masks[i], x->fs.n, x->fs.closure_is_a, name, sizeof(name));
		r = factors_add_mix(&pair, &x->fs, d->masks[i], name, ret);
	}
	return r < 0 ? r : ret->path && ret->description ? 0 : -ENOMEM;
}

/* A stage's TPS table, as run prints it. */
static void print_round(void *userdata _unused_, const json_t *doc, const char *dir _unused_)
{
	struct report_options ro = { .format = REPORT_TEXT };

	report_render(doc, &ro, stdout);
}

/* Runs the design d for repeat rounds into DIR/NAME, none begun that would
 * end past the budget; what a unit took goes to measured_unit_s (a placed
 * start's steps are a second, a stage's args.duration).  Returns the failed
 * steps, or -errno (logged). */
static int run_stage(struct explainer *x, const char *name, const struct design *d, unsigned repeat, bool placed)
{
	_cleanup_free_ char *out = NULL;
	struct experiment e;
	struct run_options o = { .verb = "explain", .order = (enum run_order)x->args.order, .seed = x->args.seed,
				 .seed_given = x->args.seed_given,
				 .finished = placed || !x->args.verbose ? NULL : print_round,
				 .deadline_ns = x->start_ns + x->args.budget_ns };
	int r;

	r = stage_experiment(x, d, repeat, placed, &e);
	if (r >= 0)
		r = xasprintf(&out, "%s/%s", x->dir, name);
	if (r < 0) {
		experiment_done(&e);
		return log_error_errno(r, "explain: %m");
	}
	fflush(stdout);
	r = run_whole_experiment(&e, out, &o);
	if (o.unit_s > 0)
		x->measured_unit_s = o.unit_s + (placed ? (double)x->args.duration_ns / 1e9 - 1 : 0);
	experiment_done(&e);
	return r;
}

/* The placements of A and B: a results directory's, or those of one short
 * start of each (DIR/placed), for a file.  -EINVAL (logged) when a results
 * directory's cannot be read: bad input, nothing started. */
static int read_placements(struct explainer *x, bool placed)
{
	_cleanup_free_ char *path = NULL, *path_b = NULL, *from = NULL;
	struct design d = { .masks = { 0, EXPLAIN_A }, .n = 2 };
	int r, failed = 0;

	if (!placed) {
		printf("Starting %s and %s once each to read their placements (%s/placed)\n", x->args.a, x->args.b, x->dir);
		failed = r = run_stage(x, "placed", &d, 1, true);
		if (r < 0)
			return r; /* a failed step still records its placement, once its server started */
	}
	if (placed ? !(from = strdup(x->args.experiment)) : xasprintf(&from, "%s/placed", x->dir) < 0)
		return log_error_errno(-ENOMEM, "explain: %m");
	r = factors_load_placement(from, placed ? x->args.a : "a", &x->pa, &path);
	if (r >= 0)
		r = factors_load_placement(from, placed ? x->args.b : "b", &x->pb, &path_b);
	if (r == -ENOENT && failed > 0)
		return log_error_errno(-EIO, "explain: %s's server did not start, so it has no placement (%s): nothing to explain; "
				 "slicebench report %s/placed says why", path_b ? x->args.b : x->args.a,
				 strempty(path_b ? path_b : path), x->dir);
	if (r < 0)
		return log_error("explain: cannot read the placement %s: %s", strempty(path_b ? path_b : path),
				 strerror(-r)),
		       placed ? -EINVAL : -EIO;
	/* A results directory from elsewhere chooses no code for the hybrids. */
	return placed ? explain_check_code(from, &x->e, &x->pa, path, &x->pb, path_b, x->args.trust_code) : 0;
}

/* The first stage's time at args.repeat rounds, fewer (two at least) to
 * fit the budget; -EINVAL (logged) when even that does not.  The hold-out
 * is planned later from what is left. */
static int fit_budget(struct explainer *x, size_t n_mixes, double before_s, double *ret_s)
{
	for (;;) {
		*ret_s = before_s + (double)n_mixes * x->args.repeat * unit_seconds(x);
		if (*ret_s * 1e9 <= (double)x->args.budget_ns || x->args.repeat <= 2)
			break;
		x->args.repeat--;
	}
	if (*ret_s * 1e9 > (double)x->args.budget_ns)
		return log_error_errno(-EINVAL, "explain: %zu mixes x %u repeats need about %.0f min, over --budget %.0f min", n_mixes,
				 x->args.repeat, *ret_s / 60 + 0.5, (double)x->args.budget_ns / 60e9);
	return 0;
}

/* What these rounds could see of the gap, before anything starts: the
 * smallest ratio the screen detects at 80% power at a spread between
 * starts of sigma (this host's, when calibrate measured it at these
 * threads, else 5%). */
static void print_power(const struct explainer *x, size_t n_mixes)
{
	struct server_config cfg = {};
	char source[320];
	double sigma, df, mde;

	managed_config_default(&cfg);
	(void)calibration_sigma_for_plan(cfg.state_dir, x->args.threads, &sigma, source, sizeof(source));
	mde = stats_design_mde_mixes(sigma, n_mixes, x->args.repeat, x->args.confidence, &df);
	printf("at a spread of %.1f%% between starts (%s), %u rounds of %zu mixes (%.0f degrees of freedom) tell a gap "
	       "of %.2fx from noise with %.0f%% power\n",
	       100 * sigma, source, x->args.repeat, n_mixes, df, mde, 100 * STATS_POWER);
	if (df < 3)
		printf("too few rounds: on %.0f degree%s of freedom t is %.1f, and no %g%% verdict is possible short of "
		       "a very large gap\n",
		       df, df == 1 ? "" : "s", stats_t_critical(x->args.confidence, df), 100 * x->args.confidence);
}

/* What the placements of a file's contexts may add, against the budget:
 * the most mixes that fit at 2 repeats after the starts that read them,
 * and so the most factors of a full screen; a design beyond is refused
 * once the placements are read, before the screen. */
static void print_placement_bound(const struct explainer *x)
{
	double room = (double)x->args.budget_ns / 1e9 - place_seconds(x);
	unsigned mixes = room > 0 ? (unsigned)floor(room / (2 * unit_seconds(x))) : 0, k = 0;

	while (k < DESIGN_FULL_MAX && (1u << (k + 1)) + 1 <= mixes)
		k++;
	printf("the placements may show more factors: --budget holds at most %u mixes at 2 repeats (a full screen of %u "
	       "factor%s); a design beyond is refused when they are read, before the screen\n",
	       mixes, k, k == 1 ? "" : "s");
}

static void print_plan(const struct explainer *x, size_t n_mixes, double estimate_s, bool placed)
{
	const struct factor_set *fs = &x->fs;

	printf("explain %s: %s against %s at %ld thread%s, %zu factor%s%s", x->e.name, x->args.a, x->args.b,
	       x->args.threads, x->args.threads == 1 ? "" : "s", fs->n, fs->n == 1 ? "" : "s", placed ? "" : " in the file");
	if (fs->n)
		putchar(':');
	for (size_t k = 0; k < fs->n; k++)
		printf("%s%s%s%s%s", k ? ", " : " ", fs->f[k].label, *fs->f[k].detail ? " (" : "", fs->f[k].detail,
		       *fs->f[k].detail ? ")" : "");
	if (fs->n)
		printf(" (hybrids: %s%s%s)", context_kind_to_string(fs->kind), has_proxy_factor(fs) ? ", their proxy: " : "",
		       has_proxy_factor(fs) ? context_kind_to_string(fs->proxy_kind) : "");
	if (*fs->unmovable)
		printf("\n%s: %s", placed ? "differs, and no hybrid can take it" : "and what their placements show",
		       fs->unmovable);
	printf("\n%zu mixes x %u repeats, about %.0f min%s; then a hold-out of the set named, its rounds from the "
	       "screen's spread for an interval %.0f points wide, within --budget\n",
	       n_mixes, x->args.repeat, estimate_s / 60 + 0.5,
	       fs->n > DESIGN_FULL_MAX ? " in a resolution IV screen, then every mix of the strongest 5"
	       : !placed		 ? " at least, after a start of each to read the placements"
					 : "",
	       100 * x->args.width);
	if (!placed)
		print_placement_bound(x);
	print_power(x, n_mixes);
}

/* explain.json as it stands now. */
static int record_put(struct explainer *x)
{
	int r = explain_record_write(x->dir, &x->rec);

	return r < 0 ? log_error_errno(r, "explain: cannot write %s/" EXPLAIN_RECORD ": %m", x->dir) : 0;
}

static void record_make(struct explainer *x)
{
	struct explain_record *r = &x->rec;

	*r = (struct explain_record){ .threads = x->args.threads, .level = x->args.confidence, .width = x->args.width,
				      .n_factors = x->fs.n, .closure_is_a = x->fs.closure_is_a };
	(void)text_copy(r->experiment, sizeof(r->experiment), x->e.name);
	(void)text_copy(r->a, sizeof(r->a), x->args.a);
	(void)text_copy(r->b, sizeof(r->b), x->args.b);
	(void)text_copy(r->hybrids, sizeof(r->hybrids), context_kind_to_string(x->fs.kind));
	(void)text_copy(r->unmovable, sizeof(r->unmovable), x->fs.unmovable);
	(void)text_copy(r->allocator_a, sizeof(r->allocator_a), x->fs.allocator_a);
	(void)text_copy(r->allocator_b, sizeof(r->allocator_b), x->fs.allocator_b);
	(void)text_copy(r->command, sizeof(r->command), strempty(x->command));
	for (size_t k = 0; k < x->fs.n; k++) {
		(void)text_copy(r->labels[k], sizeof(r->labels[k]), x->fs.f[k].label);
		(void)text_copy(r->details[k], sizeof(r->details[k]), x->fs.f[k].detail);
		r->proxy[k] = x->fs.f[k].proxy;
	}
	if (has_proxy_factor(&x->fs))
		(void)text_copy(r->proxy_hybrids, sizeof(r->proxy_hybrids), context_kind_to_string(x->fs.proxy_kind));
}

/* A stage recorded, then run. */
static int stage(struct explainer *x, enum explain_stage s, const struct design *d, unsigned factors, unsigned set,
		 unsigned repeat, unsigned wanted)
{
	int r;

	x->rec.stage[s] = (struct stage_record){ .present = true, .factors = factors, .set = set,
						 .rounds_wanted = wanted };
	r = record_put(x);
	if (r >= 0)
		r = run_stage(x, explain_stage_dir(s), d, repeat, false);
	return r < 0 ? r : 0;
}

/* The seconds left of the budget, and what one unit took so far. */
static double budget_left_s(const struct explainer *x)
{
	return (double)x->args.budget_ns / 1e9 - (double)(now_ns() - x->start_ns) / 1e9;
}

/* The hold-out: the set named on the screen, measured in the rounds that
 * --width asks for, or in those the budget leaves. */
static int holdout(struct explainer *x)
{
	_cleanup_free_ char *why = NULL;
	unsigned set, rounds, fits;
	double width, n_mixes;
	struct design d;
	int r;

	r = explain_plan_holdout(x->dir, x->args.width, &set, &rounds, &width, &why);
	if (r < 0)
		return log_error_errno(-EIO, "explain: %s", why ? why : strerror(-r));
	if (!set)
		return 0;
	if (rounds == 0) {
		printf("\nno hold-out: the set is every factor, and %s is their closure (all that differs)\n", x->args.a);
		return 0;
	}
	design_holdout(set, x->rec.stage[STAGE_SCREEN].factors, x->fs.closure_is_a, &d);
	n_mixes = (double)d.n;
	fits = (unsigned)MAX(0, floor(budget_left_s(x) / (n_mixes * unit_seconds(x))));
	printf("\nhold-out: the set chosen on the screen, in %u fresh round%s of its %zu mixes", MIN(rounds, fits),
	       MIN(rounds, fits) == 1 ? "" : "s", d.n);
	if (fits >= rounds)
		printf(", for an interval about %.0f points wide\n", 100 * width);
	else
		printf(": the budget leaves %u; --width %.0f would take %u rounds, about %.0f min\n", fits,
		       100 * x->args.width, rounds, rounds * n_mixes * unit_seconds(x) / 60 + 0.5);
	if (fits < 2) {
		printf("the budget leaves no time for a hold-out: the set is named from the screen\n");
		return 0;
	}
	return stage(x, STAGE_CONFIRM, &d, x->rec.stage[STAGE_SCREEN].factors, set, MIN(rounds, fits), rounds);
}

/* The explanation of explain directory dir on stdout, as report prints
 * it (its failed steps counted there, mix by mix, by the run's rule).
 * -EIO, logged. */
static int print_explanation(const char *dir)
{
	_cleanup_free_ char *why = NULL;
	const struct report_options text = { .format = REPORT_TEXT };
	int r = document_render(&document_explain, &(struct document_input){ .dirs = (char *const[]){ (char *)dir }, .n = 1, .o = &text },
				stdout, &why);

	return r < 0 ? log_error_errno(-EIO, "explain: %s", why ? why : strerror(-r)) : 0;
}

/* A signal during the hold-out: the screen is whole, and is reported;
 * explain.json says the hold-out was cut, so that report reads the screen
 * and explain --resume DIR finishes it.  -EINTR. */
static int holdout_cut(struct explainer *x)
{
	x->rec.stage[STAGE_CONFIRM].cut = true;
	if (record_put(x) < 0)
		return -EINTR;
	printf("\nthe hold-out was cut by a signal; the screen is whole:\n");
	(void)print_explanation(x->dir);
	return -EINTR;
}

/* The stages in their order, then the explanation. */
static int measure(struct explainer *x)
{
	_cleanup_free_ char *why = NULL;
	unsigned factors = all_factors(x);
	struct design d;
	int r;

	record_make(x);
	first_design(x, &d);
	if (x->fs.n > DESIGN_FULL_MAX) {
		r = stage(x, STAGE_FRACTION, &d, factors, 0, x->args.repeat, 0);
		if (r >= 0)
			r = explain_plan_strongest(x->dir, &factors, &why);
		if (r < 0)
			return why ? log_error_errno(-EIO, "explain: %s", why) : r;
		design_full(factors, a_mask(x), &d);
		printf("\nscreen: every mix of the %d strongest factors, %zu mixes\n", __builtin_popcount(factors), d.n);
	}
	r = stage(x, STAGE_SCREEN, &d, factors, 0, x->args.repeat, 0);
	if (r >= 0)
		r = holdout(x);
	if (r == -EINTR && x->rec.stage[STAGE_CONFIRM].present)
		return holdout_cut(x);
	if (r < 0)
		return r;
	printf("\nthe explanation again, or as a page: slicebench report %s [--format html]; a stage's TPS and noise: "
	       "slicebench report %s/%s\nto explain it again: %s\n", x->dir, x->dir, explain_stage_dir(STAGE_SCREEN),
	       x->command);
	return print_explanation(x->dir);
}

/* The experiment and the pair: from a file, or from a results directory
 * with its placements.  -EINVAL (logged): bad input. */
static int load(struct explainer *x, bool placed)
{
	_cleanup_free_ char *path = NULL, *msg = NULL;
	int r;

	if (placed)
		r = experiment_from_results(x->args.experiment, x->args.trust_code, &x->e, &msg);
	else if (experiment_find(x->args.experiment, &path) < 0)
		return log_error_errno(-EINVAL, "explain: no experiment or results directory '%s'", x->args.experiment);
	else
		r = experiment_load(path, cgroup_mode_detect(), &x->e, &msg);
	if (r < 0)
		return log_error_errno(-EINVAL, "explain: %s", msg ? msg : strerror(-r));
	/* explain accounts for a gap in TPS: an open loop the server keeps up
	 * with has none, and its latencies are run's and report's table. */
	if (x->e.oltp.rate)
		return log_error_errno(-EINVAL, "explain: %s: rate: an open loop (%u a second) is compared by its latencies "
				       "in slicebench run's report; explain accounts for a gap in TPS: take rate out",
				       x->e.path, x->e.oltp.rate);
	/* As a file's threads are checked: slicebench needs one connection
	 * beside the clients, and a dry run plans nothing that cannot run. */
	if (x->args.threads >= (long)x->e.max_connections)
		return log_error_errno(-EINVAL, "explain: --threads %ld need max-connections above %ld, and [server] max-connections is %u",
				 x->args.threads, x->args.threads, x->e.max_connections);
	if (context_index(&x->e, x->args.a, &x->ia) < 0 || context_index(&x->e, x->args.b, &x->ib) < 0)
		return -EINVAL;
	return placed ? read_placements(x, true) : 0;
}

/* The factors, from the placements when they are known.  -EINVAL: none. */
static int find_factors(struct explainer *x, bool known)
{
	const struct factor_pair pair = { &x->e, x->ia, x->ib, known ? &x->pa : NULL, known ? &x->pb : NULL };
	int r = factors_find(&pair, &x->fs);

	if (r == -E2BIG)
		return log_error_errno(-EINVAL, "explain: %s and %s differ in more than %d attributes", x->args.a, x->args.b, FACTORS_MAX);
	if (r < 0)
		return log_error_errno(r, "explain: %m");
	if (x->fs.n == 0 && (known || !x->fs.kinds_differ))
		return log_error_errno(-EINVAL, "explain: %s and %s differ in no setting that can be moved%s%s", x->args.a, x->args.b,
				 *x->fs.unmovable ? ": " : "", x->fs.unmovable);
	return 0;
}

/* The plan before anything starts: factors, design, budget, what it can
 * see.  The least a file's contexts need: a start of each, then B, A and
 * the closure. */
static int plan_stages(struct explainer *x, bool placed)
{
	double place_s = placed ? 0 : place_seconds(x), estimate_s;
	struct design d;
	int r = find_factors(x, placed);

	if (r < 0)
		return r;
	first_design(x, &d);
	if (!placed && d.n < 3)
		d.n = 3;
	r = fit_budget(x, d.n, place_s, &estimate_s);
	if (r >= 0)
		print_plan(x, d.n, estimate_s, placed);
	return r;
}

static int choose_dir(struct explainer *x)
{
	char stamp[32];
	time_t now = time(NULL);
	int r;

	if (x->args.out)
		x->dir = strdup(x->args.out);
	else {
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		xasprintf(&x->dir, "results/explain-%s-%s-%s-%s", x->e.name, x->args.a, x->args.b, stamp);
	}
	if (!x->dir)
		return log_error_errno(-ENOMEM, "explain: %m");
	/* explain.json goes in before any stage's directory: a results
	 * directory's placements need no start to make it. */
	r = mkdir_p(x->dir, 0755);
	return r < 0 ? log_error_errno(r, "explain: cannot make %s: %m", x->dir) : 0;
}

/* A file's contexts started once each, the factors found again from their
 * placements and the plan made again. */
static int replan(struct explainer *x)
{
	struct design d;
	double estimate_s;
	int r = read_placements(x, false);

	if (r >= 0)
		r = factors_find(&(const struct factor_pair){ &x->e, x->ia, x->ib, &x->pa, &x->pb }, &x->fs);
	if (r >= 0 && x->fs.n == 0) {
		log_error("explain: the placements of %s and %s differ in nothing a hybrid can take%s%s", x->args.a,
			  x->args.b, *x->fs.unmovable ? ": " : "", x->fs.unmovable);
		r = -ENOENT;
	}
	if (r < 0)
		return r;
	first_design(x, &d);
	if (fit_budget(x, d.n, 0, &estimate_s) < 0)
		return -E2BIG;
	print_plan(x, d.n, estimate_s, true);
	return 0;
}

/* The command that explains it again, from what was asked (the file by its
 * absolute path, a results directory too, every option that shapes the
 * design, the seed drawn), into x->command. */
static int make_command(struct explainer *x, const struct explain_args *a, bool placed)
{
	_cleanup_free_ char *exp = NULL;
	char threads[24], repeat[24], duration[32], budget[32], width[24], level[24], seed[24], real[PATH_MAX];
	const char *words[32] = { "slicebench", "explain" };
	size_t n = 2;
	int r = placed ? ((exp = strdup(realpath(a->experiment, real) ? real : a->experiment)) ? 0 : -ENOMEM)
		       : run_reproduce_experiment(a->experiment, x->e.path, &exp);

	if (r < 0)
		return r;
	snprintf(threads, sizeof(threads), "%ld", a->threads);
	snprintf(repeat, sizeof(repeat), "%u", a->repeat);
	snprintf(duration, sizeof(duration), "%gs", (double)a->duration_ns / 1e9);
	snprintf(budget, sizeof(budget), "%gs", (double)a->budget_ns / 1e9);
	snprintf(width, sizeof(width), "%g", 100 * a->width);
	snprintf(level, sizeof(level), "%g", 100 * x->args.confidence);
	snprintf(seed, sizeof(seed), "%" PRIu64, x->args.seed);
	words[n++] = exp;
	for (const char *const *w = placed ? (const char *const[]){ "--from", a->a, "--to", a->b, NULL }
					   : (const char *const[]){ a->a, a->b, NULL };
	     *w; w++)
		words[n++] = *w;
	for (const char *const *w = (const char *const[]){ "--threads", threads, "--repeat", repeat, "--duration", duration,
							   "--budget", budget, "--width", width, "--confidence", level,
							   "--order", word_name(run_order_words, a->order), "--seed",
							   seed, NULL };
	     *w; w++)
		words[n++] = *w;
	words[n] = NULL;
	return run_reproduce_line(words, &x->command);
}

int explain_resume(const char *dir, bool trust_code)
{
	_cleanup_free_ char *why = NULL, *stage_dir = NULL, *msg = NULL;
	struct explain_record rec;
	struct experiment e;
	struct run_plan plan;
	struct run_options o = { .verb = "explain" };
	int r = explain_record_read(dir, &rec, &why);

	if (r < 0)
		return log_error("explain: --resume %s: %s", dir, why ? why : strerror(-r)), -EINVAL;
	if (!rec.stage[STAGE_CONFIRM].present || !rec.stage[STAGE_CONFIRM].cut)
		return log_error("explain: --resume %s: nothing to finish (its hold-out was not cut)", dir), -EINVAL;
	if (xasprintf(&stage_dir, "%s/%s", dir, explain_stage_dir(STAGE_CONFIRM)) < 0)
		return log_error_errno(-ENOMEM, "explain: %m");
	/* The hold-out's own experiment, through the gate as every results
	 * directory's, its missing steps run as run --resume runs them. */
	r = experiment_from_results(stage_dir, trust_code, &e, &msg);
	if (r < 0)
		return log_error("explain: --resume %s: %s", dir, msg ? msg : strerror(-r)), -EINVAL;
	r = run_plan_make(&e, NULL, &plan);
	if (r >= 0)
		r = run_experiment(&e, &plan, stage_dir, true, &o);
	experiment_done(&e);
	if (r < 0)
		return o.refused ? -EINVAL : r == -EINTR ? r : -EIO;
	rec.stage[STAGE_CONFIRM].cut = false;
	r = explain_record_write(dir, &rec);
	if (r < 0)
		return log_error_errno(r, "explain: cannot write %s/" EXPLAIN_RECORD ": %m", dir);
	return print_explanation(dir);
}

int explain_run(const struct explain_args *a)
{
	_cleanup_free_ struct explainer *x = calloc(1, sizeof(*x));
	bool placed = is_results_dir(a->experiment);
	int r;

	if (!x)
		return log_error_errno(-ENOMEM, "explain: %m");
	x->args = *a;
	x->start_ns = now_ns();
	if (!x->args.confidence)
		x->args.confidence = STATS_CONFIDENCE_DEFAULT;
	if (!x->args.seed_given && rng_fresh_seed(&x->args.seed) >= 0)
		x->args.seed_given = true;
	r = load(x, placed);
	if (r >= 0 && make_command(x, a, placed) < 0)
		r = log_error_errno(-ENOMEM, "explain: %m");
	/* Bad input too: a directory that would vanish with the sandbox (a
	 * dry run writes none). */
	if (r >= 0 && !x->args.what_if && run_check_reaches_host("explain", x->args.out ? x->args.out : "results/") < 0)
		r = -EINVAL;
	if (r >= 0)
		r = plan_stages(x, placed);
	if (r >= 0 && x->args.out && (r = results_dir_check(x->args.out)) < 0) {
		log_error("explain: --out %s: refused: %s", x->args.out,
			  r == -ENOTEMPTY ? "a directory that holds other files than slicebench's results (give a new or an "
					    "empty one)"
					  : strerror(-r));
		r = -EINVAL;
	}
	if (r >= 0 && !x->args.what_if) {
		r = choose_dir(x);
		if (r >= 0 && !placed)
			r = replan(x);
		if (r >= 0)
			r = measure(x);
		/* Bad input was refused above: what failed while measuring is a
		 * failure at run time, whatever its errno. */
		if (r < 0 && r != -EINTR)
			r = -EIO;
	}
	placement_done(&x->pa);
	placement_done(&x->pb);
	experiment_done(&x->e);
	free(x->dir);
	free(x->command);
	return r;
}

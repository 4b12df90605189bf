/* slicebench explain EXPERIMENT A B: which attributes account for the TPS
 * gap between two contexts, of one kind or of two.  The factors are the
 * attributes in which A and B differ (explain/factors.h): the settings
 * their sections write, and every attribute of their placements' diff that
 * the attribute table can take into a context (the affinity and
 * environment a shell's server inherits, the session a service gets, ...).
 * A file's contexts are first started once each to read their placements
 * (DIR/placed); a results directory has them.  Each mix is a context of a
 * synthetic experiment, run like any other (fresh server per repeat,
 * repeats interleaved, results on disk): B, A, hybrids of the kind that
 * takes every factor, starting from B and taking a set of factors from A
 * (with k <= 4 every set, beyond that each factor alone), and the closure,
 * which takes all of them.  The gap is judged as report judges a ratio
 * (Welch's t on log TPS across repeats), and each set's share of it,
 * (T(set from A) - T(B)) / (T(A) - T(B)) with T the mean log TPS of the
 * repeats, gets Fieller's interval for that ratio of differences
 * (report/stats.h); what the closure leaves is the unexplained rest.
 * Beyond 4 factors a screening design: each alone and A without each, then
 * the combinations of the strongest.  A set named by an interval too wide
 * to say how much of the gap it moves is confirmed: its mixes, B and A are
 * measured again and pooled.  What the mixes say, the set named and
 * its interactions, and the figure of mechanism that moved with the gap,
 * is explain/attribute.c. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "report/report.h"
#include "stats/stats.h"
#include "run/experiment.h"
#include "run/results.h"
#include "run/engine.h"
#include "slices/attr/snapshot.h"
#include "common/util.h"
#include "explain/explain.h"
#include "explain/attribute.h"
#include "explain/factors.h"

/* Up to FULL_DESIGN_MAX factors every mix is measured (if they fit in one
 * experiment); beyond, the screening design (each factor alone, A without
 * each: 2k + 3 mixes with A and the closure), then the combinations of the
 * strongest.  In a design masks[0] is B and FACTORS_A is A. */
#define FULL_DESIGN_MAX 4
/* The first round, the screening's second, the confirmation. */
#define ROUNDS_MAX 3

static unsigned full_mask(const struct factor_set *fs)
{
	return (1u << fs->n) - 1;
}

/* Every set of factors is measured (with A apart when it is not the
 * closure, all in one experiment), or only each factor alone. */
static bool design_is_full(const struct factor_set *fs)
{
	return fs->n <= FULL_DESIGN_MAX && (1u << fs->n) + !fs->closure_is_a <= EXP_CONTEXTS_MAX;
}

/* A's mask: A itself, which is the closure when A is of the hybrids' kind. */
static unsigned a_mask(const struct factor_set *fs)
{
	return fs->closure_is_a ? full_mask(fs) : FACTORS_A;
}

static void design_make(const struct factor_set *fs, struct design *d)
{
	unsigned all = full_mask(fs);

	d->n = 0;
	if (design_is_full(fs))
		for (unsigned m = 0; m <= all; m++)
			d->masks[d->n++] = m;
	else {
		/* Screening: a factor that acts only with others moves nothing
		 * alone, but leaving it out of the closure takes the gap away. */
		d->masks[d->n++] = 0;
		for (size_t k = 0; k < fs->n; k++)
			d->masks[d->n++] = 1u << k;
		for (size_t k = 0; k < fs->n; k++)
			d->masks[d->n++] = all & ~(1u << k);
		d->masks[d->n++] = all;
	}
	if (!fs->closure_is_a)
		d->masks[d->n++] = FACTORS_A;
}

/* "b", "a", "closure", or "mix-abb": for each factor, where the mix takes it from. */
static void mix_name(const struct factor_set *fs, unsigned mix, char *buf, size_t len)
{
	char bits[FACTORS_MAX + 1] = {};

	if (mix == 0 || mix == a_mask(fs) || mix == FACTORS_A) {
		snprintf(buf, len, "%s", mix ? "a" : "b");
		return;
	}
	if (mix == full_mask(fs)) {
		snprintf(buf, len, "closure");
		return;
	}
	for (size_t k = 0; k < fs->n; k++)
		bits[k] = (mix >> k) & 1 ? 'a' : 'b';
	snprintf(buf, len, "mix-%s", bits);
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
	return log_error("explain: %s has no context '%s'", e->path, name), -ENOENT;
}

/* A step's figures of mechanism into row[]. */
static void mechanism_of(const json_t *step, double *row)
{
	size_t n;
	const struct oltp_mechanism_def *defs = oltp_mechanism_table(&n);
	const json_t *m = json_object_get(step, "mechanism");

	for (size_t k = 0; k < n; k++) {
		const json_t *v = json_object_get(m, defs[k].key);

		row[k] = json_is_number(v) ? json_number_value(v) : NAN;
	}
}

/* Mix m's TPS per repeat, pooled over the rounds that measured it (steps
 * holds every round's), and the medians of its TPS and its mechanism.  A
 * failed step is left out; of each round, the first `repeats`. */
static void load_mix(const json_t *steps, const char *name, unsigned repeats, struct measured *ret, size_t m)
{
	double tmp[REPEATS_MAX], mech[REPEATS_MAX][OLTP_MECHANISM_MAX], col[REPEATS_MAX];
	size_t k = 0, i;
	json_t *s;

	json_array_foreach(steps, i, s)
	{
		json_int_t r = json_integer_value(json_object_get(s, "repeat"));

		if (k == REPEATS_MAX || !streq(strempty(json_string_value(json_object_get(s, "context"))), name) ||
		    r < 1 || r > repeats || json_is_true(json_object_get(s, "failed")))
			continue;
		ret->t[m][k] = tmp[k] = report_step_tps(s);
		if (isnan(tmp[k]))
			continue;
		mechanism_of(s, mech[k++]);
	}
	ret->n[m] = k;
	ret->med[m] = stats_median(tmp, k);
	for (size_t f = 0; f < OLTP_MECHANISM_MAX; f++) {
		size_t n = 0;

		for (size_t j = 0; j < k; j++)
			if (!isnan(mech[j][f]))
				col[n++] = mech[j][f];
		ret->mech[m][f] = stats_median(col, n);
	}
}

static int load_measured(char *const *dirs, size_t n_dirs, const struct factor_set *fs, const struct design *d,
			 unsigned repeats, struct measured *ret)
{
	json_t *steps = json_array();

	for (size_t i = 0; i < n_dirs; i++) {
		_cleanup_free_ char *why = NULL;
		json_t *doc = NULL;

		if (results_load(dirs[i], &doc, &why) < 0) {
			json_decref(steps);
			return log_error("explain: cannot read the results in %s%s%s", dirs[i], why ? ": " : "", strempty(why)), -EIO;
		}
		json_array_extend(steps, json_object_get(doc, "steps"));
		json_decref(doc);
	}
	for (size_t m = 0; m < d->n; m++) {
		char name[48];

		mix_name(fs, d->masks[m], name, sizeof(name));
		load_mix(steps, name, repeats, ret, m);
		if (d->masks[m] == a_mask(fs))
			ret->full = m;
		if (d->masks[m] == full_mask(fs))
			ret->closure = m;
	}
	json_decref(steps);
	return 0;
}

/* How close the closure comes to A, and what it leaves: the rest of the
 * gap, with what no hybrid could take. */
static void print_closure(const struct explain_args *args, const struct factor_set *fs, const struct measured *mz)
{
	struct stats_share sh = attribute_share(mz, mz->closure);
	struct stats_ratio to_a;
	char iv[32];

	if (!fs->closure_is_a) {
		if (stats_ratio(mz->t[mz->closure], mz->n[mz->closure], mz->t[mz->full], mz->n[mz->full], mz->level,
				&to_a) < 0 || isnan(to_a.lo))
			printf("The hybrid with all %zu attributes of %s reaches %.0f%% of its TPS (no interval)", fs->n,
			       args->a, 100 * mz->med[mz->closure] / mz->med[mz->full]);
		else
			printf("The hybrid with all %zu attributes of %s reaches %.0f%% (%.0f-%.0f%%) of its TPS", fs->n,
			       args->a, 100 * to_a.ratio, 100 * to_a.lo, 100 * to_a.hi);
		if (!isnan(sh.share)) {
			struct stats_share rest = { .share = 1 - sh.share, .lo = 1 - sh.hi, .hi = 1 - sh.lo,
						    .bounded = sh.bounded };
			printf("; the rest, %.0f%% (%s) of the gap, is what it cannot reproduce", 100 * rest.share,
			       attribute_share_interval(&rest, iv, sizeof(iv)));
		}
		printf(".\n");
	}
	if (*fs->unmovable)
		printf("Differs and no hybrid can take it: %s (part of what stays unexplained).\n", fs->unmovable);
}

static void analyse(char *const *dirs, size_t n_dirs, const struct explain_args *args, const struct factor_set *fs,
		    const struct design *d)
{
	static struct measured mz; /* large: not on the stack */
	const char *labels[FACTORS_MAX];

	for (size_t k = 0; k < fs->n; k++)
		labels[k] = fs->f[k].label;
	mz = (struct measured){ .level = args->confidence };
	/* A's own mix is a cause to name only when it is the closure and
	 * nothing else differs (a closure measured apart is named as any
	 * set is). */
	mz.full_counts = fs->closure_is_a && !*fs->unmovable;
	if (load_measured(dirs, n_dirs, fs, d, args->repeat, &mz) < 0)
		return;
	if (attribute_print(&(struct attribution_names){ .labels = labels, .n = fs->n, .a = args->a, .b = args->b,
							.threads = args->threads},
			    d, &mz, stdout))
		print_closure(args, fs, &mz);
}

/* One unit: a server start and warm-up, then the step. */
static double unit_seconds(const struct experiment *e, const struct explain_args *args)
{
	return 6 + (double)((e->warmup_ns ? e->warmup_ns : NSEC_PER_SEC) + args->duration_ns) / 1e9;
}

/* The synthetic experiment of one round: e's workload, a context per mix. */
static int round_experiment(const struct experiment *e, size_t ia, size_t ib, const struct placement *pa,
			    const struct placement *pb, const struct factor_set *fs, const struct explain_args *args,
			    const unsigned *masks, size_t n_masks, struct experiment *x)
{
	int r;

	*x = (struct experiment){};
	r = experiment_copy_settings(e, x);
	memcpy(x->name, "explain", sizeof("explain"));
	x->path = strdup(e->path);
	xasprintf(&x->description, "explain %s: %s against %s", e->name, args->a, args->b);
	x->threads[0] = args->threads;
	x->n_threads = 1;
	x->warmup_ns = e->warmup_ns ? e->warmup_ns : NSEC_PER_SEC;
	x->duration_ns = args->duration_ns;
	x->repeat = args->repeat;
	mix_name(fs, masks[0], x->baseline, sizeof(x->baseline)); /* b in the first round */
	for (size_t i = 0; i < n_masks && r >= 0; i++) {
		char name[48];

		mix_name(fs, masks[i], name, sizeof(name));
		r = factors_add_mix(e, ia, ib, pa, pb, fs, masks[i], name, x);
	}
	return r < 0 ? r : x->path && x->description ? 0 : -ENOMEM;
}

/* A round's TPS table, as run prints it. */
static void print_round(void *userdata _unused_, const json_t *doc)
{
	struct report_options ro = { .format = REPORT_TEXT };

	report_render(doc, &ro, stdout);
}

/* "CPUAffinity= + LimitNOFILE=": the factors mix m takes from A. */
static void mix_label(const struct factor_set *fs, unsigned m, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t k = 0; k < fs->n; k++)
		if ((m >> k) & 1)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? " + " : "", fs->f[k].label);
}

/* The directory of a round's results: DIR itself for a full design's
 * first round, DIR/round-N for a screening's, DIR/confirm for the
 * confirmation. */
static int round_dir(const struct factor_set *fs, const char *dir, size_t round, bool confirm, char **ret)
{
	if (confirm)
		return xasprintf(ret, "%s/confirm", dir);
	if (design_is_full(fs))
		return (*ret = strdup(dir)) ? 0 : -ENOMEM;
	return xasprintf(ret, "%s/round-%zu", dir, round);
}

/* Runs the design: all of it at once for up to 4 factors; beyond, the
 * screening's first round (B, A, each factor alone, the closure without
 * each, the closure) and then, if the best set so far leaves more than 20%
 * of a significant gap unexplained and the budget allows, the combinations
 * of the strongest.  Last, when the set named accounts for the gap by an
 * interval too wide to say how much of it (attribute_confirm_masks()), the
 * mixes its share rests on are measured again and pooled.  d grows with
 * every round but the confirmation; dirs names each round's results.
 * Returns the number of failed steps (left out of the analysis), -EIO when
 * the results cannot be read, or -errno (logged).  Long because a round is one sequence (experiment,
 * run, analysis, the next masks). */
static int run_rounds(const struct experiment *e, size_t ia, size_t ib, const struct placement *pa,
		      const struct placement *pb, const struct factor_set *fs, const struct explain_args *args,
		      const char *dir, struct design *d, char **dirs, size_t *n_dirs)
{
	static struct measured mz;
	unsigned masks[MIXES_MAX];

	mz.level = args->confidence;
	size_t n_masks = d->n, n = fs->n;
	uint64_t start = now_ns();
	bool confirm = false;
	int ret = 0;

	memcpy(masks, d->masks, d->n * sizeof(unsigned));
	d->n = 0;
	for (size_t round = 1; round <= ROUNDS_MAX && n_masks; round++) {
		struct experiment x;
		double share, left_s;
		size_t best;
		int r;

		r = round_experiment(e, ia, ib, pa, pb, fs, args, masks, n_masks, &x);
		if (r >= 0)
			r = round_dir(fs, dir, round, confirm, &dirs[*n_dirs]);
		if (r < 0) {
			experiment_done(&x);
			return log_error_errno(r, "explain: %m");
		}
		if (round > 1 && !confirm)
			printf("\nround %zu: %zu mixes\n", round, n_masks);
		fflush(stdout);
		if (confirm || !design_is_full(fs))
			(void)mkdir_p(dir, 0755);
		r = run_whole_experiment(&x, dirs[(*n_dirs)++], &(struct run_options){ .finished = print_round });
		experiment_done(&x);
		if (r < 0)
			return r;
		ret += r;
		if (confirm)
			break;
		memcpy(d->masks + d->n, masks, n_masks * sizeof(unsigned));
		d->n += n_masks;
		if (load_measured(dirs, *n_dirs, fs, d, args->repeat, &mz) < 0)
			return -EIO;
		best = attribute_best_set(d, &mz, &share);
		if (!attribute_gap(&mz, NULL))
			break;
		n_masks = attribute_confirm_masks(d, &mz, masks);
		confirm = n_masks > 0;
		if (confirm) {
			struct stats_share s = attribute_set_share(d, &mz, best);
			char label[256], iv[32];

			mix_label(fs, d->masks[best], label, sizeof(label));
			printf("\nconfirming: %s moves %.0f%% (%s) of the gap, an interval too wide to say how much; B, A "
			       "and the %zu mixes its share rests on are measured %u times more and pooled\n",
			       label, 100 * s.share, attribute_share_interval(&s, iv, sizeof(iv)), n_masks, args->repeat);
		} else if (round == 1 && !design_is_full(fs) && attribute_fit(share) < 0.8)
			n_masks = attribute_strongest_combinations(d, &mz, n, masks);
		else
			break;
		left_s = (double)args->budget_ns / 1e9 - (double)(now_ns() - start) / 1e9;
		if (n_masks && (double)n_masks * args->repeat * unit_seconds(e, args) > left_s) {
			printf("\nthe budget leaves no time for %s (%zu mixes); stopping\n",
			       confirm ? "the confirmation" : "round 2", n_masks);
			break;
		}
	}
	return ret;
}

/* The placements of A and B: a results directory's, or those of one short
 * start of each (DIR/placed), for a file.  -EINVAL (logged) when a results
 * directory's cannot be read: bad input, nothing started. */
static int read_placements(const struct experiment *e, size_t ia, size_t ib, const struct factor_set *fs,
			   const struct explain_args *args, const char *dir, struct placement *pa, struct placement *pb)
{
	_cleanup_free_ char *placed = NULL, *path = NULL;
	const char *from = args->experiment;
	int r;

	if (!is_results_dir(args->experiment)) {
		struct explain_args once = *args;
		struct experiment x;
		unsigned masks[] = { 0, FACTORS_A };

		once.repeat = 1;
		once.duration_ns = NSEC_PER_SEC;
		if (xasprintf(&placed, "%s/placed", dir) < 0)
			return log_error_errno(-ENOMEM, "explain: %m");
		r = round_experiment(e, ia, ib, NULL, NULL, fs, &once, masks, ELEMENTSOF(masks), &x);
		if (r < 0) {
			experiment_done(&x);
			return log_error_errno(r, "explain: %m");
		}
		printf("Starting %s and %s once each to read their placements (%s)\n", args->a, args->b, placed);
		fflush(stdout);
		(void)mkdir_p(dir, 0755);
		r = run_whole_experiment(&x, placed, NULL);
		experiment_done(&x);
		if (r < 0)
			return r; /* a failed step still records its placement */
		from = placed;
	}
	r = factors_load_placement(from, is_results_dir(args->experiment) ? args->a : "a", pa, &path);
	if (r >= 0) {
		free(path);
		path = NULL;
		r = factors_load_placement(from, is_results_dir(args->experiment) ? args->b : "b", pb, &path);
	}
	if (r < 0)
		return log_error("explain: cannot read the placement %s: %s", strempty(path), strerror(-r)),
		       placed ? -EIO : -EINVAL;
	return 0;
}

/* The plan's time: the design's mixes at args->repeat, fewer repeats (two
 * at least) to fit the budget; -EINVAL (logged) when even that does not. */
static int fit_budget(const struct experiment *e, struct explain_args *args, size_t n_mixes, double before_s,
		      double *ret_s)
{
	for (;;) {
		*ret_s = before_s + (double)n_mixes * args->repeat * unit_seconds(e, args);
		if (*ret_s * 1e9 <= (double)args->budget_ns || args->repeat <= 2)
			break;
		args->repeat--;
	}
	if (*ret_s * 1e9 > (double)args->budget_ns)
		return log_error("explain: %zu mixes x %u repeats need about %.0f min, over --budget %.0f min", n_mixes,
				 args->repeat, *ret_s / 60 + 0.5, (double)args->budget_ns / 60e9),
		       -EINVAL;
	return 0;
}

static void print_plan(const struct experiment *e, const struct explain_args *args, const struct factor_set *fs,
		       size_t n_mixes, double estimate_s, bool placed)
{
	printf("explain %s: %s against %s at %ld thread%s, %zu factor%s%s", e->name, args->a, args->b, args->threads,
	       args->threads == 1 ? "" : "s", fs->n, fs->n == 1 ? "" : "s", placed ? "" : " in the file");
	if (fs->n)
		putchar(':');
	for (size_t k = 0; k < fs->n; k++)
		printf("%s%s%s%s%s", k ? ", " : " ", fs->f[k].label, *fs->f[k].detail ? " (" : "", fs->f[k].detail,
		       *fs->f[k].detail ? ")" : "");
	if (fs->n)
		printf(" (hybrids: %s)", context_kind_to_string(fs->kind));
	if (*fs->unmovable)
		printf("\n%s: %s", placed ? "differs, and no hybrid can take it" : "and what their placements show",
		       fs->unmovable);
	printf("\n%zu mixes x %u repeats, about %.0f min%s\n", n_mixes, args->repeat, estimate_s / 60 + 0.5,
	       !design_is_full(fs) ? " in the first round (a screening design: each factor alone and A without each, then the "
					 "combinations of the strongest)"
				       : !placed ? " at least, after a start of each to read the placements"
						 : "");
}

/* Long because it is explain's one sequence (load, factors, budget,
 * placements, factors again, measure, analyse), each step refusing with its
 * own message. */
int explain_run(const struct explain_args *a)
{
	struct explain_args args = *a;
	_cleanup_free_ char *path = NULL, *msg = NULL, *dir = NULL;
	_cleanup_(placement_done) struct placement pa = {}, pb = {};
	struct experiment e = {};
	static struct factor_set fs;
	struct design d;
	char *dirs[ROUNDS_MAX] = {};
	size_t n_dirs = 0, ia, ib;
	double estimate_s, place_s;
	bool placed = is_results_dir(args.experiment);
	int r, ret = -EINVAL;

	if (!args.confidence)
		args.confidence = STATS_CONFIDENCE_DEFAULT;
	if (placed)
		/* The design of a run already made: its contexts, measured again
		 * in every mix, its placements. */
		r = experiment_from_results(args.experiment, &e, &msg);
	else if (experiment_find(args.experiment, &path) < 0)
		return log_error("explain: no experiment or results directory '%s'", args.experiment), -EINVAL;
	else
		r = experiment_load(path, cgroup_mode_detect(), &e, &msg);
	if (r < 0)
		return log_error("explain: %s", msg ? msg : strerror(-r)), -EINVAL;
	if (context_index(&e, args.a, &ia) < 0 || context_index(&e, args.b, &ib) < 0)
		goto out;
	if (placed && read_placements(&e, ia, ib, &fs, &args, NULL, &pa, &pb) < 0)
		goto out;
	r = factors_find(&e, ia, ib, placed ? &pa : NULL, placed ? &pb : NULL, &fs);
	if (r == -E2BIG) {
		log_error("explain: %s and %s differ in more than %d attributes", args.a, args.b, FACTORS_MAX);
		goto out;
	}
	if (r < 0) {
		ret = log_error_errno(r, "explain: %m");
		goto out;
	}
	if (fs.n == 0 && (placed || e.contexts[ia].kind == e.contexts[ib].kind)) {
		log_error("explain: %s and %s differ in no setting that can be moved%s%s", args.a, args.b,
			  *fs.unmovable ? ": " : "", fs.unmovable);
		goto out;
	}
	/* The least a file's contexts need: a start of each, then B, A and
	 * the closure. */
	place_s = placed ? 0 : 2 * (unit_seconds(&e, &args) - (double)args.duration_ns / 1e9 + 1);
	design_make(&fs, &d);
	if (!placed && d.n < 3)
		d.n = 3;
	if (fit_budget(&e, &args, d.n, place_s, &estimate_s) < 0)
		goto out;
	print_plan(&e, &args, &fs, d.n, estimate_s, placed);
	if (args.what_if) {
		ret = 0;
		goto out;
	}
	if (args.out)
		dir = strdup(args.out);
	else {
		char stamp[32];
		time_t now = time(NULL);

		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		xasprintf(&dir, "results/explain-%s-%s-%s-%s", e.name, args.a, args.b, stamp);
	}
	if (!dir) {
		ret = log_error_errno(-ENOMEM, "explain: %m");
		goto out;
	}
	if (!placed) {
		ret = read_placements(&e, ia, ib, &fs, &args, dir, &pa, &pb);
		if (ret == 0)
			ret = factors_find(&e, ia, ib, &pa, &pb, &fs);
		if (ret == 0 && fs.n == 0) {
			log_error("explain: the placements of %s and %s differ in nothing a hybrid can take%s%s", args.a,
				  args.b, *fs.unmovable ? ": " : "", fs.unmovable);
			ret = -ENOENT;
		}
		if (ret == 0) {
			design_make(&fs, &d);
			ret = fit_budget(&e, &args, d.n, place_s, &estimate_s) < 0 ? -E2BIG : 0;
		}
		if (ret < 0)
			goto measured;
		print_plan(&e, &args, &fs, d.n, estimate_s, true);
	}
	ret = run_rounds(&e, ia, ib, &pa, &pb, &fs, &args, dir, &d, dirs, &n_dirs);
	if (ret > 0)
		printf("\n%d step%s failed and %s left out of the analysis.\n", ret, ret == 1 ? "" : "s",
		       ret == 1 ? "is" : "are");
	if (ret >= 0) {
		analyse(dirs, n_dirs, &args, &fs, &d);
		ret = 0;
	}
measured:
	if (ret < 0 && ret != -EINTR)
		/* Bad input was refused above: what failed while measuring is a
		 * failure at run time, whatever its errno. */
		ret = -EIO;
out:
	for (size_t i = 0; i < n_dirs; i++)
		free(dirs[i]);
	experiment_done(&e);
	return ret;
}

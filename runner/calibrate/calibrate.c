/* slicebench calibrate EXPERIMENT CONTEXT (calibrate/calibrate.h): the A/A
 * experiment made from the file's context, its plan, its run by the run
 * engine into a normal results directory, the analysis of its rounds, and
 * the record in STATE/calibration.json. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "calibrate/calibrate.h"
#include "host/calibration.h"
#include "report/report.h"
#include "run/run.h"
#include "experiment/experiment.h"
#include "managed/managed.h"
#include "stats/stats.h"
#include "common/rng.h"
#include "common/util.h"

struct calibrator {
	struct calibrate_args args;
	struct experiment file, aa;
	size_t ic;
	char twin[48];
	unsigned group_rounds, file_repeat; /* the file's repeat (a pilot's rounds with repeat = auto) */
	size_t file_cells;		    /* the file's columns: contexts x vary values */
	char *dir;
	bool analysed;
	struct calibrate_result res;
	char state_dir[PATH_MAX];
};

static int load_file(struct calibrator *c)
{
	_cleanup_free_ char *path = NULL, *msg = NULL;
	int r;

	if (experiment_find(c->args.experiment, &path) < 0)
		return log_error_errno(-EINVAL, "calibrate: no experiment '%s' (slicebench list shows them)", c->args.experiment);
	r = experiment_load(path, cgroup_mode_detect(), &c->file, &msg);
	if (r < 0)
		return log_error_errno(-EINVAL, "calibrate: %s", msg ? msg : strerror(-r));
	for (c->ic = 0; c->ic < c->file.n_contexts; c->ic++)
		if (streq(c->file.contexts[c->ic].name, c->args.context))
			break;
	if (c->ic == c->file.n_contexts)
		return log_error_errno(-EINVAL, "calibrate: %s has no context '%s'", c->file.path, c->args.context);
	if (snprintf(c->twin, sizeof(c->twin), "%s" CALIBRATE_TWIN_SUFFIX, c->args.context) >= (int)sizeof(c->twin))
		return log_error_errno(-EINVAL, "calibrate: the context's name '%s' is too long for its twin's", c->args.context);
	return 0;
}

/* The defaults the file gives, and what the file and the options do not
 * allow together. */
static int check_args(struct calibrator *c)
{
	const struct experiment *e = &c->file;

	if (!c->args.threads)
		c->args.threads = e->threads[0];
	if (!c->args.duration_ns)
		c->args.duration_ns = e->oltp.duration_ns;
	if (!c->args.confidence)
		c->args.confidence = STATS_CONFIDENCE_DEFAULT;
	if ((unsigned long)c->args.threads >= e->max_connections)
		return log_error_errno(-EINVAL, "calibrate: --threads %ld needs max-connections above %ld, and %s's is %u", c->args.threads,
				 c->args.threads, e->name, e->max_connections);
	c->file_repeat = e->repeat_auto ? RUN_AUTO_PILOT : e->repeat;
	c->group_rounds = MAX(c->file_repeat, 2u);
	c->file_cells = e->n_contexts * experiment_n_values(e);
	if (c->args.pairs < 2 * c->group_rounds)
		return log_error_errno(-EINVAL, "calibrate: --pairs %u: two A/A tests of %s's %u rounds need --pairs %u or more",
				 c->args.pairs, e->name, c->group_rounds, 2 * c->group_rounds);
	return 0;
}

/* The file's context under a name of the A/A experiment's. */
static int add_context(struct calibrator *c, const char *name)
{
	const struct context_spec *from = &c->file.contexts[c->ic];
	size_t i = c->aa.n_contexts++;
	struct context_spec *to = &c->aa.contexts[i];
	int r;

	(void)text_copy(to->name, sizeof(to->name), name);
	c->aa.context_slice[i] = c->aa.context_proxy[i] = -1;
	r = context_spec_copy(from, to);
	/* Through the context's proxy, both twins through one. */
	if (r >= 0 && c->file.context_proxy[c->ic] >= 0 &&
	    (r = experiment_add_proxy(&c->aa, &c->file, (size_t)c->file.context_proxy[c->ic], NULL, NULL)) >= 0)
		c->aa.context_proxy[i] = r;
	if (r >= 0 && c->file.client_cpus[c->ic] && !(c->aa.client_cpus[i] = strdup(c->file.client_cpus[c->ic])))
		r = -ENOMEM;
	return r;
}

/* The A/A experiment: the file's workload, server and client, its
 * context twice, --pairs rounds at one thread count. */
static int make_aa(struct calibrator *c)
{
	struct experiment *aa = &c->aa;
	int r = experiment_copy_settings(&c->file, aa);

	memcpy(aa->name, "calibrate", sizeof("calibrate"));
	aa->path = strdup(c->file.path);
	xasprintf(&aa->description, "calibrate %s: %s against itself", c->file.name, c->args.context);
	aa->threads[0] = c->args.threads;
	aa->n_threads = 1;
	aa->oltp.duration_ns = c->args.duration_ns;
	aa->repeat = c->args.pairs;
	aa->vary_slice = -1;
	(void)text_copy(aa->baseline, sizeof(aa->baseline), c->args.context);
	if (r >= 0)
		r = add_context(c, c->args.context);
	if (r >= 0)
		r = add_context(c, c->twin);
	if (r >= 0 && (!aa->path || !aa->description))
		r = -ENOMEM;
	return r < 0 ? log_error_errno(r, "calibrate: cannot make the A/A experiment: %m") : 0;
}

static void print_plan(const struct calibrator *c)
{
	struct run_plan plan;

	if (run_plan_make(&c->aa, NULL, &plan) < 0)
		plan.estimate_s = NAN;
	printf("calibrate %s: %s and %s, the same %s context, at %ld thread%s; %u rounds of the two in a random order, "
	       "steps of %.0fs + %.0fs warm-up; about %.0f min\n",
	       c->file.name, c->args.context, c->twin, context_kind_to_string(c->file.contexts[c->ic].kind),
	       c->args.threads, c->args.threads == 1 ? "" : "s", c->args.pairs, (double)c->args.duration_ns / 1e9,
	       (double)c->aa.oltp.warmup_ns / 1e9, plan.estimate_s / 60 + 0.5);
	printf("the A/A tests: %u groups of %u rounds (%s's repeat), in each the report's verdict of %s against %s at "
	       "%g%%%s\n",
	       c->args.pairs / c->group_rounds, c->group_rounds, c->file.name, c->twin, c->args.context,
	       100 * c->args.confidence,
	       c->args.pairs / c->group_rounds < CALIBRATE_FP_TESTS_MIN ? "; too few for a false-positive rate, which "
									   "takes 150 tests"
									 : "");
}

/* The run's TPS table, then the analysis of its rounds. */
static void finished(void *userdata, const json_t *doc, const char *dir _unused_)
{
	struct calibrator *c = userdata;
	struct report_options ro = { .format = REPORT_TEXT, .confidence = c->args.confidence };
	int r;

	report_render(doc, &ro, stdout);
	r = calibrate_analyse(doc, c->args.context, c->twin, c->group_rounds, c->args.confidence, &c->res);
	if (r < 0)
		log_error("calibrate: cannot analyse the rounds: %s",
			  r == -EDOM ? "no step succeeded" : strerror(-r));
	c->analysed = r >= 0;
}

/* The ratios of a run of the file's report table: each column but the
 * baseline's, at each vary value and thread count. */
static size_t file_family(const struct calibrator *c)
{
	size_t values = experiment_n_values(&c->file);

	return c->file.n_threads * (c->file_cells > values ? c->file_cells - values : 1);
}

/* What the file's repeats can tell from noise at this sigma: a
 * comparison of two of its columns, file_repeat starts a side, at the
 * level of the first Holm step of its report's table. */
static double file_mde(const struct calibrator *c, double *ret_df)
{
	return stats_design_mde(c->res.sigma, c->res.df, c->file_repeat, c->file.n_threads, STATS_PLAN_START_SHARE,
				file_family(c), c->args.confidence, ret_df);
}

/* The A/A tests' count, and their rate only where enough of them bound
 * it. */
static void print_false_positives(const struct calibrator *c)
{
	const struct calibrate_result *s = &c->res;

	printf("A/A tests: %u of %u runs of %u rounds, each judged by the report's own model, called a difference "
	       "significant at %g%%",
	       s->false_positives, s->groups, s->group_rounds, 100 * s->level);
	if (isnan(s->fp_lo))
		printf("; too few to bound a false-positive rate, which is stated from %d tests (--pairs %u): 20 "
		       "cannot tell 5%% from 20%%\n",
		       CALIBRATE_FP_TESTS_MIN, CALIBRATE_FP_TESTS_MIN * s->group_rounds);
	else
		printf(": a false-positive rate of %.1f%% (%.1f-%.1f%%), where %.0f%% is expected\n",
		       100.0 * s->false_positives / s->groups, 100 * s->fp_lo, 100 * s->fp_hi, 100 * (1 - s->level));
}

static void print_result(const struct calibrator *c)
{
	const struct calibrate_result *s = &c->res;
	double df, mde = file_mde(c, &df);

	printf("\nsigma between starts: %.1f%% (%.1f-%.1f%% at %g%%), Bonett's interval, which holds under heavy tails; "
	       "of ln TPS from the model (cell + round), %zu starts in %u rounds, %.0f degrees of freedom\n",
	       100 * s->sigma, 100 * s->sigma_lo, 100 * s->sigma_hi, 100 * s->level, s->n_starts - s->n_failed, s->rounds,
	       s->df);
	print_false_positives(c);
	printf("smallest gap: with %u repeats a side (%zu columns of %s at %zu thread count%s, %.1f degrees of freedom), "
	       "%.2fx at %.0f%% power, at the level of the first Holm step of the %zu ratios of its report's table\n",
	       c->file_repeat, c->file_cells, c->file.name, c->file.n_threads, c->file.n_threads == 1 ? "" : "s", df, mde,
	       100 * STATS_POWER, file_family(c));
	if (s->n_failed)
		printf("%zu of %zu starts failed and are left out\n", s->n_failed, s->n_starts);
	printf("\nthis host: sigma %.1f%% (%.1f-%.1f%%) between starts of %s at %ld thread%s; with %u repeats a gap under "
	       "%.2fx cannot be told from noise\n",
	       100 * s->sigma, 100 * s->sigma_lo, 100 * s->sigma_hi, c->args.context, c->args.threads,
	       c->args.threads == 1 ? "" : "s", c->file_repeat, mde);
}

/* STATE/calibration.json from the analysis. */
static int store(const struct calibrator *c)
{
	const struct calibrate_result *s = &c->res;
	struct calibration cal = { .threads = c->args.threads, .duration_s = (double)c->args.duration_ns / 1e9,
				   .pairs = c->args.pairs, .level = s->level, .sigma = s->sigma, .sigma_lo = s->sigma_lo,
				   .sigma_hi = s->sigma_hi, .df = s->df, .group_rounds = s->group_rounds,
				   .groups = s->groups, .false_positives = s->false_positives };
	time_t now = time(NULL);
	int r;

	/* The record keeps the tests' count and its interval however few;
	 * only the printout's claim of a rate waits for enough of them. */
	stats_wilson(s->false_positives, s->groups, s->level, &cal.fp_lo, &cal.fp_hi);
	strftime(cal.date, sizeof(cal.date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	r = snprintf_whole(cal.experiment, sizeof(cal.experiment), "%s", c->file.name);
	if (r >= 0)
		r = snprintf_whole(cal.context, sizeof(cal.context), "%s", c->args.context);
	if (r >= 0)
		r = calibration_identify(&cal);
	if (r >= 0)
		r = calibration_write(c->state_dir, &cal);
	if (r == -EDOM)
		return log_error_errno(-EIO, "calibrate: too few rounds succeeded for a sigma and a test: nothing stored");
	if (r < 0)
		return log_error_errno(r, "calibrate: cannot write %s/" CALIBRATION_FILE ": %m", c->state_dir);
	printf("stored in %s/" CALIBRATION_FILE ": what it feeds, on this host at %ld thread%s: the smallest gap that run "
	       "--dry-run's and explain's plans print (their sigma, in place of an assumed %.0f%%), and the line report "
	       "adds under an n.s. verdict; no verdict takes it, each run judges by its own starts\n",
	       c->state_dir, c->args.threads, c->args.threads == 1 ? "" : "s", 100 * CALIBRATION_ASSUMED_SIGMA);
	return 0;
}

/* The rounds, the analysis, the record.  -EINVAL: the results directory
 * was refused; else the failed steps, or -errno (logged). */
static int measure(struct calibrator *c)
{
	struct run_options o = { .verb = "calibrate", .order = (enum run_order)c->args.order, .seed = c->args.seed,
				 .seed_given = c->args.seed_given, .confidence = c->args.confidence,
				 .finished = finished, .userdata = c };
	char stamp[32];
	time_t now = time(NULL);
	int r;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	if (c->args.out ? !(c->dir = strdup(c->args.out))
			: xasprintf(&c->dir, "results/calibrate-%s-%s-%s", c->file.name, c->args.context, stamp) < 0)
		return log_error_errno(-ENOMEM, "calibrate: %m");
	fflush(stdout);
	r = run_whole_experiment(&c->aa, c->dir, &o);
	if (o.refused)
		return -EINVAL;
	/* Bad input was refused above: what failed while measuring is a
	 * failure at run time, whatever its errno. */
	if (r < 0 || !c->analysed)
		return r == -EINTR ? r : -EIO;
	print_result(c);
	return store(c) < 0 ? -EIO : r;
}

int calibrate_run(const struct calibrate_args *a)
{
	_cleanup_free_ struct calibrator *c = calloc(1, sizeof(*c));
	struct server_config cfg = {};
	int r;

	if (!c)
		return log_error_errno(-ENOMEM, "calibrate: %m");
	c->args = *a;
	r = load_file(c);
	if (r >= 0)
		r = check_args(c);
	if (r >= 0)
		r = make_aa(c);
	if (r >= 0) {
		experiment_server_config(&c->file, &cfg);
		managed_config_default(&cfg);
		r = snprintf_whole(c->state_dir, sizeof(c->state_dir), "%s", cfg.state_dir);
		if (r < 0)
			log_error_errno(r, "calibrate: the state directory %s: %m", cfg.state_dir);
		else
			print_plan(c);
	}
	if (r >= 0 && !a->dry_run)
		r = measure(c);
	experiment_done(&c->aa);
	experiment_done(&c->file);
	free(c->dir);
	return r;
}

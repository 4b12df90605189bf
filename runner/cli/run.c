/* slicebench run: a named experiment (or an experiment file) from start to
 * finish, or with --dry-run its plan.  With repeat = auto the pilot's
 * spread decides how many rounds the target needs (report_rounds_needed()). */
#include <stddef.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "report/report.h"
#include "host/calibration.h"
#include "stats/sequential.h"
#include "stats/stats.h"
#include "run/run.h"
#include "experiment/experiment.h"
#include "managed/managed.h"
#include "managed/neighbour.h"
#include "managed/unit.h"
#include "common/interrupt.h"
#include "store/results.h"
#include "common/util.h"
#include "cli/verbs.h"

struct run_args {
	const char *experiment, *out, *resume, *only;
	bool dry_run;
	double confidence, until; /* 0: the defaults (95%, the file's until) */
	double margin;		  /* "the same" within it; 0: the file's (10%) */
	uint64_t budget_ns;
	int order; /* enum run_order */
	struct cli_seed seed;
	struct cli_verbosity talk;
};

enum { OPT_UNTIL, OPT_MARGIN };

#define A(f) .offset = offsetof(struct run_args, f)
static const struct cli_option opt_out = { .name = "out", .arg = "DIR", .type = CLI_STRING, A(out),
					   .help = "the results directory (results/NAME-YYYYmmdd-HHMMSS)" };
static const struct cli_option opt_resume = { .name = "resume", .arg = "DIR", .type = CLI_STRING, A(resume),
					      .help = "finish an interrupted run: only the missing steps are run (alone, without "
						      "NAME: the experiment and contexts DIR was run with)" };
static const struct cli_option opt_only = { .name = "only", .arg = "LIST", .type = CLI_STRING, A(only),
					    .help = "run only these contexts" };
static const struct cli_option opt_dry_run = { .name = "dry-run", .type = CLI_FLAG, A(dry_run),
					       .help = "print the plan and its estimated time, start nothing" };
static const struct cli_option opt_until = { .name = "until", .arg = "PCT%", .key = OPT_UNTIL,
					     .help = "repeat = auto: the target, each ratio within +-PCT% (the file's until, 5%)" };
static const struct cli_option opt_margin = { .name = "margin", .arg = "PCT%", .key = OPT_MARGIN,
					      .help = "a ratio within +-PCT% is the same (at the end, or at repeat = decide's looks, "
						      "whose plan decides a gap this large; the file's margin, 10%)" };
static const struct cli_option opt_budget = { .name = "budget", .arg = "TIME", .type = CLI_DURATION, A(budget_ns),
					      .min = 1, .help = "repeat = auto or decide: a bound: a pilot (auto) or two rounds "
							      "(decide) longer at the plan's times is refused, and no round begins "
							      "that would end later than this (decide's last look then spends what is left)" };
#undef A

static int parse_until(const struct cli_verb *v, const struct cli_option *o, const char *value, void *userdata)
{
	struct run_args *a = userdata;
	double pct;

	if (parse_percent(value, true, &pct) < 0 || !(pct > 0 && pct < 100))
		return cli_bad_value(v, o, value, "a percentage above 0 and below 100, such as 5%");
	*(o->key == OPT_MARGIN ? &a->margin : &a->until) = pct / 100;
	return 0;
}

const struct cli_verb cli_run = {
	.name = "run",
	.usage = (const char *const[]){ "NAME|PATH [--out DIR | --resume DIR] [--only CONTEXT,...] [--dry-run] [-q | -v]",
					"--resume DIR [--dry-run]",
					"NAME|PATH [--confidence 95] [--until 5%] [--margin 10%] [--budget 30m] [--order random|fixed] "
					"[--seed N]",
					NULL },
	.about = "Runs a named experiment (slicebench list) or an experiment file in rounds: each round runs\n"
		 "every context x vary value once, with a fresh server, in a balanced order (a row of a Williams\n"
		 "square; the seed and the orders in schedule.json), and each thread count a step, recorded as it\n"
		 "finishes.  With repeat = auto, a pilot of 3 rounds, then as many rounds as its spread says\n"
		 "the target needs (Stein's two-stage rule), within repeat-max and --budget.  With repeat =\n"
		 "decide, a look after each round from the second: each ratio is decided \"different\" or \"the\n"
		 "same within +-margin\" at an O'Brien-Fleming boundary held over every look and Holm's family,\n"
		 "a context runs on only while one of its ratios is open, and the run stops when all are\n"
		 "decided, at repeat-max (the plan's for a gap of margin) or at --budget.  Any design ends in\n"
		 "answers: each ratio different, the same within +-margin (two one-sided tests) or undecided,\n"
		 "with the rounds that would decide it.",
	.options = (const struct cli_option *const[]){ &opt_out, &opt_resume, &opt_only, &opt_dry_run,
						       CLI_CONFIDENCE_OPTION(struct run_args, confidence), &opt_until,
						       &opt_margin, &opt_budget, CLI_ORDER_OPTION(struct run_args, order),
						       CLI_SEED_OPTION(struct run_args, seed),
						       CLI_QUIET_OPTION(struct run_args, talk),
						       CLI_VERBOSE_OPTION(struct run_args, talk), NULL },
	.parse = parse_until,
};

static int run_parse_argv(int argc, char **argv, struct run_args *a)
{
	int r, first;

	r = cli_parse(&cli_run, argc, argv, a, &first);
	if (r <= 0)
		return r;
	/* --resume DIR alone takes the experiment DIR was run with. */
	if (first != argc - 1 && !(first == argc && a->resume))
		return cli_usage_error(&cli_run, "%s", first == argc ? "which experiment? (slicebench list)"
								   : "one experiment at a time");
	if (a->out && a->resume)
		return cli_usage_error(&cli_run, "--out and --resume exclude each other (the resumed run keeps its directory)");
	r = cli_set_verbosity(&cli_run, &a->talk);
	if (r < 0)
		return r;
	a->experiment = first < argc ? argv[first] : NULL;
	return 1;
}

/* The command that runs it again, but for --order and --seed (the run adds
 * them): the experiment as it was given (a file by its absolute path),
 * and the options that shape the plan and its verdicts. */
static int run_command(const struct run_args *a, const char *path, char **ret)
{
	_cleanup_free_ char *exp = NULL;
	char confidence[32], until[32], margin[32], budget[32];
	const char *words[16] = { "slicebench", "run" };
	size_t n = 2;
	int r = run_reproduce_experiment(a->experiment, path, &exp);

	if (r < 0)
		return r;
	words[n++] = exp;
	if (a->only) {
		words[n++] = "--only";
		words[n++] = a->only;
	}
	if (a->confidence) {
		snprintf(confidence, sizeof(confidence), "%g", 100 * a->confidence);
		words[n++] = "--confidence";
		words[n++] = confidence;
	}
	if (a->until) {
		snprintf(until, sizeof(until), "%g%%", 100 * a->until);
		words[n++] = "--until";
		words[n++] = until;
	}
	if (a->margin) {
		snprintf(margin, sizeof(margin), "%g%%", 100 * a->margin);
		words[n++] = "--margin";
		words[n++] = margin;
	}
	if (a->budget_ns) {
		snprintf(budget, sizeof(budget), "%.0fs", (double)a->budget_ns / 1e9);
		words[n++] = "--budget";
		words[n++] = budget;
	}
	words[n] = NULL;
	return run_reproduce_line(words, ret);
}

/* --resume DIR alone: the contexts DIR's run selected (schedule.json's
 * "only"), unless --only says; *ret NULL: all. */
static int resumed_only(const char *dir, char **ret)
{
	_cleanup_free_ char *path = NULL;
	json_t *sched;

	*ret = NULL;
	if (xasprintf(&path, "%s/" RESULTS_SCHEDULE, dir) < 0)
		return -ENOMEM;
	sched = json_load_file(path, 0, NULL);
	if (json_is_string(json_object_get(sched, "only")) &&
	    !(*ret = strdup(json_string_value(json_object_get(sched, "only")))))
		return json_decref(sched), -ENOMEM;
	json_decref(sched);
	return 0;
}

/* The experiment: a file's or a name's, or with --resume DIR alone the one
 * DIR was run with (and its contexts into *ret_only).  Logged; -EINVAL. */
static int load_experiment(struct run_args *a, struct experiment *e, char **ret_path, char **ret_only)
{
	_cleanup_free_ char *msg = NULL;
	int r;

	if (!a->experiment && !a->only && resumed_only(a->resume, ret_only) < 0)
		return log_error_errno(-ENOMEM, "run: %m");
	if (*ret_only)
		a->only = *ret_only;
	if (!a->experiment)
		r = experiment_from_results(a->resume, false, e, &msg);
	else if (experiment_find(a->experiment, ret_path) < 0)
		return log_error_errno(-EINVAL, "run: no experiment '%s' (slicebench list shows them)", a->experiment);
	else
		r = experiment_load(*ret_path, cgroup_mode_detect(), e, &msg);
	if (r < 0)
		return log_error_errno(-EINVAL, "%s%s", a->experiment ? "" : "run: --resume: ", msg ? msg : strerror(-r));
	return 0;
}

/* One unit of the order: its name, kind, settings, vary value and slice. */
static void plan_print_unit(const struct experiment *e, size_t c, size_t v, unsigned r)
{
	const struct context_spec *s = &e->contexts[c];
	struct managed_unit_names names = {};

	(void)managed_unit_names(e, c, v, r, false, &names); /* fits: names are short */
	printf("  %-28s %-7s", names.name, context_kind_to_string(s->kind));
	for (size_t j = 0; j < s->n_props; j++)
		if (!experiment_varies_contexts(e) || s->props[j].def != e->vary)
			printf(" %s=%s", s->props[j].def->name, s->props[j].text);
	if (e->n_vary)
		printf(" %s%s%s=%s", e->vary_slice >= 0 ? e->slices[e->vary_slice].name : "", e->vary_slice >= 0 ? ":" : "",
		       e->vary->name, e->vary_values[v]);
	if (s->session == SESSION_NEW)
		printf(" session=new");
	if (e->context_slice[c] >= 0)
		printf(" Slice=%s", e->slices[e->context_slice[c]].name);
	if (e->client_cpus[c])
		printf(" client-cpus=%s", e->client_cpus[c]);
	if (experiment_proxy_of(e, c) >= 0)
		printf(" through [proxy %s]", e->proxies[experiment_proxy_of(e, c)].name);
	putchar('\n');
}

/* Each [proxy NAME]: its engine, kind and settings. */
static void plan_print_proxies(const struct experiment *e)
{
	for (size_t i = 0; i < e->n_proxies; i++) {
		const struct context_spec *p = &e->proxies[i];

		printf("proxy %s: %s in a %s context", p->name, e->proxy_engine[i], context_kind_to_string(p->kind));
		for (size_t j = 0; j < p->n_props; j++)
			printf(" %s=%s", p->props[j].def->name, p->props[j].text);
		if (p->session == SESSION_NEW)
			printf(" session=new");
		putchar('\n');
	}
}

static void plan_print_neighbours(const struct experiment *e)
{
	plan_print_proxies(e);
	for (size_t i = 0; i < e->n_neighbours; i++) {
		const struct neighbour_spec *nb = &e->neighbours[i];

		printf("neighbour %s beside every step:", nb->name);
		if (nb->kind == NEIGHBOUR_HOG)
			printf(" slicebench hog, %u threads at %u%%", nb->threads, nb->duty);
		if (nb->kind == NEIGHBOUR_OLTP)
			printf(" a mariadbd of its own (buffer pool " NEIGHBOUR_OLTP_BUFFER_POOL ") and %u client threads of "
			       "oltp_read_only on 1 x %u rows", nb->threads, NEIGHBOUR_OLTP_TABLE_SIZE);
		for (size_t k = 0; nb->kind == NEIGHBOUR_COMMAND && nb->argv[k]; k++)
			printf(" %s", nb->argv[k]);
		printf(" in %s\n", e->neighbour_slice[i] >= 0 ? e->slices[e->neighbour_slice[i]].name : "the kind's default place");
	}
}

static void plan_print_slices(const struct experiment *e)
{
	if (e->n_slices)
		printf("slices (made for each unit, as slice units or as raw cgroups):\n");
	for (size_t i = 0; i < e->n_slices; i++) {
		const struct slice_spec *sl = &e->slices[i];

		printf("  %-28s", sl->name);
		for (size_t j = 0; j < sl->n_props; j++)
			printf(" %s=%s", sl->props[j].def->name, sl->props[j].text);
		if (e->vary_slice == (int)i)
			printf(" %s=(vary)", e->vary->name);
		putchar('\n');
	}
}

static void plan_print(const struct run_plan *p)
{
	const struct experiment *e = p->e;

	printf("experiment %s (%s): %s\n", e->name, e->path, strempty(e->description));
	printf("%s%zu server starts x %zu thread counts = %zu steps of %.0fs + %.0fs warm-up; "
	       "about %.0f min\n",
	       e->repeat_auto ? "at most " : "", p->n_units, e->n_threads, p->n_steps, (double)e->oltp.duration_ns / 1e9,
	       (double)e->oltp.warmup_ns / 1e9, p->estimate_s / 60 + 0.5);
	printf("the dataset: %" PRIu64 " rows, about %.*f %s; preparing them takes up to %.0f min of that where they are "
	       "not made yet\n", p->dataset_rows, p->dataset_bytes >= 1000000000 ? 1 : 0,
	       (double)p->dataset_bytes / (p->dataset_bytes >= 1000000000 ? 1e9 : 1e6),
	       p->dataset_bytes >= 1000000000 ? "GB" : "MB", p->prepare_s / 60 + 0.5);
	if (e->repeat_auto)
		printf("repeat = auto: %d to %u repeats, until every ratio is within +-%g%% (a pilot of %d rounds, then "
		       "as many as its spread asks for)\n", RUN_AUTO_PILOT, e->repeat_max, 100 * e->until, RUN_AUTO_PILOT);
	if (e->repeat_decide)
		printf("repeat = decide: at most %u rounds, a look after %s; each ratio is decided \"different\" or \"the "
		       "same within +-%g%%\" and its context stops once all of its ratios are; the run stops when every "
		       "ratio is decided\n",
		       e->repeat, e->look_every > 1 ? "every few rounds" : "each round from the second", 100 * e->margin);
	printf("threads:");
	for (size_t i = 0; i < e->n_threads; i++)
		printf(" %ld", e->threads[i]);
	printf("\nunits, round by round (each round runs them in a balanced order, unless --order fixed):\n");
	for (unsigned r = 1; r <= e->repeat && (e->vary_modes & VARY_RESTART); r++)
		for (size_t v = 0; v < experiment_n_values(e); v++)
			for (size_t c = 0; c < e->n_contexts; c++)
				if (p->selected[c])
					plan_print_unit(e, c, v, r);
	if (e->vary_modes & VARY_LIVE)
		printf("then live, one server per repeat and context, %s=%s first and changed in place to each next value "
		       "(recorded as %s%s-vN-rR)\n",
		       e->vary->name, e->vary_values[0], e->contexts[0].name, e->vary_modes & VARY_RESTART ? "-live" : "");
	plan_print_neighbours(e);
	plan_print_slices(e);
}

/* The contexts and thread counts the plan judges against the baseline:
 * the columns, and the ratios of the report's table. */
static size_t plan_columns(const struct run_plan *p, size_t *ret_family)
{
	const struct experiment *e = p->e;
	size_t cells = 0;

	for (size_t c = 0; c < e->n_contexts; c++)
		cells += p->selected[c] ? experiment_n_values(e) : 0;
	*ret_family = e->n_threads * (cells > experiment_n_values(e) ? cells - experiment_n_values(e) : 1);
	return cells;
}

/* What the plan's rounds can tell from noise at 80% power: at this host's
 * sigma between starts where calibrate measured it at one of the file's
 * thread counts, else at an assumed 5%. */
static void power_print(const struct run_plan *p, double level)
{
	const struct experiment *e = p->e;
	struct server_config cfg = {};
	char source[320] = "";
	unsigned repeat = e->repeat_auto ? RUN_AUTO_PILOT : e->repeat;
	size_t t = 0, family, cells = plan_columns(p, &family);
	double sigma, df, mde;

	if (cells < 2 || repeat < 2 || e->repeat_decide)
		return;
	managed_config_default(&cfg);
	while (t < e->n_threads && !calibration_sigma_for_plan(cfg.state_dir, e->threads[t], &sigma, source, sizeof(source)))
		t++;
	if (t == e->n_threads)
		(void)calibration_sigma_for_plan(cfg.state_dir, e->threads[t = 0], &sigma, source, sizeof(source));
	mde = stats_design_mde(sigma, INFINITY, repeat, e->n_threads, STATS_PLAN_START_SHARE, family, level, &df);
	printf("at a spread of %.1f%% between starts at %ld thread%s (%s), %u repeat%s of %zu columns (%.1f degrees of "
	       "freedom, which count starts, if a start's steps share %.0f%% of its noise) tell a gap of %.2fx from noise "
	       "with %.0f%% power (noncentral t, at the level of the first Holm step of the %zu ratios of the report's "
	       "table)\n",
	       100 * sigma, e->threads[t], e->threads[t] == 1 ? "" : "s", source, repeat, repeat == 1 ? "" : "s", cells,
	       df, 100 * STATS_PLAN_START_SHARE, mde, 100 * STATS_POWER, family);
}

/* The design's answers at the spread between starts this host's
 * calibration gives (else the 5% assumed): with repeat = decide,
 * repeat-max, unless the file gives it, the fewest rounds that decide a
 * gap of margin "different" and a ratio of 1 "the same" with 80% each
 * (stats/sequential.h), within the key's 100; what it does at those and
 * at twice the gap (a fixed design: one look, at its end; auto: none). */
static void plan_decide(struct experiment *e, const struct run_plan *p, double level, struct run_options *o,
			bool print)
{
	struct server_config cfg = {};
	static char source[320];
	size_t family, cells = plan_columns(p, &family);
	struct seq_design d = { .margin = e->margin, .level = level, .power = STATS_POWER, .family = family,
				.cells = cells, .rows = e->n_threads,
				.every = e->repeat_decide ? e->look_every : SEQ_EVERY_END, .max = SEQ_ROUNDS_MAX };
	struct seq_operating at_gap, at_one, at_twice;
	double r_gap, r_one, r_twice;
	bool measured;

	managed_config_default(&cfg);
	measured = calibration_sigma_for_plan(cfg.state_dir, e->threads[0], &d.sigma, source, sizeof(source));
	o->planned_sigma = d.sigma;
	o->planned_from = measured ? "calibrate" : "assumed";
	if (!e->repeat)
		e->repeat = MIN(seq_plan_rounds(&d), SEQ_ROUNDS_MAX);
	/* experiment.json records the most as repeat-max, whether the file
	 * gave it or the plan did: a step past it is no step of this run. */
	e->repeat_max = e->repeat;
	/* repeat = auto's rounds are the pilot's spread's: none to plan here */
	if (!print || cells < 2 || e->repeat_auto || seq_plan_operate(&d, e->repeat, log1p(e->margin), &at_gap, &r_gap) < 0 ||
	    seq_plan_operate(&d, e->repeat, 0, &at_one, &r_one) < 0 ||
	    seq_plan_operate(&d, e->repeat, log1p(2 * e->margin), &at_twice, &r_twice) < 0)
		return;
	if (!e->repeat_decide) {
		printf("at a spread of %.1f%% between starts (%s), %u rounds of %zu columns answer a gap of %.2fx "
		       "\"different\" with %.0f%% power, a ratio of 1 \"the same within +-%g%%\" with %.0f%%, and a gap of "
		       "%.2fx \"different\" with %.0f%%; at the first Holm step of the %zu ratios, at the run's end\n",
		       100 * d.sigma, source, e->repeat, cells, 1 + e->margin, 100 * at_gap.p_outer, 100 * e->margin,
		       100 * at_one.p_inner, 1 + 2 * e->margin, 100 * at_twice.p_outer, family);
		return;
	}
	printf("at a spread of %.1f%% between starts (%s), %u rounds of %zu columns decide a gap of %.2fx \"different\" "
	       "with %.0f%% power (%.1f rounds on average), a ratio of 1 \"the same within +-%g%%\" with %.0f%% (%.1f), "
	       "and a gap of %.2fx with %.0f%% in %.1f rounds; at the first Holm step of the %zu ratios, over every look\n",
	       100 * d.sigma, source, e->repeat, cells, 1 + e->margin, 100 * at_gap.p_outer, r_gap, 100 * e->margin,
	       100 * at_one.p_inner, r_one, 1 + 2 * e->margin, 100 * at_twice.p_outer, r_twice, family);
}

/* "45s" under two minutes, else "2.5 min". */
static const char *format_seconds(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0fs", s);
	else
		snprintf(buf, len, "%.1f min", s / 60);
	return buf;
}

/* --budget against the plan's times: the pilot's rounds must fit in it, or
 * the run is refused before anything starts; with --dry-run, how many
 * rounds fit.  The run then measures its own pace and begins no round that
 * would end past the budget (run/rounds.c). */
static int budget_plan(const struct run_plan *p, uint64_t budget_ns, bool print)
{
	const struct experiment *e = p->e;
	unsigned least = e->repeat_decide ? 2 : RUN_AUTO_PILOT;
	double round_s = p->estimate_s / e->repeat, budget_s = (double)budget_ns / 1e9, pilot_s = least * round_s;
	unsigned fits = (unsigned)MIN((double)e->repeat, floor(budget_s / round_s));
	char b[32], pilot[32];

	format_seconds(budget_s, b, sizeof(b));
	format_seconds(pilot_s, pilot, sizeof(pilot));
	if (pilot_s > budget_s)
		return log_error_errno(-EINVAL, "run: the first %u rounds take about %s at the plan's times, over --budget %s: give a "
				       "longer budget, or fewer contexts (--only)",
				       least, pilot, b);
	if (print)
		printf("--budget %s: the first %u rounds take about %s, and at the plan's times %u of the at most %u "
		       "rounds fit in it; the run measures its own pace and begins no round that would end past the budget\n",
		       b, least, pilot, fits, e->repeat);
	return 0;
}

/* What the run's callbacks need: the experiment, the level, and the
 * options the run fills in. */
struct adapt {
	const struct experiment *e;
	double level;
	struct run_options *o; /* the plan fills in its part */
	bool verbose; /* the whole report before the answer */
};

/* Stein's second stage: the rounds the pilot's spread asks for. */
static int adapt_rounds_needed(void *userdata, const json_t *doc, unsigned *ret)
{
	const struct adapt *a = userdata;
	int r = report_rounds_needed(doc, a->level, a->e->until, ret);

	return r < 0 ? log_error_errno(r, "run: cannot judge the pilot's spread: %m") : 0;
}

/* repeat = decide: what the looks so far and this one leave open. */
static int adapt_look(void *userdata, const json_t *doc, unsigned round, bool final, bool *ret_open)
{
	const struct adapt *a = userdata;
	const char *names[EXP_CONTEXTS_MAX];
	int r;

	for (size_t c = 0; c < a->e->n_contexts; c++)
		names[c] = a->e->contexts[c].name;
	r = report_look(doc, a->level, round, final, names, a->e->n_contexts, ret_open);
	return r < 0 ? log_error_errno(r, "run: cannot judge the look after round %u: %m", round) : 0;
}

/* What the rounds came to, ratio by ratio. */
static void adapt_summary(const struct adapt *a, const json_t *doc)
{
	const struct run_options *o = a->o;
	static const char *const why[] = {
		[RUN_STOP_NONE] = "the run did not finish",
		[RUN_STOP_SETTLED] = "wider than the target",
		[RUN_STOP_MAX] = "stopped at repeat-max",
		[RUN_STOP_BUDGET] = "stopped by --budget",
	};
	_cleanup_free_ struct report_comparison *list = NULL;
	size_t n = 0;

	printf("repeat = auto: target +-%g%% at %g%%, %u round%s", 100 * a->e->until, 100 * a->level, o->rounds,
	       o->rounds == 1 ? "" : "s");
	if (o->rounds_wanted > RUN_AUTO_PILOT)
		printf(" (the pilot's spread asked for %u)", o->rounds_wanted);
	printf("\n");
	if (report_comparisons(doc, a->level, &list, &n) < 0 || n == 0)
		printf("  no ratio to judge (one context, or no baseline): stopped after %u repeats\n", o->rounds);
	for (size_t i = 0; i < n; i++) {
		const struct report_comparison *c = &list[i];
		double prec = stats_ratio_precision(&c->r);

		printf("  %s%s%s vs %s at %lld thread%s: ", c->context, *c->vary ? " " : "", c->vary, a->e->baseline,
		       c->threads, c->threads == 1 ? "" : "s");
		if (isinf(prec))
			printf("no interval");
		else
			printf("%.2fx +-%.1f%%", c->r.ratio, 100 * prec);
		printf(" after %zu and %zu repeats: %s\n", c->r.n_a, c->r.n_b,
		       prec <= a->e->until ? "within the target" : why[o->stopped]);
	}
}

/* The page beside the results (a run that cannot write it has its results
 * all the same: said, not failed), where the whole report is, and the
 * answer last: with repeat = auto what the rounds came to, the TPS table
 * and its verdicts.  -v prints the whole report first. */
static void print_report(void *userdata, const json_t *doc, const char *dir)
{
	const struct adapt *a = userdata;
	struct report_options ro = { .format = REPORT_TEXT, .confidence = a->level, .answer = true };
	struct report_options whole = { .format = REPORT_TEXT, .confidence = a->level };
	_cleanup_free_ char *page = NULL;
	int r;

	if (a->verbose) {
		report_render(doc, &whole, stdout);
		putchar('\n');
	}
	r = report_write_page(doc, dir, a->level, &page);
	if (r < 0)
		log_error_errno(r, "run: cannot write %s/" REPORT_PAGE ": %m (slicebench report %s --format html makes it)",
				dir, dir);
	else
		printf("the report as a page: %s\n", page);
	if (!a->verbose)
		printf("the whole report (noise, saturation, placements): slicebench report %s\n", dir);
	if (json_is_string(json_object_get(json_object_get(doc, "schedule"), "command")))
		printf("to run it again: %s\n",
		       json_string_value(json_object_get(json_object_get(doc, "schedule"), "command")));
	putchar('\n');
	if (a->e->repeat_auto)
		adapt_summary(a, doc);
	report_render(doc, &ro, stdout);
	fflush(stdout);
}

/* The options that change the file's repeat: each for its mode only,
 * then into e.  -EINVAL (logged) for one the file's repeat does not take. */
static int take_repeat_options(const struct run_args *a, struct experiment *e)
{
	if ((a->until && !e->repeat_auto) || (a->budget_ns && !e->repeat_auto && !e->repeat_decide))
		return log_error_errno(-EINVAL, "run: --%s is for repeat = %s, and %s repeats %u times",
				 a->until ? "until" : "budget", a->until ? "auto" : "auto or decide", e->path, e->repeat);
	if (a->until)
		e->until = a->until;
	if (a->margin)
		e->margin = a->margin;
	return 0;
}

/* The plan of the contexts asked for; with repeat = decide and no
 * repeat-max in the file, its most rounds planned on them first. */
static int make_plan(const struct run_args *a, struct experiment *e, struct adapt *ad, struct run_plan *ret)
{
	int r;

	if (e->repeat_decide && !e->repeat) {
		e->repeat = 1;
		r = run_plan_make(e, a->only, ret);
		e->repeat = 0;
		if (r < 0)
			return r;
		plan_decide(e, ret, ad->level, ad->o, false);
	}
	r = run_plan_make(e, a->only, ret);
	if (r >= 0 && e->repeat_decide)
		plan_decide(e, ret, ad->level, ad->o, false);
	return r;
}

int verb_run(int argc, char **argv)
{
	struct run_args a = {};
	_cleanup_free_ char *path = NULL, *command = NULL, *only = NULL;
	struct experiment e = {};
	struct run_plan plan;
	struct adapt ad = {};
	struct run_options ro = {};
	uint64_t began = now_ns();
	int r, status = 0;

	r = run_parse_argv(argc, argv, &a);
	if (r <= 0)
		return verb_parse_exit_status(r);
	if (load_experiment(&a, &e, &path, &only) < 0)
		return EXIT_USAGE;
	experiment_log_mirrors(&e);
	if (a.experiment && run_command(&a, path, &command) < 0) {
		log_error_errno(-ENOMEM, "run: %m");
		experiment_done(&e);
		return 1;
	}
	ad = (struct adapt){ .e = &e, .level = a.confidence ? a.confidence : STATS_CONFIDENCE_DEFAULT, .o = &ro, .verbose = a.talk.verbose };
	ro = (struct run_options){ .confidence = a.confidence, .rounds_needed = adapt_rounds_needed,
				   .look = adapt_look, .finished = print_report, .userdata = &ad, .command = command,
				   .deadline_ns = a.budget_ns ? began + a.budget_ns : 0,
				   .order = (enum run_order)a.order, .seed = a.seed.value, .seed_given = a.seed.given };
	r = take_repeat_options(&a, &e);
	if (r >= 0)
		r = make_plan(&a, &e, &ad, &plan);
	if (r >= 0 && !a.dry_run) /* a dry run writes no results directory */
		r = run_check_reaches_host("run", a.resume ? a.resume : a.out ? a.out : "results/");
	if (r >= 0)
		r = run_check_space("run", &plan);
	if (r >= 0 && a.budget_ns)
		r = budget_plan(&plan, a.budget_ns, false);
	if (r < 0)
		status = EXIT_USAGE;
	else if (a.dry_run) {
		plan_print(&plan);
		if (a.budget_ns)
			(void)budget_plan(&plan, a.budget_ns, true);
		power_print(&plan, ad.level);
		plan_decide(&e, &plan, ad.level, &ro, true);
	} else {
		power_print(&plan, ad.level);
		plan_decide(&e, &plan, ad.level, &ro, true);
		r = run_experiment(&e, &plan, a.resume ? a.resume : a.out, a.resume != NULL, &ro);
		status = ro.refused ? EXIT_USAGE : verb_exit_status(r);
	}
	experiment_done(&e);
	return status;
}

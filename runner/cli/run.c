/* slicebench run: a named experiment (or an experiment file) from start to
 * finish, or with --dry-run its plan. */
#include <getopt.h>
#include <stdio.h>

#include "run/engine.h"
#include "run/experiment.h"
#include "common/interrupt.h"
#include "run/results.h"
#include "common/util.h"
#include "cli/verbs.h"

struct run_args {
	const char *experiment, *out, *resume;
	char *only;
	bool dry_run;
};

static void run_usage(FILE *f)
{
	fprintf(f, "usage: slicebench run NAME|PATH [--out DIR | --resume DIR] [--only CONTEXT,...] [--dry-run]\n"
		   "\n"
		   "Runs a named experiment (slicebench list) or an experiment file: every context x vary value\n"
		   "x repeat gets a fresh server, and each thread count a step, recorded as it finishes.\n"
		   "\n"
		   "  --out DIR        the results directory (results/NAME-YYYYmmdd-HHMMSS)\n"
		   "  --resume DIR     finish an interrupted run: only the missing steps are run\n"
		   "  --only LIST      run only these contexts\n"
		   "  --dry-run        print the plan and its estimated time, start nothing\n");
}

static int run_parse_argv(int argc, char **argv, struct run_args *a)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },	     { "out", required_argument, NULL, 'o' },
		{ "resume", required_argument, NULL, 'r' }, { "only", required_argument, NULL, 'O' },
		{ "dry-run", no_argument, NULL, 'n' },	     {}
	};
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
		switch (c) {
		case 'h':
			run_usage(stdout);
			return 0;
		case 'o':
			a->out = optarg;
			break;
		case 'r':
			a->resume = optarg;
			break;
		case 'O':
			a->only = optarg;
			break;
		case 'n':
			a->dry_run = true;
			break;
		default:
			log_error("run: unknown option %s", argv[optind - 1]);
			run_usage(stderr);
			return -EINVAL;
		}
	if (optind != argc - 1) {
		log_error("run: %s", optind == argc ? "which experiment? (slicebench list)" : "one experiment at a time");
		run_usage(stderr);
		return -EINVAL;
	}
	if (a->out && a->resume) {
		log_error("run: --out and --resume exclude each other (the resumed run keeps its directory)");
		return -EINVAL;
	}
	a->experiment = argv[optind];
	return 1;
}

static void plan_print(const struct run_plan *p)
{
	const struct experiment *e = p->e;
	char unit[96];

	printf("experiment %s (%s): %s\n", e->name, e->path, strempty(e->description));
	printf("%zu units (a fresh server each) x %zu thread counts = %zu steps of %.0fs + %.0fs warm-up; "
	       "about %.0f min\n",
	       p->n_units, e->n_threads, p->n_steps, (double)e->duration_ns / 1e9, (double)e->warmup_ns / 1e9,
	       p->estimate_s / 60 + 0.5);
	printf("threads:");
	for (size_t i = 0; i < e->n_threads; i++)
		printf(" %ld", e->threads[i]);
	printf("\norder:\n");
	for (unsigned r = 1; r <= e->repeat; r++)
		for (size_t v = 0; v < experiment_n_values(e); v++)
			for (size_t c = 0; c < e->n_contexts; c++) {
				const struct context_spec *s = &e->contexts[c];

				if (!p->selected[c])
					continue;
				(void)results_unit_name(s->name, v, r, unit, sizeof(unit)); /* fits: names are short */
				printf("  %-28s %-7s", unit, context_kind_to_string(s->kind));
				for (size_t j = 0; j < s->n_props; j++)
					if (!e->n_vary || s->props[j].def != e->vary)
						printf(" %s=%s", s->props[j].def->name, s->props[j].text);
				if (e->n_vary)
					printf(" %s=%s", e->vary->name, e->vary_values[v]);
				if (s->session == SESSION_NEW)
					printf(" session=new");
				putchar('\n');
			}
}

int verb_run(int argc, char **argv)
{
	struct run_args a = {};
	_cleanup_free_ char *path = NULL, *msg = NULL;
	struct experiment e = {};
	struct run_plan plan;
	int r, status = 0;

	r = run_parse_argv(argc, argv, &a);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : 0;
	r = experiment_find(a.experiment, &path);
	if (r < 0) {
		log_error("run: no experiment '%s' (slicebench list shows them)", a.experiment);
		return EXIT_USAGE;
	}
	r = experiment_load(path, cgroup_mode_detect(), &e, &msg);
	if (r < 0) {
		log_error("%s", msg ? msg : strerror(-r));
		return EXIT_USAGE;
	}
	r = run_plan_make(&e, a.only, &plan);
	if (r < 0)
		status = EXIT_USAGE;
	else if (a.dry_run)
		plan_print(&plan);
	else
		status = run_exit_status(run_experiment(&e, &plan, a.resume ? a.resume : a.out, a.resume != NULL));
	experiment_done(&e);
	return status;
}

int run_exit_status(int r)
{
	if (r == -EINTR && interrupt_signal)
		return 128 + interrupt_signal;
	return r != 0 ? 1 : 0;
}

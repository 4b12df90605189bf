/* slicebench explain EXPERIMENT A B: which settings account for the TPS gap
 * between two contexts.  The movable attributes are the settings in which A
 * and B differ (systemd properties, the session, the client's CPUs); with k
 * of them (k <= 4) every one of the 2^k mixes of "taken from A" and "taken
 * from B", beyond that each setting alone, is a context of a synthetic
 * experiment, run like any other (fresh
 * server per repeat, repeats interleaved, results on disk).  Each subset's
 * share of the gap, (T(subset from A) - T(B)) / (T(A) - T(B)), is computed
 * per repeat, which gives the interval. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "experiment.h"
#include "results.h"
#include "run.h"
#include "snapshot.h"
#include "util.h"
#include "verbs.h"

/* Up to FULL_DESIGN_MAX settings every mix is measured; beyond, each
 * setting alone (k + 2 mixes), up to KNOBS_MAX. */
#define FULL_DESIGN_MAX 4
#define KNOBS_MAX 12
#define MIXES_MAX 16

enum knob_type {
	KNOB_PROPERTY,
	KNOB_SESSION,
	KNOB_CLIENT_CPUS,
};

struct knob {
	enum knob_type type;
	const struct prop_def *def; /* KNOB_PROPERTY */
	char label[64];
	/* placement keys this knob moves, so that the rest of the diff can be
	 * named as not movable */
	const char *keys[6];
};

struct explain_args {
	const char *experiment, *a, *b, *out;
	long threads;
	unsigned repeat;
	uint64_t duration_ns, budget_ns;
	bool what_if;
};

/* The mixes measured: masks[i] is context i's set of knobs taken from A;
 * masks[0] is B (none), masks[n - 1] is A (all). */
struct design {
	unsigned masks[MIXES_MAX];
	size_t n;
};

static void design_make(size_t knobs, struct design *d)
{
	unsigned all = (1u << knobs) - 1;

	d->n = 0;
	if (knobs <= FULL_DESIGN_MAX)
		for (unsigned m = 0; m <= all; m++)
			d->masks[d->n++] = m;
	else {
		d->masks[d->n++] = 0;
		for (size_t k = 0; k < knobs; k++)
			d->masks[d->n++] = 1u << k;
		d->masks[d->n++] = all;
	}
}

static const struct prop_value *find_prop(const struct context_spec *s, const struct prop_def *d)
{
	for (size_t i = 0; i < s->n_props; i++)
		if (s->props[i].def == d)
			return &s->props[i];
	return NULL;
}

static void knob_keys(struct knob *k)
{
	static const struct {
		const char *prop;
		const char *keys[6];
	} map[] = {
		{ "CPUAffinity", { "affinity", "affinity.threads" } },
		{ "CPUWeight", { "cpu.shares", "cpu.weight" } },
		{ "CPUShares", { "cpu.shares" } },
		{ "CPUQuota", { "cpu.cfs_quota_us", "cpu.max" } },
		{ "CPUQuotaPeriodSec", { "cpu.cfs_period_us", "cpu.max" } },
		{ "AllowedCPUs", { "cpuset.cpus.effective" } },
		{ "Nice", { "nice" } },
		{ "CPUSchedulingPolicy", { "sched.policy" } },
		{ "CPUSchedulingPriority", { "sched.priority" } },
		{ "LimitNOFILE", { "limit.nofile", "server.open_files_limit", "server.table_open_cache", "server.max_connections" } },
		{ "LimitMEMLOCK", { "limit.memlock" } },
		{ "OOMScoreAdjust", { "oom_score_adj" } },
		{ "NUMAPolicy", { "numa.policy" } },
	};

	if (k->type == KNOB_SESSION) {
		static const char *const session[] = { "session.is_leader", "pgrp.is_leader", "autogroup",
						       "client.same_session", "client.same_autogroup", "parents" };
		memcpy(k->keys, session, sizeof(session));
		return;
	}
	if (k->type == KNOB_CLIENT_CPUS) {
		k->keys[0] = "client.affinity";
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(map); i++)
		if (streq(map[i].prop, k->def->name))
			memcpy(k->keys, map[i].keys, sizeof(k->keys));
	/* A cgroup setting gives the unit a cpu cgroup of its own on v1, and
	 * with it the autogroup stops applying. */
	if (k->def->class == PROP_CGROUP) {
		static const char *const cg[] = { "cgroup.cpu", "cgroup.cpuacct", "autogroup.in_force",
						  "client.same_cpu_cgroup" };
		size_t used = 0;

		while (used < ELEMENTSOF(k->keys) && k->keys[used])
			used++;
		for (size_t i = 0; i < ELEMENTSOF(cg) && used < ELEMENTSOF(k->keys); i++)
			k->keys[used++] = cg[i];
	}
}

/* Attributes that name a process rather than describe it: they differ
 * between any two starts (the unit's name, its cgroup paths, the autogroup
 * number, systemd's per-invocation variables). */
static bool is_identity(const char *key)
{
	static const char *const identity[] = { "unit", "autogroup", "env.INVOCATION_ID", "env.JOURNAL_STREAM",
						"env.SYSTEMD_EXEC_PID", "env.NOTIFY_SOCKET" };

	if (strncmp(key, "cgroup.", 7) == 0)
		return true;
	for (size_t i = 0; i < ELEMENTSOF(identity); i++)
		if (streq(key, identity[i]))
			return true;
	return false;
}

/* The settings in which a and b differ and that b's kind can take from a. */
static int find_knobs(const struct experiment *e, size_t ia, size_t ib, struct knob *knobs, size_t *ret_n,
		      char *unmovable, size_t len)
{
	const struct context_spec *a = &e->contexts[ia], *b = &e->contexts[ib];
	enum cgroup_mode mode = cgroup_mode_detect();
	size_t n = 0, prop_count;
	const struct prop_def *table = prop_table(&prop_count);

	*unmovable = 0;
	if (a->kind != b->kind)
		snprintf(unmovable, len, "the kind of context (%s against %s)", context_kind_to_string(a->kind),
			 context_kind_to_string(b->kind));
	for (size_t i = 0; i < prop_count; i++) {
		const struct prop_value *va = find_prop(a, &table[i]), *vb = find_prop(b, &table[i]);
		const char *why;

		if ((!va && !vb) || (va && vb && streq(va->text, vb->text)))
			continue;
		if (va && prop_check_applicable(va, b->kind, mode, &why) < 0) {
			size_t used = strlen(unmovable);
			snprintf(unmovable + used, len - used, "%s%s= (%s)", used ? ", " : "", table[i].name, why);
			continue;
		}
		if (n == KNOBS_MAX)
			return -E2BIG;
		knobs[n] = (struct knob){ .type = KNOB_PROPERTY, .def = &table[i] };
		snprintf(knobs[n].label, sizeof(knobs[n].label), "%s=", table[i].name);
		knob_keys(&knobs[n++]);
	}
	if (a->session != b->session) {
		if (b->kind != CONTEXT_RAW && b->kind != CONTEXT_SCOPE) {
			size_t used = strlen(unmovable);
			snprintf(unmovable + used, len - used, "%sthe session (only raw and scope choose one)", used ? ", " : "");
		} else if (n == KNOBS_MAX)
			return -E2BIG;
		else {
			knobs[n] = (struct knob){ .type = KNOB_SESSION };
			snprintf(knobs[n].label, sizeof(knobs[n].label), "the session and its autogroup");
			knob_keys(&knobs[n++]);
		}
	}
	if (!streq_ptr(e->client_cpus[ia], e->client_cpus[ib])) {
		if (n == KNOBS_MAX)
			return -E2BIG;
		knobs[n] = (struct knob){ .type = KNOB_CLIENT_CPUS };
		snprintf(knobs[n].label, sizeof(knobs[n].label), "the client's CPUs");
		knob_keys(&knobs[n++]);
	}
	*ret_n = n;
	return 0;
}

static int copy_prop(const struct prop_value *v, struct context_spec *to)
{
	int r = prop_parse(v->def->name, v->text, &to->props[to->n_props]);

	if (r >= 0)
		to->n_props++;
	return r;
}

/* Context `mix` of the synthetic experiment: b, with the knobs whose bit is
 * set in mix taken from a.  mix 0 is b, the full mask is a's settings on b's
 * kind (a itself when the kinds agree). */
static int make_mix(const struct experiment *e, size_t ia, size_t ib, const struct knob *knobs, size_t n, unsigned mix,
		    struct experiment *x)
{
	const struct context_spec *a = &e->contexts[ia], *b = &e->contexts[ib];
	size_t i = x->n_contexts++;
	struct context_spec *s = &x->contexts[i];
	const char *client = e->client_cpus[ib];
	int r = 0;

	s->kind = mix == (1u << n) - 1 ? a->kind : b->kind;
	s->session = b->session;
	if (mix == 0)
		snprintf(s->name, sizeof(s->name), "b");
	else if (mix == (1u << n) - 1)
		snprintf(s->name, sizeof(s->name), "a");
	else {
		char bits[KNOBS_MAX + 1] = {};

		for (size_t k = 0; k < n; k++)
			bits[k] = (mix >> k) & 1 ? 'a' : 'b';
		snprintf(s->name, sizeof(s->name), "mix-%s", bits);
	}
	if (mix == (1u << n) - 1) {
		/* a as it is: also what cannot be moved. */
		for (size_t p = 0; p < a->n_props && r >= 0; p++)
			r = copy_prop(&a->props[p], s);
		s->session = a->session;
		client = e->client_cpus[ia];
	} else {
		for (size_t p = 0; p < b->n_props && r >= 0; p++) {
			bool taken = false;

			for (size_t k = 0; k < n; k++)
				taken |= knobs[k].type == KNOB_PROPERTY && knobs[k].def == b->props[p].def && ((mix >> k) & 1);
			if (!taken)
				r = copy_prop(&b->props[p], s);
		}
		for (size_t k = 0; k < n && r >= 0; k++) {
			const struct prop_value *va;

			if (!((mix >> k) & 1))
				continue;
			if (knobs[k].type == KNOB_SESSION)
				s->session = a->session;
			else if (knobs[k].type == KNOB_CLIENT_CPUS)
				client = e->client_cpus[ia];
			else if ((va = find_prop(a, knobs[k].def)))
				r = copy_prop(va, s);
		}
	}
	if (r >= 0 && client && !(x->client_cpus[i] = strdup(client)))
		r = -ENOMEM;
	return r;
}

static int explain_parse_argv(int argc, char **argv, struct explain_args *a)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },	      { "threads", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' },   { "duration", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },      { "what-if", no_argument, NULL, 'w' },
		{ "budget", required_argument, NULL, 'b' },   { "from", required_argument, NULL, 'A' },
		{ "to", required_argument, NULL, 'B' },	      {}
	};
	long v;
	int c;

	a->threads = 1;
	a->repeat = 3;
	a->duration_ns = 5 * NSEC_PER_SEC;
	a->budget_ns = 30 * 60 * NSEC_PER_SEC;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
		switch (c) {
		case 'h':
			printf("usage: slicebench explain EXPERIMENT CONTEXT-A CONTEXT-B [--threads N] [--repeat R]\n"
			       "                          [--duration D] [--budget 30m] [--out DIR] [--what-if]\n"
			       "       slicebench explain RESULTS --from CONTEXT-A --to CONTEXT-B [OPTIONS]\n\n"
			       "Measures every mix of the settings in which A and B differ, taking each from A or from B,\n"
			       "and names the settings that account for the TPS gap, with an interval from the repeats.\n");
			return 0;
		case 't':
			if (parse_int_range(optarg, 1, 100000, &a->threads) < 0)
				return log_error("explain: --threads: bad value '%s' (one thread count)", optarg), -EINVAL;
			break;
		case 'r':
			if (parse_int_range(optarg, 2, 50, &v) < 0)
				return log_error("explain: --repeat: bad value '%s' (2 to 50)", optarg), -EINVAL;
			a->repeat = (unsigned)v;
			break;
		case 'd':
			if (parse_duration_ns(optarg, &a->duration_ns) < 0 || !a->duration_ns)
				return log_error("explain: --duration: bad value '%s' (such as 5s)", optarg), -EINVAL;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'b':
			if (parse_duration_ns(optarg, &a->budget_ns) < 0 || !a->budget_ns)
				return log_error("explain: --budget: bad value '%s' (such as 30m)", optarg), -EINVAL;
			break;
		case 'w':
			a->what_if = true;
			break;
		case 'A':
			a->a = optarg;
			break;
		case 'B':
			a->b = optarg;
			break;
		default:
			log_error("explain: unknown option %s", argv[optind - 1]);
			return -EINVAL;
		}
	if (a->a || a->b) {
		if (!a->a || !a->b || argc - optind != 1)
			return log_error("explain: give RESULTS --from A --to B"), -EINVAL;
		a->experiment = argv[optind];
		return 1;
	}
	if (argc - optind != 3)
		return log_error("explain: give an experiment and two of its contexts (explain EXPERIMENT A B), "
				 "or a results directory (explain RESULTS --from A --to B)"), -EINVAL;
	a->experiment = argv[optind];
	a->a = argv[optind + 1];
	a->b = argv[optind + 2];
	return 1;
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

/* TPS of context `name`, repeat r (1-based); NAN if missing or failed. */
static double tps_of(const json_t *steps, const char *name, unsigned r)
{
	size_t i;
	json_t *s;

	json_array_foreach(steps, i, s)
	{
		if (streq(strempty(json_string_value(json_object_get(s, "context"))), name) &&
		    json_integer_value(json_object_get(s, "repeat")) == r && !json_is_true(json_object_get(s, "failed")))
			return json_number_value(json_object_get(s, "tps"));
	}
	return NAN;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n == 0 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The attributes of the placement diff of a and b that no knob moves. */
static void print_unmovable(const char *dir, const struct knob *knobs, size_t n, const char *unmovable)
{
	_cleanup_(placement_done) struct placement pa = {}, pb = {};
	_cleanup_free_ const char **keys = NULL;
	_cleanup_free_ char *path_a = NULL, *path_b = NULL;
	json_t *ja = NULL, *jb = NULL;
	size_t nk = 0, shown = 0;

	if (*unmovable)
		printf("Differs and cannot be moved one at a time: %s.\n", unmovable);
	if (xasprintf(&path_a, "%s/placements/a-v1-r1.json", dir) < 0 || xasprintf(&path_b, "%s/placements/b-v1-r1.json", dir) < 0)
		return;
	ja = json_load_file(path_a, 0, NULL);
	jb = json_load_file(path_b, 0, NULL);
	if (ja && jb && placement_from_json(ja, &pa) >= 0 && placement_from_json(jb, &pb) >= 0 &&
	    placement_diff(&pa, &pb, &keys, &nk) >= 0) {
		for (size_t i = 0; i < nk; i++) {
			bool moved = strncmp(keys[i], "in_force.", 9) == 0;

			for (size_t k = 0; k < n && !moved; k++)
				for (size_t j = 0; j < ELEMENTSOF(knobs[k].keys) && knobs[k].keys[j]; j++)
					moved |= streq(keys[i], knobs[k].keys[j]) ||
						  (knobs[k].type == KNOB_PROPERTY && streq(knobs[k].def->name, "Environment") &&
						   strncmp(keys[i], "env.", 4) == 0);
			if (moved || is_identity(keys[i]))
				continue;
			printf("%s%s", shown++ ? ", " : "The placements also differ in: ", keys[i]);
		}
		if (shown)
			printf(" (not moved by any knob, so part of what stays unexplained).\n");
	}
	json_decref(ja);
	json_decref(jb);
}

/* "CPUQuota= + Nice=": the knobs taken from A in mix m. */
static void mix_label(const struct knob *knobs, size_t n, unsigned m, const char *sep, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t k = 0; k < n; k++)
		if ((m >> k) & 1)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? sep : "", knobs[k].label);
}

/* The share of mix i per repeat, (T_i - T_b) / (T_a - T_b): its min..max. */
static void share_interval(double t[][64], size_t i, size_t full, unsigned repeats, double *ret_lo, double *ret_hi)
{
	*ret_lo = INFINITY;
	*ret_hi = -INFINITY;
	for (unsigned r = 0; r < repeats; r++) {
		double s = (t[i][r] - t[0][r]) / (t[full][r] - t[0][r]);

		if (!isnan(s)) {
			*ret_lo = MIN(*ret_lo, s);
			*ret_hi = MAX(*ret_hi, s);
		}
	}
}

static void analyse(const char *dir, const struct explain_args *args, const struct knob *knobs, size_t n,
		    const struct design *d, const struct experiment *x, const char *unmovable)
{
	json_t *doc = NULL, *steps;
	double t[MIXES_MAX][64], med[MIXES_MAX], tmp[64], spread_a[2], spread_b[2];
	size_t full = d->n - 1, best = 0, n_mix = x->n_contexts;
	unsigned R = args->repeat;
	double gap, ratio, noise, best_share = -INFINITY;

	if (results_load(dir, &doc) < 0) {
		log_error("explain: cannot read the results in %s", dir);
		return;
	}
	steps = json_object_get(doc, "steps");
	for (size_t m = 0; m < n_mix; m++) {
		size_t k = 0;

		for (unsigned r = 1; r <= R; r++)
			if (!isnan(t[m][r - 1] = tps_of(steps, x->contexts[m].name, r)))
				tmp[k++] = t[m][r - 1];
		med[m] = median(tmp, k);
		if (m == 0 || m == full) {
			double *sp = m == 0 ? spread_b : spread_a;
			sp[0] = k ? tmp[0] : NAN;
			sp[1] = k ? tmp[k - 1] : NAN;
		}
	}
	json_decref(doc);
	gap = med[full] - med[0];
	ratio = med[0] > 0 ? med[full] / med[0] : NAN;
	printf("\n%s vs %s at %ld thread%s: %.1f vs %.1f TPS (%.2fx), %u repeats each\n", args->a, args->b, args->threads,
	       args->threads == 1 ? "" : "s", med[full], med[0], ratio, R);
	/* report's rule: a ratio within the relative spread of either side's
	 * repeats is noise. */
	noise = MAX((spread_a[1] - spread_a[0]) / med[full], (spread_b[1] - spread_b[0]) / med[0]);
	if (isnan(gap) || isnan(noise) || fabs(ratio - 1) <= noise) {
		printf("No significant gap: %.2fx is within the run-to-run noise (%s %.1f..%.1f, %s %.1f..%.1f), so no "
		       "cause is named.\n",
		       ratio, args->a, spread_a[0], spread_a[1], args->b, spread_b[0], spread_b[1]);
		return;
	}
	printf("%-44s %10s %8s %s\n", "taken from A, the rest from B", "TPS", "share", "interval (per repeat)");
	for (size_t i = 1; i < d->n; i++) {
		char label[256];
		double lo, hi, share = (med[i] - med[0]) / gap;

		mix_label(knobs, n, d->masks[i], " + ", label, sizeof(label));
		share_interval(t, i, full, R, &lo, &hi);
		printf("%-44s %10.1f %7.0f%% %.0f..%.0f%%\n", label, med[i], 100 * share, 100 * lo, 100 * hi);
		/* The smallest set that moves most of the gap: a set must beat a
		 * smaller one by 10 points to be preferred. */
		if (share > best_share +
				    (__builtin_popcount(d->masks[i]) > __builtin_popcount(d->masks[best]) ? 0.10 : 0)) {
			best_share = share;
			best = i;
		}
	}
	if (d->n < (1u << n))
		printf("(%zu settings: each was measured alone, not in combination; their shares need not add up)\n", n);
	if (best) {
		char label[256];
		double lo, hi;

		mix_label(knobs, n, d->masks[best], " together with ", label, sizeof(label));
		share_interval(t, best, full, R, &lo, &hi);
		printf("\n%s explains %.0f%% (%.0f-%.0f%%) of the gap at %ld thread%s (%s at %.2fx of %s)", label,
		       100 * best_share, 100 * lo, 100 * hi, args->threads, args->threads == 1 ? "" : "s", args->a, ratio,
		       args->b);
		if (best_share < 0.9)
			printf("; %.0f%% stays unexplained", 100 * (1 - best_share));
		printf(".\n");
	}
	print_unmovable(dir, knobs, n, unmovable);
}

int verb_explain(int argc, char **argv)
{
	struct explain_args args = {};
	_cleanup_free_ char *path = NULL, *msg = NULL, *dir = NULL;
	struct experiment e = {}, x = {};
	struct knob knobs[KNOBS_MAX];
	struct design d;
	double estimate_s;
	char unmovable[1024];
	size_t ia, ib, n = 0;
	int r, status = EXIT_USAGE;

	r = explain_parse_argv(argc, argv, &args);
	if (r <= 0)
		return r < 0 ? EXIT_USAGE : 0;
	if (is_results_dir(args.experiment))
		/* The design of a run already made: its contexts, measured again
		 * in every mix. */
		r = experiment_from_results(args.experiment, &e, &msg);
	else if (experiment_find(args.experiment, &path) < 0)
		return log_error("explain: no experiment or results directory '%s'", args.experiment), EXIT_USAGE;
	else
		r = experiment_load(path, cgroup_mode_detect(), &e, &msg);
	if (r < 0)
		return log_error("explain: %s", msg ? msg : strerror(-r)), EXIT_USAGE;
	if (context_index(&e, args.a, &ia) < 0 || context_index(&e, args.b, &ib) < 0)
		goto out;
	r = find_knobs(&e, ia, ib, knobs, &n, unmovable, sizeof(unmovable));
	if (r == -E2BIG) {
		log_error("explain: %s and %s differ in more than %d settings", args.a, args.b, KNOBS_MAX);
		goto out;
	}
	if (n == 0) {
		log_error("explain: %s and %s differ in no setting that can be moved%s%s", args.a, args.b,
			  *unmovable ? ": " : "", unmovable);
		goto out;
	}
	/* The synthetic experiment: e's workload, one context per mix. */
	memcpy(x.name, "explain", sizeof("explain"));
	x.path = strdup(e.path);
	xasprintf(&x.description, "explain %s: %s against %s", e.name, args.a, args.b);
	x.threads[0] = args.threads;
	x.n_threads = 1;
	x.warmup_ns = e.warmup_ns ? e.warmup_ns : NSEC_PER_SEC;
	x.duration_ns = args.duration_ns;
	x.repeat = args.repeat;
	x.tables = e.tables;
	x.table_size = e.table_size;
	x.driver = e.driver;
	x.rand_type = e.rand_type;
	x.pin = e.pin;
	memcpy(x.client_cpus_list, e.client_cpus_list, sizeof(e.client_cpus_list));
	x.n_client_cpus = e.n_client_cpus;
	x.buffer_pool = e.buffer_pool ? strdup(e.buffer_pool) : NULL;
	memcpy(x.baseline, "b", 2);
	design_make(n, &d);
	/* Over the budget, fewer repeats (two at least). */
	for (;;) {
		estimate_s = (double)d.n * x.repeat * (6 + (double)(x.warmup_ns + x.duration_ns) / 1e9);
		if (estimate_s * 1e9 <= (double)args.budget_ns || x.repeat <= 2)
			break;
		x.repeat--;
	}
	args.repeat = x.repeat;
	if (estimate_s * 1e9 > (double)args.budget_ns) {
		log_error("explain: %zu mixes x %u repeats need about %.0f min, over --budget %.0f min", d.n, x.repeat,
			  estimate_s / 60 + 0.5, (double)args.budget_ns / 60e9);
		goto out;
	}
	/* b first and a last, as design_make() orders them. */
	for (size_t i = 0; i < d.n && r >= 0; i++)
		r = make_mix(&e, ia, ib, knobs, n, d.masks[i], &x);
	if (r < 0 || !x.path || !x.description) {
		log_error_errno(r < 0 ? r : -ENOMEM, "explain: %m");
		status = 1;
		goto out;
	}
	printf("explain %s: %s against %s at %ld thread%s, %zu movable setting%s:", e.name, args.a, args.b, args.threads,
	       args.threads == 1 ? "" : "s", n, n == 1 ? "" : "s");
	for (size_t k = 0; k < n; k++)
		printf(" %s", knobs[k].label);
	printf("\n%zu mixes x %u repeats, about %.0f min%s\n", x.n_contexts, x.repeat, estimate_s / 60 + 0.5,
	       n > FULL_DESIGN_MAX ? " (each setting alone: more than 4 settings)" : "");
	if (args.what_if) {
		status = 0;
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
		status = 1;
		goto out;
	}
	fflush(stdout);
	status = run_whole_experiment(&x, dir);
	if (status == 0)
		analyse(dir, &args, knobs, n, &d, &x, unmovable);
out:
	experiment_done(&x);
	experiment_done(&e);
	return status;
}

/* slicebench explain EXPERIMENT A B: which settings account for the TPS gap
 * between two contexts.  The movable attributes are the settings in which A
 * and B differ (systemd properties, the session, the client's CPUs); with k
 * of them (k <= 4) every one of the 2^k mixes of "taken from A" and "taken
 * from B", beyond that each setting alone, is a context of a synthetic
 * experiment, run like any other (fresh
 * server per repeat, repeats interleaved, results on disk).  The gap is
 * judged as report judges a ratio (Welch's t on log TPS across repeats),
 * and each subset's share of it, (T(subset from A) - T(B)) / (T(A) - T(B))
 * with T the mean log TPS of the repeats, gets Fieller's interval for that
 * ratio of differences (report/stats.h). */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "report/report.h"
#include "report/stats.h"
#include "run/experiment.h"
#include "run/results.h"
#include "run/engine.h"
#include "slices/snapshot.h"
#include "common/util.h"
#include "explain/explain.h"

/* Up to FULL_DESIGN_MAX settings every mix is measured; beyond, each
 * setting alone (k + 2 mixes), up to KNOBS_MAX. */
#define FULL_DESIGN_MAX 4
#define KNOBS_MAX 12
#define MIXES_MAX 64
#define ROUNDS_MAX 8

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
	const char *keys[ATTR_KEYS_MAX];
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

/* The placement keys a knob moves: a property's come from its row of the
 * attribute table. */
static void knob_keys(struct knob *k)
{
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
	memcpy(k->keys, k->def->keys, sizeof(k->keys));
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
		if (va && context_check_prop(va, b->kind, mode, &why) < 0) {
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
		if (!context_ops_for(b->kind)->session) {
			size_t used = strlen(unmovable);
			snprintf(unmovable + used, len - used, "%sthe session (only %s choose one)", used ? ", " : "",
				 context_kind_list(true));
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

/* "b", "a", or "mix-abb": for each knob, where the mix takes it from. */
static void mix_name(size_t n, unsigned mix, char *buf, size_t len)
{
	char bits[KNOBS_MAX + 1] = {};

	if (mix == 0 || mix == (1u << n) - 1) {
		snprintf(buf, len, "%s", mix ? "a" : "b");
		return;
	}
	for (size_t k = 0; k < n; k++)
		bits[k] = (mix >> k) & 1 ? 'a' : 'b';
	snprintf(buf, len, "mix-%s", bits);
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
	mix_name(n, mix, s->name, sizeof(s->name));
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
	if (results_first_placement_path(dir, "a", &path_a) < 0 || results_first_placement_path(dir, "b", &path_b) < 0)
		return;
	ja = json_load_file(path_a, 0, NULL);
	jb = json_load_file(path_b, 0, NULL);
	if (ja && jb && placement_from_json(ja, &pa) >= 0 && placement_from_json(jb, &pb) >= 0 &&
	    placement_diff(&pa, &pb, &keys, &nk) >= 0) {
		for (size_t i = 0; i < nk; i++) {
			bool moved = strncmp(keys[i], "in_force.", 9) == 0;

			for (size_t k = 0; k < n && !moved; k++)
				if (knobs[k].type == KNOB_PROPERTY)
					moved = prop_moves_key(knobs[k].def, keys[i]);
				else
					for (size_t j = 0; j < ELEMENTSOF(knobs[k].keys) && knobs[k].keys[j]; j++)
						moved |= streq(keys[i], knobs[k].keys[j]);
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

/* What the rounds measured: TPS per mix and repeat (the repeats that
 * finished first, n[m] of them), and the medians. */
struct measured {
	double t[MIXES_MAX][64], med[MIXES_MAX];
	size_t n[MIXES_MAX];
	size_t full; /* the index of mix A */
	double level;
};

/* The share of the gap from B to A that mix i covers, with its interval. */
static struct stats_share share_of(const struct measured *mz, size_t i)
{
	struct stats_share s;

	if (stats_share(mz->t[i], mz->n[i], mz->t[mz->full], mz->n[mz->full], mz->t[0], mz->n[0], mz->level, &s) < 0)
		s = (struct stats_share){ .share = NAN, .lo = NAN, .hi = NAN, .df = NAN };
	return s;
}

/* "43-58%", "unbounded", or "no interval". */
static const char *share_interval(const struct stats_share *s, char *buf, size_t len)
{
	if (s->bounded)
		snprintf(buf, len, "%.0f-%.0f%%", 100 * s->lo, 100 * s->hi);
	else
		snprintf(buf, len, "%s", isnan(s->lo) ? "no interval" : "unbounded");
	return buf;
}

static int load_measured(char *const *dirs, size_t n_dirs, size_t n, const struct design *d, unsigned repeats,
			 struct measured *ret)
{
	json_t *steps = json_array();

	for (size_t i = 0; i < n_dirs; i++) {
		json_t *doc = NULL;

		if (results_load(dirs[i], &doc) < 0) {
			json_decref(steps);
			return log_error("explain: cannot read the results in %s", dirs[i]), -EIO;
		}
		json_array_extend(steps, json_object_get(doc, "steps"));
		json_decref(doc);
	}
	for (size_t m = 0; m < d->n; m++) {
		char name[48];
		double tmp[64];
		size_t k = 0;

		mix_name(n, d->masks[m], name, sizeof(name));
		for (unsigned r = 1; r <= repeats && r <= ELEMENTSOF(ret->t[m]); r++) {
			double v = tps_of(steps, name, r);

			if (isnan(v))
				continue;
			ret->t[m][k] = v;
			tmp[k++] = v;
		}
		ret->n[m] = k;
		ret->med[m] = stats_median(tmp, k);
		if (d->masks[m] == (1u << n) - 1)
			ret->full = m;
	}
	json_decref(steps);
	return 0;
}

/* A against B judged as report judges a ratio: significant when its
 * interval excludes 1. */
static bool gap_is_significant(const struct measured *mz, struct stats_ratio *ret)
{
	struct stats_ratio r;

	if (stats_ratio(mz->t[mz->full], mz->n[mz->full], mz->t[0], mz->n[0], mz->level, &r) < 0)
		r = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN,
					  .verdict = STATS_TOO_FEW };
	if (ret)
		*ret = r;
	return r.verdict == STATS_SIGNIFICANT;
}

/* The smallest set that moves most of the gap: a larger set must beat a
 * smaller one by 10 points to be preferred.  A itself does not count. */
static size_t best_mix(const struct design *d, const struct measured *mz, double *ret_share)
{
	double best_share = -INFINITY;
	size_t best = 0;

	for (size_t i = 1; i < d->n; i++) {
		double share = share_of(mz, i).share;

		if (i == mz->full && d->n > 2)
			continue;
		if (share > best_share + (__builtin_popcount(d->masks[i]) > __builtin_popcount(d->masks[best]) ? 0.10 : 0)) {
			best_share = share;
			best = i;
		}
	}
	*ret_share = best_share;
	return best;
}

static void analyse(char *const *dirs, size_t n_dirs, const struct explain_args *args, const struct knob *knobs,
		    size_t n, const struct design *d, const char *unmovable)
{
	static struct measured mz; /* 33 KB: not on the stack */
	double *med = mz.med, best_share;
	char verdict[REPORT_RATIO_MAX], iv[32];
	struct stats_ratio gap;
	size_t full, best;
	unsigned R = args->repeat;

	mz.level = args->confidence;
	if (load_measured(dirs, n_dirs, n, d, R, &mz) < 0)
		return;
	full = mz.full;
	gap_is_significant(&mz, &gap);
	report_format_ratio(&gap, verdict, sizeof(verdict));
	printf("\n%s vs %s at %ld thread%s: %.1f vs %.1f TPS (medians), %s at %g%%, %u repeats each\n", args->a, args->b,
	       args->threads, args->threads == 1 ? "" : "s", med[full], med[0], isnan(gap.ratio) ? "no ratio" : verdict,
	       100 * mz.level, R);
	if (gap.verdict != STATS_SIGNIFICANT) {
		printf("No significant gap: %s, so no cause is named.\n",
		       gap.verdict == STATS_NOT_SIGNIFICANT ? "the interval of the ratio contains 1"
		       : gap.verdict == STATS_NO_SPREAD   ? "the repeats have no spread to judge it by"
							  : "fewer than two repeats a side give no interval");
		return;
	}
	printf("%-44s %10s %8s %s\n", "taken from A, the rest from B", "TPS", "share", "interval (Fieller)");
	for (size_t i = 1; i < d->n; i++) {
		struct stats_share sh = share_of(&mz, i);
		char label[256];

		mix_label(knobs, n, d->masks[i], " + ", label, sizeof(label));
		printf("%-44s %10.1f %7.0f%% %s\n", label, med[i], 100 * sh.share, share_interval(&sh, iv, sizeof(iv)));
	}
	printf("(TPS: median of the repeats; share: of the gap in mean log TPS, with Fieller's %g%% interval)\n",
	       100 * mz.level);
	if (d->n < (1u << n))
		printf("(%zu settings: searched greedily, one setting added per round; not every combination was measured)\n",
		       n);
	best = best_mix(d, &mz, &best_share);
	if (best) {
		struct stats_share sh = share_of(&mz, best);
		char label[256];

		mix_label(knobs, n, d->masks[best], " together with ", label, sizeof(label));
		printf("\n%s explains %.0f%% (%s) of the gap at %ld thread%s (%s at %.2fx of %s)", label, 100 * best_share,
		       share_interval(&sh, iv, sizeof(iv)), args->threads, args->threads == 1 ? "" : "s", args->a,
		       gap.ratio, args->b);
		if (best_share < 0.9)
			printf("; %.0f%% stays unexplained", 100 * (1 - best_share));
		printf(".\n");
	}
	print_unmovable(dirs[0], knobs, n, unmovable);
}

/* One unit: a server start and warm-up, then the step. */
static double unit_seconds(const struct experiment *e, const struct explain_args *args)
{
	return 6 + (double)((e->warmup_ns ? e->warmup_ns : NSEC_PER_SEC) + args->duration_ns) / 1e9;
}

/* The synthetic experiment of one round: e's workload, a context per mix. */
static int round_experiment(const struct experiment *e, size_t ia, size_t ib, const struct knob *knobs, size_t n,
			    const struct explain_args *args, const unsigned *masks, size_t n_masks, struct experiment *x)
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
	mix_name(n, masks[0], x->baseline, sizeof(x->baseline)); /* b in the first round */
	for (size_t i = 0; i < n_masks && r >= 0; i++)
		r = make_mix(e, ia, ib, knobs, n, masks[i], x);
	return r < 0 ? r : x->path && x->description ? 0 : -ENOMEM;
}

/* A round's TPS table, as run prints it. */
static void print_round(void *userdata _unused_, const json_t *doc)
{
	struct report_options ro = { .format = REPORT_TEXT };

	report_render(doc, &ro, stdout);
}

/* Runs the design: all of it at once for up to 4 settings; beyond, the
 * first round (B, A, each setting alone) and then, while the best set so
 * far leaves more than 20% of a significant gap unexplained and the budget
 * allows, a round that adds each remaining setting to that set.  d grows
 * with every round; dirs names each round's results.  Returns 0, -EIO
 * when steps failed or the results cannot be read, or -errno (logged).
 * Long because a round is one sequence (experiment, run, analysis, the
 * next masks); it stays whole until explain is reworked (issue 14). */
static int run_rounds(const struct experiment *e, size_t ia, size_t ib, const struct knob *knobs, size_t n,
		      const struct explain_args *args, const char *dir, struct design *d, char **dirs, size_t *n_dirs)
{
	static struct measured mz;
	unsigned masks[MIXES_MAX];

	mz.level = args->confidence;
	size_t n_masks = d->n;
	uint64_t start = now_ns();
	int ret = 0;

	memcpy(masks, d->masks, d->n * sizeof(unsigned));
	d->n = 0;
	for (size_t round = 1; round <= ROUNDS_MAX && n_masks; round++) {
		struct experiment x;
		double share, left_s;
		size_t best;
		int r;

		r = round_experiment(e, ia, ib, knobs, n, args, masks, n_masks, &x);
		if (r >= 0)
			r = n > FULL_DESIGN_MAX ? xasprintf(&dirs[*n_dirs], "%s/round-%zu", dir, round)
						: ((dirs[*n_dirs] = strdup(dir)) ? 0 : -ENOMEM);
		if (r < 0) {
			experiment_done(&x);
			return log_error_errno(r, "explain: %m");
		}
		if (round > 1)
			printf("\nround %zu: %zu mixes\n", round, n_masks);
		fflush(stdout);
		if (n > FULL_DESIGN_MAX)
			(void)mkdir_p(dir, 0755);
		ret = run_whole_experiment(&x, dirs[(*n_dirs)++], &(struct run_options){ .finished = print_round });
		experiment_done(&x);
		memcpy(d->masks + d->n, masks, n_masks * sizeof(unsigned));
		d->n += n_masks;
		if (ret != 0 || n <= FULL_DESIGN_MAX)
			break;
		if (load_measured(dirs, *n_dirs, n, d, args->repeat, &mz) < 0)
			return -EIO;
		best = best_mix(d, &mz, &share);
		if (!gap_is_significant(&mz, NULL) || share >= 0.8)
			break;
		/* The next round: the best set with one more setting each. */
		n_masks = 0;
		for (size_t k = 0; k < n && d->n + n_masks < MIXES_MAX; k++) {
			unsigned m = d->masks[best] | (1u << k);
			bool seen = false;

			for (size_t i = 0; i < d->n; i++)
				seen |= d->masks[i] == m;
			if (!seen)
				masks[n_masks++] = m;
		}
		left_s = (double)args->budget_ns / 1e9 - (double)(now_ns() - start) / 1e9;
		if (n_masks && (double)n_masks * args->repeat * unit_seconds(e, args) > left_s) {
			printf("\nthe budget leaves no time for round %zu (%zu mixes); stopping the search\n", round + 1,
			       n_masks);
			break;
		}
	}
	return ret > 0 ? -EIO : ret;
}

/* Long because it is explain's one sequence (load, knobs, budget,
 * design, measure, analyse), each step refusing with its own message; it
 * stays whole until explain is reworked (issue 14). */
int explain_run(const struct explain_args *a)
{
	struct explain_args args = *a;
	_cleanup_free_ char *path = NULL, *msg = NULL, *dir = NULL;
	struct experiment e = {};
	struct knob knobs[KNOBS_MAX];
	struct design d;
	char *dirs[ROUNDS_MAX] = {};
	size_t n_dirs = 0;
	double estimate_s;
	char unmovable[1024];
	size_t ia, ib, n = 0;
	int r, ret = -EINVAL;

	if (!args.confidence)
		args.confidence = STATS_CONFIDENCE_DEFAULT;
	if (is_results_dir(args.experiment))
		/* The design of a run already made: its contexts, measured again
		 * in every mix. */
		r = experiment_from_results(args.experiment, &e, &msg);
	else if (experiment_find(args.experiment, &path) < 0)
		return log_error("explain: no experiment or results directory '%s'", args.experiment), -EINVAL;
	else
		r = experiment_load(path, cgroup_mode_detect(), &e, &msg);
	if (r < 0)
		return log_error("explain: %s", msg ? msg : strerror(-r)), -EINVAL;
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
	design_make(n, &d);
	/* Over the budget, fewer repeats (two at least). */
	for (;;) {
		estimate_s = (double)d.n * args.repeat * unit_seconds(&e, &args);
		if (estimate_s * 1e9 <= (double)args.budget_ns || args.repeat <= 2)
			break;
		args.repeat--;
	}
	if (estimate_s * 1e9 > (double)args.budget_ns) {
		log_error("explain: %zu mixes x %u repeats need about %.0f min, over --budget %.0f min", d.n, args.repeat,
			  estimate_s / 60 + 0.5, (double)args.budget_ns / 60e9);
		goto out;
	}
	printf("explain %s: %s against %s at %ld thread%s, %zu movable setting%s:", e.name, args.a, args.b, args.threads,
	       args.threads == 1 ? "" : "s", n, n == 1 ? "" : "s");
	for (size_t k = 0; k < n; k++)
		printf(" %s", knobs[k].label);
	printf("\n%zu mixes x %u repeats, about %.0f min%s\n", d.n, args.repeat, estimate_s / 60 + 0.5,
	       n > FULL_DESIGN_MAX ? " in the first round (more than 4 settings: a greedy search, one setting added per round)"
				   : "");
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
	ret = run_rounds(&e, ia, ib, knobs, n, &args, dir, &d, dirs, &n_dirs);
	if (ret == 0)
		analyse(dirs, n_dirs, &args, knobs, n, &d, unmovable);
	else if (ret != -EINTR)
		/* Bad input was refused above: what failed while measuring is a
		 * failure at run time, whatever its errno. */
		ret = -EIO;
out:
	for (size_t i = 0; i < n_dirs; i++)
		free(dirs[i]);
	experiment_done(&e);
	return ret;
}

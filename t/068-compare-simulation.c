/* compare's host x context interaction tested as a method, on results
 * whose truth is known: a seeded generator writes one run directory per
 * host in the real format (results_put, host.json with the host's name,
 * the rounds in an order drawn afresh), and compare reads each pair back
 * as a user's would be read.  Hundreds of data sets per case; the rates
 * are asserted with their simulation interval (Wilson, 99%), as t/065's.
 * Then the bad input compare refuses: exit 2, naming the directory and
 * why, nothing written.  SLICEBENCH_SIM_SCALE=N multiplies every count;
 * SLICEBENCH_SIM_KEEP=1 keeps the last pair and prints where.  No
 * prerequisites. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/verbs.h"
#include "common/util.h"
#include "explain/explain.h"
#include "explain/record.h"
#include "oltp/oltp.h"
#include "report/report.h"
#include "store/results.h"
#include "sim.h"
#include "tap.h"

static char dir[512];
static size_t scale = 1;

static const char *const contexts[] = { "shell", "service", "slice", "extra" };

/* A host's true TPS: its level, and each context's ratio to shell. */
struct host_truth {
	const char *name;
	double level, ratio[4];
	size_t n_contexts;
	unsigned rounds;
	double sigma;
	const char *experiment;
	const char *const *names; /* NULL: contexts[] */
	bool no_host_json;
	double cpus; /* its steps' saturation on so many CPUs; 0: none recorded */
};

static double host_tps(const void *ctx, size_t cell)
{
	const struct host_truth *h = ctx;

	return log(h->level) + log(h->ratio[cell]);
}

/* The host's run directory under dir/set. */
static void write_host(const char *set, const struct host_truth *h, char *path, size_t len)
{
	struct truth t = { .log_tps = host_tps, .ctx = h, .sigma = h->sigma, .drift = 0.0005,
			   .host = h->no_host_json ? NULL : h->name, .experiment = h->experiment, .cpus = h->cpus };

	snprintf(path, len, "%s/%s", set, h->name);
	sim_write_rounds(path, h->names ? h->names : contexts, h->n_contexts, 1, h->rounds, &t, h->rounds);
}

/* compare's output of the two hosts of set in format. */
static char *compare_text(const char *const *paths, enum report_format format)
{
	static const char *labels[2];
	struct report_options o = { .format = format };
	_cleanup_free_ char *why = NULL;
	char *text = NULL;
	json_t *docs[2] = {};
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; i < 2; i++) {
		if (results_load(paths[i], &docs[i], &why) < 0)
			bail_out("results_load %s: %s", paths[i], strempty(why));
		labels[i] = strrchr(paths[i], '/') + 1;
	}
	f = open_memstream(&text, &len);
	if (!f || compare_render(docs, labels, 2, &o, f) < 0)
		bail_out("compare_render");
	fclose(f);
	json_decref(docs[0]);
	json_decref(docs[1]);
	return text;
}

static json_t *compare_json(const char *const *paths)
{
	_cleanup_free_ char *text = compare_text(paths, REPORT_JSON);
	json_t *j = json_loads(text, 0, NULL);

	if (!j)
		bail_out("compare's JSON does not parse");
	return j;
}

/* A fresh pair of hosts a and b; paths[] their directories. */
static void write_pair(const struct host_truth *a, const struct host_truth *b, char paths[2][700])
{
	const char *set = sim_fresh(dir, "pair");

	write_host(set, a, paths[0], sizeof(paths[0]));
	sim_steps_run = 0;
	write_host(set, b, paths[1], sizeof(paths[1]));
}

/* compare's JSON of a fresh pair of hosts a and b. */
static json_t *pair_json(const struct host_truth *a, const struct host_truth *b)
{
	char paths[2][700];
	const char *p[2] = { paths[0], paths[1] };

	write_pair(a, b, paths);
	return compare_json(p);
}

/* The row of the host x context table for column. */
static const json_t *host_row(const json_t *cmp, const char *column)
{
	const json_t *rows = json_object_get(json_object_get(cmp, "hosts"), "rows"), *r;
	size_t i;

	json_array_foreach(rows, i, r)
		if (streq(json_string_value(json_object_get(r, "column")) ?: "", column))
			return r;
	return NULL;
}

static const json_t *differ(const json_t *cmp, const char *column)
{
	/* [0] is the first host's own: null */
	return json_array_get(json_object_get(host_row(cmp, column), "differ"), 1);
}

/* service 1.24x on epyc-1 and 0.90x on xeon-2, slice 1.00x on both:
 * each ratio of ratios' interval covers its truth. */
static void check_interaction(void)
{
	struct host_truth a = { .name = "epyc-1", .level = 1000, .ratio = { 1, 1.24, 1 }, .n_contexts = 3, .rounds = 5,
				.sigma = 0.05 },
			  b = { .name = "xeon-2", .level = 600, .ratio = { 1, 0.90, 1 }, .n_contexts = 3, .rounds = 5,
				.sigma = 0.05 };
	struct rate cover = {}, found = {};

	for (size_t i = 0; i < 200 * scale; i++) {
		json_t *cmp = pair_json(&a, &b);

		cover.hits += sim_covers(differ(cmp, "service"), "ratio_lo", "ratio_hi", 0.90 / 1.24);
		cover.hits += sim_covers(differ(cmp, "slice"), "ratio_lo", "ratio_hi", 1.0);
		cover.n += 2;
		found.hits += json_is_true(json_object_get(differ(cmp, "service"), "significant"));
		found.n++;
		json_decref(cmp);
	}
	sim_row("compare, service 1.24x on one host and 0.90x on the other, slice 1.00x on both, sigma 5%, 5 rounds "
		"each, Holm across 2: each ratio of ratios' interval covers its truth", &cover, ">=", 0.92);
	sim_row("the same: the service's difference (1.38x) found", &found, ">=", 0.80);
}

/* The same ratios on both hosts, at different levels of TPS (and, in the
 * second case, different repeats and sigmas): any "the hosts differ". */
static void check_none(const char *what, unsigned rounds_b, double sigma_b)
{
	struct host_truth a = { .name = "epyc-1", .level = 1000, .ratio = { 1, 1.24, 1 }, .n_contexts = 3, .rounds = 5,
				.sigma = 0.05 },
			  b = { .name = "xeon-2", .level = 600, .ratio = { 1, 1.24, 1 }, .n_contexts = 3,
				.rounds = rounds_b, .sigma = sigma_b };
	struct rate false_differ = {};

	for (size_t i = 0; i < 400 * scale; i++) {
		json_t *cmp = pair_json(&a, &b);

		false_differ.hits += json_is_true(json_object_get(differ(cmp, "service"), "significant")) ||
				     json_is_true(json_object_get(differ(cmp, "slice"), "significant"));
		false_differ.n++;
		json_decref(cmp);
	}
	sim_row(what, &false_differ, "<=", 0.05);
}

/* compare's "no difference between the hosts shown ... these rounds could
 * have detected Mx either way at 80% power", tested as t/106 tests
 * report's (issue 43, item 5): each A/A pair's printed gap is the truth of
 * a fresh pair (the second host's service ratio moved by it), which should
 * be found at least 75% of the time: a gap printed too small, from a
 * spread that came out low, counts against it as a user would find.  The
 * gap is the one a test on the interval's own degrees of freedom can find
 * (1 at 2 rounds, each host's noise its own), so it errs large: found in
 * 91% at 2 rounds and 88% at 5, above the 85% report's keeps (t/106);
 * that side is printed, not asserted. */
/* The pair of check_printed_gap(): a fresh A/A pair's printed gap, and
 * whether a fresh pair whose second host's service ratio is moved by a
 * gap finds it. */
struct printed_pair {
	struct host_truth a, b;
};

static double printed_pair_gap(void *ctx)
{
	struct printed_pair *p = ctx;
	json_t *cmp = pair_json(&p->a, &p->b);
	const json_t *d = differ(cmp, "service"), *mde = json_object_get(d, "mde");
	double g = json_is_number(mde) && !json_is_true(json_object_get(d, "significant")) ? json_number_value(mde) : NAN;

	json_decref(cmp);
	return g;
}

static int printed_pair_found(void *ctx, double gap)
{
	struct printed_pair *p = ctx;
	struct host_truth moved = p->b;
	json_t *cmp;
	int found;

	moved.ratio[1] = 1.24 * gap;
	cmp = pair_json(&p->a, &moved);
	found = json_is_true(json_object_get(differ(cmp, "service"), "significant"));
	json_decref(cmp);
	return found;
}

static void check_printed_gap(unsigned rounds)
{
	struct printed_pair p = { .a = { .name = "epyc-1", .level = 1000, .ratio = { 1, 1.24, 1 }, .n_contexts = 3,
					 .rounds = rounds, .sigma = 0.05 } };
	struct rate found;
	char what[300];
	double median;

	p.b = p.a;
	p.b.name = "xeon-2";
	p.b.level = 600;
	median = sim_printed_gap_rate(200 * scale, printed_pair_gap, printed_pair_found, &p, &found);
	snprintf(what, sizeof(what), "compare, the same ratios on both hosts, sigma 5%%, %u rounds each: a fresh pair "
		 "whose hosts differ by the gap compare printed (median %.3fx) found", rounds, median);
	sim_row(what, &found, ">=", 0.75);
}

static bool has(const char *s, const char *what)
{
	return s && strstr(s, what);
}

/* Hosts that overlap in part: each has a context the other has not, and
 * they ran different repeats.  Compared where they overlap, the rest
 * listed, in the text (its sentences) and the JSON. */
static void check_overlap(void)
{
	static const char *const names_b[] = { "shell", "service", "extra" };
	struct host_truth a = { .name = "epyc-1", .level = 1000, .ratio = { 1, 1.24, 1 }, .n_contexts = 3, .rounds = 5,
				.sigma = 0.03 },
			  b = { .name = "xeon-2", .level = 600, .ratio = { 1, 0.90, 1.1 }, .n_contexts = 3, .rounds = 3,
				.sigma = 0.03, .names = names_b };
	char paths[2][700];
	const char *p[2] = { paths[0], paths[1] };
	_cleanup_free_ char *text = NULL;
	json_t *cmp, *notes;
	char *list;

	write_pair(&a, &b, paths);
	cmp = compare_json(p);
	notes = json_object_get(json_object_get(cmp, "hosts"), "not_compared");
	list = json_dumps(notes, JSON_COMPACT);
	ok(has(list, "\"slice: only on epyc-1\"") && has(list, "\"extra: only on xeon-2\"") &&
		   has(list, "repeats: 5 on epyc-1, 3 on xeon-2"),
	   "overlap: the contexts one host has, and the repeats, are listed (%s)", list);
	ok(host_row(cmp, "service") && !host_row(cmp, "slice") && !host_row(cmp, "extra") &&
		   json_is_true(json_object_get(differ(cmp, "service"), "significant")),
	   "overlap: the service compared, 0.73x found, slice and extra not");
	free(list);
	json_decref(cmp);
	text = compare_text(p, REPORT_TEXT);
	diag("compare of two crafted hosts:\n%s", text);
	ok(has(text, "service over shell at 1 thread: 1.") && has(text, " on epyc-1, 0.") &&
		   has(text, " on xeon-2; the hosts differ by 1.") && has(text, "the ratio higher on epyc-1") &&
		   has(text, "Holm-adjusted across the 1 of this table") && has(text, "not compared:\n  slice: only on epyc-1"),
	   "overlap: the sentence says each host's ratio and how far apart, the heading the family");
	json_decref(compare_json(p));
	text = (free(text), compare_text(p, REPORT_CSV));
	list = strstr(text, "host_differ") ?: "none";
	ok(has(text, "\nhost_differ,xeon-2,1,service,,0.7"), "overlap: csv has the ratio of ratios (%.*s)",
	   (int)strcspn(list, "\n"), list);
}

/* verb_compare(argv) with standard output and error into files: its exit
 * status, what it wrote to each. */
static int run_compare(char **argv, int argc, char **ret_out, char **ret_err)
{
	char out[600], err[600];
	int saved[2] = { dup(1), dup(2) }, fd[2], r;

	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	fflush(stdout);
	fflush(stderr);
	fd[0] = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fd[1] = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (saved[0] < 0 || saved[1] < 0 || fd[0] < 0 || fd[1] < 0 || dup2(fd[0], 1) < 0 || dup2(fd[1], 2) < 0)
		bail_out("cannot redirect: %m");
	r = verb_compare(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved[0], 1);
	dup2(saved[1], 2);
	for (size_t i = 0; i < 2; i++) {
		close(fd[i]);
		close(saved[i]);
	}
	if (read_file_str(out, ret_out) < 0 || read_file_str(err, ret_err) < 0)
		bail_out("cannot read back %s", out);
	return r;
}

/* refused(WHAT, a, b, n, WANT): compare of the pair (or a alone) exits 2,
 * its error names the directory and says WANT, and nothing is written. */
static void refused(const char *what, const struct host_truth *a, const struct host_truth *b, int n, const char *want)
{
	char paths[2][700];
	char *argv[] = { "compare", paths[0], paths[1], NULL };
	_cleanup_free_ char *out = NULL, *err = NULL;
	int r;

	write_pair(a, b, paths);
	r = run_compare(argv, n + 1, &out, &err);
	ok(r == 2 && streq(out, "") && has(err, want) && has(err, n == 1 ? "epyc-1" : "xeon-2"),
	   "compare refuses %s: exit %d, nothing written, says why (%s)", what, r, err);
}

static void check_bad_input(void)
{
	struct host_truth a = { .name = "epyc-1", .level = 1000, .ratio = { 1, 1.24, 1 }, .n_contexts = 3, .rounds = 2,
				.sigma = 0.05 },
			  b = a;

	b.name = "xeon-2";
	b.experiment = "other";
	refused("two experiments", &a, &b, 2, "holds experiment other (baseline shell)");
	b.experiment = NULL;
	b.no_host_json = true;
	refused("a directory without host facts", &a, &b, 2, "has no host facts (host.json)");
	refused("one directory", &a, &b, 1, "alone: compare needs the results of the same experiment from 2");
}

/* A step records whether its client and server threads were more than
 * its context's CPUs; report and compare name the steps that were. */
static void check_saturation(void)
{
	struct step_result st = { .threads = 4, .cpus = 2, .lat_avg_ms = -1, .lat_p50_ms = -1, .lat_p95_ms = -1,
				  .lat_p99_ms = -1, .lat_max_ms = -1 };
	struct host_truth a = { .name = "epyc-1", .level = 1000, .ratio = { 1, 1.24, 1 }, .n_contexts = 3, .rounds = 2,
				.sigma = 0.05, .cpus = 4 },
			  b = a;
	char paths[2][700];
	const char *p[2] = { paths[0], paths[1] };
	_cleanup_free_ char *text = NULL, *rep = NULL, *why = NULL;
	struct report_options o = { .format = REPORT_TEXT };
	json_t *j = NULL, *cmp, *doc;
	size_t len = 0;
	FILE *f;

	snprintf(st.driver, sizeof(st.driver), "slicebench");
	ok(step_result_to_json(&st, &j) == 0 &&
		   json_is_true(json_object_get(json_object_get(j, "saturation"), "saturated")) &&
		   json_number_value(json_object_get(json_object_get(j, "saturation"), "cpus")) == 2,
	   "a step of 4 client threads (and 4 server threads) on 2 CPUs records that it is saturated");
	json_decref(j);
	st.cpus = 0;
	ok(step_result_to_json(&st, &j) == 0 && !json_object_get(j, "saturation"), "and none when its CPUs are not known");
	json_decref(j);
	b.name = "xeon-2";
	b.cpus = 1;
	write_pair(&a, &b, paths);
	cmp = compare_json(p);
	ok(json_array_size(json_object_get(json_array_get(json_object_get(cmp, "documents"), 0), "saturated_steps")) == 0 &&
		   json_array_size(json_object_get(json_array_get(json_object_get(cmp, "documents"), 1), "saturated_steps")) == 6,
	   "compare json: xeon-2's 6 steps on 1 CPU saturated, none of epyc-1's on 4");
	json_decref(cmp);
	text = compare_text(p, REPORT_TEXT);
	ok(has(text, "saturated on xeon-2: 6 steps ran more client and server threads") &&
		   has(text, "(2 threads on 1 CPU)") && !has(text, "saturated on epyc-1"),
	   "compare text names the saturated steps of the host that had them");
	if (results_load(paths[1], &doc, &why) < 0 || !(f = open_memstream(&rep, &len)) || report_render(doc, &o, f) < 0)
		bail_out("report of %s", paths[1]);
	fclose(f);
	json_decref(doc);
	ok(has(rep, "\nsaturated: 6 steps ran more"), "report names them too");
}

/* ---- explain directories: which cause differs ---- */

/* An explain host: its factors' effects, each a fraction of its gap. */
struct explain_host {
	const char *name, *b;
	size_t n;
	double effect[3], gap;
};

/* host's explain directory under set: a screen of every mix, 3 rounds,
 * sigma 5%, host.json in the stage, explain.json. */
static void write_explain(const char *set, const struct explain_host *h, char *path, size_t len)
{
	struct mixes m = { .n = h->n, .gap = h->gap };
	struct truth t = { .sigma = 0.05, .host = h->name };
	struct explain_record rec;
	unsigned all = (1u << h->n) - 1;
	struct design d;

	for (size_t k = 0; k < h->n; k++)
		m.effect[k] = h->effect[k];
	snprintf(path, len, "%s/%s", set, h->name);
	design_full(all, all, &d);
	sim_steps_run = 0;
	sim_write_stage(path, "screen", &d, &m, 3, &t);
	sim_record_init(&rec, h->n);
	if (h->b)
		snprintf(rec.b, sizeof(rec.b), "%s", h->b);
	rec.stage[STAGE_SCREEN] = (struct stage_record){ .present = true, .factors = all };
	if (explain_record_write(path, &rec) < 0)
		bail_out("explain_record_write %s", path);
}

static char *explain_pair(const struct explain_host *a, const struct explain_host *b, bool json, char paths[2][700])
{
	const char *set = sim_fresh(dir, "explain"), *labels[] = { a->name, b->name };
	char *const dirs[] = { paths[0], paths[1] };
	_cleanup_free_ char *why = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	write_explain(set, a, paths[0], sizeof(paths[0]));
	write_explain(set, b, paths[1], sizeof(paths[1]));
	f = open_memstream(&text, &len);
	if (!f || document_render(&document_explain_compare,
				  &(struct document_input){ .dirs = dirs, .labels = labels, .n = 2,
							    .o = &(struct report_options){ .format = json ? REPORT_JSON : REPORT_TEXT } },
				  f, &why) < 0)
		bail_out("explain-compare's document: %s", strempty(why));
	fclose(f);
	return text;
}

/* Factor k's effect on the second host over the first's. */
static const json_t *factor_differ(const json_t *x, size_t k)
{
	return json_array_get(json_object_get(json_array_get(json_object_get(x, "factors"), k), "differ"), 1);
}

/* f0 moves the gap by 50% of ln 1.5 on one host and 10% on the other, f1
 * by 50% on both: the difference's interval covers its truth; and, the
 * same on both hosts, no factor is said to differ. */
static void check_explain(void)
{
	const double gap = log(1.5), truth[2] = { exp(0.1 * gap - 0.5 * gap), 1 };
	struct explain_host a = { .name = "epyc-1", .n = 2, .effect = { 0.5, 0.5 }, .gap = gap },
			    b = { .name = "xeon-2", .n = 2, .effect = { 0.1, 0.5 }, .gap = gap };
	struct rate cover = {}, found = {}, none = {};
	char paths[2][700];

	for (size_t i = 0; i < 200 * scale; i++) {
		_cleanup_free_ char *text = explain_pair(&a, &b, true, paths);
		json_t *x = json_loads(text, 0, NULL);

		for (size_t k = 0; k < 2; k++)
			cover.hits += sim_covers(factor_differ(x, k), "ratio_lo", "ratio_hi", truth[k]);
		cover.n += 2;
		found.hits += json_is_true(json_object_get(factor_differ(x, 0), "significant"));
		found.n++;
		json_decref(x);
	}
	sim_row("compare of explain directories, f0 50% of a 1.5x gap on one host and 10% on the other, f1 50% on "
		"both, sigma 5%, 3 rounds: each difference's interval covers its truth", &cover, ">=", 0.92);
	sim_row("the same: f0's difference (0.85x) found (not asserted)", &found, "", 0);
	b.effect[0] = 0.5;
	for (size_t i = 0; i < 400 * scale; i++) {
		_cleanup_free_ char *text = explain_pair(&a, &b, true, paths);
		json_t *x = json_loads(text, 0, NULL);

		none.hits += json_is_true(json_object_get(factor_differ(x, 0), "significant")) ||
			     json_is_true(json_object_get(factor_differ(x, 1), "significant"));
		none.n++;
		json_decref(x);
	}
	sim_row("the same, f0 and f1 50% on both hosts: any factor said to differ", &none, "<=", 0.05);
}

/* A factor one host has alone is said so; the text says which differ
 * and how the hosts differ; no factor differing is said. */
static void check_explain_text(void)
{
	struct explain_host a = { .name = "epyc-1", .n = 2, .effect = { 0.9, 0.1 }, .gap = log(2.0) },
			    b = { .name = "xeon-2", .n = 3, .effect = { 0.1, 0.1, 0.8 }, .gap = log(2.0) };
	char paths[2][700];
	_cleanup_free_ char *text = explain_pair(&a, &b, false, paths), *same = NULL;

	diag("compare of two crafted explain directories:\n%s", text);
	ok(has(text, "f2: a factor only on xeon-2; on xeon-2 it moves the gap by "), "explain: f2 on one host only, said so");
	ok(has(text, "\nf0 moves the gap by 1.") && has(text, "on epyc-1 and 1.") &&
		   has(text, "; the hosts differ in cpu.model (epyc-1 against xeon-2)"),
	   "explain: f0's effects on both hosts, how far apart, and the host facts that differ");
	b = (struct explain_host){ .name = "xeon-2", .n = 2, .effect = { 0.9, 0.1 }, .gap = log(2.0) };
	/* A draw whose data show no difference (any draw has a 2-5% chance to
	 * show one: t/068's rate above), for the sentence that says so. */
	sim_gen = rng_seeded(20261207, 1);
	same = explain_pair(&a, &b, false, paths);
	ok(has(same, "\nnone shown: no factor's effect was shown to differ between the hosts (2 compared, "
		     "Holm-adjusted); a difference of 1.") &&
		   has(same, " either way") && has(same, "would have been shown at 80% power"),
	   "explain: none shown differing is said, with what could have been (%s)", strstr(same, "none shown") ?: same);
}

static void check_explain_refused(void)
{
	struct explain_host a = { .name = "epyc-1", .n = 2, .effect = { 0.5, 0.5 }, .gap = log(1.5) },
			    b = { .name = "xeon-2", .n = 2, .effect = { 0.5, 0.5 }, .gap = log(1.5), .b = "other" };
	const char *set = sim_fresh(dir, "explain");
	char paths[2][700];
	char *argv[] = { "compare", paths[0], paths[1], NULL };
	_cleanup_free_ char *out = NULL, *err = NULL;
	int r;

	write_explain(set, &a, paths[0], sizeof(paths[0]));
	write_explain(set, &b, paths[1], sizeof(paths[1]));
	r = run_compare(argv, 3, &out, &err);
	ok(r == 2 && streq(out, "") && has(err, "xeon-2 explains a against other at 1 thread (sim)") &&
		   has(err, "compare takes explanations of the same pair"),
	   "compare refuses explain directories of two pairs: exit %d, nothing written (%s)", r, err);
}

int main(void)
{
	scale = sim_start(dir, sizeof(dir), 20261206);
	/* A sentence on one line: t/141 holds the layout at 100 columns. */
	table_set_width(1000);
	check_interaction();
	check_none("compare, the same ratios on both hosts (1.24x, 1.00x) at 1000 and 600 TPS, sigma 5%, 5 rounds each: "
		   "any \"the hosts differ\"", 5, 0.05);
	check_none("the same, 5 rounds against 3 and sigma 5% against 8%: any \"the hosts differ\"", 3, 0.08);
	check_printed_gap(2);
	check_printed_gap(5);
	check_overlap();
	check_bad_input();
	check_saturation();
	check_explain();
	check_explain_text();
	check_explain_refused();
	if (getenv("SLICEBENCH_SIM_KEEP"))
		diag("kept: %s/pair", dir);
	else
		remove_tree(dir);
	return done_testing();
}

/* The simulation tests' shared pieces (t/sim.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"
#include "oltp/record.h"
#include "explain/explain.h"
#include "report/report.h"
#include "run/order.h"
#include "stats/stats.h"
#include "store/results.h"
#include "sim.h"
#include "tap.h"

struct rng sim_gen;
size_t sim_steps_run;
/* The seed of the run being written: a resumed one keeps its orders. */
static uint64_t sim_order_seed;

size_t sim_start(char *dir, size_t len, uint64_t seed)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	const char *s = getenv("SLICEBENCH_SIM_SCALE");

	snprintf(dir, len, "%s/slicebench-sim.XXXXXX", base);
	if (!mkdtemp(dir))
		bail_out("mkdtemp: %m");
	sim_gen = rng_seeded(seed, 0);
	printf("# | case | observed (95%% simulation interval) | asked | data sets |\n# |---|---|---|---|\n");
	return s && atoi(s) > 0 ? (size_t)atoi(s) : 1;
}

double sim_uniform(void)
{
	return (double)(rng_next(&sim_gen) >> 11) * 0x1.0p-53;
}

double sim_gauss(void)
{
	double u = sim_uniform(), v = sim_uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* A start's noise of SD 1: normal, or Student's t on t->tail_df. */
static double start_noise(const struct truth *t)
{
	double chi2 = 0, z = sim_gauss();

	if (!t->tail_df)
		return z;
	for (unsigned k = 0; k < t->tail_df; k++) {
		double g = sim_gauss();

		chi2 += g * g;
	}
	return z / sqrt(chi2 / t->tail_df) * sqrt((t->tail_df - 2.0) / t->tail_df);
}

void sim_seconds(double tps, const struct truth *t, double *x)
{
	const double phi = 0.5;
	double w = t->within * exp(0.3 * sim_gauss() - 0.045), e = sim_gauss(), sum = 0;

	for (size_t i = 0; i < t->seconds; i++) {
		x[i] = MAX(0.05, 1 + w * e);
		sum += x[i];
		e = phi * e + sqrt(1 - phi * phi) * sim_gauss();
	}
	for (size_t i = 0; i < t->seconds; i++)
		x[i] *= tps * (double)t->seconds / sum;
}

/* The share of a step's noise variance its start shares. */
static double start_share(const struct truth *t)
{
	return t->start_share < 0 ? 0 : t->start_share > 0 ? t->start_share : SIM_START_SHARE;
}

/* What one start of a unit shares across its steps. */
struct start {
	double noise;  /* SD 1, scaled by the cell's sigma and the share */
	bool stalled;
	size_t slot, slots;
};

/* A stall's seconds: OLTP_STALL_MIN_S + 1 of them from the third near 0,
 * the step's TPS the mean of its seconds. */
static double stall_seconds(double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 2; i < MIN(n, 2 + OLTP_STALL_MIN_S + 1); i++)
		x[i] = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

/* A step of cell c in round at threads: its TPS from t, and its seconds
 * when t has them. */
static json_t *sim_step(const struct truth *t, const struct start *st, const char *name, size_t c, unsigned round,
			int threads)
{
	bool slow = t->slow_one_in_five && (round - 1) % 5 == (unsigned)(c * 7 + round / 5) % 5,
	     failed = t->fails && t->fails(t, c, round);
	double sigma = t->sigmas ? t->sigmas[c] : t->sigma, x[256], share = start_share(t);
	double noise = sqrt(share) * st->noise + sqrt(1 - share) * start_noise(t);
	double tps = exp(t->log_tps(t->ctx, c) + sigma * noise) * pow(1 + t->drift, (double)sim_steps_run++) *
		     (slow ? 0.7 : 1) * (st->slot == 0 && t->first_ratio > 0 ? t->first_ratio : 1) *
		     (st->slot + 1 == st->slots && st->slots > 1 && t->last_ratio > 0 ? t->last_ratio : 1);
	char unit[96];
	json_t *s, *a;

	snprintf(unit, sizeof(unit), "%s-v1-r%u", name, round);
	s = json_pack("{s:s, s:i, s:i, s:s, s:f, s:f, s:b, s:s, s:i, s:f, s:n}", "context", name, "repeat", (int)round,
		      "threads", threads, "driver", "slicebench", "duration_s", 1.0, "tps", failed ? 0.0 : tps, "failed",
		      failed, "unit", unit, "slot", (int)st->slot + 1, "started_at", 1.8e9 + (double)sim_steps_run, "vary_value");
	if (failed) {
		json_object_set_new(s, "reason", json_string("the server did not start (simulated)"));
		return s;
	}
	if (t->cpus > 0)
		json_object_set_new(s, "saturation",
				    json_pack("{s:i, s:i, s:f, s:b}", "client_threads", 1, "server_threads", 1, "cpus",
					      t->cpus, "saturated", 2 > t->cpus));
	if (t->seconds) {
		sim_seconds(tps, t, x);
		if (st->stalled)
			json_object_set_new(s, "tps", json_real(stall_seconds(x, MIN(t->seconds, ELEMENTSOF(x)))));
		json_object_set_new(s, "intervals_tps", a = json_array());
		for (size_t i = 0; i < MIN(t->seconds, ELEMENTSOF(x)); i++)
			json_array_append_new(a, json_real(x[i]));
	}
	return s;
}

/* A run directory at path: contexts names[0..n) (the first the baseline),
 * rounds from..to, each round's units in the engine's order (or fixed),
 * TPS drawn from t.  Written through results_put(), as run writes them. */
void sim_write_rounds(const char *path, const char *const *names, size_t n, unsigned from, unsigned to,
			 const struct truth *t, unsigned total_rounds)
{
	struct results *res;
	size_t order[64];
	int r = results_open(path, from > 1, &res);

	if (r < 0)
		bail_out("results_open %s: %s", path, strerror(-r));
	if (from == 1 && t->host) {
		json_t *host = json_pack("{s:s, s:{s:s, s:s}, s:{s:s}}", "hostname", t->host, "cpu", "vendor", "Sim",
					 "model", t->host, "kernel", "release", "6.1.0");

		results_put(res, "host.json", host);
		json_decref(host);
	}
	if (from == 1) {
		json_t *exp = json_pack("{s:s, s:[], s:[], s:s, s:i}", "name", t->experiment ? t->experiment : "sim",
					"threads", "contexts", "baseline", names[0], "repeat", (int)total_rounds);

		for (unsigned k = 0; k < MAX(t->n_threads, 1u); k++)
			json_array_append_new(json_object_get(exp, "threads"), json_integer(1 << k));

		for (size_t i = 0; i < n; i++)
			json_array_append_new(json_object_get(exp, "contexts"), json_string(names[i]));
		results_put(res, "experiment.json", exp);
		json_decref(exp);
	}
	if (from == 1) {
		json_t *sched;

		sim_order_seed = rng_next(&sim_gen);
		sched = json_pack("{s:s, s:I}", "order", t->fixed_order ? "fixed" : "random", "seed",
				  (json_int_t)(sim_order_seed >> 12));
		results_put(res, "schedule.json", sched);
		json_decref(sched);
	}
	for (unsigned round = from; round <= to; round++) {
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		/* The engine's orders, from a seed of the generator's. */
		if (!t->fixed_order)
			run_order_balanced(sim_order_seed, round, n, order);
		for (size_t slot = 0; slot < n; slot++) {
			struct start st = { .noise = start_noise(t), .slot = slot, .slots = n,
					    .stalled = t->stall_one_in && sim_uniform() * t->stall_one_in < 1 };

			for (unsigned k = 0; k < MAX(t->n_threads, 1u); k++) {
				size_t c = order[slot];
				json_t *s = sim_step(t, &st, names[c], c, round, 1 << k);
				char file[160];

				snprintf(file, sizeof(file), "steps/%s-v1-r%u-t%d.json", names[c], round, 1 << k);
				if (results_put(res, file, s) < 0)
					bail_out("results_put %s", file);
				json_decref(s);
			}
		}
	}
	results_close(res);
}

static void wilson(const struct rate *r, double z, double *lo, double *hi)
{
	double n = (double)r->n, p = (double)r->hits / n, c = (p + z * z / (2 * n)) / (1 + z * z / n),
	       h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n);

	*lo = MAX(0, c - h);
	*hi = MIN(1, c + h);
}

/* One row: the rate with its 95% simulation interval, and the assertion
 * ("<=" or ">=" the bound) judged by the 99% one. */
void sim_row(const char *what, const struct rate *r, const char *op, double bound)
{
	double lo95, hi95, lo99, hi99, p = (double)r->hits / (double)r->n;

	wilson(r, 1.96, &lo95, &hi95);
	wilson(r, 2.576, &lo99, &hi99);
	printf("# | %s | %.1f%% (%.1f-%.1f%%) | %s %.0f%% | %zu |\n", what, 100 * p, 100 * lo95, 100 * hi95, op,
	       100 * bound, r->n);
	if (*op == '<')
		ok(lo99 <= bound + 1e-9, "%s: %.1f%% (99%% simulation interval %.1f-%.1f%%), at most %.0f%%", what, 100 * p, 100 * lo99,
		   100 * hi99, 100 * bound);
	else if (*op == '>')
		ok(hi99 >= bound - 1e-9, "%s: %.1f%% (99%% simulation interval %.1f-%.1f%%), at least %.0f%%", what, 100 * p,
		   100 * lo99, 100 * hi99, 100 * bound);
}


json_t *sim_json(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	if (!j)
		bail_out("fixture does not parse: %s at line %d column %d", e.text, e.line, e.column);
	return j;
}

json_t *sim_report_json(const char *path)
{
	_cleanup_free_ char *text = sim_report_text(path, REPORT_JSON);
	json_t *j = json_loads(text, 0, NULL);

	if (!j)
		bail_out("report's JSON does not parse");
	return j;
}

const char *sim_fresh(const char *dir, const char *name)
{
	static char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	(void)remove_tree(path);
	sim_steps_run = 0;
	return path;
}

double sim_printed_gap_rate(size_t sets, double (*printed)(void *ctx), int (*found)(void *ctx, double gap), void *ctx,
			    struct rate *ret)
{
	_cleanup_free_ double *gaps = calloc(sets + 1, sizeof(double));
	size_t n = 0;

	if (!gaps)
		bail_out("calloc");
	*ret = (struct rate){};
	for (size_t i = 0; i < sets; i++) {
		double g = printed(ctx);
		int f;

		if (isnan(g))
			continue;
		gaps[n++] = g;
		/* A gap of thousands (a pair on one degree of freedom) is
		 * written as 10^4, which the results' TPS bound holds. */
		f = found(ctx, MIN(g, 1e4));
		ret->hits += f == 1;
		ret->n += f >= 0;
	}
	return stats_median(gaps, n);
}

bool sim_covers(const json_t *v, const char *lo, const char *hi, double truth)
{
	return json_is_number(json_object_get(v, lo)) && json_number_value(json_object_get(v, lo)) <= truth &&
	       json_number_value(json_object_get(v, hi)) >= truth;
}

/* ---- explain directories ---- */


static double mix_tps(const void *ctx, size_t cell)
{
	const struct mixes *m = ctx;
	unsigned mask = m->masks[cell] == EXPLAIN_A ? (1u << m->n) - 1 : m->masks[cell];
	double y = log(1000);

	for (size_t k = 0; k < m->n; k++)
		y += ((mask >> k) & 1) * m->effect[k] * m->gap;
	unsigned pair = m->pair ? m->pair : 3;

	return y + ((mask & pair) == pair) * m->together * m->gap;
}

/* A stage of design d under path/name, from m. */
void sim_write_stage(const char *path, const char *name, const struct design *d, struct mixes *m, unsigned rounds,
			struct truth *t)
{
	char names[DESIGN_MIXES_MAX][48], sub[700];
	const char *list[DESIGN_MIXES_MAX];

	for (size_t i = 0; i < d->n; i++) {
		design_mix_name(d->masks[i], m->n, true, names[i], sizeof(names[i]));
		list[i] = names[i];
		m->masks[i] = d->masks[i];
	}
	snprintf(sub, sizeof(sub), "%s/%s", path, name);
	t->ctx = m;
	t->log_tps = mix_tps;
	sim_write_rounds(sub, list, d->n, 1, rounds, t, rounds);
}

void sim_record_init(struct explain_record *rec, size_t n)
{
	*rec = (struct explain_record){ .threads = 1, .level = 0.95, .width = 0.20, .n_factors = n, .closure_is_a = true,
					.seed = 1 };
	snprintf(rec->experiment, sizeof(rec->experiment), "sim");
	snprintf(rec->a, sizeof(rec->a), "a");
	snprintf(rec->b, sizeof(rec->b), "b");
	snprintf(rec->hybrids, sizeof(rec->hybrids), "raw");
	for (size_t k = 0; k < n; k++)
		snprintf(rec->labels[k], sizeof(rec->labels[k]), "f%zu", k);
}


/* ---- report's answers ---- */

const char *const sim_quickstart[] = { "base", "service", "scope", "user" };

double sim_flat_tps(const void *ctx, size_t cell)
{
	(void)ctx;
	(void)cell;
	return log(1000);
}

const json_t *sim_cell(const json_t *rep, size_t row, size_t col)
{
	return json_array_get(json_object_get(json_array_get(json_object_get(rep, "rows"), row), "cells"), col);
}

bool sim_any_significant(const json_t *rep)
{
	const json_t *row, *c;
	size_t i, k;

	json_array_foreach(json_object_get(rep, "rows"), i, row)
		json_array_foreach(json_object_get(row, "cells"), k, c)
			if (json_is_true(json_object_get(c, "significant")))
				return true;
	return false;
}

char *sim_report_text(const char *path, int format)
{
	struct report_options o = { .format = (enum report_format)format };
	_cleanup_free_ char *why = NULL;
	char *text = NULL;
	size_t len = 0;
	json_t *doc;
	FILE *f;

	if (results_load(path, &doc, &why) < 0)
		bail_out("results_load %s: %s", path, strempty(why));
	f = open_memstream(&text, &len);
	if (!f || report_render(doc, &o, f) < 0)
		bail_out("report_render %s", path);
	fclose(f);
	json_decref(doc);
	return text;
}

json_t *sim_compare_json(const char *const *paths, size_t n)
{
	const char *labels[8];
	struct report_options o = { .format = REPORT_JSON };
	_cleanup_free_ char *why = NULL, *text = NULL;
	json_t *docs[8] = {}, *j;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; i < n && i < ELEMENTSOF(docs); i++) {
		if (results_load(paths[i], &docs[i], &why) < 0)
			bail_out("results_load %s: %s", paths[i], strempty(why));
		labels[i] = strrchr(paths[i], '/') + 1;
	}
	f = open_memstream(&text, &len);
	if (!f || compare_render(docs, labels, n, &o, f) < 0)
		bail_out("compare_render");
	fclose(f);
	for (size_t i = 0; i < n; i++)
		json_decref(docs[i]);
	j = json_loads(text, 0, NULL);
	if (!j)
		bail_out("compare's JSON does not parse");
	return j;
}

bool sim_any_host_significant(const json_t *cmp, const char *what)
{
	const json_t *row, *d;
	size_t i, k;

	json_array_foreach(json_object_get(json_object_get(cmp, "hosts"), "rows"), i, row)
		json_array_foreach(json_object_get(row, what), k, d)
			if (json_is_true(json_object_get(d, "significant")))
				return true;
	return false;
}

void sim_explain_screen(const char *path, struct mixes *m, unsigned rounds, struct truth *t, struct explain_record *rec)
{
	struct design d;
	unsigned all = (1u << m->n) - 1;

	design_full(all, all, &d);
	sim_write_stage(path, "screen", &d, m, rounds, t);
	sim_record_init(rec, m->n);
	rec->stage[STAGE_SCREEN] = (struct stage_record){ .present = true, .factors = all };
	if (explain_record_write(path, rec) < 0)
		bail_out("explain_record_write %s", path);
}

void sim_explain_holdout(const char *path, unsigned set, struct mixes *m, unsigned rounds, unsigned wanted,
			 struct truth *t, struct explain_record *rec)
{
	struct design d;
	unsigned all = (1u << m->n) - 1;

	design_holdout(set, all, rec->closure_is_a, &d);
	sim_write_stage(path, "confirm", &d, m, rounds, t);
	rec->stage[STAGE_CONFIRM] = (struct stage_record){ .present = true, .factors = all, .set = set,
							  .rounds_wanted = wanted };
	if (explain_record_write(path, rec) < 0)
		bail_out("explain_record_write %s", path);
}

char *sim_explanation(const char *path, enum sim_form form)
{
	_cleanup_free_ char *why = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	static const enum report_format formats[] = { [SIM_TEXT] = REPORT_TEXT, [SIM_JSON] = REPORT_JSON,
						      [SIM_HTML] = REPORT_HTML };
	const struct report_options o = { .format = formats[form] };
	char *const dirs[] = { (char *)path };
	int r;

	if (!f)
		bail_out("open_memstream: %m");
	r = document_render(&document_explain, &(struct document_input){ .dirs = dirs, .n = 1, .o = &o }, f, &why);
	if (r < 0)
		bail_out("explain's document of %s: %s", path, why ? why : strerror(-r));
	fclose(f);
	return text;
}

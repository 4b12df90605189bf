/* Runs of repeat = decide in memory (t/seqsim.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "report/report.h"
#include "run/order.h"
#include "stats/sequential.h"
#include "seqsim.h"
#include "sim.h"
#include "tap.h"

static const char *const names[SEQSIM_CONTEXTS_MAX] = { "base", "c1", "c2", "c3", "c4", "c5", "c6", "c7" };

/* One round of the open contexts into doc's steps and schedule. */
static size_t write_round(json_t *doc, const struct seqsim_truth *t, uint64_t seed, unsigned round, const bool *open)
{
	size_t n = 0, order[SEQSIM_CONTEXTS_MAX], which[SEQSIM_CONTEXTS_MAX];
	json_t *units = json_array();

	for (size_t c = 0; c < t->n; c++)
		if (open[c])
			which[n++] = c;
	run_order_balanced(seed, round, n, order);
	for (size_t slot = 0; slot < n; slot++) {
		size_t c = which[order[slot]];
		double start = sqrt(t->start_share) * sim_gauss();
		char unit[64];

		snprintf(unit, sizeof(unit), "%s-v1-r%u", names[c], round);
		json_array_append_new(units, json_string(unit));
		for (unsigned k = 0; k < MAX(t->threads, 1u); k++) {
			double e = start + sqrt(1 - t->start_share) * sim_gauss();
			double tps = 1000 * exp(t->log_ratio[c] + t->sigma * e);

			json_array_append_new(json_object_get(doc, "steps"),
					      json_pack("{s:s, s:i, s:i, s:s, s:f, s:f, s:b, s:s, s:i, s:n}", "context",
							names[c], "repeat", (int)round, "threads", 1 << k, "driver",
							"slicebench", "duration_s", 1.0, "tps", tps, "failed", false, "unit",
							unit, "slot", (int)slot + 1, "vary_value"));
		}
	}
	json_array_append_new(json_object_get(json_object_get(doc, "schedule"), "rounds"),
			      json_pack("{s:i, s:o}", "round", (int)round, "units", units));
	return n;
}

static json_t *new_doc(const struct seqsim_truth *t, const struct seqsim_design *d, uint64_t seed)
{
	json_t *exp = json_pack("{s:s, s:[], s:[], s:s, s:f}", "name", "sim", "threads", "contexts", "baseline", names[0],
				"margin", d->margin);
	json_t *sched = json_pack("{s:s, s:I, s:[]}", "order", "random", "seed", (json_int_t)(seed >> 12), "rounds");

	for (unsigned k = 0; k < MAX(t->threads, 1u); k++)
		json_array_append_new(json_object_get(exp, "threads"), json_integer(1 << k));
	for (size_t c = 0; c < t->n; c++)
		json_array_append_new(json_object_get(exp, "contexts"), json_string(names[c]));
	if (!d->fixed) {
		json_object_set_new(sched, "sequential",
				    json_pack("{s:f, s:i, s:i}", "margin", d->margin, "max_rounds", (int)d->max_rounds,
					      "look_every", (int)MAX(d->every, 1)));
		json_object_set_new(sched, "looks", json_array());
	}
	return json_pack("{s:i, s:o, s:n, s:o, s:{}, s:[]}", "format_version", 1, "experiment", exp, "host", "schedule",
			 sched, "placements", "steps");
}

/* A look after round: the engine's callback, then the look recorded. */
static bool look(json_t *doc, const struct seqsim_truth *t, const struct seqsim_design *d, unsigned round, bool *open)
{
	bool final = round == d->max_rounds, any = false;
	json_t *names_open = json_array();
	int r = report_look(doc, d->level, round, final, names, t->n, open);

	if (r < 0)
		bail_out("report_look: %s", strerror(-r));
	for (size_t c = 0; c < t->n; c++)
		if (open[c]) {
			any = true;
			json_array_append_new(names_open, json_string(names[c]));
		}
	json_array_append_new(json_object_get(json_object_get(doc, "schedule"), "looks"),
			      json_pack("{s:i, s:b, s:o}", "round", (int)round, "final", final, "open", names_open));
	return any;
}

/* The decisions of the report's JSON (a fixed design's: its one look at
 * the end) into ret, and the table's verdicts beside them. */
static void read_back(json_t *doc, const struct seqsim_design *d, struct seqsim_result *ret)
{
	struct report_options o = { .format = REPORT_JSON, .confidence = d->level };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_t *rep, *row, *cell;
	size_t i, k;

	if (!f || report_render(doc, &o, f) < 0)
		bail_out("report_render failed");
	fclose(f);
	rep = sim_json(text);
	free(text);
	ret->as_run = json_is_true(json_object_get(json_object_get(rep, "decisions"), "as_run"));
	ret->rounds_to_decide = 0;
	json_array_foreach(json_object_get(rep, "rows"), i, row)
		json_array_foreach(json_object_get(row, "cells"), k, cell) {
			const json_t *v = json_object_get(cell, "decision");
			const char *a = json_string_value(json_object_get(v, "answer"));

			if (k == 0 || ret->n == SEQSIM_RATIOS_MAX)
				continue;
			ret->answer[ret->n] = a ? a[0] : 'o';
			ret->significant[ret->n] = streq_ptr(json_string_value(json_object_get(cell, "verdict")), "significant");
			ret->ratio[ret->n] = json_number_value(json_object_get(v, "ratio"));
			ret->lo[ret->n] = json_number_value(json_object_get(v, "ratio_lo"));
			ret->hi[ret->n++] = json_number_value(json_object_get(v, "ratio_hi"));
			ret->rounds_to_decide = MAX(ret->rounds_to_decide,
						    (unsigned)json_integer_value(json_object_get(v, "rounds_to_decide")));
		}
	json_decref(rep);
}

void seqsim_run(const struct seqsim_truth *t, const struct seqsim_design *d, bool keep, struct seqsim_result *ret)
{
	uint64_t seed = (uint64_t)(sim_uniform() * 9e15);
	json_t *doc = new_doc(t, d, seed);
	bool open[SEQSIM_CONTEXTS_MAX];

	*ret = (struct seqsim_result){};
	for (size_t c = 0; c < t->n; c++)
		open[c] = true;
	for (unsigned round = 1; round <= d->max_rounds; round++) {
		ret->starts += write_round(doc, t, seed, round, open);
		ret->rounds = round;
		if (!d->fixed && (seq_is_look(d->every, round) || round == d->max_rounds) && !look(doc, t, d, round, open))
			break;
	}
	read_back(doc, d, ret);
	if (keep)
		ret->doc = doc;
	else
		json_decref(doc);
}

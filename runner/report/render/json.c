/* The JSON renderer: the model as one tree (columns, rows of cells with
 * their verdicts and noises, with a vary each cell's verdict against its
 * context's first value, the failed and noisy steps and the placement
 * differences), printed once, with REPORT_FORMAT_VERSION. */
#include <math.h>
#include <stdio.h>

#include "store/provenance.h"
#include "report/render/render.h"
#include "common/util.h"

json_t *real_or_null(double v)
{
	/* JSON has no infinity: json_real() refuses it, and an unbounded end is null. */
	return isfinite(v) ? json_real(v) : json_null();
}

static int put(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0 ? 0 : -ENOMEM;
}

static const char *const verdict_names[] = {
	[STATS_SIGNIFICANT] = "significant",
	[STATS_NOT_SIGNIFICANT] = "not_significant",
	[STATS_TOO_FEW] = "too_few_repeats",
	[STATS_NO_SPREAD] = "no_spread",
};

int json_put_verdict(json_t *o, const struct stats_ratio *v)
{
	bool none = isnan(v->ratio);
	int r;

	r = put(o, "ratio", real_or_null(v->ratio));
	r = r ?: put(o, "ratio_lo", real_or_null(v->lo));
	r = r ?: put(o, "ratio_hi", real_or_null(v->hi));
	r = r ?: put(o, "p", real_or_null(v->p));
	r = r ?: put(o, "df", real_or_null(v->df));
	r = r ?: put(o, "verdict", none ? json_null() : json_string(verdict_names[v->verdict]));
	r = r ?: put(o, "significant", none ? json_null() : json_boolean(v->verdict == STATS_SIGNIFICANT));
	r = r ?: put(o, "p_raw", real_or_null(v->p_raw));
	r = r ?: put(o, "family", json_integer((json_int_t)v->family));
	r = r ?: put(o, "interval_level", real_or_null(none ? NAN : v->level));
	r = r ?: put(o, "sigma", real_or_null(v->sigma));
	return r ?: put(o, "mde", real_or_null(v->mde));
}

/* The cross-checks of a verdict: Welch's t on the two columns alone, the
 * rank-based interval. */
static int put_crosschecks(json_t *o, const struct stats_ratio *welch, const struct stats_rank *rank)
{
	json_t *w = json_pack("{s:o, s:o, s:o, s:o, s:o}", "ratio", real_or_null(welch->ratio), "ratio_lo",
			      real_or_null(welch->lo), "ratio_hi", real_or_null(welch->hi), "p", real_or_null(welch->p),
			      "df", real_or_null(welch->df));
	json_t *k = json_pack("{s:o, s:o, s:o, s:o, s:o, s:b}", "ratio", real_or_null(rank->ratio), "ratio_lo",
			      real_or_null(rank->lo), "ratio_hi", real_or_null(rank->hi), "p", real_or_null(rank->p),
			      "p_min", real_or_null(rank->p_min), "reaches", rank->reaches);
	int r = put(o, "welch", w);

	return r ?: put(o, "rank", k);
}

/* A cell's failures: the starts that failed, those that completed
 * nothing, the rate's interval, and the stalls inside successful ones. */
static int put_failures(json_t *cell, const struct cell *c)
{
	int r = put(cell, "failed", json_integer((json_int_t)c->n_failed));

	r = r ?: put(cell, "zero_tps", json_integer((json_int_t)c->n_zero));
	r = r ?: put(cell, "failure_rate_lo", real_or_null(c->fail_lo));
	r = r ?: put(cell, "failure_rate_hi", real_or_null(c->fail_hi));
	r = r ?: put(cell, "too_many_failed", json_boolean(c->too_many_failed));
	r = r ?: put(cell, "stalled_steps", json_integer((json_int_t)c->n_stalled));
	return r ?: put(cell, "stalled_s", json_integer(c->stalled_s));
}

/* An estimate with its interval: {est_key, lo, hi, n}. */
static json_t *interval_json(const char *est_key, const struct stats_interval *v)
{
	return json_pack("{s:o, s:o, s:o, s:I}", est_key, real_or_null(v->est), "lo", real_or_null(v->lo), "hi",
			 real_or_null(v->hi), "n", (json_int_t)v->n);
}

/* "noise": the cell's CV across starts (the SD of log TPS, chi-square
 * interval; the starts that failed are not in n, "failed" counts them)
 * and within a step (mean of the starts' per-second CVs, t interval). */
static int put_noise(json_t *cell, const struct cell *c)
{
	json_t *starts = interval_json("cv", &c->cv_starts), *within = interval_json("cv", &c->cv_within);

	if (starts && json_object_set_new(starts, "failed", json_integer((json_int_t)c->n_failed)) < 0) {
		json_decref(starts);
		starts = NULL;
	}
	if (!starts || !within) {
		json_decref(starts);
		json_decref(within);
		return -ENOMEM;
	}
	return put(cell, "noise", json_pack("{s:o, s:o}", "cv_starts", starts, "cv_within", within));
}

/* One column's noise against its baseline's at a thread count. */
static json_t *noise_verdict_json(const struct model *m, size_t row, size_t k)
{
	const struct stats_spread_ratio *v = &model_cell(m, row, k)->noise_base;
	bool none = isnan(v->ratio) || v->verdict == STATS_TOO_FEW;

	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:b, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "column",
			 m->cols[k].label, "against", m->cols[m->cols[k].base].label, "threads",
			 (json_int_t)m->threads[row], "n", (json_int_t)v->n_a, "n_against", (json_int_t)v->n_b, "ratio",
			 real_or_null(v->ratio), "ratio_lo", real_or_null(v->lo), "ratio_hi",
			 real_or_null(v->hi), "bounded", v->bounded, "p", real_or_null(v->p),
			 "p_raw", real_or_null(v->p_raw), "family", (json_int_t)v->family, "interval_level",
			 real_or_null(none ? NAN : v->level), "verdict",
			 none ? json_null() : json_string(verdict_names[v->verdict]), "significant",
			 none ? json_null() : json_boolean(v->verdict == STATS_SIGNIFICANT), "mde", real_or_null(v->mde));
}

/* "noise_verdicts": a verdict per column with a baseline and thread count. */
static int put_noise_verdicts(json_t *doc, const struct model *m)
{
	json_t *list = json_array();

	if (put(doc, "noise_verdicts", list) < 0 || put(doc, "family_noise", json_integer((json_int_t)m->family_noise)) < 0 ||
	    put(doc, "noise_method", json_string("brown_forsythe_log_tps_fieller_mean_abs_dev_ratio_holm")) < 0)
		return -ENOMEM;
	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++)
			if (m->cols[k].base >= 0 && json_array_append_new(list, noise_verdict_json(m, row, k)) < 0)
				return -ENOMEM;
	return 0;
}

/* "vs_first": the verdict against the column's first vary value, with
 * the column it is against; null for a first value's column. */
static int put_vs_first(json_t *cell, const struct model *m, size_t col, const struct cell *c)
{
	json_t *v;

	if (m->cols[col].first < 0)
		return put(cell, "vs_first", json_null());
	v = json_pack("{s:s}", "column", m->cols[m->cols[col].first].label);
	if (put(cell, "vs_first", v) < 0)
		return -ENOMEM;
	return json_put_verdict(v, &c->vs_first) ?: put_crosschecks(v, &c->welch_first, &c->rank_first);
}

/* repeat = decide: a ratio's "decision": different, same or open, at the
 * look's round, with its repeated interval and its level. */
static int put_decision(json_t *cell, const struct cell *c)
{
	static const char *const word[] = { [SEQ_OPEN] = "open", [SEQ_DIFFERENT] = "different", [SEQ_SAME] = "same" };
	const struct seq_hypothesis *h = &c->decision;

	if (!c->decided_here)
		return 0;
	return put(cell, "decision",
		   json_pack("{s:s, s:o, s:o, s:o, s:o, s:b, s:i, s:o, s:i, s:o}", "answer", word[h->answer], "ratio",
			     real_or_null(exp(h->d)), "ratio_lo", real_or_null(exp(h->lo)), "ratio_hi",
			     real_or_null(exp(h->hi)), "level", real_or_null(h->level), "within_margin", h->within,
			     "round", (int)c->decided_round, "spread", real_or_null(c->spread), "rounds_to_decide",
			     (int)c->rounds_to_decide, "decidable_margin", real_or_null(c->decidable_margin)));
}

/* "decisions": the design (repeat = decide's, or a fixed one's look at
 * its end) and what its looks decided. */
static int put_decisions(json_t *doc, const struct model *m)
{
	json_t *looks;

	if (!model_has_decisions(m))
		return 0;
	looks = json_array();
	for (size_t j = 0; looks && j < m->seq.n_looks; j++)
		if (json_array_append_new(looks, json_pack("{s:i, s:b}", "round", (int)m->seq.looks[j].round, "final",
							   m->seq.looks[j].final)) < 0)
			return json_decref(looks), -ENOMEM;
	return put(doc, "decisions",
		   json_pack("{s:s, s:f, s:i, s:i, s:o, s:o, s:I, s:I, s:I, s:b, s:o, s:s}", "design",
			     m->seq.fixed ? "fixed" : "sequential", "margin", m->seq.margin,
			     "max_rounds", (int)m->seq.max_rounds, "look_every", (int)m->seq.look_every, "looks", looks,
			     "planned_sigma", m->seq.planned_sigma > 0 ? json_real(m->seq.planned_sigma) : json_null(),
			     "different", (json_int_t)m->seq.n_different, "same", (json_int_t)m->seq.n_same, "open",
			     (json_int_t)m->seq.n_open, "as_run", m->seq.as_run, "spread_seen",
			     real_or_null(m->seq.spread_seen), "method",
			     m->seq.fixed ? "holm_tost" : "lan_demets_obrien_fleming_group_sequential_holm_tost"));
}

/* One cell's members: its TPS, failures, verdicts and spread, and what
 * the options add. */
static int put_cell(json_t *cell, const struct model *m, const struct report_options *o, size_t col,
		    const struct cell *c)
{
	size_t n_mech;
	const struct oltp_mechanism_def *mech = oltp_mechanism_table(&n_mech);
	int r;

	r = put(cell, "median", real_or_null(c->median));
	r = r ?: put(cell, "min", real_or_null(c->min));
	r = r ?: put(cell, "max", real_or_null(c->max));
	r = r ?: put(cell, "n", json_integer((json_int_t)c->n));
	r = r ?: put_failures(cell, c);
	r = r ?: json_put_verdict(cell, &c->vs_base);
	r = r ?: put_decision(cell, c);
	r = r ?: put_crosschecks(cell, &c->welch_base, &c->rank_base);
	r = r ?: put(cell, "within_cv", real_or_null(c->within_cv));
	r = r ?: put(cell, "across_cv", real_or_null(c->across_cv));
	r = r ?: put_noise(cell, c);
	r = r ?: put(cell, "noisy_steps", json_integer((json_int_t)c->n_noisy));
	r = r ?: put(cell, "saturated_steps", json_integer((json_int_t)c->n_saturated));
	if (o->latency)
		r = r ?: put(cell, "p95_ms", real_or_null(c->p95_ms));
	for (size_t t = 0; o->telemetry && t < _TEL_MAX; t++)
		r = r ?: put(cell, telemetry_summaries[t].name, real_or_null(c->tel[t]));
	for (size_t j = 0; o->telemetry && j < n_mech; j++) {
		_cleanup_free_ char *key = NULL;

		r = r ?: put(cell, mech[j].key, real_or_null(c->mechanism[j]));
		/* "KEY_interval": its interval across the starts, and the coverage. */
		if (r == 0 && xasprintf(&key, "%s_interval", mech[j].key) < 0)
			r = -ENOMEM;
		r = r ?: put(cell, key,
			     json_pack("{s:o, s:o, s:o}", "lo", real_or_null(c->mechanism_lo[j]), "hi",
				       real_or_null(c->mechanism_hi[j]), "coverage", real_or_null(c->mechanism_cover[j])));
	}
	if (m->any_vs_first)
		r = r ?: put_vs_first(cell, m, col, c);
	return r;
}

/* "rows": a row per thread count, a cell per column. */
static int put_rows(json_t *rows, const struct model *m, const struct report_options *o)
{
	int r = 0;

	for (size_t i = 0; i < m->nrows && r == 0; i++) {
		json_t *row = json_pack("{s:I, s:[]}", "threads", (json_int_t)m->threads[i], "cells"), *cells;

		if (!row || json_array_append_new(rows, row) < 0)
			return -ENOMEM;
		cells = json_object_get(row, "cells");
		for (size_t k = 0; k < m->ncols && r == 0; k++) {
			json_t *cell = json_object();

			if (!cell || json_array_append_new(cells, cell) < 0)
				return -ENOMEM;
			r = put_cell(cell, m, o, k, model_cell(m, i, k));
		}
	}
	return r;
}

/* "starts": every start, how many each rule of oltp_rules[] kept or left
 * out, and how many ran while the host was busy. */
static int put_starts(json_t *doc, const struct model *m)
{
	json_t *by = json_object();
	int r = put(doc, "starts",
		    json_pack("{s:I, s:o, s:I, s:o, s:I}", "total", (json_int_t)m->n_starts, "by_rule", by, "host_busy",
			      (json_int_t)m->n_busy, "host_busy_load_max", m->n_busy ? json_real(m->busy_load_max) : json_null(),
			      "host_cpus", (json_int_t)m->busy_cpus));

	for (size_t k = 0; r == 0 && by && k < _OLTP_RULE_MAX; k++)
		r = put(by, oltp_rules[k].key, json_integer((json_int_t)m->removed[k]));
	return by ? r : -ENOMEM;
}

static json_t *place_json(const struct stats_ratio *v)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:b}", "ratio", real_or_null(v->ratio), "ratio_lo",
			 real_or_null(v->lo), "ratio_hi", real_or_null(v->hi), "p", real_or_null(v->p), "df",
			 real_or_null(v->df), "shown", v->verdict == STATS_SIGNIFICANT && !isnan(v->ratio));
}

static const char *const places_model_names[] = {
	[BLOCK_PLACES_NONE] = "none",
	[BLOCK_PLACES_FITTED] = "fitted",
	[BLOCK_PLACES_CONFOUNDED] = "confounded",
	[BLOCK_PLACES_TOO_FEW] = "too_few",
};

/* "noise_model": the noise the intervals rest on (each column its own, or
 * each ratio from its own two columns), and the share of it a start's
 * steps shared; "places": the first and the last unit of a round against
 * the units between, each shown where Holm across the two shows it, the
 * model that ran ("none", "fitted", "confounded", "too_few") and whether
 * the ratios take them out; "position", the first place's, as it was. */
static int put_model_terms(json_t *doc, const struct model *m)
{
	json_t *places = json_pack("{s:s, s:b, s:b, s:o, s:o}", "model", places_model_names[m->places], "in_ratios",
				   m->places_in_ratios, "order_fixed", m->order_fixed, "first",
				   place_json(&m->place[BLOCK_FIRST]), "last", place_json(&m->place[BLOCK_LAST]));
	json_t *pos = place_json(&m->place[BLOCK_FIRST]);
	int r = pos ? json_object_set_new(pos, "left_out", json_boolean(m->places != BLOCK_PLACES_FITTED)) : 0;

	r = r < 0 ? -ENOMEM : put(doc, "places", places);
	r = r ?: put(doc, "position", pos);
	return r ?: put(doc, "noise_model",
			json_pack("{s:s, s:b, s:b, s:o}", "sigma",
				  m->pair_fits			     ? "each ratio from its two columns"
				  : m->noise == BLOCK_NOISE_GROUPS ? "each column its own"
								   : "one for the table",
				  "pooled", !m->pair_fits && m->noise != BLOCK_NOISE_GROUPS, "pair_fits", m->pair_fits,
				  "start_share", real_or_null(m->start_share)));
}

static int put_array(json_t *a, json_t *v)
{
	return v && json_array_append_new(a, v) == 0 ? 0 : -ENOMEM;
}

/* A latency measure's rows: each cell's repeats and its ratio to the
 * baseline, the measure's ratios one Holm family (the late shares' have
 * none). */
static json_t *latency_json(const struct model *lat)
{
	json_t *rows = json_array(), *o = json_pack("{s:I, s:o}", "family", (json_int_t)lat->family_base, "rows", rows);
	int r = o ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < lat->nrows; i++) {
		json_t *cells = json_array();

		r = put_array(rows, json_pack("{s:I, s:o}", "threads", (json_int_t)lat->threads[i], "cells", cells));
		for (size_t k = 0; r == 0 && k < lat->ncols; k++) {
			const struct cell *c = model_cell(lat, i, k);
			json_t *cell = json_pack("{s:o, s:o, s:o, s:I}", "median", real_or_null(c->median), "min",
						 real_or_null(c->min), "max", real_or_null(c->max), "n", (json_int_t)c->n);

			r = cell ? 0 : -ENOMEM;
			if (r == 0 && lat->measure != MODEL_LATE_SHARE)
				r = json_put_verdict(cell, &c->vs_base);
			r = r ?: put_array(cells, cell);
		}
	}
	if (r < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "open_loop": the rate, where the latencies count from, each latency
 * measure's rows ("p50", "p95", "p99", in ms), the steps whose arrivals
 * outran the server, and with a latency limit the late shares' rows. */
static int put_open_loop(json_t *doc, const struct model *m)
{
	json_t *latency = json_object();
	int r = latency ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < MODEL_LATENCIES; i++)
		r = put(latency, model_latency_keys[i], latency_json(m->open_loop.latency[i]));
	return r ?: put(doc, "open_loop",
			json_pack("{s:I, s:s, s:s, s:s, s:o, s:o, s:o, s:o}", "rate", (json_int_t)m->open_loop.rate,
				  "arrivals", m->open_loop.constant ? "constant" : "poisson", "latency_from",
				  m->open_loop.from_start ? "start" : "intended", "unit", "ms", "latency", latency, "outran",
				  m->open_loop.outran ? json_incref(m->open_loop.outran) : json_array(), "latency_limit_ms",
				  m->open_loop.late ? json_real(m->open_loop.latency_limit_ms) : json_null(), "late",
				  m->open_loop.late ? latency_json(m->open_loop.late) : json_null()));
}

static int build_json(const struct model *m, const struct report_options *o, json_t **ret)
{
	json_t *doc, *cols;
	int r = 0;

	doc = json_pack("{s:i, s:{s:O*, s:o*}, s:s, s:s?, s:s?, s:f, s:s, s:I, s:I, s:f, s:f, s:[], s:[], s:O, s:O, s:O, s:O}",
			"format_version", REPORT_FORMAT_VERSION, "slicebench", "measured_by", m->builds, "reported_by",
			provenance_this_build(), "experiment", m->name, "baseline", m->baseline,
			"vary_property", m->vary_property, "confidence", m->level, "method", "block_model_log_tps_column_round_places_start_effect_satterthwaite_holm",
			"family", (json_int_t)m->family_base, "family_vs_first", (json_int_t)m->family_first, "power",
			STATS_POWER, "noisy_cv", MODEL_NOISY_CV, "columns", "rows", "diffs", m->diffs, "failures",
			m->failures, "noisy_steps", m->noisy, "saturated_steps", m->saturated);
	if (!doc)
		return -ENOMEM;
	cols = json_object_get(doc, "columns");
	for (size_t k = 0; k < m->ncols && r == 0; k++) {
		const struct column *c = &m->cols[k];

		if (json_array_append_new(cols, json_pack("{s:s, s:s, s:s?, s:b}", "label", c->label, "context",
							  c->context, "vary_value", c->vary, "baseline",
							  c->is_baseline)) < 0)
			r = -ENOMEM;
	}
	if (r == 0)
		r = put_rows(json_object_get(doc, "rows"), m, o);
	if (r == 0)
		r = put_noise_verdicts(doc, m);
	if (r == 0)
		r = put_starts(doc, m);
	if (r == 0)
		r = put_model_terms(doc, m);
	if (r == 0)
		r = put_decisions(doc, m);
	if (r == 0 && m->profiles)
		r = put(doc, "profile", render_profile_json(m));
	if (r == 0 && m->open_loop.latency[0])
		r = put_open_loop(doc, m);
	if (r < 0) {
		json_decref(doc);
		return r;
	}
	*ret = doc;
	return 0;
}

int dump_json(json_t *j, FILE *out)
{
	int r = json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0 ? -EIO : 0;

	if (r == 0)
		fputc('\n', out);
	return r;
}

int render_json(const struct model *m, const json_t *doc _unused_, const struct report_options *o, FILE *out)
{
	json_t *j;
	int r;

	r = build_json(m, o, &j);
	if (r >= 0) {
		r = dump_json(j, out);
		json_decref(j);
	}
	return r;
}

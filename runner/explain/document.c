/* An explanation as JSON (explain/sentences.h): the gap with its interval
 * and verdict (and the screen's, which the shares are of), every factor
 * with its label, its position in the mix names, its share and interval,
 * the pairs, the set named with its share, its interval and the gap and
 * stage they are from, whether an interaction is claimed, and each mix's
 * failed starts.  What makes the statistics testable from a directory
 * alone. */
#include <math.h>

#include "explain/sentences.h"
#include "common/util.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *share_json(const struct stats_share *s)
{
	return json_pack("{s:o, s:o, s:o, s:b, s:o, s:o, s:I, s:o}", "share", num(s->share), "lo", num(s->lo), "hi",
			 num(s->hi), "bounded", s->bounded, "p", num(s->p), "p_raw", num(s->p_raw), "family",
			 (json_int_t)s->family, "level", num(s->level));
}

static json_t *ratio_json(const struct stats_ratio *r)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:I, s:I}", "ratio", num(r->ratio), "lo", num(r->lo),
			 "hi", num(r->hi), "p", num(r->p), "df", num(r->df), "sigma", num(r->sigma), "mde", num(r->mde),
			 "significant", r->verdict == STATS_SIGNIFICANT, "n_a", (json_int_t)r->n_a, "n_b",
			 (json_int_t)r->n_b);
}

static json_t *factors_json(const struct explain_record *rec, const struct explanation *x)
{
	json_t *a = json_array();

	for (size_t k = 0; a && k < rec->n_factors; k++) {
		json_t *f = json_pack("{s:s, s:I, s:b, s:b, s:o, s:o, s:o}", "label", rec->labels[k], "position",
				      (json_int_t)k, "proxy", rec->proxy[k], "shared_out", (x->factors >> k) & 1, "shapley",
				      share_json(&x->shapley[k]), "alone", share_json(&x->alone[k]), "main_effect",
				      num(x->main_effect[k]));

		if (!f || json_array_append_new(a, f) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *pairs_json(const struct explain_record *rec, const struct explanation *x, bool *ret_claimed)
{
	json_t *a = json_array();

	*ret_claimed = false;
	for (size_t j = 0; a && j < rec->n_factors; j++)
		for (size_t k = j + 1; k < rec->n_factors; k++) {
			json_t *p;

			if (isnan(x->pair[j][k].share))
				continue;
			*ret_claimed |= x->pair_claimed[j][k];
			p = json_pack("{s:[II], s:o, s:b}", "positions", (json_int_t)j, (json_int_t)k, "interaction",
				      share_json(&x->pair[j][k]), "claimed", x->pair_claimed[j][k]);
			if (!p || json_array_append_new(a, p) < 0) {
				json_decref(a);
				return NULL;
			}
		}
	return a;
}

static json_t *named_json(const struct explain_record *rec, const struct explanation *x)
{
	json_t *pos = json_array();

	if (!x->named) {
		json_decref(pos);
		return json_null();
	}
	for (size_t k = 0; pos && k < rec->n_factors; k++)
		if ((x->named >> k) & 1 && json_array_append_new(pos, json_integer((json_int_t)k)) < 0) {
			json_decref(pos);
			return NULL;
		}
	/* The stage its share and gap are from: "hold-out", "screen", or
	 * "every stage" (all that differs, 1 by construction). */
	return json_pack("{s:o, s:o, s:o, s:s, s:b, s:b, s:I, s:o, s:o, s:o}", "positions", pos, "share",
			 share_json(&x->named_share), "gap", ratio_json(&x->named_gap), "stage",
			 x->by_construction ? "every stage" : x->held_out ? "hold-out" : "screen", "by_construction",
			 x->by_construction, "held_out", x->held_out, "rounds", (json_int_t)x->confirm_rounds, "sigma",
			 num(x->confirm_sigma), "df", num(x->confirm_df), "wider_p", num(x->wider_p));
}

/* Each mix with failed starts, as print_failures() says them. */
static json_t *failures_json(const struct explain_record *rec, const struct analysis_inputs *in)
{
	json_t *a = json_array();
	char label[512], name[48];

	for (size_t s = 0; a && s < _STAGE_MAX; s++) {
		const struct stage *st = explain_stage_of(in, (enum explain_stage)s);

		for (size_t i = 0; st && i < st->n_mix; i++) {
			const struct stage_mix *m = &st->mix[i];

			if (m->n_failed == 0)
				continue;
			sentences_mix_label(rec, in->labels, m->mask, label, sizeof(label));
			design_mix_name(m->mask, rec->n_factors, rec->closure_is_a, name, sizeof(name));
			if (json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:b}", "stage",
							       explain_stage_dir((enum explain_stage)s), "mix", name,
							       "label", label, "starts", (json_int_t)(m->n + m->n_failed),
							       "failed", (json_int_t)m->n_failed, "zero_tps",
							       (json_int_t)m->n_zero, "failure_rate_lo",
							       num(m->fail_lo), "failure_rate_hi", num(m->fail_hi),
							       "too_many_failed", m->too_many_failed)) < 0) {
				json_decref(a);
				return NULL;
			}
		}
	}
	return a;
}

json_t *sentences_json(const struct explain_record *rec, const struct analysis_inputs *in,
		       const struct explanation *x)
{
	bool claimed = false;
	json_t *pairs = pairs_json(rec, x, &claimed), *j;

	j = json_pack("{s:i, s:s, s:s, s:s, s:s, s:I, s:f, s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o}",
		      "format_version", EXPLAIN_RECORD_VERSION, "kind", "explanation", "experiment", rec->experiment, "a",
		      rec->a, "b", rec->b, "threads", (json_int_t)rec->threads, "confidence", rec->level, "gap",
		      ratio_json(&x->gap), "screen_gap", ratio_json(&x->screen_gap), "starts", (json_int_t)x->n_starts,
		      "mixes", (json_int_t)x->n_mixes, "factors", factors_json(rec, x), "pairs", pairs, "named",
		      named_json(rec, x), "interaction_claimed", claimed, "closure", share_json(&x->closure),
		      "closure_to_a", ratio_json(&x->closure_to_a), "sigma", num(x->sigma), "df", num(x->df));
	if (j && (json_object_set_new(j, "failures", failures_json(rec, in)) < 0 ||
		  json_object_set_new(j, "ends_failed", json_boolean(x->ends_failed)) < 0)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

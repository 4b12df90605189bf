/* The text and Markdown report: a table (render/cells.c) per metric, then
 * the verdicts' notes, the noisy and failed steps and the placement
 * differences, and the host's calibration. */
#include <math.h>
#include <stdio.h>

#include "store/provenance.h"
#include "report/render/render.h"
#include "host/calibration.h"
#include "common/util.h"

static bool any_base_ratio(const struct model *m)
{
	for (size_t i = 0; i < m->nrows * m->ncols; i++)
		if (!isnan(cell_ratio(&m->cells[i])))
			return true;
	return false;
}

/* Under a table of ratios: how they were computed (against the
 * baseline's column, or the first value's), across how many, and, once,
 * what few repeats mean. */
static void print_method(const struct model *m, const char *over, size_t family, bool df_note, bool markdown,
			 FILE *out)
{
	char method[1024];

	fprintf(out, "%sratio: %s\n", markdown ? "\n" : "", ratio_method_text(m, over, family, method, sizeof(method)));
	if (family == 0)
		return;
	if (m->pilot)
		fprintf(out, "%srepeat = auto: the sigmas and degrees of freedom are the pilot's %u rounds', whose "
			     "spread chose the number of rounds (Stein's two-stage rule)\n",
			markdown ? "\n" : "", m->pilot);
	if (df_note && m->min_df < 3)
		fprintf(out, "%sfew repeats: an interval here rests on %.0f degree%s of freedom, where t is %.1f against "
			     "%.1f on 8; with 2 repeats a column no %g%% verdict is possible short of a very large gap\n",
			markdown ? "\n" : "", m->min_df, m->min_df == 1 ? "" : "s", stats_t_critical(m->level, m->min_df),
			stats_t_critical(m->level, 8), 100 * m->level);
}

/* The place terms, each where Holm shows it: what the first or the last
 * unit of a round lost or gained against the units between, and whether
 * the ratios take it out. */
static void print_places(const struct model *m, bool markdown, FILE *out)
{
	static const char *const what[_BLOCK_PLACE_MAX] = { "first", "last" };

	for (size_t x = 0; x < _BLOCK_PLACE_MAX; x++) {
		const struct stats_ratio *v = &m->place[x];
		bool slower = v->ratio < 1;

		if (isnan(v->ratio) || v->verdict != STATS_SIGNIFICANT)
			continue;
		fprintf(out, "%sthe %s unit of a round ran %s: %.2fx (%.2f-%.2f) of the units %s (Holm across the 2 "
			     "places)%s; %s\n",
			markdown ? "\n" : "", what[x], slower ? "slower" : "faster", v->ratio, v->lo, v->hi,
			isnan(m->place[1 - x].ratio) ? "after it" : "between",
			x == BLOCK_FIRST && slower ? " (a cold start: page cache, the first start after prepare)"
			: x == BLOCK_LAST && !slower ? " (a host warmed by the units before it)"
						     : "",
			m->places_in_ratios ? "the model takes it out of every ratio"
					    : "each ratio's own fit leaves it in its spread, which it widens");
	}
}

/* "1.24x (1.02-1.50) p=0.03" of a cross-check. */
static const char *crosscheck_text(double ratio, double lo, double hi, double p, char *buf, size_t len)
{
	snprintf(buf, len, "%.2fx (%.2f-%.2f) p=%.2g", ratio, lo, hi, p);
	return buf;
}

/* What a verdict's cross-checks say where they disagree with it, each
 * Holm-adjusted across its table as the verdicts are: Welch's t on the two
 * columns alone, and the rank-based test where it can reject at all with
 * these repeats.  Said as agreeing or not with the verdict, which alone
 * says whether a difference was shown. */
static void print_disagreements(const struct stats_ratio *v, const struct stats_ratio *welch,
				const struct stats_rank *rank, double level, FILE *out)
{
	bool sig = v->verdict == STATS_SIGNIFICANT;
	char buf[96];

	if (!isnan(welch->p) && (welch->verdict == STATS_SIGNIFICANT) != sig)
		fprintf(out, "; Welch's t on the two alone, Holm-adjusted alike, %s: %s",
			sig ? "does not bear it out" : "would have called a difference",
			crosscheck_text(welch->ratio, welch->lo, welch->hi, welch->p, buf, sizeof(buf)));
	if (rank->reaches && !isnan(rank->p) && (rank->p < 1 - level) != sig)
		fprintf(out, "; the rank-based test (Hodges-Lehmann, Mann-Whitney), Holm-adjusted alike, %s: %s",
			sig ? "does not bear it out" : "would have called a difference",
			crosscheck_text(rank->ratio, rank->lo, rank->hi, rank->p, buf, sizeof(buf)));
}

/* "service vs shell at 1 thread" */
static void print_pair(const struct model *m, size_t row, size_t k, long against, bool markdown, FILE *out)
{
	fprintf(out, "%s%s vs %s at %lld %s", markdown ? "- " : "  ", m->cols[k].label, m->cols[against].label,
		m->threads[row], model_unit(m, m->threads[row]));
}

/* One line per verdict with something to say: what a "not significant"
 * could have seen, a cross-check that disagrees, a column that failed too
 * often for a ratio. */
static void print_verdict_notes(const struct model *m, bool first, bool markdown, FILE *out)
{
	bool said = false;

	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++) {
			const struct cell *c = model_cell(m, row, k);
			const struct stats_ratio *v = first ? &c->vs_first : &c->vs_base;
			long against = first ? m->cols[k].first : m->cols[k].base;
			bool ns = !isnan(v->ratio) && v->verdict != STATS_SIGNIFICANT, welch_off, rank_off;

			if (against < 0)
				continue;
			welch_off = !isnan((first ? &c->welch_first : &c->welch_base)->p) &&
				    ((first ? &c->welch_first : &c->welch_base)->verdict == STATS_SIGNIFICANT) != !ns;
			rank_off = (first ? &c->rank_first : &c->rank_base)->reaches &&
				   ((first ? &c->rank_first : &c->rank_base)->p < 1 - m->level) != !ns;
			if (isnan(v->ratio) || !(ns || welch_off || rank_off))
				continue;
			if (!said)
				fprintf(out, "%s%s:\n%s", markdown ? "\n" : "", first ? "against the first value" : "verdicts",
					markdown ? "\n" : "");
			said = true;
			print_pair(m, row, k, against, markdown, out);
			if (ns && !isnan(v->mde))
				fprintf(out, ": n.s.; at sigma %.1f%% with %zu and %zu repeats, a gap under %.2fx cannot be told "
					     "from noise (%.0f%% power%s)",
					100 * v->sigma, v->n_a, v->n_b, v->mde, 100 * STATS_POWER,
					v->family > 1 ? ", the level of its Holm step" : "");
			else
				fprintf(out, ": %s", ns ? "no verdict: no interval (too few repeats, or no spread between them)" : "significant");
			if (ns && !first && c->decided_here)
				fprintf(out, "; answer: %s", c->decision.answer == SEQ_SAME ? "the same" : "undecided");
			print_disagreements(v, first ? &c->welch_first : &c->welch_base, first ? &c->rank_first : &c->rank_base,
					    m->level, out);
			fputs("\n", out);
		}
}

/* The cells that failed: each with failures, its count and rate with its
 * interval, and whether it got a ratio; and the stalls inside steps. */
static void print_failure_counts(const struct model *m, bool markdown, FILE *out)
{
	bool said = false;

	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++) {
			const struct cell *c = model_cell(m, row, k);
			size_t starts = c->n + c->n_failed;

			if (c->n_failed == 0 && c->n_stalled == 0)
				continue;
			if (!said)
				fprintf(out, "%sfailures:\n%s", markdown ? "\n" : "", markdown ? "\n" : "");
			said = true;
			fprintf(out, "%s%s at %lld %s: ", markdown ? "- " : "  ", m->cols[k].label, m->threads[row],
				model_unit(m, m->threads[row]));
			if (c->n_failed)
				fprintf(out, "%zu of %zu starts failed (%.0f%%, %.0f-%.0f%%", c->n_failed, starts,
					100.0 * (double)c->n_failed / (double)starts, 100 * c->fail_lo, 100 * c->fail_hi);
			if (c->n_zero)
				fprintf(out, "; %zu of them completed no transaction", c->n_zero);
			if (c->n_failed)
				fprintf(out, ")%s", c->too_many_failed ? ": more than a fifth, so no ratio" : "");
			if (c->n_stalled)
				fprintf(out, "%s%zu step%s with seconds at 0 TPS (%lld s in all)", c->n_failed ? "; " : "",
					c->n_stalled, c->n_stalled == 1 ? "" : "s", c->stalled_s);
			fputs("\n", out);
		}
}

/* The columns of the table against the first vary value: each context's
 * other values, context by context; *ret (to free()) holds *ret_n. */
static int vary_columns(const struct model *m, size_t **ret, size_t *ret_n)
{
	size_t *cols = calloc(m->ncols + 1, sizeof(*cols)), n = 0;

	if (!cols)
		return -ENOMEM;
	for (size_t f = 0; f < m->ncols; f++)
		for (size_t k = 0; k < m->ncols; k++)
			if (m->cols[k].first == (long)f)
				cols[n++] = k;
	*ret = cols;
	*ret_n = n;
	return 0;
}

/* With a [vary]: per context and thread count, each value's TPS against
 * the context's first value, with its interval and p. */
/* The ratios to the first value: a row per thread count and a column
 * per context and value, or, by_context, a row per context and value. */
static void vary_table(const struct model *m, const size_t *cols, size_t n, bool by_context, struct table *t)
{
	*t = (struct table){ .ncols = 1 + (by_context ? m->nrows : n), .left = by_context };
	table_add(t, "%s", by_context ? "context" : model_unit(m, 2));
	for (size_t i = 0; i < (by_context ? m->nrows : n); i++)
		if (by_context)
			table_add(t, "%lld %s", m->threads[i], model_unit(m, m->threads[i]));
		else
			table_add(t, "%s", m->cols[cols[i]].label);
	for (size_t a = 0; a < (by_context ? n : m->nrows); a++) {
		if (by_context)
			table_add(t, "%s", m->cols[cols[a]].label);
		else
			table_add(t, "%lld", m->threads[a]);
		for (size_t b = 0; b < (by_context ? m->nrows : n); b++)
			add_ratio(t, &model_cell(m, by_context ? b : a, cols[by_context ? a : b])->vs_first);
	}
}

static int print_vary_ratios(const struct model *m, bool markdown, FILE *out)
{
	_cleanup_free_ size_t *cols = NULL;
	struct table t;
	size_t n;
	int r = vary_columns(m, &cols, &n);

	if (r < 0)
		return r;
	vary_table(m, cols, n, false, &t);
	if (!t.error && !markdown && table_text_width(&t) > table_width()) {
		table_done(&t);
		vary_table(m, cols, n, true, &t);
	}
	if (t.error) {
		table_done(&t);
		return t.error;
	}
	fprintf(out, "TPS against the first %s%svalue (%s), per context: ratio with its interval (at its Holm step's "
		     "level, %g%% for the table) and p\n%s",
		strempty(m->vary_property), m->vary_property ? " " : "", m->vary[0], 100 * m->level, markdown ? "\n" : "");
	markdown ? table_print_markdown(&t, out) : table_print_text(&t, out);
	table_done(&t);
	print_method(m, "the context's first value", m->family_first, !any_base_ratio(m), markdown, out);
	print_verdict_notes(m, true, markdown, out);
	fputc('\n', out);
	return 0;
}

/* The starts as a whole, then each failed one with its reason. */
static void print_failed_steps(const struct model *m, bool markdown, FILE *out)
{
	char buf[64], sentence[256];
	json_t *v;
	size_t i;

	report_starts_sentence(m, sentence, sizeof(sentence));
	fprintf(out, "%s%s; ", markdown ? "- " : "", sentence);
	report_busy_sentence(m, sentence, sizeof(sentence));
	fprintf(out, "%s\n\n", sentence);
	if (json_array_size(m->failures) == 0)
		return;
	fprintf(out, "failed steps:\n%s", markdown ? "\n" : "");
	json_array_foreach(m->failures, i, v) {
		char vb[64];
		const char *vary = scalar_str(json_object_get(v, "vary_value"), vb, sizeof(vb));

		fprintf(out, "%s%s%s%s threads=%s repeat=%s: %s\n", markdown ? "- " : "  ",
			strempty(json_string_value(json_object_get(v, "context"))), vary ? " " : "", strempty(vary),
			strempty(scalar_str(json_object_get(v, "threads"), buf, 32)),
			strempty(scalar_str(json_object_get(v, "repeat"), buf + 32, 32)),
			json_string_value(json_object_get(v, "reason")) ?: "(no reason recorded)");
	}
	fputc('\n', out);
}

static void print_placement_diffs(const struct model *m, bool markdown, FILE *out)
{
	const char *ctx, *key;
	json_t *d, *v;

	if (json_object_size(m->diffs) == 0)
		return;
	fprintf(out, "placement differences, %s | context (vary index 0, repeat 1):\n%s", m->baseline,
		markdown ? "\n" : "");
	json_object_foreach(m->diffs, ctx, d) {
		fprintf(out, "%s%s:%s\n", markdown ? "- " : "  ", ctx, json_object_size(d) ? "" : " no difference");
		json_object_foreach(d, key, v)
			fprintf(out, "%s%s: %s | %s\n", markdown ? "  - " : "    ", key,
				json_string_value(json_array_get(v, 0)) ?: GAP,
				json_string_value(json_array_get(v, 1)) ?: GAP);
	}
}

/* A report's parts in their order: the tables, the noisy steps, the failed
 * ones, the placement differences. */
/* After the tables: the calibration of the host the run was made on, as
 * run recorded it with the host facts (host.json's calibration), where a
 * ratio at its thread count is not significant. */
static void quote_calibration(const json_t *doc, const struct model *m, bool markdown, FILE *out)
{
	const json_t *j = json_object_get(json_object_get(doc, "host"), "calibration");
	struct calibration c;
	bool ns = false;

	if (!j || calibration_from_json(j, &c) < 0)
		return;
	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols && m->threads[row] == c.threads; k++) {
			const struct stats_ratio *v = &model_cell(m, row, k)->vs_base;

			ns |= !isnan(v->ratio) && v->verdict != STATS_SIGNIFICANT;
		}
	if (ns)
		fprintf(out, "%scalibrated: on this host the sigma between starts at %ld thread%s is %.1f%% (%.1f-%.1f%%), "
			     "slicebench calibrate's figure for %s of %s, measured %s; the verdicts' notes take this run's "
			     "own\n",
			markdown ? "\n" : "", c.threads, c.threads == 1 ? "" : "s", 100 * c.sigma, 100 * c.sigma_lo,
			100 * c.sigma_hi, c.context, c.experiment, c.date);
}

static int render_tables(const struct model *m, const struct report_options *o, bool markdown, FILE *out)
{
	enum metric list[REPORT_METRICS_MAX];
	size_t n = report_metric_list(o, list), i;
	char buf[160];
	int r;

	if (markdown)
		fprintf(out, "### %s\n\n", m->name);
	print_decisions(m, markdown, out);
	for (i = 0; i < n; i++) {
		struct table t;

		r = report_table(m, list[i], markdown ? 0 : table_width(), &t);
		if (r < 0)
			return r;
		if (markdown) {
			fprintf(out, "%s\n\n", report_table_caption(m, list[i], buf, sizeof(buf)));
			table_print_markdown(&t, out);
		} else {
			if (i == 0)
				fprintf(out, "%s: ", m->name);
			fprintf(out, "%s\n", report_table_caption(m, list[i], buf, sizeof(buf)));
			table_print_text(&t, out);
		}
		table_done(&t);
		if (i == 0 && any_base_ratio(m) && !m->seq.on) {
			print_method(m, m->baseline, m->family_base, true, markdown, out);
			print_places(m, markdown, out);
			print_verdict_notes(m, false, markdown, out);
		}
		if (i == 0)
			print_failure_counts(m, markdown, out);
		fputc('\n', out);
		if (i == 0 && m->any_vs_first && (r = print_vary_ratios(m, markdown, out)) < 0)
			return r;
		if (i == 0 && (r = render_open_loop_text(m, markdown, out)) < 0)
			return r;
		if (o->answer) {
			print_decisions_plan(m, markdown, out);
			return 0;
		}
	}
	r = print_noise(m, markdown, out);
	if (r < 0)
		return r;
	print_saturated(m, NULL, markdown, out);
	print_failed_steps(m, markdown, out);
	print_placement_diffs(m, markdown, out);
	print_decisions_plan(m, markdown, out);
	return 0;
}

/* Which build measured the results and which reports them: the first line. */
static void print_provenance(const struct model *m, FILE *out)
{
	char built[PROVENANCE_TEXT_MAX];

	fprintf(out, "%s\n\n", provenance_text(m->builds, built, sizeof(built)));
}

/* Laid out in table_width(): the tables fit it, the prose is wrapped. */
int render_text(const struct model *m, const json_t *doc, const struct report_options *o, FILE *out)
{
	struct text_wrap tw;
	int r = text_wrap_open(&tw, out);

	if (r < 0)
		return r;
	print_provenance(m, tw.mem);
	r = render_tables(m, o, false, tw.mem);
	if (r >= 0)
		quote_calibration(doc, m, false, tw.mem);
	if (r >= 0 && !o->answer)
		r = render_profile_text(m, false, tw.mem);
	return text_wrap_close(&tw, r);
}

int render_markdown(const struct model *m, const json_t *doc, const struct report_options *o, FILE *out)
{
	int r;

	print_provenance(m, out);
	r = render_tables(m, o, true, out);

	if (r >= 0)
		quote_calibration(doc, m, true, out);
	if (r >= 0)
		r = render_profile_text(m, true, out);
	return r;
}

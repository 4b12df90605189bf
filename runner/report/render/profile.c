/* The profile's renderers (doc/profile.md): in text and Markdown a short
 * table per comparison and the allocator's sentence, in JSON every figure
 * of every comparison; the page's differential flame graphs are
 * render/flame.c's. */
#include <math.h>

#include "common/util.h"
#include "report/judge/profiles.h"
#include "report/render/render.h"

/* The most rows of a comparison's text table: the JSON has every figure. */
#define PROFILE_TEXT_ROWS 10

static void figure_label(const struct profile_diff_item *it, char *buf, size_t len)
{
	switch (it->kind) {
	case PROFILE_ITEM_GROUP_LIBRARY:
		snprintf(buf, len, "%s in %s", it->name, strempty(it->library));
		break;
	case PROFILE_ITEM_LIBRARY:
		snprintf(buf, len, "library %s", it->name);
		break;
	case PROFILE_ITEM_OFF_CPU:
		snprintf(buf, len, "off-CPU: %s", it->name);
		break;
	default:
		(void)text_copy(buf, len, it->name); /* a label, cut to its column */
	}
}

/* "12.3% (10.1-14.5%)", "410 ms/s (380-440)", or without an interval. */
static void profile_side_text(const struct profile_side_figure *f, enum profile_item_kind kind, char *buf, size_t len)
{
	if (!profile_item_is_share(kind))
		snprintf(buf, len, isnan(f->lo) ? "%.0f ms/s" : "%.0f ms/s (%.0f-%.0f)", f->mean, f->lo, f->hi);
	else
		snprintf(buf, len, isnan(f->lo) ? "%.1f%%" : "%.1f%% (%.1f-%.1f%%)", 100 * f->mean, 100 * f->lo,
			 100 * f->hi);
}

static void profile_difference_text(const struct profile_diff_item *it, char *buf, size_t len)
{
	double k = profile_item_is_share(it->kind) ? 100 : 1;
	const char *unit = profile_item_is_share(it->kind) ? " points" : " ms/s";

	if (!it->tested)
		snprintf(buf, len, "%+.1f%s, not tested", k * it->diff, unit);
	else
		snprintf(buf, len, "%+.1f%s (%+.1f to %+.1f) p=%.2g%s", k * it->diff, unit, k * it->lo, k * it->hi, it->p,
			 it->significant ? "" : " n.s.");
}

static const struct profile_diff_item *profile_find(const struct profile_diff *d, enum profile_item_kind kind, const char *name)
{
	for (size_t i = 0; d && i < d->n; i++)
		if (d->items[i].kind == kind && streq(d->items[i].name, name))
			return &d->items[i];
	return NULL;
}

void profile_allocator_sentence(const struct model *m, size_t col, const struct cell_profile *cp, FILE *out)
{
	const struct profile_diff_item *it = profile_find(cp->vs_base, PROFILE_ITEM_GROUP,
							   profile_groups[PROFILE_GROUP_ALLOCATOR].name);
	char a[64], b[64], d[96];

	if (!it)
		return;
	profile_side_text(&it->a, it->kind, a, sizeof(a));
	profile_side_text(&it->b, it->kind, b, sizeof(b));
	profile_difference_text(it, d, sizeof(d));
	fprintf(out, "the allocator: %s of the server's CPU in %s (%s) against %s in %s (%s), %s\n", a,
		m->cols[col].label, it->top_library_a ? it->top_library_a : "no allocator seen", b,
		m->cols[m->cols[col].base].label, it->top_library_b ? it->top_library_b : "no allocator seen", d);
}

/* Whether figure i of d goes into the short table: a significant one, or
 * among the largest differences of those tested. */
static bool shown(const struct profile_diff *d, size_t i, size_t *shown_so_far)
{
	const struct profile_diff_item *it = &d->items[i];

	if (*shown_so_far >= PROFILE_TEXT_ROWS || !it->tested || it->kind == PROFILE_ITEM_GROUP_LIBRARY)
		return false;
	(*shown_so_far)++;
	return true;
}

int profile_table(const struct model *m, size_t col, const struct cell_profile *cp, struct table *t)
{
	size_t n = 0;

	*t = (struct table){ .ncols = 4, .left = 1 };
	table_add(t, "figure");
	table_add(t, "%s", m->cols[col].label);
	table_add(t, "%s", m->cols[m->cols[col].base].label);
	table_add(t, "difference");
	for (size_t i = 0; i < cp->vs_base->n; i++) {
		const struct profile_diff_item *it = &cp->vs_base->items[i];
		char label[256], a[64], b[64], d[96];

		if (!shown(cp->vs_base, i, &n))
			continue;
		figure_label(it, label, sizeof(label));
		profile_side_text(&it->a, it->kind, a, sizeof(a));
		profile_side_text(&it->b, it->kind, b, sizeof(b));
		profile_difference_text(it, d, sizeof(d));
		table_add(t, "%s", label);
		table_add(t, "%s", a);
		table_add(t, "%s", b);
		table_add(t, "%s", d);
	}
	return t->error;
}

void profile_caption(const struct model *m, FILE *out)
{
	fprintf(out, "profile of the server (doc/profile.md): the share of its on-CPU samples in each function "
		     "running when sampled (self time), library and group, and its waits off the CPU in ms a "
		     "second, from %zu profiled steps; means over the starts that count with %.0f%% intervals "
		     "(Student's, the start the unit), the difference Welch's, Holm-adjusted across the shares of "
		     "a comparison that are %.1f%% of the CPU or more in a side, and apart across its off-CPU "
		     "reasons of %.0f ms a second or more; the %d largest tested are shown, report --format json "
		     "has every figure\n",
		m->profiles->n_profiled, 100 * m->level, 100 * PROFILE_TEST_MIN_SHARE, PROFILE_TEST_MIN_MS,
		PROFILE_TEXT_ROWS);
}

int render_profile_text(const struct model *m, bool markdown, FILE *out)
{
	int r = 0;

	if (!m->profiles)
		return 0;
	fputc('\n', out);
	if (!m->profiles->n_profiled) {
		fprintf(out, "profile: none was taken: %s\n", strempty(m->profiles->why));
		return 0;
	}
	profile_caption(m, out);
	for (size_t c = 0; c < m->nrows * m->ncols && r >= 0; c++) {
		const struct cell_profile *cp = &m->profiles->cells[c];
		struct table t;

		if (!cp->vs_base)
			continue;
		fprintf(out, "%s%s vs %s at %lld %s (%zu and %zu starts, %zu shares and %zu off-CPU reasons tested)%s\n",
			markdown ? "\n**" : "\n", m->cols[c % m->ncols].label, m->cols[m->cols[c % m->ncols].base].label,
			m->threads[c / m->ncols], model_unit(m, m->threads[c / m->ncols]), cp->n,
			m->profiles->cells[c - c % m->ncols + (size_t)m->cols[c % m->ncols].base].n, cp->vs_base->family,
			cp->vs_base->family_off, markdown ? "**\n" : "");
		profile_allocator_sentence(m, c % m->ncols, cp, out);
		r = profile_table(m, c % m->ncols, cp, &t);
		if (r >= 0 && markdown)
			table_print_markdown(&t, out);
		else if (r >= 0)
			table_print_text(&t, out);
		table_done(&t);
	}
	return r;
}

static json_t *side_json(const struct profile_side_figure *f)
{
	return json_pack("{s:I, s:f, s:o, s:o}", "starts", (json_int_t)f->n, "mean", f->mean, "lo",
			 isnan(f->lo) ? json_null() : json_real(f->lo), "hi", isnan(f->hi) ? json_null() : json_real(f->hi));
}

static json_t *figure_json(const struct profile_diff_item *it)
{
	return json_pack("{s:s, s:s, s:s?, s:s, s:o, s:o, s:b, s:f, s:o, s:o, s:o, s:o, s:b, s:s?, s:s?}", "kind",
			 profile_item_kind_names[it->kind], "name", it->name, "library", it->library, "unit",
			 profile_item_is_share(it->kind) ? "share" : "ms_per_s", "a", side_json(&it->a), "b",
			 side_json(&it->b), "tested", it->tested, "difference", it->diff, "lo",
			 it->tested ? json_real(it->lo) : json_null(), "hi", it->tested ? json_real(it->hi) : json_null(),
			 "p", it->tested ? json_real(it->p) : json_null(), "p_raw",
			 it->tested ? json_real(it->p_raw) : json_null(), "significant", it->significant, "top_library_a",
			 it->top_library_a, "top_library_b", it->top_library_b);
}

static json_t *comparison_json(const struct model *m, size_t c, const struct cell_profile *cp)
{
	size_t col = c % m->ncols;
	json_t *figures = json_array(), *j;

	for (size_t i = 0; figures && i < cp->vs_base->n; i++)
		if (json_array_append_new(figures, figure_json(&cp->vs_base->items[i])) < 0) {
			json_decref(figures);
			return NULL;
		}
	j = json_pack("{s:s, s:s?, s:s, s:I, s:I, s:I, s:f, s:o}", "context", m->cols[col].context, "vary_value",
		      m->cols[col].vary, "against", m->cols[m->cols[col].base].label, "threads",
		      (json_int_t)m->threads[c / m->ncols], "family", (json_int_t)cp->vs_base->family, "family_off_cpu", (json_int_t)cp->vs_base->family_off, "level",
		      cp->vs_base->level, "figures", figures);
	return j;
}

json_t *render_profile_json(const struct model *m)
{
	json_t *j, *cells, *comparisons;

	if (!m->profiles)
		return NULL;
	j = json_pack("{s:I, s:s?, s:s, s:f, s:f, s:[], s:[]}", "steps_profiled", (json_int_t)m->profiles->n_profiled,
		      "why", m->profiles->why, "method",
		      "shares of the server's on-CPU samples by leaf; mean over starts, Student's interval; Welch's "
		      "difference, Holm across the figures of a comparison at or above the screen",
		      "screen_share", PROFILE_TEST_MIN_SHARE, "screen_ms_per_s", PROFILE_TEST_MIN_MS, "cells",
		      "comparisons");
	cells = json_object_get(j, "cells");
	comparisons = json_object_get(j, "comparisons");
	for (size_t c = 0; j && c < m->nrows * m->ncols; c++) {
		const struct cell_profile *cp = &m->profiles->cells[c];

		if (!cp->n)
			continue;
		if (json_array_append_new(cells, json_pack("{s:s, s:s?, s:I, s:I, s:f}", "context",
							   m->cols[c % m->ncols].context, "vary_value",
							   m->cols[c % m->ncols].vary, "threads",
							   (json_int_t)m->threads[c / m->ncols], "starts", (json_int_t)cp->n,
							   "server_samples_mean", cp->samples_mean)) < 0 ||
		    (cp->vs_base && json_array_append_new(comparisons, comparison_json(m, c, cp)) < 0)) {
			json_decref(j);
			return NULL;
		}
	}
	return j;
}

/* The text and Markdown renderers: a table of strings, aligned for a
 * terminal or piped for Markdown, per metric, then the failed steps and the
 * placement differences.  compare builds its tables with the same pieces. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "report/render.h"
#include "common/util.h"

/* ---- a table of strings, shared by the text and Markdown renderers ---- */

void table_add(struct table *t, const char *fmt, ...)
{
	char **p, *s = NULL;
	va_list ap;

	if (t->error)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	p = s ? realloc(t->cells, (t->n + 1) * sizeof(*p)) : NULL;
	if (!p) {
		free(s);
		t->error = -ENOMEM;
		return;
	}
	t->cells = p;
	t->cells[t->n++] = s;
}

void table_done(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
}

/* Terminal columns of UTF-8 text (no wide characters here). */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

void table_print_text(const struct table *t, FILE *out)
{
	size_t w[64] = {}, nc = MIN(t->ncols, ELEMENTSOF(w));

	for (size_t i = 0; i < t->n; i++)
		if (i % t->ncols < nc)
			w[i % t->ncols] = MAX(w[i % t->ncols], text_width(t->cells[i]));
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncols, pad = c < nc ? w[c] - text_width(t->cells[i]) : 0;

		/* The first column (threads, keys) reads left to right; numbers align right. */
		if (c < MAX(t->left, 1))
			fprintf(out, "%s%s%*s", c ? "  " : "", t->cells[i], (int)pad, "");
		else
			fprintf(out, "  %*s%s", (int)pad, "", t->cells[i]);
		if (c + 1 == t->ncols) {
			fputc('\n', out);
			if (i + 1 == t->ncols)
				for (size_t k = 0; k < t->ncols; k++)
					fprintf(out, "%s%.*s", k ? "  " : "", (int)w[k],
						"----------------------------------------------------------------");
			if (i + 1 == t->ncols)
				fputc('\n', out);
		}
	}
}

static void md_cell(const char *s, FILE *out)
{
	fputs("| ", out);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc(' ', out);
}

void table_print_markdown(const struct table *t, FILE *out)
{
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncols;

		md_cell(t->cells[i], out);
		if (c + 1 == t->ncols) {
			fputs("|\n", out);
			if (i + 1 == t->ncols)
				for (size_t k = 0; k < t->ncols; k++)
					fputs(k == 0 ? "|---" : "|---:", out);
			if (i + 1 == t->ncols)
				fputs("|\n", out);
		}
	}
}

/* ---- the tables of a report: content shared by text and Markdown ---- */

static void add_tps(struct table *t, const struct cell *c)
{
	if (c->n == 0)
		table_add(t, "%s", c->n_failed ? "failed" : GAP);
	else if (c->n == 1)
		table_add(t, "%.1f n=1", c->median);
	else
		table_add(t, "%.1f (%.1f..%.1f) n=%zu", c->median, c->min, c->max, c->n);
}

void add_ratio(struct table *t, const struct cell *c)
{
	if (isnan(c->ratio))
		table_add(t, GAP);
	else
		table_add(t, "%.2fx%s", c->ratio, c->significant ? "" : " (n.s.)");
}

static void add_number(struct table *t, double v, int decimals)
{
	if (isnan(v))
		table_add(t, GAP);
	else
		table_add(t, "%.*f", decimals, v);
}

enum metric { METRIC_TPS, METRIC_P95, METRIC_IDLE, METRIC_THROTTLED };

static int build_table(const struct model *m, enum metric what, struct table *t)
{
	*t = (struct table){ .ncols = 1 };
	for (size_t k = 0; k < m->ncols; k++)
		t->ncols += 1 + (what == METRIC_TPS && m->cols[k].base >= 0);
	table_add(t, "threads");
	for (size_t k = 0; k < m->ncols; k++) {
		table_add(t, "%s", m->cols[k].label);
		if (what == METRIC_TPS && m->cols[k].base >= 0)
			table_add(t, "ratio");
	}
	for (size_t r = 0; r < m->nrows; r++) {
		table_add(t, "%lld", m->threads[r]);
		for (size_t k = 0; k < m->ncols; k++) {
			const struct cell *c = model_cell(m, r, k);

			switch (what) {
			case METRIC_TPS:
				add_tps(t, c);
				if (m->cols[k].base >= 0)
					add_ratio(t, c);
				break;
			case METRIC_P95:
				add_number(t, c->p95_ms, 2);
				break;
			case METRIC_IDLE:
				add_number(t, c->idle_pct, 1);
				break;
			case METRIC_THROTTLED:
				add_number(t, c->throttled, 0);
				break;
			}
		}
	}
	if (t->error) {
		table_done(t);
		return t->error;
	}
	return 0;
}

static const char *metric_caption(const struct model *m, enum metric what, char *buf, size_t len)
{
	switch (what) {
	case METRIC_TPS:
		if (m->baseline)
			snprintf(buf, len, "TPS, median of the repeats (min..max) n=repeats; ratio to %s", m->baseline);
		else
			snprintf(buf, len, "TPS, median of the repeats (min..max) n=repeats");
		break;
	case METRIC_P95:
		snprintf(buf, len, "p95 latency (ms), median of the repeats");
		break;
	case METRIC_IDLE:
		snprintf(buf, len, "cpu idle %%, mean per step, median of the repeats");
		break;
	case METRIC_THROTTLED:
		snprintf(buf, len, "nr_throttled delta per step, median of the repeats");
		break;
	}
	return buf;
}

int render_tables(const struct model *m, const struct report_options *o, bool markdown, FILE *out)
{
	enum metric list[4] = { METRIC_TPS };
	size_t n = 1, i;
	const char *ctx, *key;
	json_t *d, *v;
	char buf[160];

	if (o->latency)
		list[n++] = METRIC_P95;
	if (o->telemetry) {
		list[n++] = METRIC_IDLE;
		list[n++] = METRIC_THROTTLED;
	}
	if (markdown)
		fprintf(out, "### %s\n\n", m->name);
	for (i = 0; i < n; i++) {
		struct table t;
		int r = build_table(m, list[i], &t);

		if (r < 0)
			return r;
		if (markdown) {
			fprintf(out, "%s\n\n", metric_caption(m, list[i], buf, sizeof(buf)));
			table_print_markdown(&t, out);
		} else {
			if (i == 0)
				fprintf(out, "%s: ", m->name);
			fprintf(out, "%s\n", metric_caption(m, list[i], buf, sizeof(buf)));
			table_print_text(&t, out);
		}
		table_done(&t);
		if (i == 0 && m->any_ns)
			fprintf(out, "%s(n.s.): the difference is within the run-to-run noise\n", markdown ? "\n" : "");
		fputc('\n', out);
	}
	if (json_array_size(m->failures) > 0) {
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
	if (json_object_size(m->diffs) > 0) {
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
	return 0;
}

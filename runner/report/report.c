/* The documents of report/: run's and compare's rows, each cell the model
 * built, judged, then rendered in its format; and what run and explain ask
 * of a document besides (its ratios, the rounds they need, its page). */
#include <math.h>
#include <stdio.h>

#include "report/judge/judge.h"
#include "report/judge/profiles.h"
#include "report/render/render.h"
#include "report/report.h"
#include "common/util.h"

/* r, or -EIO if out cannot be flushed. */
static int render_finish(int r, FILE *out)
{
	if (r < 0)
		return r;
	return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}

/* The model of in's one document, judged, rendered by render. */
static int run_document(const struct document_input *in, render_run_fn *render, FILE *out)
{
	struct model m = {};
	int r;

	if (!in->o || !out || in->n != 1)
		return -EINVAL;
	r = model_build(in->docs[0], report_level(in->o), &m);
	if (r >= 0)
		r = model_judge(&m);
	/* an open loop's latencies, judged as its TPS are */
	if (r >= 0)
		r = model_build_latency(&m, in->docs[0]);
	for (size_t i = 0; r >= 0 && i < MODEL_LATENCIES && m.open_loop.latency[i]; i++)
		r = model_judge(m.open_loop.latency[i]);
	if (r >= 0)
		r = model_decide(&m, in->docs[0], NULL, NULL);
	if (r >= 0)
		r = judge_profiles_build(&m, in->docs[0]);
	if (r >= 0)
		r = render(&m, in->docs[0], in->o, out);
	judge_profiles_free(&m);
	model_done(&m);
	return render_finish(r, out);
}

/* The comparison of in's documents, judged, rendered by render. */
static int compare_document(const struct document_input *in, render_compare_fn *render, FILE *out)
{
	struct comparison c;
	int r;

	if (!in->o || !out)
		return -EINVAL;
	r = comparison_build(in->docs, in->labels, in->n, report_level(in->o), &c);
	if (r >= 0)
		r = comparison_judge(&c, report_level(in->o));
	if (r >= 0)
		r = render(&c, in->o, out);
	comparison_done(&c);
	return render_finish(r, out);
}

/* A cell of a row: the document in one format, through its renderer. */
#define RUN_CELL(fmt)                                                                    \
	static int run_##fmt(const struct document_input *in, FILE *out, char **ret_why _unused_) \
	{                                                                                        \
		return run_document(in, render_##fmt, out);                                      \
	}
#define COMPARE_CELL(fmt)                                                                    \
	static int compare_##fmt##_cell(const struct document_input *in, FILE *out, char **ret_why _unused_) \
	{                                                                                            \
		return compare_document(in, compare_##fmt, out);                                     \
	}
RUN_CELL(text)
RUN_CELL(markdown)
RUN_CELL(csv)
RUN_CELL(json)
RUN_CELL(svg)
RUN_CELL(png)
RUN_CELL(html)
COMPARE_CELL(text)
COMPARE_CELL(markdown)
COMPARE_CELL(csv)
COMPARE_CELL(json)
COMPARE_CELL(html)

const struct document document_run = {
	.name = "run",
	.of = "a results directory",
	.format = {
		[REPORT_TEXT] = run_text,
		[REPORT_MARKDOWN] = run_markdown,
		[REPORT_CSV] = run_csv,
		[REPORT_JSON] = run_json,
		[REPORT_SVG] = run_svg,
		[REPORT_PNG] = run_png,
		[REPORT_HTML] = run_html,
	},
};

const struct document document_compare = {
	.name = "compare",
	.of = "results directories of one experiment from several hosts",
	.format = {
		[REPORT_TEXT] = compare_text_cell,
		[REPORT_MARKDOWN] = compare_markdown_cell,
		[REPORT_CSV] = compare_csv_cell,
		[REPORT_JSON] = compare_json_cell,
		[REPORT_HTML] = compare_html_cell,
	},
};

const char *document_formats(const struct document *d, const char *sep, const char *last_sep, char *buf, size_t len)
{
	size_t n = 0, k = 0, at = 0;

	for (int f = 0; f < _REPORT_FORMAT_MAX; f++)
		n += !!d->format[f];
	buf[0] = 0;
	for (int f = 0; f < _REPORT_FORMAT_MAX && at < len; f++)
		if (d->format[f]) {
			k++;
			at += (size_t)snprintf(buf + at, len - at, "%s%s", k == 1 ? "" : k == n ? last_sep : sep,
					       report_format_to_string((enum report_format)f));
		}
	return buf;
}

int document_render(const struct document *d, const struct document_input *in, FILE *out, char **ret_why)
{
	const struct report_options *o = in->o;

	if (!o || (unsigned)o->format >= _REPORT_FORMAT_MAX || !d->format[o->format])
		return -EINVAL;
	return d->format[o->format](in, out, ret_why);
}

int report_render(const json_t *doc, const struct report_options *o, FILE *out)
{
	json_t *docs[] = { (json_t *)doc };
	struct document_input in = { .docs = docs, .n = 1, .o = o };

	return document_render(&document_run, &in, out, NULL);
}

int compare_render(json_t *const *docs, const char *const *labels, size_t n, const struct report_options *o,
		   FILE *out)
{
	struct document_input in = { .docs = docs, .labels = labels, .n = n, .o = o };

	if (!o || (unsigned)o->format >= _REPORT_FORMAT_MAX)
		return -EINVAL;
	if (!document_compare.format[o->format])
		return -EOPNOTSUPP;
	return document_compare.format[o->format](&in, out, NULL);
}

int report_comparisons(const json_t *doc, double level, struct report_comparison **ret, size_t *ret_n)
{
	struct report_comparison *list;
	struct model m = {};
	size_t n = 0;
	int r;

	r = model_build(doc, level, &m);
	if (r >= 0)
		r = model_judge(&m);
	if (r < 0) {
		model_done(&m);
		return r;
	}
	list = calloc(m.nrows * m.ncols + 1, sizeof(*list));
	if (!list) {
		model_done(&m);
		return -ENOMEM;
	}
	for (size_t k = 0; k < m.ncols; k++)
		for (size_t row = 0; row < m.nrows && m.cols[k].base >= 0; row++) {
			struct report_comparison *c = &list[n++];

			(void)text_copy(c->context, sizeof(c->context), strempty(m.cols[k].context));
			(void)text_copy(c->vary, sizeof(c->vary), strempty(m.cols[k].vary));
			c->threads = m.threads[row];
			c->r = model_cell(&m, row, k)->vs_base;
		}
	model_done(&m);
	*ret = list;
	*ret_n = n;
	return 0;
}

int report_rounds_needed(const json_t *doc, double level, double until, unsigned *ret)
{
	_cleanup_free_ struct report_comparison *list = NULL;
	unsigned most = 0;
	size_t n;
	int r;

	/* The ratios to the baseline are those of report_comparisons(): a
	 * column without a baseline has none. */
	r = report_comparisons(doc, level, &list, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		const struct stats_ratio *v = &list[i].r;

		/* The pilot's own sigma and degrees of freedom, before any
		 * adjustment: the target is each ratio's own interval. */
		if (!isnan(v->ratio))
			most = MAX(most, stats_rounds_for_width(v->sigma, v->df, level, log1p(until)));
	}
	*ret = most;
	return 0;
}

int report_write_page(const json_t *doc, const char *dir, double level, char **ret_path)
{
	struct report_options o = { .format = REPORT_HTML, .confidence = level, .source = dir };
	_cleanup_free_ char *text = NULL, *path = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int r;

	if (!mem)
		return -ENOMEM;
	r = report_render(doc, &o, mem);
	if (fclose(mem) != 0 && r >= 0)
		r = -ENOMEM;
	if (r >= 0)
		r = xasprintf(&path, "%s/" REPORT_PAGE, dir);
	if (r >= 0)
		r = write_file_atomic(path, text, len);
	if (r >= 0 && ret_path) {
		*ret_path = path;
		path = NULL;
	}
	return r < 0 ? r : 0;
}

int report_look(const json_t *doc, double level, unsigned round, bool final, const char *const *names, size_t n,
		bool *ret_open)
{
	const struct model_look extra = { .round = round, .final = final };
	_cleanup_free_ bool *open = NULL;
	struct model m = {};
	int r = model_build(doc, level, &m);

	if (r >= 0)
		r = model_judge_ratios(&m);
	if (r >= 0 && !(open = calloc(m.ncols + 1, sizeof(bool))))
		r = -ENOMEM;
	if (r >= 0)
		r = model_decide(&m, doc, &extra, open);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		ret_open[i] = false;
		for (size_t k = 0; k < m.ncols; k++)
			ret_open[i] |= streq_ptr(m.cols[k].context, names[i]) && open[k];
	}
	model_done(&m);
	return r;
}

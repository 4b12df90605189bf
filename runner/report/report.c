/* The report's entry points: the format names, and report_render(), which
 * builds the model once and hands it to the format's renderer. */
#include <math.h>
#include <stdio.h>

#include "store/provenance.h"
#include "report/render.h"
#include "report/report.h"
#include "common/util.h"

const struct word report_format_words[] = {
	{ "text", REPORT_TEXT }, { "markdown", REPORT_MARKDOWN }, { "csv", REPORT_CSV }, { "json", REPORT_JSON },
	{ "svg", REPORT_SVG },	 { "png", REPORT_PNG },		  { "md", REPORT_MARKDOWN }, {},
};

const struct word report_page_format_words[] = {
	{ "text", REPORT_TEXT }, { "markdown", REPORT_MARKDOWN }, { "csv", REPORT_CSV }, { "json", REPORT_JSON },
	{ "svg", REPORT_SVG },	 { "png", REPORT_PNG },		  { "html", REPORT_HTML },   { "md", REPORT_MARKDOWN },
	{},
};

int report_format_from_string(const char *s, enum report_format *ret)
{
	int v, r = word_lookup(report_format_words, s, &v);

	if (r >= 0)
		*ret = (enum report_format)v;
	return r;
}

const char *report_format_to_string(enum report_format f)
{
	return word_name(report_page_format_words, (int)f);
}

double report_level(const struct report_options *o)
{
	return o->confidence ? o->confidence : STATS_CONFIDENCE_DEFAULT;
}

int render_finish(int r, FILE *out)
{
	if (r < 0)
		return r;
	return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}

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

int report_render(const json_t *doc, const struct report_options *o, FILE *out)
{
	char built[PROVENANCE_TEXT_MAX];
	struct model m;
	int r;

	if (!o || !out || !report_format_to_string(o->format))
		return -EINVAL;
	r = model_build(doc, report_level(o), &m);
	if (r < 0)
		return r;
	switch (o->format) {
	case REPORT_TEXT:
	case REPORT_MARKDOWN:
		fprintf(out, "%s\n\n", provenance_text(m.builds, built, sizeof(built)));
		r = render_tables(&m, o, o->format == REPORT_MARKDOWN, out);
		if (r >= 0)
			quote_calibration(doc, &m, o->format == REPORT_MARKDOWN, out);
		break;
	case REPORT_CSV:
		r = render_csv(&m, o, out);
		break;
	case REPORT_JSON:
		r = render_json(&m, o, out);
		break;
	case REPORT_SVG:
	case REPORT_PNG:
		r = render_plot(&m, o->format == REPORT_PNG, provenance_text(m.builds, built, sizeof(built)), out);
		break;
	case REPORT_HTML:
		r = render_html(&m, doc, o, out);
		break;
	}
	model_done(&m);
	return render_finish(r, out);
}

int report_comparisons(const json_t *doc, double level, struct report_comparison **ret, size_t *ret_n)
{
	struct report_comparison *list;
	struct model m;
	size_t n = 0;
	int r;

	r = model_build(doc, level, &m);
	if (r < 0)
		return r;
	list = calloc(m.nrows * m.ncols + 1, sizeof(*list));
	if (!list) {
		model_done(&m);
		return -ENOMEM;
	}
	for (size_t k = 0; k < m.ncols; k++)
		for (size_t row = 0; row < m.nrows && m.cols[k].base >= 0; row++) {
			struct report_comparison *c = &list[n++];

			snprintf(c->context, sizeof(c->context), "%s", strempty(m.cols[k].context));
			snprintf(c->vary, sizeof(c->vary), "%s", strempty(m.cols[k].vary));
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

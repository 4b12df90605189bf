/* compare as one HTML page (report/model/comparison.h): the ratios of every host
 * side by side as a figure (each host's ratio to its own baseline with its
 * interval, a row per context and thread count, on a log scale), the
 * tables of ratios and median TPS, and the host facts, those that differ
 * marked. */
#include <math.h>
#include <stdio.h>

#include "store/provenance.h"
#include "report/model/comparison.h"
#include "report/render/html.h"
#include "report/render/cells.h"
#include "common/util.h"

#define FOREST_W 900
#define FOREST_LABEL 240
#define FOREST_ROW 22

/* The range of every host's ratio and interval, as log ratios around 0. */
static bool forest_range(const struct host_model *h, double *lo, double *hi)
{
	bool any = false;

	*lo = log(0.8);
	*hi = log(1.25);
	for (size_t i = 0; i < h->nrows; i++)
		for (size_t d = 0; d < h->n; d++) {
			const struct stats_ratio *v = &h->rows[i].ratio[d];

			if (isnan(v->ratio))
				continue;
			any = true;
			*lo = MIN(*lo, log(isnan(v->lo) ? v->ratio : v->lo));
			*hi = MAX(*hi, log(isnan(v->hi) ? v->ratio : v->hi));
		}
	*lo = MAX(*lo, log(0.01));
	*hi = MIN(*hi, log(100));
	return any;
}

static double forest_x(double lo, double hi, double ratio)
{
	double v = MAX(lo, MIN(hi, log(ratio)));

	return FOREST_LABEL + 10 + (v - lo) / (hi - lo) * (FOREST_W - FOREST_LABEL - 30);
}

/* One row: each host's ratio, a point (ringed where it differs from the
 * first host's), and its interval, a line. */
static void forest_row(FILE *out, const struct host_model *h, const struct host_row *row, double y, double lo,
		       double hi)
{
	fprintf(out, "<g class=\"row\"><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", FOREST_LABEL, y + 4);
	html_printf(out, "%s, %lld thread%s", row->column, row->threads, row->threads == 1 ? "" : "s");
	fputs("</text>", out);
	for (size_t d = 0; d < h->n; d++) {
		const struct stats_ratio *v = &row->ratio[d];
		const char *colour = html_colour(d, NULL);
		double dy = y + ((double)d - (double)(h->n - 1) / 2) * MIN(5.0, 16.0 / (double)h->n);
		bool differs = d > 0 && row->differ[d].verdict == STATS_SIGNIFICANT && !isnan(row->differ[d].ratio);
		char text[REPORT_RATIO_MAX];

		if (isnan(v->ratio))
			continue;
		if (!isnan(v->lo))
			fprintf(out, "<path stroke=\"%s\" d=\"M%.1f %.1fH%.1f\"/>", colour, forest_x(lo, hi, v->lo), dy,
				forest_x(lo, hi, v->hi));
		fprintf(out, "<circle class=\"ratio%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"%s><title>",
			differs ? " differs" : "", forest_x(lo, hi, v->ratio), dy, differs ? "5" : "3.5", colour,
			differs ? " stroke=\"#000\"" : "");
		html_printf(out, "%s: %s", h->labels[d], report_format_ratio(v, text, sizeof(text)));
		if (differs)
			html_printf(out, "; %s over %s: %s", h->labels[d], h->labels[0],
				    report_format_ratio(&row->differ[d], text, sizeof(text)));
		fputs("</title></circle>", out);
	}
	fputs("</g>\n", out);
}

static void compare_forest(FILE *out, const struct comparison *c)
{
	const struct host_model *h = &c->inter;
	double lo, hi, h_px = 50 + FOREST_ROW * (double)h->nrows;

	fputs("<h2 id=\"ratios-h\">Each host's ratio to its own baseline</h2>\n", out);
	if (!forest_range(h, &lo, &hi)) {
		html_no_figure(out, "no ratio on any host: nothing to plot");
		return;
	}
	fprintf(out, "<div class=\"scroll\"><svg id=\"forest\" class=\"figure\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d "
		     "%.0f\">\n<g class=\"grid\">", FOREST_W, h_px, FOREST_W, h_px);
	for (double r = 0.01; r <= 100; r *= 10)
		for (int k = 1; k <= 5; k += k == 1 ? 1 : 3)
			if (log(r * k) >= lo && log(r * k) <= hi)
				fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"20\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"14\" "
					     "text-anchor=\"middle\">%gx</text>",
					forest_x(lo, hi, r * k), forest_x(lo, hi, r * k), h_px - 10, forest_x(lo, hi, r * k), r * k);
	fprintf(out, "</g><path class=\"axis\" d=\"M%.1f 20V%.1f\"/>\n", forest_x(lo, hi, 1), h_px - 10);
	for (size_t i = 0; i < h->nrows; i++)
		forest_row(out, h, &h->rows[i], 30 + FOREST_ROW * ((double)i + 0.5), lo, hi);
	fputs("</svg></div>\n<p class=\"note\">", out);
	for (size_t d = 0; d < c->n; d++) {
		fprintf(out, "<span class=\"sw\" style=\"background:%s\"></span>", html_colour(d, NULL));
		html_text(out, c->labels[d]);
		fputs(" &nbsp; ", out);
	}
	fputs("<br>Each point a host's ratio from the model of every host's rounds (host x context + round within "
	      "host), its line the interval; ringed: it differs from the first host's (Holm); hover for the numbers.</p>\n",
	      out);
}

/* The table of ratios (or of median TPS), a column per document. */
static void compare_table(FILE *out, const struct comparison *c, bool ratios, const char *id)
{
	char text[REPORT_RATIO_MAX];

	fprintf(out, "<div class=\"scroll\"><table class=\"sortable\" id=\"%s\"><thead><tr><th>threads</th>"
		     "<th class=\"l\">context</th>", id);
	for (size_t d = 0; d < c->n; d++) {
		fputs("<th>", out);
		html_text(out, c->labels[d]);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (size_t row = 0; row < c->nrows; row++)
		for (size_t col = 0; col < c->ncols; col++) {
			fprintf(out, "<tr><td>%lld</td><td class=\"l\">", c->threads[row]);
			html_text(out, c->cols[col]);
			fputs("</td>", out);
			for (size_t d = 0; d < c->n; d++) {
				const struct cell *x = comparison_cell(c, d, row, col);

				if (!x || x->n == 0)
					fprintf(out, "<td>%s</td>", x && x->n_failed ? "failed" : GAP);
				else if (!ratios)
					fprintf(out, "<td>%.1f</td>", x->median);
				else if (isnan(cell_ratio(x)))
					fprintf(out, "<td>%s</td>", c->m[d].cols[col].is_baseline ? "baseline" : GAP);
				else
					fprintf(out, "<td class=\"%s\">%s</td>", cell_significant(x) ? "v" : "",
						report_format_ratio(&x->vs_base, text, sizeof(text)));
			}
			fputs("</tr>\n", out);
		}
	fputs("</tbody></table></div>\n", out);
}

/* rows of keys x documents, a row whose values differ marked. */
static void compare_facts_table(FILE *out, const struct comparison *c, const char *id, size_t nkeys,
				const char *(*key)(const struct comparison *c, size_t k), char *const *values)
{
	fprintf(out, "<div class=\"scroll\"><table id=\"%s\"><thead><tr><th>fact</th>", id);
	for (size_t d = 0; d < c->n; d++) {
		fputs("<th class=\"l\">", out);
		html_text(out, c->labels[d]);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (size_t k = 0; k < nkeys; k++) {
		bool differs = host_fact_differs(&values[k * c->n], c->n);

		fprintf(out, "<tr class=\"%s\"><td>", differs ? "differs fail" : "same");
		html_text(out, key(c, k));
		for (size_t d = 0; d < c->n; d++) {
			fputs("</td><td class=\"l wrap\">", out);
			html_text(out, values[k * c->n + d] ?: GAP);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
}

static const char *fact_key(const struct comparison *c _unused_, size_t k)
{
	return host_fact_key(k);
}

static const char *other_key(const struct comparison *c, size_t k)
{
	return c->keys[k];
}

/* Whether the hosts differ, and the saturated steps: compare's own
 * sentences (render/hosts.c), word for word. */
static int compare_sentences(FILE *out, const struct comparison *c)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int r = mem ? 0 : -ENOMEM;

	if (r >= 0 && c->inter.n)
		r = hosts_text(&c->inter, c->m[0].baseline, false, mem);
	for (size_t d = 0; r >= 0 && d < c->n; d++)
		print_saturated(&c->m[d], c->labels[d], false, mem);
	if (mem && fclose(mem) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	fputs("<h2 id=\"differ-h\">Do the hosts differ?</h2>\n<pre id=\"differ\">", out);
	html_text(out, len ? text : "one host: nothing to compare\n");
	fputs("</pre>\n", out);
	return 0;
}

int compare_html(const struct comparison *c, const struct report_options *o _unused_, FILE *out)
{
	_cleanup_free_ char *title = NULL;
	char built[PROVENANCE_TEXT_MAX];
	int r;

	if (xasprintf(&title, "slicebench compare: %s", c->m[0].name) < 0)
		return -ENOMEM;
	html_begin(out, title);
	fputs("<h1>", out);
	html_printf(out, "%s on %zu hosts", c->m[0].name, c->n);
	fputs("</h1>\n<p class=\"note\">", out);
	html_printf(out, "The ratio of each context to each host's own baseline (%s), with its interval and p, as each "
			 "host's report gives them: Holm-adjusted across its table, each interval at its Holm step's "
			 "level (%g%% for the table as a whole).",
		    strempty(c->m[0].baseline), 100 * c->m[0].level);
	fputs("</p>\n<ul class=\"note\" id=\"provenance\">", out);
	for (size_t d = 0; d < c->n; d++) {
		fputs("<li>", out);
		html_printf(out, "%s: %s", c->labels[d], provenance_text(c->m[d].builds, built, sizeof(built)));
		fputs("</li>", out);
	}
	fputs("</ul>\n", out);
	compare_forest(out, c);
	compare_table(out, c, true, "ratios");
	r = compare_sentences(out, c);
	if (r < 0)
		return r;
	fputs("<h2 id=\"tps-h\">Median TPS</h2>\n", out);
	compare_table(out, c, false, "tps");
	fputs("<h2 id=\"host-h\">The host facts that decide a comparison</h2>\n", out);
	compare_facts_table(out, c, "host-facts", HOST_FACTS_N, fact_key, c->facts);
	fputs("<h2 id=\"other-h\">Other host facts that differ</h2>\n", out);
	if (c->nkeys == 0)
		fputs("<p>None.</p>\n", out);
	else
		compare_facts_table(out, c, "host-diffs", c->nkeys, other_key, c->values);
	html_end(out);
	return 0;
}

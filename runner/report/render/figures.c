/* The run page's figures (report/render/html.h), SVG written by hand: every mark
 * an element with a class, every point its value as a <title>, so that
 * hovering shows it without a script. */
#include <math.h>
#include <stdio.h>

#include "report/render/page.h"
#include "common/util.h"

/* The page's figure is as wide as its plot (the legend is HTML under it,
 * which wraps on a narrow screen); a standalone SVG carries its legend at
 * the right. */
#define TPS_W 650
#define TPS_H 400
#define LEGEND_W 210

struct frame {
	double left, right, top, bottom;
	double xmin, xmax, ymax;
	double dodge, inset; /* between the columns at a thread count, and the margin their spread needs */
};

static double fx(const struct frame *f, double x)
{
	if (f->xmax - f->xmin < 1e-9)
		return (f->left + f->right) / 2;
	return f->left + f->inset + (x - f->xmin) / (f->xmax - f->xmin) * (f->right - f->left - 2 * f->inset);
}

static double fy(const struct frame *f, double y)
{
	return f->bottom - y / f->ymax * (f->bottom - f->top);
}

static double thread_x(const struct model *m, size_t row)
{
	return log2((double)MAX(m->threads[row], 1));
}

bool figure_band(const struct model *m, size_t row, size_t k, double *lo, double *hi)
{
	const struct cell *c = model_cell(m, row, k);
	double sigma = NAN, df = NAN, mean = 0, half;

	for (size_t j = 0; j < m->ncols && isnan(sigma); j++) {
		const struct stats_ratio *v = &model_cell(m, row, j)->vs_base;

		if (!isnan(v->sigma) && !isnan(v->df) && v->df > 0)
			sigma = v->sigma, df = v->df;
	}
	if (isnan(sigma) || c->n == 0)
		return false;
	for (size_t i = 0; i < c->n; i++)
		mean += log(c->tps[i]) / (double)c->n;
	half = stats_t_critical(m->level, df) * sigma / sqrt((double)c->n);
	*lo = exp(mean - half);
	*hi = exp(mean + half);
	return isfinite(*lo) && isfinite(*hi);
}

/* The ranges of the cells and their bands; false when no cell has TPS. */
static bool measure(const struct model *m, struct frame *f)
{
	double lo, hi;
	bool any = false;

	*f = (struct frame){ .left = 70, .right = TPS_W - 20, .top = 20, .bottom = TPS_H - 50,
			     .xmin = INFINITY, .xmax = -INFINITY };
	for (size_t r = 0; r < m->nrows; r++) {
		f->xmin = MIN(f->xmin, thread_x(m, r));
		f->xmax = MAX(f->xmax, thread_x(m, r));
		for (size_t k = 0; k < m->ncols; k++) {
			const struct cell *c = model_cell(m, r, k);

			if (c->n == 0)
				continue;
			any = true;
			f->ymax = MAX(f->ymax, c->max);
			if (figure_band(m, r, k, &lo, &hi))
				f->ymax = MAX(f->ymax, hi);
		}
	}
	/* The columns side by side at each thread count, within 70% of the
	 * room between two of them, and the frame's margin wide enough for
	 * the spread. */
	f->dodge = MIN(14.0, 0.7 * (f->right - f->left - 40) / (double)MAX(m->nrows, 2) * (m->nrows > 1 ? 1 : 2) /
				     (double)MAX(m->ncols, 1));
	f->inset = MAX(20.0, f->dodge * (double)(m->ncols - 1) / 2 + 6);
	return any;
}

static void draw_axes(FILE *out, const struct model *m, struct frame *f)
{
	double step = html_nice_step(f->ymax * 1.05);

	f->ymax = ceil(f->ymax * 1.05 / step) * step;
	fputs("<g class=\"grid\">", out);
	for (double y = 0; y <= f->ymax + step / 2; y += step)
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
			     "text-anchor=\"end\">%g</text>",
			f->left, f->right, fy(f, y), fy(f, y), f->left - 6, fy(f, y) + 4, y);
	fputs("</g>\n", out);
	for (size_t r = 0; r < m->nrows; r++)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%lld</text>", fx(f, thread_x(m, r)),
			f->bottom + 16, m->threads[r]);
	fprintf(out, "<rect class=\"axis\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", f->left, f->top,
		f->right - f->left, f->bottom - f->top);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">threads (log2)</text>\n",
		(f->left + f->right) / 2, f->bottom + 36);
	fprintf(out, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">TPS</text>\n",
		(f->top + f->bottom) / 2);
}

/* Column k's band, median line, repeats and, with legend, its entry. */
static void draw_series(FILE *out, const struct model *m, const struct frame *f, size_t k, bool legend)
{
	bool dashed, pen = false;
	const char *colour = html_colour(k, &dashed);
	double lo, hi, off = ((double)k - (double)(m->ncols - 1) / 2) * f->dodge;

	fprintf(out, "<g class=\"column\" id=\"column-%zu\">", k);
	for (size_t r = 0; r < m->nrows; r++)
		if (figure_band(m, r, k, &lo, &hi))
			fprintf(out, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"%.1f\" fill=\"%s\" "
				     "fill-opacity=\"0.22\"><title>%g%% interval of the mean: %.1f-%.1f TPS</title></rect>",
				fx(f, thread_x(m, r)) + off - 4, fy(f, hi), fy(f, lo) - fy(f, hi), colour, 100 * m->level, lo, hi);
	fprintf(out, "<path class=\"series\" stroke=\"%s\"%s d=\"", colour, dashed ? " stroke-dasharray=\"6 3\"" : "");
	for (size_t r = 0; r < m->nrows; r++) {
		const struct cell *c = model_cell(m, r, k);

		if (c->n == 0) {
			pen = false;
			continue;
		}
		fprintf(out, "%s%.1f %.1f ", pen ? "L" : "M", fx(f, thread_x(m, r)) + off, fy(f, c->median));
		pen = true;
	}
	fputs("\"/>", out);
	for (size_t r = 0; r < m->nrows; r++) {
		const struct cell *c = model_cell(m, r, k);

		for (size_t i = 0; i < c->n; i++) {
			fprintf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", fx(f, thread_x(m, r)) + off,
				fy(f, c->tps[i]), colour);
			html_printf(out, "%s, %lld threads, round %u: %.1f TPS", m->cols[k].label, m->threads[r], c->round[i],
				    c->tps[i]);
			fputs("</title></circle>", out);
		}
	}
	if (legend) {
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
			f->right + 14, f->top + 16.0 * (double)k, colour, f->right + 32, f->top + 16.0 * (double)k + 10);
		html_text(out, m->cols[k].label);
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

const char *figure_band_text(const struct model *m, char *buf, size_t len)
{
	snprintf(buf, len, "Each point a repeat, the line through the medians, the band the %g%% interval of the mean TPS "
			   "from the model's residual sigma.", 100 * m->level);
	return buf;
}

void page_tps(FILE *out, const struct model *m)
{
	char caption[200];
	struct frame f;
	bool dashed;

	fputs("<h2 id=\"tps-h\">TPS against threads</h2>\n", out);
	if (!measure(m, &f)) {
		html_no_figure(out, "no step completed a transaction: nothing to plot");
		return;
	}
	fprintf(out, "<svg id=\"tps\" class=\"figure\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		     "aria-label=\"TPS against threads\">\n",
		TPS_W, TPS_H, TPS_W, TPS_H);
	draw_axes(out, m, &f);
	for (size_t k = 0; k < m->ncols; k++)
		draw_series(out, m, &f, k, false);
	fputs("</svg>\n<ul class=\"legend\" id=\"tps-legend\">", out);
	for (size_t k = 0; k < m->ncols; k++) {
		fprintf(out, "<li><span class=\"sw\" style=\"background:%s\"></span>", html_colour(k, &dashed));
		html_text(out, m->cols[k].label);
		fputs("</li>", out);
	}
	fputs("</ul>\n<p class=\"note\" id=\"tps-band\">", out);
	html_text(out, figure_band_text(m, caption, sizeof(caption)));
	fputs(" Hover a point for its value.</p>\n", out);
}

int figure_tps_svg(const struct model *m, const char *provenance, FILE *out)
{
	char caption[200];
	struct frame f;
	double w, h;

	w = TPS_W + LEGEND_W;
	if (!measure(m, &f)) {
		fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
			     "width=\"%.0f\" height=\"60\"><text x=\"10\" y=\"30\">", w);
		html_printf(out, "%s: no step completed a transaction: nothing to plot", m->name);
		fputs("</text></svg>\n", out);
		return 0;
	}
	h = MAX(TPS_H + 50, f.top + 16.0 * (double)m->ncols + 10);
	/* The page's style for its figures, and text as text: searchable,
	 * selectable, and the same words as the page's. */
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		     "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<style>%s</style>\n"
		     "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n<title>",
		w, h, w, h, html_svg_style);
	html_printf(out, "%s: TPS against threads", m->name);
	fputs("</title>\n", out);
	draw_axes(out, m, &f);
	for (size_t k = 0; k < m->ncols; k++)
		draw_series(out, m, &f, k, true);
	fprintf(out, "<text x=\"10\" y=\"%.0f\">", h - 26);
	html_text(out, figure_band_text(m, caption, sizeof(caption)));
	fprintf(out, "</text>\n<text x=\"10\" y=\"%.0f\">", h - 10);
	html_printf(out, "%s: %s", m->name, provenance);
	fputs("</text>\n</svg>\n", out);
	return 0;
}

/* The SVG and PNG renderer: TPS against threads (log2), one line per
 * column, the spread of the repeats as a bar, drawn with cairo. */
#include <math.h>
#include <stdio.h>

#include <cairo-svg.h>
#include <cairo.h>

#include "report/render.h"
#include "common/util.h"

#define PLOT_W 820
#define PLOT_H 480

static const double palette[][3] = {
	{ 0.12, 0.47, 0.71 }, { 1.00, 0.50, 0.05 }, { 0.17, 0.63, 0.17 }, { 0.84, 0.15, 0.16 },
	{ 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 }, { 0.89, 0.47, 0.76 }, { 0.50, 0.50, 0.50 },
};

static double nice_step(double range)
{
	double raw = range / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void plot(const struct model *m, cairo_t *cr)
{
	double left = 80, top = 50, bottom = PLOT_H - 60, legend_w = 0, right, ymax = 0, step;
	double xmin = INFINITY, xmax = -INFINITY;
	cairo_text_extents_t e;
	char buf[64];

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 12);
	for (size_t k = 0; k < m->ncols; k++) {
		cairo_text_extents(cr, m->cols[k].label, &e);
		legend_w = MAX(legend_w, e.x_advance + 40);
	}
	right = PLOT_W - 20 - legend_w;
	for (size_t r = 0; r < m->nrows; r++) {
		double x = log2((double)MAX(m->threads[r], 1));

		xmin = MIN(xmin, x);
		xmax = MAX(xmax, x);
		for (size_t k = 0; k < m->ncols; k++)
			if (model_cell(m, r, k)->n > 0)
				ymax = MAX(ymax, model_cell(m, r, k)->max);
	}
	if (m->nrows == 0)
		xmin = 0, xmax = 1;
	if (xmax - xmin < 1e-9)
		xmin -= 0.5, xmax += 0.5;
	if (!(ymax > 0))
		ymax = 1;
	step = nice_step(ymax * 1.05);
	ymax = ceil(ymax * 1.05 / step) * step;

#define PX(x) (left + 20 + ((x) - xmin) / (xmax - xmin) * (right - left - 40))
#define PY(y) (bottom - (y) / ymax * (bottom - top))

	/* title */
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, 16);
	cairo_text_extents(cr, m->name, &e);
	cairo_move_to(cr, (left + right) / 2 - e.x_advance / 2, 30);
	cairo_show_text(cr, m->name);

	/* axes, grid and ticks */
	cairo_set_font_size(cr, 11);
	cairo_set_line_width(cr, 1);
	for (double y = 0; y <= ymax + step / 2; y += step) {
		cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
		cairo_move_to(cr, left, PY(y));
		cairo_line_to(cr, right, PY(y));
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(buf, sizeof(buf), "%g", y);
		cairo_text_extents(cr, buf, &e);
		cairo_move_to(cr, left - 6 - e.x_advance, PY(y) + 4);
		cairo_show_text(cr, buf);
	}
	for (size_t r = 0; r < m->nrows; r++) {
		double x = PX(log2((double)MAX(m->threads[r], 1)));

		cairo_move_to(cr, x, bottom);
		cairo_line_to(cr, x, bottom + 5);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), "%lld", m->threads[r]);
		cairo_text_extents(cr, buf, &e);
		cairo_move_to(cr, x - e.x_advance / 2, bottom + 18);
		cairo_show_text(cr, buf);
	}
	cairo_rectangle(cr, left, top, right - left, bottom - top);
	cairo_stroke(cr);
	cairo_set_font_size(cr, 12);
	cairo_text_extents(cr, "threads (log2)", &e);
	cairo_move_to(cr, (left + right) / 2 - e.x_advance / 2, bottom + 40);
	cairo_show_text(cr, "threads (log2)");
	cairo_save(cr);
	cairo_text_extents(cr, "TPS (median of repeats)", &e);
	cairo_move_to(cr, 22, (top + bottom) / 2 + e.x_advance / 2);
	cairo_rotate(cr, -M_PI / 2);
	cairo_show_text(cr, "TPS (median of repeats)");
	cairo_restore(cr);

	/* one line per column; a cell without a value breaks it */
	for (size_t k = 0; k < m->ncols; k++) {
		const double *rgb = palette[k % ELEMENTSOF(palette)];
		bool pen = false;

		cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
		cairo_set_line_width(cr, 2);
		if (k >= ELEMENTSOF(palette)) {
			static const double dash[] = { 6, 3 };

			cairo_set_dash(cr, dash, 2, 0);
		}
		for (size_t r = 0; r < m->nrows; r++) {
			const struct cell *c = model_cell(m, r, k);
			double x = PX(log2((double)MAX(m->threads[r], 1)));

			if (c->n == 0) {
				pen = false;
				continue;
			}
			if (pen)
				cairo_line_to(cr, x, PY(c->median));
			else
				cairo_move_to(cr, x, PY(c->median));
			pen = true;
		}
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		cairo_set_line_width(cr, 1);
		for (size_t r = 0; r < m->nrows; r++) {
			const struct cell *c = model_cell(m, r, k);
			double x = PX(log2((double)MAX(m->threads[r], 1)));

			if (c->n == 0)
				continue;
			/* the spread across repeats, then the marker */
			cairo_move_to(cr, x, PY(c->min));
			cairo_line_to(cr, x, PY(c->max));
			cairo_stroke(cr);
			cairo_arc(cr, x, PY(c->median), 3.5, 0, 2 * M_PI);
			cairo_fill(cr);
		}
		/* legend */
		cairo_move_to(cr, right + 15, top + 10 + 18 * k);
		cairo_line_to(cr, right + 35, top + 10 + 18 * k);
		cairo_set_line_width(cr, 2);
		cairo_stroke(cr);
		cairo_arc(cr, right + 25, top + 10 + 18 * k, 3.5, 0, 2 * M_PI);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_move_to(cr, right + 40, top + 14 + 18 * k);
		cairo_show_text(cr, m->cols[k].label);
	}
#undef PX
#undef PY
}

static cairo_status_t write_out(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int cairo_errno(cairo_status_t s)
{
	return s == CAIRO_STATUS_SUCCESS ? 0 : s == CAIRO_STATUS_NO_MEMORY ? -ENOMEM : -EIO;
}

int render_plot(const struct model *m, bool png, FILE *out)
{
	cairo_surface_t *sf;
	cairo_t *cr;
	int r;

	sf = png ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, PLOT_W, PLOT_H)
		 : cairo_svg_surface_create_for_stream(write_out, out, PLOT_W, PLOT_H);
	cr = cairo_create(sf);
	plot(m, cr);
	r = cairo_errno(cairo_status(cr));
	cairo_destroy(cr);
	if (r == 0 && png)
		r = cairo_errno(cairo_surface_write_to_png_stream(sf, write_out, out));
	/* The SVG surface writes its document when it is finished. */
	cairo_surface_finish(sf);
	if (r == 0)
		r = cairo_errno(cairo_surface_status(sf));
	cairo_surface_destroy(sf);
	return r;
}


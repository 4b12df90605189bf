/* The PNG renderer: TPS against threads (log2), drawn with cairo as the
 * page and the SVG draw it (render/figures.c): each repeat a point, a line
 * through the medians, the interval of the mean a band, said under it. */
#include <math.h>
#include <stdio.h>

#include <cairo.h>

#include "store/provenance.h"
#include "report/render/render.h"
#include "common/util.h"

#define PLOT_W 820
#define PLOT_H 510

static const double palette[][3] = {
	{ 0.12, 0.47, 0.71 }, { 1.00, 0.50, 0.05 }, { 0.17, 0.63, 0.17 }, { 0.84, 0.15, 0.16 },
	{ 0.58, 0.40, 0.74 }, { 0.55, 0.34, 0.29 }, { 0.89, 0.47, 0.76 }, { 0.50, 0.50, 0.50 },
};

static double nice_step(double range)
{
	double raw = range / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* The plot's area in pixels and the ranges it shows. */
struct frame {
	double left, top, bottom, right;
	double xmin, xmax; /* log2 of the thread counts */
	double ymax, step; /* TPS, and the grid's step */
};

static double px(const struct frame *f, double x)
{
	return f->left + 20 + (x - f->xmin) / (f->xmax - f->xmin) * (f->right - f->left - 40);
}

static double py(const struct frame *f, double y)
{
	return f->bottom - y / f->ymax * (f->bottom - f->top);
}

static double thread_x(const struct model *m, size_t row)
{
	return log2((double)MAX(m->threads[row], 1));
}

/* Room for the legend, and the ranges the cells need. */
static void measure(const struct model *m, cairo_t *cr, struct frame *f)
{
	double legend_w = 0, ymax = 0;
	cairo_text_extents_t e;

	*f = (struct frame){ .left = 80, .top = 50, .bottom = PLOT_H - 90, .xmin = INFINITY, .xmax = -INFINITY };
	for (size_t k = 0; k < m->ncols; k++) {
		cairo_text_extents(cr, m->cols[k].label, &e);
		legend_w = MAX(legend_w, e.x_advance + 40);
	}
	f->right = PLOT_W - 20 - legend_w;
	for (size_t r = 0; r < m->nrows; r++) {
		f->xmin = MIN(f->xmin, thread_x(m, r));
		f->xmax = MAX(f->xmax, thread_x(m, r));
		for (size_t k = 0; k < m->ncols; k++) {
			double lo, hi;

			if (model_cell(m, r, k)->n > 0)
				ymax = MAX(ymax, model_cell(m, r, k)->max);
			if (figure_band(m, r, k, &lo, &hi))
				ymax = MAX(ymax, hi);
		}
	}
	if (m->nrows == 0)
		f->xmin = 0, f->xmax = 1;
	if (f->xmax - f->xmin < 1e-9)
		f->xmin -= 0.5, f->xmax += 0.5;
	if (!(ymax > 0))
		ymax = 1;
	f->step = nice_step(ymax * 1.05);
	f->ymax = ceil(ymax * 1.05 / f->step) * f->step;
}

static void centred_text(cairo_t *cr, const char *s, double x, double y)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - e.x_advance / 2, y);
	cairo_show_text(cr, s);
}

/* The title, the grid with the TPS ticks, the thread ticks, the axes' names. */
static void draw_axes(const struct model *m, cairo_t *cr, const struct frame *f)
{
	cairo_text_extents_t e;
	char buf[64];

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, 16);
	centred_text(cr, m->name, (f->left + f->right) / 2, 30);
	cairo_set_font_size(cr, 11);
	cairo_set_line_width(cr, 1);
	for (double y = 0; y <= f->ymax + f->step / 2; y += f->step) {
		cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
		cairo_move_to(cr, f->left, py(f, y));
		cairo_line_to(cr, f->right, py(f, y));
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(buf, sizeof(buf), "%g", y);
		cairo_text_extents(cr, buf, &e);
		cairo_move_to(cr, f->left - 6 - e.x_advance, py(f, y) + 4);
		cairo_show_text(cr, buf);
	}
	for (size_t r = 0; r < m->nrows; r++) {
		double x = px(f, thread_x(m, r));

		cairo_move_to(cr, x, f->bottom);
		cairo_line_to(cr, x, f->bottom + 5);
		cairo_stroke(cr);
		snprintf(buf, sizeof(buf), "%lld", m->threads[r]);
		centred_text(cr, buf, x, f->bottom + 18);
	}
	cairo_rectangle(cr, f->left, f->top, f->right - f->left, f->bottom - f->top);
	cairo_stroke(cr);
	cairo_set_font_size(cr, 12);
	centred_text(cr, "threads (log2)", (f->left + f->right) / 2, f->bottom + 40);
	cairo_save(cr);
	cairo_text_extents(cr, "TPS", &e);
	cairo_move_to(cr, 22, (f->top + f->bottom) / 2 + e.x_advance / 2);
	cairo_rotate(cr, -M_PI / 2);
	cairo_show_text(cr, "TPS");
	cairo_restore(cr);
}

/* Column k: its line through the medians (a cell without a value breaks
 * it), its band, each repeat a point, and its legend entry. */
static void draw_column(const struct model *m, cairo_t *cr, const struct frame *f, size_t k)
{
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

		if (c->n == 0) {
			pen = false;
			continue;
		}
		(pen ? cairo_line_to : cairo_move_to)(cr, px(f, thread_x(m, r)), py(f, c->median));
		pen = true;
	}
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_set_line_width(cr, 1);
	for (size_t r = 0; r < m->nrows; r++) {
		const struct cell *c = model_cell(m, r, k);
		double x = px(f, thread_x(m, r)), lo, hi;

		if (figure_band(m, r, k, &lo, &hi)) {
			cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], 0.22);
			cairo_rectangle(cr, x - 4, py(f, hi), 8, py(f, lo) - py(f, hi));
			cairo_fill(cr);
			cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
		}
		for (size_t i = 0; i < c->n; i++) {
			cairo_arc(cr, x, py(f, c->tps[i]), 3, 0, 2 * M_PI);
			cairo_fill(cr);
		}
	}
	cairo_move_to(cr, f->right + 15, f->top + 10 + 18 * k);
	cairo_line_to(cr, f->right + 35, f->top + 10 + 18 * k);
	cairo_set_line_width(cr, 2);
	cairo_stroke(cr);
	cairo_arc(cr, f->right + 25, f->top + 10 + 18 * k, 3.5, 0, 2 * M_PI);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_move_to(cr, f->right + 40, f->top + 14 + 18 * k);
	cairo_show_text(cr, m->cols[k].label);
}

static void plot(const struct model *m, const char *provenance, cairo_t *cr)
{
	char caption[200];
	struct frame f;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 12);
	measure(m, cr, &f);
	draw_axes(m, cr, &f);
	for (size_t k = 0; k < m->ncols; k++)
		draw_column(m, cr, &f, k);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, 11);
	cairo_move_to(cr, 10, PLOT_H - 26);
	cairo_show_text(cr, figure_band_text(m, caption, sizeof(caption)));
	cairo_move_to(cr, 10, PLOT_H - 10);
	cairo_show_text(cr, provenance);
}

static cairo_status_t write_out(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int cairo_errno(cairo_status_t s)
{
	return s == CAIRO_STATUS_SUCCESS ? 0 : s == CAIRO_STATUS_NO_MEMORY ? -ENOMEM : -EIO;
}

int render_svg(const struct model *m, const json_t *doc _unused_, const struct report_options *o _unused_, FILE *out)
{
	char built[PROVENANCE_TEXT_MAX];

	/* cairo's SVG would draw each glyph as a path: the SVG is written by
	 * hand, as the page's figure is. */
	return figure_tps_svg(m, provenance_text(m->builds, built, sizeof(built)), out);
}

int render_png(const struct model *m, const json_t *doc _unused_, const struct report_options *o _unused_, FILE *out)
{
	char built[PROVENANCE_TEXT_MAX];
	cairo_surface_t *sf;
	cairo_t *cr;
	int r;

	sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, PLOT_W, PLOT_H);
	cr = cairo_create(sf);
	plot(m, provenance_text(m->builds, built, sizeof(built)), cr);
	r = cairo_errno(cairo_status(cr));
	cairo_destroy(cr);
	if (r == 0)
		r = cairo_errno(cairo_surface_write_to_png_stream(sf, write_out, out));
	cairo_surface_destroy(sf);
	return r;
}

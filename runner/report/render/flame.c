/* The page's differential flame graphs (doc/profile.md), SVG written by
 * hand, no script: a comparison's merged stacks, each frame as wide as its
 * inclusive share of the server's on-CPU samples in the context, the
 * roots at the bottom, coloured by how much more (red) or less (blue) of
 * the CPU it holds than in the baseline, saturated at FLAME_SATURATE
 * points; its title (a tooltip) says both shares.  Frames narrower than
 * FLAME_MIN are left out. */
#include <math.h>

#include "report/judge/profiles.h"
#include "report/render/html.h"
#include "report/render/render.h"

#define FLAME_WIDTH 1200.0
#define FLAME_ROW 16
#define FLAME_MIN 0.002
#define FLAME_DEPTH_MAX 64
#define FLAME_SATURATE 0.05
/* The most comparisons drawn; the JSON and the tables have them all. */
#define FLAME_GRAPHS_MAX 12

static size_t depth_of(const struct flame_node *n)
{
	size_t most = 0;

	for (size_t i = 0; i < n->n; i++)
		if (n->kids[i].a >= FLAME_MIN)
			most = MAX(most, depth_of(&n->kids[i]));
	return most + 1;
}

/* Red for more than in the baseline, blue for less, white for the same. */
static void colour(double delta, char *buf, size_t len)
{
	double k = MIN(fabs(delta) / FLAME_SATURATE, 1.0);
	int fade = (int)lround(235 - 175 * k);

	if (delta >= 0)
		snprintf(buf, len, "rgb(240,%d,%d)", fade, fade);
	else
		snprintf(buf, len, "rgb(%d,%d,240)", fade, fade);
}

static void draw_node(FILE *out, const struct flame_node *n, double x, size_t depth, size_t height)
{
	double w = n->a * FLAME_WIDTH, at = x;
	double y = (double)(height - depth - 1) * FLAME_ROW;
	char fill[32];

	colour(n->a - n->b, fill, sizeof(fill));
	fprintf(out, "<g><title>");
	html_printf(out, "%s: %.2f%% of the server's CPU here, %.2f%% in the baseline", n->name, 100 * n->a, 100 * n->b);
	fprintf(out, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"#fff\" "
		     "stroke-width=\"0.5\"/>",
		x, y, w, FLAME_ROW - 1, fill);
	if (w > 40) {
		/* about 7 pixels a character */
		int chars = (int)((w - 6) / 7);
		const char *tick = strchr(n->name, '`');
		const char *label = tick ? tick + 1 : n->name;

		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 3, y + FLAME_ROW - 4);
		html_printf(out, "%.*s%s", chars, label, (int)strlen(label) > chars ? ".." : "");
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
	if (depth + 1 >= FLAME_DEPTH_MAX)
		return;
	for (size_t i = 0; i < n->n; i++)
		if (n->kids[i].a >= FLAME_MIN) {
			draw_node(out, &n->kids[i], at, depth + 1, height);
			at += n->kids[i].a * FLAME_WIDTH;
		}
}

static void draw_flame(FILE *out, const struct flame_node *root)
{
	size_t height = MIN(depth_of(root), (size_t)FLAME_DEPTH_MAX);

	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" width=\"%.0f\" height=\"%zu\" "
		     "viewBox=\"0 0 %.0f %zu\" font-family=\"monospace\">\n",
		FLAME_WIDTH, height * FLAME_ROW, FLAME_WIDTH, height * FLAME_ROW);
	draw_node(out, root, 0, 0, height);
	fputs("</svg>\n", out);
}

/* A paragraph of text, escaped: the caption, or (cp) a comparison's allocator sentence. */
static int paragraph(FILE *out, const struct model *m, const struct cell_profile *cp)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return -ENOMEM;
	if (cp)
		profile_allocator_sentence(m, (size_t)(cp - m->profiles->cells) % m->ncols, cp, mem);
	else
		profile_caption(m, mem);
	if (fclose(mem) != 0)
		return -ENOMEM;
	if (len) {
		fputs("<p>", out);
		html_text(out, text);
		fputs("</p>\n", out);
	}
	return 0;
}

int page_profile(FILE *out, const struct model *m)
{
	size_t drawn = 0;
	int r = 0;

	if (!m->profiles || !m->profiles->n_profiled)
		return 0;
	fputs("<h2 id=\"profile-h\">Where the server's CPU went</h2>\n", out);
	r = paragraph(out, m, NULL);
	for (size_t c = 0; c < m->nrows * m->ncols && r >= 0; c++) {
		const struct cell_profile *cp = &m->profiles->cells[c];
		size_t col = c % m->ncols;
		struct table t;
		char id[48];

		if (!cp->vs_base)
			continue;
		fputs("<h3>", out);
		html_printf(out, "%s vs %s at %lld %s", m->cols[col].label, m->cols[m->cols[col].base].label,
			    m->threads[c / m->ncols], model_unit(m, m->threads[c / m->ncols]));
		fputs("</h3>\n", out);
		r = paragraph(out, m, cp);
		r = r < 0 ? r : profile_table(m, col, cp, &t);
		snprintf(id, sizeof(id), "profile-%zu", c);
		if (r >= 0)
			html_table(out, &t, id);
		table_done(&t);
		if (drawn++ < FLAME_GRAPHS_MAX)
			draw_flame(out, &cp->flame);
	}
	if (drawn > FLAME_GRAPHS_MAX)
		html_no_figure(out, "more comparisons than the page draws flame graphs of: the tables have them all");
	return r;
}

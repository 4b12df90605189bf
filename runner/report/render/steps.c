/* The run page's small multiples (report/render/html.h): the per-second TPS of
 * every step, a column's steps together, a row of figures per thread
 * count on one scale, so that a slow start or a stall stands out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/render/page.h"
#include "common/util.h"

#define SPARK_W 206
#define SPARK_H 64

static bool step_of_column(const struct model *m, const json_t *s, size_t k)
{
	char buf[64];

	return streq_ptr(json_string_value(json_object_get(s, "context")), m->cols[k].context) &&
	       streq_ptr(scalar_str(json_object_get(s, "vary_value"), buf, sizeof(buf)), m->cols[k].vary);
}

static long long step_int(const json_t *s, const char *key)
{
	const json_t *v = json_object_get(s, key);

	return json_is_number(v) ? (long long)json_number_value(v) : 0;
}

static int cmp_steps(const void *a, const void *b)
{
	const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
	long long tx = step_int(x, "threads"), ty = step_int(y, "threads");

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return step_int(x, "repeat") < step_int(y, "repeat") ? -1 : step_int(x, "repeat") > step_int(y, "repeat");
}

/* The top of the scale of each thread count: the highest second or TPS. */
static void scale_per_row(const struct model *m, const json_t *steps, double *ymax)
{
	const json_t *s, *v;
	size_t i, j;

	for (size_t r = 0; r < m->nrows; r++)
		ymax[r] = 0;
	json_array_foreach(steps, i, s)
		for (size_t r = 0; r < m->nrows; r++) {
			if (step_int(s, "threads") != m->threads[r])
				continue;
			ymax[r] = MAX(ymax[r], json_number_value(json_object_get(s, "tps")));
			json_array_foreach(json_object_get(s, "intervals_tps"), j, v)
				ymax[r] = MAX(ymax[r], json_number_value(v));
		}
}

/* The seconds as a line, a silent one (0, or missing) as a red bar. */
static void spark(FILE *out, const json_t *iv, double ymax)
{
	size_t n = json_array_size(iv), i;
	double dx = (SPARK_W - 4.0) / (double)MAX(n, 2), top = ymax > 0 ? ymax : 1;
	bool pen = false;
	const json_t *v;

	fprintf(out, "<svg class=\"spark\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">"
		     "<rect class=\"axis\" x=\"0.5\" y=\"0.5\" width=\"%d\" height=\"%d\"/>",
		SPARK_W, SPARK_H, SPARK_W, SPARK_H, SPARK_W - 1, SPARK_H - 1);
	json_array_foreach(iv, i, v)
		if (!json_is_number(v) || json_number_value(v) <= 0)
			fprintf(out, "<rect class=\"stall\" x=\"%.1f\" y=\"1\" width=\"%.1f\" height=\"%d\"><title>second %zu: "
				     "no transaction</title></rect>",
				2 + dx * (double)i, MAX(dx, 2.0), SPARK_H - 2, i + 1);
	fputs("<path class=\"series\" stroke=\"#1f77b4\" d=\"", out);
	json_array_foreach(iv, i, v) {
		if (!json_is_number(v)) {
			pen = false;
			continue;
		}
		fprintf(out, "%s%.1f %.1f ", pen ? "L" : "M", 2 + dx * ((double)i + 0.5),
			SPARK_H - 3 - json_number_value(v) / top * (SPARK_H - 8));
		pen = true;
	}
	fprintf(out, "\"/><text x=\"%d\" y=\"11\" text-anchor=\"end\">%.0f</text></svg>", SPARK_W - 4, top);
}

/* One step: its figure, or why there is none, and a caption with its
 * round, thread count, TPS and what went wrong. */
static void step_figure(FILE *out, const json_t *s, double ymax)
{
	const json_t *iv = json_object_get(s, "intervals_tps");
	bool failed = isnan(report_step_tps(s)), data = json_array_size(iv) > 0;
	const char *reason = json_string_value(json_object_get(s, "reason"));
	long long silent = step_int(s, "stalled_s"), reconnects = step_int(s, "reconnects");

	fprintf(out, "<figure class=\"step%s%s\">", failed ? " failed" : "", data ? "" : " nodata");
	if (data)
		spark(out, iv, ymax);
	else
		html_no_figure(out, failed ? "failed, and no per-second data" : "no per-second data in this step");
	fprintf(out, "<figcaption>round %lld, %lld thread%s: ", step_int(s, "repeat"), step_int(s, "threads"),
		step_int(s, "threads") == 1 ? "" : "s");
	if (failed) {
		fputs("<span class=\"bad\">failed: ", out);
		html_text(out, reason ? reason : "it completed no transaction");
		fputs("</span>", out);
	} else
		fprintf(out, "%.1f TPS", report_step_tps(s));
	if (silent > 0)
		fprintf(out, "; <span class=\"bad stall-note\">%lld s without a transaction</span>", silent);
	if (reconnects > 0)
		fprintf(out, "; <span class=\"bad restart\">%lld reconnect%s (a server restart)</span>", reconnects,
			reconnects == 1 ? "" : "s");
	fputs("</figcaption></figure>\n", out);
}

static double row_max(const struct model *m, const double *ymax, const json_t *s)
{
	for (size_t r = 0; r < m->nrows; r++)
		if (m->threads[r] == step_int(s, "threads"))
			return ymax[r];
	return 0;
}

int page_steps(FILE *out, const struct model *m, const json_t *doc)
{
	const json_t *steps = json_object_get(doc, "steps"), *s;
	_cleanup_free_ const json_t **list = calloc(json_array_size(steps) + 1, sizeof(*list));
	_cleanup_free_ double *ymax = calloc(m->nrows + 1, sizeof(double));
	size_t i;

	if (!list || !ymax)
		return -ENOMEM;
	fputs("<h2 id=\"steps-h\">TPS second by second</h2>\n", out);
	if (json_array_size(steps) == 0) {
		html_no_figure(out, "no step recorded in this directory");
		return 0;
	}
	fputs("<p class=\"note\">Every step, one scale per thread count (its top written in the corner); red: a "
	      "second without a transaction.</p>\n", out);
	scale_per_row(m, steps, ymax);
	for (size_t k = 0; k < m->ncols; k++) {
		size_t n = 0;

		json_array_foreach(steps, i, s)
			if (step_of_column(m, s, k))
				list[n++] = s;
		if (n == 0)
			continue;
		qsort(list, n, sizeof(*list), cmp_steps);
		fprintf(out, "<section class=\"steps\" id=\"steps-%zu\"><h3>", k);
		html_text(out, m->cols[k].label);
		fputs("</h3>\n", out);
		/* A row of figures per thread count. */
		for (i = 0; i < n; i++) {
			if (i == 0 || step_int(list[i], "threads") != step_int(list[i - 1], "threads"))
				fputs(i ? "</div>\n<div class=\"grid\">" : "<div class=\"grid\">", out);
			step_figure(out, list[i], row_max(m, ymax, list[i]));
		}
		fputs("</div></section>\n", out);
	}
	return 0;
}

/* An open-loop run in words, for the text and Markdown reports
 * (report/render/render.h): the rate the transactions arrived at, the
 * tables of p50, p95 and p99 latencies with their ratios (the TPS table's
 * model on each one's log), with a latency limit the late shares, and the
 * steps whose arrivals outran the server. */
#include <stdio.h>

#include "report/render/render.h"
#include "report/render/cells.h"

/* The steps named in the text; JSON carries all of them. */
#define OUTRAN_LISTED 6

static void print_outran(const struct model *m, bool markdown, FILE *out)
{
	size_t n = json_array_size(m->open_loop.outran), i;
	const json_t *v;

	if (n == 0)
		return;
	fprintf(out, "%soutran: in %zu step%s more than 1%% of the arrivals still waited at the step's end, so that "
		     "the server did not keep up and the latencies, which count only the transactions that ran, "
		     "understate the wait:", markdown ? "\n" : "", n, n == 1 ? "" : "s");
	json_array_foreach(m->open_loop.outran, i, v) {
		char vb[64], rb[32], tb[32];
		const char *vary = scalar_str(json_object_get(v, "vary_value"), vb, sizeof(vb));

		if (i == OUTRAN_LISTED) {
			fprintf(out, " and %zu more (--format json lists them all)", n - i);
			break;
		}
		fprintf(out, "%s %s%s%s r%s t%s (%lld waiting, %lld done)", i ? "," : "",
			strempty(json_string_value(json_object_get(v, "context"))), vary ? " " : "", strempty(vary),
			strempty(scalar_str(json_object_get(v, "repeat"), rb, sizeof(rb))),
			strempty(scalar_str(json_object_get(v, "threads"), tb, sizeof(tb))),
			(long long)json_integer_value(json_object_get(v, "backlog_at_end")),
			(long long)json_integer_value(json_object_get(v, "transactions")));
	}
	fputs("\n", out);
}

/* One measure's table (what: with its ratios, or without) under its caption. */
static int print_measure_table(const struct model *lat, enum metric what, bool markdown, FILE *out)
{
	char caption[400];
	struct table t;
	int r = report_table(lat, what, markdown ? 0 : table_width(), &t);

	if (r < 0)
		return r;
	fprintf(out, "%s%s\n%s", markdown ? "\n" : "", report_table_caption(lat, what, caption, sizeof(caption)),
		markdown ? "\n" : "");
	if (markdown)
		table_print_markdown(&t, out);
	else
		table_print_text(&t, out);
	table_done(&t);
	return 0;
}

int render_open_loop_text(const struct model *m, bool markdown, FILE *out)
{
	int r = 0;

	if (!m->open_loop.latency[0])
		return 0;
	fprintf(out, "%sopen loop: transactions arrived at %u a second in all (%s) whatever the server's pace, so "
		     "that the TPS above is what the server completed of them, and the latencies are what the arrivals "
		     "met; each percentile's ratios are a family of their own:\n",
		markdown ? "\n" : "", m->open_loop.rate, m->open_loop.constant ? "one every 1/rate" : "a Poisson stream");
	for (size_t i = 0; r >= 0 && i < MODEL_LATENCIES; i++)
		r = print_measure_table(m->open_loop.latency[i], METRIC_TPS, markdown, out);
	if (r >= 0 && m->open_loop.late)
		r = print_measure_table(m->open_loop.late, METRIC_REPEATS, markdown, out);
	if (r >= 0)
		print_outran(m, markdown, out);
	return r;
}

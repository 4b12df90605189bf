/* The host x context interaction's renderers (report/model/comparison.h), which
 * compare calls after each host's own table: text and Markdown, CSV
 * records and the JSON member. */
#include <math.h>
#include <stdio.h>

#include "report/model/comparison.h"
#include "report/render/render.h"
#include "common/util.h"

/* The host x context table, each row's sentences, what was not compared. */
int hosts_text(const struct host_model *h, const char *baseline, bool markdown, FILE *out)
{
	struct table t = { .ncols = 2 + 2 * h->n - 1, .left = 2 };
	const char *h3 = markdown ? "### " : "", *nl = markdown ? "\n" : "";
	int r = 0;

	fprintf(out, "\n%shost x context: is the difference between hosts real?\n%s", h3, nl);
	fprintf(out, "Each host's ratio to its own baseline (%s), as its own table above gives it (the same interval, at its "
		     "Holm step's level in that host's table), and each other host's ratio over %s's, from one model of log "
		     "TPS, host x context + round within host + each host's places in a round where its orders identify them (%s), ",
		strempty(baseline), h->labels[0],
		h->noise == BLOCK_NOISE_GROUPS
			? "each host's column its own noise, each start's shared by its steps"
			: "each ratio of ratios from a fit of its own four columns, each host its own noise on the fewer "
			  "degrees of freedom of the two hosts', since the starts are too few to give every host's column "
			  "its own");
	if (h->family)
		fprintf(out, "Holm-adjusted across the %zu of this table, each interval at its Holm step's level (%g%% for "
			     "the table as a whole)\n%s", h->family, 100 * h->level, nl);
	else
		fprintf(out, "without an interval or a verdict: too few repeats on a host to measure its spread\n%s", nl);
	table_add(&t, "threads");
	table_add(&t, "context");
	for (size_t d = 0; d < h->n; d++)
		table_add(&t, "%s", h->labels[d]);
	for (size_t d = 1; d < h->n; d++)
		table_add(&t, "%s over %s", h->labels[d], h->labels[0]);
	for (size_t i = 0; i < h->nrows; i++) {
		table_add(&t, "%lld", h->rows[i].threads);
		table_add(&t, "%s", h->rows[i].column);
		for (size_t d = 0; d < h->n; d++)
			add_ratio(&t, &h->rows[i].ratio[d]);
		for (size_t d = 1; d < h->n; d++)
			add_ratio(&t, &h->rows[i].differ[d]);
	}
	if (t.error == 0 && h->nrows)
		markdown ? table_print_markdown(&t, out) : table_print_text(&t, out);
	else if (t.error == 0)
		fprintf(out, "no thread count and context that two hosts share, with its baseline\n");
	r = t.error;
	table_done(&t);
	for (size_t i = 0; i < h->nrows && r >= 0; i++)
		for (size_t d = 1; d < h->n && r >= 0; d++) {
			_cleanup_free_ char *line = NULL;

			r = host_row_sentence(h, &h->rows[i], d, &line);
			if (r >= 0)
				fprintf(out, "%s%s\n", i + d == 1 ? "\n" : "", line);
		}
	if (r >= 0 && h->n_not_compared)
		fprintf(out, "\nnot compared:\n");
	for (size_t i = 0; i < h->n_not_compared && r >= 0; i++)
		fprintf(out, "  %s\n", h->not_compared[i]);
	return r;
}

/* A verdict, or null without a ratio. */
static json_t *verdict_json(const struct stats_ratio *v)
{
	json_t *o;

	if (isnan(v->ratio))
		return json_null();
	o = json_object();
	if (o && json_put_verdict(o, v) < 0) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

/* One row of the host x context table: each host's ratio, each other
 * host's ratio over the first's, and its sentence. */
static json_t *host_row_json(const struct host_model *h, const struct host_row *row)
{
	json_t *o = json_pack("{s:I, s:s, s:s, s:[], s:[n], s:[n]}", "threads", (json_int_t)row->threads, "column",
			      row->column, "baseline", row->baseline, "ratios", "differ", "sentences");
	int r = o ? 0 : -ENOMEM;

	for (size_t d = 0; d < h->n && r >= 0; d++) {
		_cleanup_free_ char *line = NULL;

		if (json_array_append_new(json_object_get(o, "ratios"), verdict_json(&row->ratio[d])) < 0)
			r = -ENOMEM;
		else if (d > 0 && (json_array_append_new(json_object_get(o, "differ"), verdict_json(&row->differ[d])) < 0 ||
				   host_row_sentence(h, row, d, &line) < 0 ||
				   json_array_append_new(json_object_get(o, "sentences"), json_string(line)) < 0))
			r = -ENOMEM;
	}
	if (r < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "hosts": the host x context interaction, what was not compared. */
int hosts_json(const struct host_model *h, json_t *doc)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:f, s:[], s:[]}", "method", "log_tps_host_x_cell_plus_round_within_host",
			      "reference", h->labels[0], "family", (json_int_t)h->family, "confidence", h->level, "rows",
			      "not_compared");

	if (!o || json_object_set_new(doc, "hosts", o) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < h->nrows; i++)
		if (json_array_append_new(json_object_get(o, "rows"), host_row_json(h, &h->rows[i])) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < h->n_not_compared; i++)
		if (json_array_append_new(json_object_get(o, "not_compared"), json_string(h->not_compared[i])) < 0)
			return -ENOMEM;
	return 0;
}

/* "host_ratio": each host's ratio in the host x context model,
 * "host_differ": each other host's over the first's; key baseline. */
void hosts_csv(const struct host_model *h, FILE *out)
{
	for (size_t i = 0; i < h->nrows; i++)
		for (size_t d = 0; d < 2 * h->n - 1; d++) {
			const struct host_row *hr = &h->rows[i];
			size_t x = d < h->n ? d : d - h->n + 1;

			fputs(d < h->n ? "host_ratio," : "host_differ,", out);
			csv_field(out, h->labels[x]);
			fprintf(out, ",%lld,", hr->threads);
			csv_field(out, hr->column);
			fputc(',', out);
			csv_verdict(out, d < h->n ? &hr->ratio[x] : &hr->differ[x], h->level);
			fputs(",baseline,", out);
			csv_field(out, hr->baseline);
			fputc('\n', out);
		}
}

/* "1.24x (1.18-1.30)", without an interval "1.24x (no interval)". */
static void put_ratio(FILE *f, const struct stats_ratio *r)
{
	if (isnan(r->ratio))
		fputs("no ratio", f);
	else if (isnan(r->lo))
		fprintf(f, "%.2fx (no interval)", r->ratio);
	else
		fprintf(f, "%.2fx (%.2f-%.2f)", r->ratio, r->lo, r->hi);
}

static void put_p(FILE *f, double p)
{
	fprintf(f, p < 0.001 ? "p<0.001" : p < 0.1 ? "p=%.3g" : "p=%.2g", p);
}

/* The ratio of ratios: how far apart, the larger on which host; or what
 * a test of these rounds could have seen. */
static void put_differ(FILE *f, const struct host_model *h, const struct stats_ratio *x, size_t d)
{
	bool up = x->ratio >= 1;

	if (isnan(x->ratio)) {
		fputs("no difference to test (a host has no ratio)", f);
		return;
	}
	if (isnan(x->lo)) {
		fprintf(f, "%s's ratio is %.2fx %s's, without an interval (too few repeats or no spread)", h->labels[d],
			x->ratio, h->labels[0]);
		return;
	}
	if (x->verdict == STATS_SIGNIFICANT) {
		fprintf(f, "the hosts differ by %.2fx (%.2f-%.2f), ", up ? x->ratio : 1 / x->ratio, up ? x->lo : 1 / x->hi,
			up ? x->hi : 1 / x->lo);
		put_p(f, x->p);
		fprintf(f, ", the ratio higher on %s", h->labels[up ? d : 0]);
		return;
	}
	fprintf(f, "no difference between the hosts shown: %s's ratio is %.2fx %s's (%.2f-%.2f), ", h->labels[d], x->ratio,
		h->labels[0], x->lo, x->hi);
	put_p(f, x->p);
	fprintf(f, " n.s.; these rounds could have detected %.2fx either way at %.0f%% power", x->mde, 100 * STATS_POWER);
}

int host_row_sentence(const struct host_model *h, const struct host_row *row, size_t d, char **ret)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s over %s at %lld thread%s: ", row->column, row->baseline, row->threads, row->threads == 1 ? "" : "s");
	put_ratio(f, &row->ratio[0]);
	fprintf(f, " on %s, ", h->labels[0]);
	put_ratio(f, &row->ratio[d]);
	fprintf(f, " on %s; ", h->labels[d]);
	put_differ(f, h, &row->differ[d], d);
	if (fclose(f) != 0) {
		free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

/* compare's renderers: n documents of the same experiment (one per host)
 * side by side (report/model/comparison.h) in text, Markdown, CSV and
 * JSON; they reuse the report's pieces. */
#include <math.h>
#include <stdio.h>

#include "store/provenance.h"
#include "report/model/comparison.h"
#include "report/render/render.h"
#include "common/util.h"

/* One table, rows thread count x column, a column per document. */
static int compare_metric(const struct comparison *c, bool ratios, bool markdown, FILE *out)
{
	struct table t = { .ncols = 2 + c->n, .left = 2 };

	table_add(&t, "threads");
	table_add(&t, "context");
	for (size_t d = 0; d < c->n; d++)
		table_add(&t, "%s", c->labels[d]);
	for (size_t row = 0; row < c->nrows; row++)
		for (size_t col = 0; col < c->ncols; col++) {
			table_add(&t, "%lld", c->threads[row]);
			table_add(&t, "%s", c->cols[col]);
			for (size_t d = 0; d < c->n; d++) {
				const struct cell *x = comparison_cell(c, d, row, col);

				if (!x || x->n == 0)
					table_add(&t, "%s", x && x->n_failed ? "failed" : GAP);
				else if (!ratios)
					table_add(&t, "%.1f", x->median);
				else if (isnan(cell_ratio(x)) && c->m[d].cols[col].is_baseline)
					table_add(&t, "baseline");
				else
					add_ratio(&t, &x->vs_base);
			}
		}
	if (t.error == 0)
		markdown ? table_print_markdown(&t, out) : table_print_text(&t, out);
	table_done(&t);
	return t.error;
}

/* The facts of host_facts[] for every document, a mark where they differ. */
static int compare_facts(const struct comparison *c, bool markdown, FILE *out)
{
	struct table t = { .ncols = 2 + c->n, .left = 2 + c->n, .keys = 1 };

	table_add(&t, "fact");
	for (size_t d = 0; d < c->n; d++)
		table_add(&t, "%s", c->labels[d]);
	table_add(&t, "%s", "");
	for (size_t k = 0; k < HOST_FACTS_N; k++) {
		char *const *vals = &c->facts[k * c->n];

		table_add(&t, "%s", host_fact_key(k));
		for (size_t d = 0; d < c->n; d++)
			table_add(&t, "%s", vals[d] ?: GAP);
		table_add(&t, "%s", host_fact_differs(vals, c->n) ? "differs" : "");
	}
	if (t.error == 0)
		markdown ? table_print_markdown(&t, out) : table_print_text(&t, out);
	table_done(&t);
	return t.error;
}

static int compare_tables(const struct comparison *c, bool markdown, FILE *out)
{
	struct table t;
	const char *h = markdown ? "### " : "", *nl = markdown ? "\n" : "";
	int r;

	if (c->n > 1)
		fprintf(out, "%s%s: ratio to each host's own baseline (%s), with its interval and p from that host's own "
			     "model of log TPS, Holm-adjusted across the %zu ratios of every host in this table (a host's "
			     "own report adjusts across its own only), each interval at its Holm step's level (%g%% for the "
			     "table as a whole); n.s.: the interval contains 1\n%s",
			h, c->m[0].name, strempty(c->m[0].baseline), c->family_ratios, 100 * c->m[0].level, nl);
	else
		fprintf(out, "%s%s: ratio to its baseline (%s), with its interval and p from its own model of log TPS, as "
			     "report gives them: Holm-adjusted across the table, each interval at its Holm step's level (%g%% "
			     "for the table as a whole); n.s.: the interval contains 1\n%s",
			h, c->m[0].name, strempty(c->m[0].baseline), 100 * c->m[0].level, nl);
	r = compare_metric(c, true, markdown, out);
	if (r == 0 && c->inter.n)
		r = hosts_text(&c->inter, c->m[0].baseline, markdown, out);
	if (r == 0) {
		fprintf(out, "\n%smedian TPS\n%s", h, nl);
		r = compare_metric(c, false, markdown, out);
	}
	if (r == 0) {
		fprintf(out, "\n%shost facts\n%s", h, nl);
		r = compare_facts(c, markdown, out);
	}
	if (r < 0)
		return r;
	fputc('\n', out);
	for (size_t d = 0; d < c->n; d++)
		print_saturated(&c->m[d], c->labels[d], markdown, out);
	if (c->nkeys == 0) {
		fprintf(out, "other host facts: no differences\n");
		return 0;
	}
	t = (struct table){ .ncols = 1 + c->n, .left = 1 + c->n, .keys = 1 };
	fprintf(out, "%sother host facts that differ\n%s", h, nl);
	table_add(&t, "key");
	for (size_t d = 0; d < c->n; d++)
		table_add(&t, "%s", c->labels[d]);
	for (size_t k = 0; k < c->nkeys; k++) {
		table_add(&t, "%s", c->keys[k]);
		for (size_t d = 0; d < c->n; d++)
			table_add(&t, "%s", c->values[k * c->n + d] ?: GAP);
	}
	r = t.error;
	if (r == 0)
		markdown ? table_print_markdown(&t, out) : table_print_text(&t, out);
	table_done(&t);
	return r;
}

static int compare_records(const struct comparison *c, FILE *out)
{
	/* One table for all parts: a record of kind "tps" per document, thread
	 * count and column, one of kind "fact" per host_facts[] row and document,
	 * and one of kind "host" per other differing key and document. */
	fputs("record,document,threads,column,median_tps," CSV_VERDICT_HEADER ",key,value\n", out);
	for (size_t row = 0; row < c->nrows; row++)
		for (size_t col = 0; col < c->ncols; col++)
			for (size_t d = 0; d < c->n; d++) {
				const struct cell *x = comparison_cell(c, d, row, col);

				if (!x)
					continue;
				fputs("tps,", out);
				csv_field(out, c->labels[d]);
				fprintf(out, ",%lld,", c->threads[row]);
				csv_field(out, c->cols[col]);
				csv_number(out, x->median, 3);
				csv_verdict(out, &x->vs_base, c->m[d].level);
				fputs(",,\n", out);
			}
	hosts_csv(&c->inter, out);
	for (size_t k = 0; k < HOST_FACTS_N; k++)
		for (size_t d = 0; d < c->n; d++) {
			fputs("fact,", out);
			csv_field(out, c->labels[d]);
			fputs(",,,,,,,,,,,", out);
			csv_field(out, host_fact_key(k));
			fputc(',', out);
			csv_field(out, strempty(c->facts[k * c->n + d]));
			fputc('\n', out);
		}
	for (size_t k = 0; k < c->nkeys; k++)
		for (size_t d = 0; d < c->n; d++) {
			fputs("host,", out);
			csv_field(out, c->labels[d]);
			fputs(",,,,,,,,,,,", out);
			csv_field(out, c->keys[k]);
			fputc(',', out);
			csv_field(out, strempty(c->values[k * c->n + d]));
			fputc('\n', out);
		}
	return 0;
}

/* n strings (NULL: null) as a JSON array. */
static json_t *strings_json(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t d = 0; a && d < n; d++)
		if (json_array_append_new(a, v[d] ? json_string(v[d]) : json_null()) < 0) {
			json_decref(a);
			a = NULL;
		}
	return a;
}

/* Long because the JSON tree is built member by member. */
/* One piece: each line is one member, in the document's order. */
static int compare_doc_json(const struct comparison *c, json_t **ret)
{
	json_t *doc, *docs, *rows, *hosts, *facts;
	int r = 0;

	doc = json_pack("{s:i, s:s, s:f, s:s, s:[], s:[], s:{}, s:{}}", "format_version", REPORT_FORMAT_VERSION,
			"experiment", c->m[0].name, "confidence", c->m[0].level, "method",
			"welch_t_log_tps_across_repeats", "documents", "rows", "host_facts", "host_diffs");
	if (!doc)
		return -ENOMEM;
	docs = json_object_get(doc, "documents");
	rows = json_object_get(doc, "rows");
	facts = json_object_get(doc, "host_facts");
	hosts = json_object_get(doc, "host_diffs");
	for (size_t d = 0; d < c->n && r == 0; d++)
		if (json_array_append_new(docs, json_pack("{s:s, s:s, s:s?, s:O, s:O*}", "label", c->labels[d], "experiment",
							  c->m[d].name, "baseline", c->m[d].baseline, "saturated_steps",
							  c->m[d].saturated, "slicebench", c->m[d].builds)) < 0)
			r = -ENOMEM;
	for (size_t row = 0; row < c->nrows && r == 0; row++)
		for (size_t col = 0; col < c->ncols && r == 0; col++) {
			json_t *o = json_pack("{s:I, s:s, s:[]}", "threads", (json_int_t)c->threads[row], "column",
					      c->cols[col], "values"),
			       *vals;

			if (!o || json_array_append_new(rows, o) < 0) {
				r = -ENOMEM;
				break;
			}
			vals = json_object_get(o, "values");
			for (size_t d = 0; d < c->n && r == 0; d++) {
				const struct cell *x = comparison_cell(c, d, row, col);
				json_t *v;

				if (!x)
					v = json_null();
				else
					v = json_pack("{s:o, s:I}", "median", real_or_null(x->median), "n", (json_int_t)x->n);
				if (json_array_append_new(vals, v) < 0)
					r = -ENOMEM;
				else if (x)
					r = json_put_verdict(v, &x->vs_base);
			}
		}
	/* host_facts: every row of host_facts[]; host_diffs: every key whose
	 * values differ, those rows included. */
	for (size_t k = 0; k < HOST_FACTS_N && r == 0; k++) {
		json_t *a = strings_json(&c->facts[k * c->n], c->n);

		if (!a || json_object_set_new(facts, host_fact_key(k), a) < 0 ||
		    (host_fact_differs(&c->facts[k * c->n], c->n) && json_object_set(hosts, host_fact_key(k), a) < 0))
			r = -ENOMEM;
	}
	for (size_t k = 0; k < c->nkeys && r == 0; k++) {
		json_t *a = strings_json(&c->values[k * c->n], c->n);

		if (!a || json_object_set_new(hosts, c->keys[k], a) < 0)
			r = -ENOMEM;
	}
	if (r < 0) {
		json_decref(doc);
		return r;
	}
	*ret = doc;
	return 0;
}

/* Which build measured each host's results, and which reports them. */
static void print_provenance(const struct comparison *c, bool markdown, FILE *out)
{
	char built[PROVENANCE_TEXT_MAX];

	for (size_t d = 0; d < c->n; d++)
		fprintf(out, "%s%s: %s\n", markdown ? "- " : "", c->labels[d],
			provenance_text(c->m[d].builds, built, sizeof(built)));
	fputc('\n', out);
}

/* Laid out in table_width(): the tables fit it, the prose is wrapped. */
int compare_text(const struct comparison *c, const struct report_options *o _unused_, FILE *out)
{
	struct text_wrap tw;
	int r = text_wrap_open(&tw, out);

	if (r < 0)
		return r;
	print_provenance(c, false, tw.mem);
	return text_wrap_close(&tw, compare_tables(c, false, tw.mem));
}

int compare_markdown(const struct comparison *c, const struct report_options *o _unused_, FILE *out)
{
	print_provenance(c, true, out);
	return compare_tables(c, true, out);
}

int compare_csv(const struct comparison *c, const struct report_options *o _unused_, FILE *out)
{
	return compare_records(c, out);
}

int compare_json(const struct comparison *c, const struct report_options *o _unused_, FILE *out)
{
	json_t *j;
	int r = compare_doc_json(c, &j);

	if (r >= 0 && c->inter.n && (r = hosts_json(&c->inter, j)) < 0)
		json_decref(j);
	if (r >= 0) {
		r = dump_json(j, out);
		json_decref(j);
	}
	return r;
}

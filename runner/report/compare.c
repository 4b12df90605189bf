/* compare: n documents of the same experiment (one per host) side by side.
 * Its model is each document's report model, lined up by column label and
 * thread count, the host facts that decide a comparison (host_facts[],
 * always shown), and the other host facts flattened to dotted keys, of
 * which only those whose values differ are kept; its renderers reuse the
 * report's pieces. */
#include <math.h>
#include <stdio.h>

#include "report/comparison.h"
#include "report/hosts.h"
#include "report/render.h"
#include "report/report.h"
#include "common/util.h"

/* The host facts a comparison across machines turns on: shown for every
 * host, differing or not, before the other facts that differ. */
struct host_fact {
	const char *key; /* the dotted key in host.json (flattened) */
	/* The value as text from the flattened facts; NULL: the key's value. */
	int (*value)(const json_t *flat, const struct host_fact *f, char **ret);
};

/* An array of scalars (cpu.l3_groups) as words: "0-7 8-15". */
static int fact_words(const json_t *flat, const struct host_fact *f, char **ret)
{
	const json_t *a = json_object_get(flat, f->key), *v;
	char buf[64], *s = NULL;
	size_t i;

	*ret = NULL;
	if (!json_is_array(a))
		return value_dup(a, ret);
	json_array_foreach(a, i, v)
	{
		const char *w = scalar_str(v, buf, sizeof(buf));
		char *n = NULL;

		if (xasprintf(&n, "%s%s%s", strempty(s), s ? " " : "", w ? w : "?") < 0) {
			free(s);
			return -ENOMEM;
		}
		free(s);
		s = n;
	}
	*ret = s;
	return 0;
}

/* The kernel's mitigations= switch, from its command line. */
static int fact_mitigations(const json_t *flat, const struct host_fact *f _unused_, char **ret)
{
	const char *cmdline = json_string_value(json_object_get(flat, "kernel.cmdline")), *p;

	*ret = NULL;
	if (!cmdline)
		return 0;
	for (p = cmdline; (p = strstr(p, "mitigations=")); p++)
		if (p == cmdline || p[-1] == ' ') {
			p += strlen("mitigations=");
			*ret = strndup(p, strcspn(p, " \t\n"));
			return *ret ? 0 : -ENOMEM;
		}
	*ret = strdup("auto (default)");
	return *ret ? 0 : -ENOMEM;
}

static const struct host_fact host_facts[] = {
	{ .key = "cpu.vendor" },
	{ .key = "cpu.model" },
	{ .key = "cpu.sockets" },
	{ .key = "cpu.cores" },
	{ .key = "cpu.threads" },
	{ .key = "cpu.l3_groups", .value = fact_words },
	{ .key = "kernel.release" },
	{ .key = "kernel.mitigations", .value = fact_mitigations },
	{ .key = "systemd.version" },
	{ .key = "cgroup.mode" },
};

_Static_assert(ELEMENTSOF(host_facts) == HOST_FACTS_N, "HOST_FACTS_N is host_facts[]'s size");

const char *host_fact_key(size_t k)
{
	return k < ELEMENTSOF(host_facts) ? host_facts[k].key : NULL;
}

static int flatten_into(const json_t *v, const char *prefix, json_t *out);

int host_fact_values(const json_t *host, char **ret)
{
	json_t *flat = json_object();
	int r = flat ? 0 : -ENOMEM;

	for (size_t k = 0; k < ELEMENTSOF(host_facts); k++)
		ret[k] = NULL;
	if (r >= 0 && json_is_object(host))
		r = flatten_into(host, "", flat);
	for (size_t k = 0; r >= 0 && k < ELEMENTSOF(host_facts); k++) {
		const struct host_fact *f = &host_facts[k];

		r = f->value ? f->value(flat, f, &ret[k]) : value_dup(json_object_get(flat, f->key), &ret[k]);
	}
	json_decref(flat);
	if (r < 0)
		for (size_t k = 0; k < ELEMENTSOF(host_facts); k++) {
			free(ret[k]);
			ret[k] = NULL;
		}
	return r < 0 ? -ENOMEM : 0;
}

static bool is_host_fact(const char *key)
{
	for (size_t i = 0; i < ELEMENTSOF(host_facts); i++)
		if (streq(host_facts[i].key, key))
			return true;
	return false;
}

bool host_fact_differs(char *const *vals, size_t n)
{
	for (size_t d = 1; d < n; d++)
		if (!streq_ptr(vals[0], vals[d]))
			return true;
	return false;
}


static void comparison_done(struct comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		model_done(&c->m[i]);
		if (c->label_buf)
			free(c->label_buf[i]);
	}
	for (size_t i = 0; i < c->nkeys * c->n; i++)
		free(c->values[i]);
	for (size_t i = 0; c->facts && i < ELEMENTSOF(host_facts) * c->n; i++)
		free(c->facts[i]);
	free(c->facts);
	host_model_done(&c->inter);
	for (size_t i = 0; c->hosts && i < c->n; i++)
		json_decref(c->hosts[i]);
	free(c->hosts);
	free(c->m);
	free(c->labels);
	free(c->label_buf);
	free(c->cols);
	free(c->threads);
	free(c->keys);
	free(c->values);
}

const struct cell *comparison_cell(const struct comparison *c, size_t doc, size_t row, size_t col)
{
	const struct model *m = &c->m[doc];
	size_t r, k;

	for (r = 0; r < m->nrows && m->threads[r] != c->threads[row]; r++)
		;
	for (k = 0; k < m->ncols && !streq(m->cols[k].label, c->cols[col]); k++)
		;
	return r < m->nrows && k < m->ncols ? model_cell(m, r, k) : NULL;
}

/* {"cpu": {"vendor": "X"}} into {"cpu.vendor": "X"}; arrays stay whole. */
static int flatten_into(const json_t *v, const char *prefix, json_t *out)
{
	const char *key;
	json_t *child;

	if (!json_is_object(v))
		return json_object_set(out, prefix, (json_t *)v);
	json_object_foreach((json_t *)v, key, child)
	{
		_cleanup_free_ char *name = NULL;
		int r;

		if (xasprintf(&name, "%s%s%s", prefix, *prefix ? "." : "", key) < 0)
			return -ENOMEM;
		r = flatten_into(child, name, out);
		if (r < 0)
			return r;
	}
	return 0;
}

int compare_host_differences(const json_t *a, const json_t *b, char **ret)
{
	_cleanup_(json_decrefp) json_t *fa = json_object(), *fb = json_object();
	char *s = NULL;
	size_t len = 0, n = 0;
	FILE *f;
	int r = 0;

	*ret = NULL;
	if (!fa || !fb || flatten_into(a, "", fa) < 0 || flatten_into(b, "", fb) < 0 || !(f = open_memstream(&s, &len)))
		return -ENOMEM;
	for (size_t k = 0; k < ELEMENTSOF(host_facts) && r >= 0; k++) {
		const struct host_fact *h = &host_facts[k];
		_cleanup_free_ char *x = NULL, *y = NULL;

		r = h->value ? h->value(fa, h, &x) : value_dup(json_object_get(fa, h->key), &x);
		if (r >= 0)
			r = h->value ? h->value(fb, h, &y) : value_dup(json_object_get(fb, h->key), &y);
		if (r >= 0 && !streq_ptr(x, y))
			fprintf(f, "%s%s (%s against %s)", n++ ? ", " : "", h->key, x ?: "none", y ?: "none");
	}
	if (fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0 || n == 0) {
		free(s);
		return r;
	}
	*ret = s;
	return 0;
}

/* Long because it flattens, merges and compares the host facts of every
 * document in one pass, freeing as it goes. */
/* One piece: a pass that frees as it goes does not split at a free. */
static int comparison_host(struct comparison *c, json_t *const *docs)
{
	const char *key, **all;
	size_t nall = 0, cap = 0;
	json_t *v;

	c->hosts = calloc(c->n, sizeof(*c->hosts));
	if (!c->hosts)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		c->hosts[i] = json_object();
		if (!c->hosts[i] || flatten_into(json_object_get(docs[i], "host"), "", c->hosts[i]) < 0)
			return -ENOMEM;
		cap += json_object_size(c->hosts[i]);
	}
	c->facts = calloc(ELEMENTSOF(host_facts) * c->n, sizeof(*c->facts));
	if (!c->facts)
		return -ENOMEM;
	for (size_t k = 0; k < ELEMENTSOF(host_facts); k++)
		for (size_t d = 0; d < c->n; d++) {
			const struct host_fact *f = &host_facts[k];
			char **v = &c->facts[k * c->n + d];
			int r = f->value ? f->value(c->hosts[d], f, v) : value_dup(json_object_get(c->hosts[d], f->key), v);

			if (r < 0)
				return r;
		}
	all = calloc(cap + 1, sizeof(*all));
	c->keys = calloc(cap + 1, sizeof(*c->keys));
	c->values = calloc(cap * c->n + 1, sizeof(*c->values));
	if (!all || !c->keys || !c->values) {
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++)
		json_object_foreach(c->hosts[i], key, v)
			all[nall++] = key;
	qsort(all, nall, sizeof(*all), cmp_str);
	for (size_t i = 0; i < nall; i++) {
		char **vals = &c->values[c->nkeys * c->n];
		bool same = true;

		if ((i > 0 && streq(all[i], all[i - 1])) || is_host_fact(all[i]))
			continue;
		for (size_t d = 0; d < c->n; d++)
			if (value_dup(json_object_get(c->hosts[d], all[i]), &vals[d]) < 0) {
				for (size_t k = 0; k < d; k++)
					free(vals[k]);
				free(all);
				return -ENOMEM;
			}
		same = !host_fact_differs(vals, c->n);
		if (same) {
			for (size_t d = 0; d < c->n; d++) {
				free(vals[d]);
				vals[d] = NULL;
			}
			continue;
		}
		c->keys[c->nkeys++] = all[i];
	}
	free(all);
	return 0;
}

static int comparison_build(json_t *const *docs, const char *const *labels, size_t n, double level,
			    struct comparison *c)
{
	size_t cap = 0;
	int r;

	*c = (struct comparison){};
	if (!docs || n == 0)
		return -EINVAL;
	c->m = calloc(n, sizeof(*c->m));
	c->labels = calloc(n, sizeof(*c->labels));
	c->label_buf = calloc(n, sizeof(*c->label_buf));
	if (!c->m || !c->labels || !c->label_buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = model_build(docs[i], level, &c->m[i]);
		if (r < 0)
			return r;
		c->n++;
		if (labels && labels[i])
			c->labels[i] = labels[i];
		else if (xasprintf(&c->label_buf[i], "%zu", i + 1) < 0)
			return -ENOMEM;
		else
			c->labels[i] = c->label_buf[i];
		cap += c->m[i].ncols + c->m[i].nrows;
	}
	c->cols = calloc(cap + 1, sizeof(*c->cols));
	c->threads = calloc(cap + 1, sizeof(*c->threads));
	if (!c->cols || !c->threads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < c->m[i].ncols; k++) {
			size_t j;

			for (j = 0; j < c->ncols && !streq(c->cols[j], c->m[i].cols[k].label); j++)
				;
			if (j == c->ncols)
				c->cols[c->ncols++] = c->m[i].cols[k].label;
		}
		for (size_t k = 0; k < c->m[i].nrows; k++)
			c->threads[c->nrows++] = c->m[i].threads[k];
	}
	qsort(c->threads, c->nrows, sizeof(*c->threads), cmp_ll);
	cap = c->nrows;
	c->nrows = 0;
	for (size_t i = 0; i < cap; i++)
		if (c->nrows == 0 || c->threads[c->nrows - 1] != c->threads[i])
			c->threads[c->nrows++] = c->threads[i];
	r = n > 1 ? host_model_build(c->m, c->labels, n, level, &c->inter) : 0;
	return r < 0 ? r : comparison_host(c, docs);
}

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
	struct table t = { .ncols = 2 + c->n, .left = 2 + c->n };

	table_add(&t, "fact");
	for (size_t d = 0; d < c->n; d++)
		table_add(&t, "%s", c->labels[d]);
	table_add(&t, "%s", "");
	for (size_t k = 0; k < ELEMENTSOF(host_facts); k++) {
		char *const *vals = &c->facts[k * c->n];

		table_add(&t, "%s", host_facts[k].key);
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

	fprintf(out, "%s%s: ratio to each host's own baseline (%s), with its interval and p from that host's own model of "
		     "log TPS, as report gives them: Holm-adjusted across the host's table, each interval at its Holm "
		     "step's level (%g%% for the table as a whole); n.s.: the interval contains 1\n%s",
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
	t = (struct table){ .ncols = 1 + c->n, .left = 1 + c->n };
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

static int compare_csv(const struct comparison *c, FILE *out)
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
	for (size_t k = 0; k < ELEMENTSOF(host_facts); k++)
		for (size_t d = 0; d < c->n; d++) {
			fputs("fact,", out);
			csv_field(out, c->labels[d]);
			fputs(",,,,,,,,,,,", out);
			csv_field(out, host_facts[k].key);
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
static int compare_json(const struct comparison *c, json_t **ret)
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
		if (json_array_append_new(docs, json_pack("{s:s, s:s, s:s?, s:O}", "label", c->labels[d], "experiment",
							  c->m[d].name, "baseline", c->m[d].baseline, "saturated_steps",
							  c->m[d].saturated)) < 0)
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
	for (size_t k = 0; k < ELEMENTSOF(host_facts) && r == 0; k++) {
		json_t *a = strings_json(&c->facts[k * c->n], c->n);

		if (!a || json_object_set_new(facts, host_facts[k].key, a) < 0 ||
		    (host_fact_differs(&c->facts[k * c->n], c->n) && json_object_set(hosts, host_facts[k].key, a) < 0))
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

int compare_render(json_t *const *docs, const char *const *labels, size_t n, const struct report_options *o,
		   FILE *out)
{
	enum report_format format = o ? o->format : REPORT_TEXT;
	struct comparison c;
	json_t *j;
	int r;

	if (!o || !out || !report_format_to_string(format))
		return -EINVAL;
	if (format == REPORT_SVG || format == REPORT_PNG)
		return -EOPNOTSUPP;
	r = comparison_build(docs, labels, n, report_level(o), &c);
	if (r >= 0)
		switch (format) {
		case REPORT_TEXT:
		case REPORT_MARKDOWN:
			r = compare_tables(&c, format == REPORT_MARKDOWN, out);
			break;
		case REPORT_CSV:
			r = compare_csv(&c, out);
			break;
		case REPORT_HTML:
			r = compare_html(&c, out);
			break;
		case REPORT_JSON:
			r = compare_json(&c, &j);
			if (r >= 0 && c.inter.n && (r = hosts_json(&c.inter, j)) < 0)
				json_decref(j);
			if (r >= 0) {
				r = dump_json(j, out);
				json_decref(j);
			}
			break;
		default:
			r = -EOPNOTSUPP;
		}
	comparison_done(&c);
	return render_finish(r, out);
}


/* The report: the document of record becomes one model (struct model), and
 * each format has one renderer that reads only the model.  The numbers are
 * formatted here and nowhere else; results.json carries none of it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include <cairo-svg.h>
#include <cairo.h>

#include "report/report.h"
#include "run/results.h"
#include "common/util.h"

#define GAP "\u2014" /* em dash: a cell without a value, never 0 */

struct cell {
	size_t n, n_failed; /* successful and failed steps */
	double median, min, max;
	double noise;	  /* relative spread, or 2*CV of the intervals with n == 1; NAN: unknown */
	double ratio;	  /* to the baseline column; NAN: none */
	bool significant; /* |ratio - 1| beyond the noise of both cells */
	double p95_ms, idle_pct, throttled; /* medians over the repeats; NAN: none */
};

struct column {
	char *label;
	const char *context; /* borrowed from the document */
	const char *vary;    /* borrowed from the model's vary values; NULL without vary */
	size_t vary_index;
	long base; /* the baseline column with the same vary value; -1: none, or this is one */
	bool is_baseline;
};

struct model {
	const char *name, *baseline, *vary_property;
	struct column *cols;
	size_t ncols;
	long long *threads;
	size_t nrows;
	struct cell *cells; /* nrows x ncols */
	char **vary;	    /* owned vary values; a NULL entry without vary */
	size_t nvary;
	json_t *failures; /* [{context, vary_value, threads, repeat, reason}] */
	json_t *diffs;	  /* {context: {key: [baseline value, context value]}} */
	bool any_ns;
};

static struct cell *model_cell(const struct model *m, size_t row, size_t col)
{
	return &m->cells[row * m->ncols + col];
}

static void model_done(struct model *m)
{
	for (size_t i = 0; i < m->ncols; i++)
		free(m->cols[i].label);
	free(m->cols);
	for (size_t i = 0; i < m->nvary; i++)
		free(m->vary[i]);
	free(m->vary);
	free(m->threads);
	free(m->cells);
	json_decref(m->failures);
	json_decref(m->diffs);
	*m = (struct model){};
}

/* A scalar as text: strings as they are, numbers and booleans printed into
 * buf; NULL for null, absent and nested values. */
static const char *scalar_str(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.10g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else
		return NULL;
	return buf;
}

/* A host or placement value as an owned string; *ret = NULL when absent. */
static int value_dup(const json_t *v, char **ret)
{
	char buf[64];
	const char *s;
	char *d;

	if (!v || json_is_null(v)) {
		*ret = NULL;
		return 0;
	}
	s = scalar_str(v, buf, sizeof(buf));
	d = s ? strdup(s) : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	if (!d)
		return -ENOMEM;
	*ret = d;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts v in place. */
static double median_of(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The coefficient of variation of the per-second TPS of one step. */
static double intervals_cv(const json_t *step)
{
	const json_t *a = json_object_get(step, "intervals_tps"), *v;
	double sum = 0, sq = 0, mean;
	size_t i, n = 0;

	json_array_foreach(a, i, v)
		if (json_is_number(v)) {
			sum += json_number_value(v);
			n++;
		}
	if (n < 2)
		return NAN;
	mean = sum / n;
	if (mean <= 0)
		return NAN;
	json_array_foreach(a, i, v)
		if (json_is_number(v))
			sq += (json_number_value(v) - mean) * (json_number_value(v) - mean);
	return sqrt(sq / n) / mean;
}

/* Mean cpu idle % over a step's telemetry, and the nr_throttled delta
 * (last sample minus first: the counter is cumulative). */
static void step_telemetry(const json_t *step, double *ret_idle, double *ret_throttled)
{
	const json_t *a = json_object_get(step, "telemetry"), *s;
	double idle = 0, first = NAN, last = NAN;
	size_t i, n = 0, nt = 0;

	json_array_foreach(a, i, s) {
		const json_t *v = json_object_get(s, "cpu_idle_pct"), *t = json_object_get(s, "nr_throttled");

		if (json_is_number(v)) {
			idle += json_number_value(v);
			n++;
		}
		if (json_is_number(t)) {
			if (nt++ == 0)
				first = json_number_value(t);
			last = json_number_value(t);
		}
	}
	*ret_idle = n ? idle / n : NAN;
	*ret_throttled = nt >= 2 ? last - first : NAN;
}

static bool step_failed(const json_t *s)
{
	return json_is_true(json_object_get(s, "failed")) || !json_is_number(json_object_get(s, "tps"));
}

static bool step_in_cell(const struct model *m, const json_t *s, size_t row, size_t col)
{
	const json_t *t = json_object_get(s, "threads");
	char buf[64];

	return json_is_number(t) && (long long)json_number_value(t) == m->threads[row] &&
	       streq_ptr(json_string_value(json_object_get(s, "context")), m->cols[col].context) &&
	       streq_ptr(scalar_str(json_object_get(s, "vary_value"), buf, sizeof(buf)), m->cols[col].vary);
}

/* buf holds 4 x nsteps doubles. */
static void compute_cell(struct model *m, const json_t *steps, size_t row, size_t col, double *buf)
{
	size_t ns = json_array_size(steps), np = 0, ni = 0, nt = 0, i;
	double *tps = buf, *p95 = buf + ns, *idle = buf + 2 * ns, *thr = buf + 3 * ns;
	struct cell *c = model_cell(m, row, col);
	const json_t *s, *only = NULL;

	*c = (struct cell){ .median = NAN, .min = NAN, .max = NAN, .noise = NAN, .ratio = NAN,
			    .p95_ms = NAN, .idle_pct = NAN, .throttled = NAN };
	json_array_foreach(steps, i, s) {
		const json_t *p;
		double id, th;

		if (!step_in_cell(m, s, row, col))
			continue;
		if (step_failed(s)) {
			c->n_failed++;
			continue;
		}
		only = s;
		tps[c->n++] = json_number_value(json_object_get(s, "tps"));
		p = json_object_get(json_object_get(s, "latency_ms"), "p95");
		if (json_is_number(p))
			p95[np++] = json_number_value(p);
		step_telemetry(s, &id, &th);
		if (!isnan(id))
			idle[ni++] = id;
		if (!isnan(th))
			thr[nt++] = th;
	}
	if (c->n == 0)
		return;
	c->median = median_of(tps, c->n);
	c->min = tps[0];
	c->max = tps[c->n - 1];
	if (c->n >= 2)
		c->noise = c->median > 0 ? (c->max - c->min) / c->median : NAN;
	else {
		/* One repeat: the run-to-run noise is not known, the second-to-second
		 * noise of the step stands in for it. */
		double cv = intervals_cv(only);

		c->noise = isnan(cv) ? NAN : 2 * cv;
	}
	c->p95_ms = median_of(p95, np);
	c->idle_pct = median_of(idle, ni);
	c->throttled = median_of(thr, nt);
}

static void compute_ratios(struct model *m)
{
	for (size_t r = 0; r < m->nrows; r++)
		for (size_t k = 0; k < m->ncols; k++) {
			struct cell *c = model_cell(m, r, k), *b;
			double noise;

			if (m->cols[k].base < 0)
				continue;
			b = model_cell(m, r, (size_t)m->cols[k].base);
			if (c->n == 0 || b->n == 0 || !(b->median > 0))
				continue;
			c->ratio = c->median / b->median;
			noise = MAX(c->noise, b->noise);
			/* Unknown noise (NAN) is not evidence of a difference. */
			c->significant = !isnan(c->noise) && !isnan(b->noise) && fabs(c->ratio - 1) > noise;
			m->any_ns = m->any_ns || !c->significant;
		}
}

struct strv {
	const char **v;
	size_t n;
};

static int strv_add_unique(struct strv *l, const char *s)
{
	const char **p;

	for (size_t i = 0; i < l->n; i++)
		if (streq_ptr(l->v[i], s))
			return 0;
	p = realloc(l->v, (l->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	l->v = p;
	l->v[l->n++] = s;
	return 0;
}

/* The placements of context at vary index 0 and repeat 1, else its first
 * placement at vary index 0, else NULL. */
static json_t *find_placement(const json_t *places, const char *context)
{
	_cleanup_free_ char *want = NULL, *prefix = NULL;
	const char *key, *best = NULL;
	json_t *v, *found = NULL;

	if (xasprintf(&want, "%s-v0-r1", context) < 0 || xasprintf(&prefix, "%s-v0-r", context) < 0)
		return NULL;
	v = json_object_get(places, want);
	if (json_is_object(v))
		return v;
	json_object_foreach((json_t *)places, key, v)
		if (json_is_object(v) && strncmp(key, prefix, strlen(prefix)) == 0 && (!best || strcmp(key, best) < 0)) {
			best = key;
			found = v;
		}
	return found;
}

static int diff_one(json_t *a, json_t *b, json_t **ret)
{
	const char *key, **keys = NULL;
	size_t n = 0, i = 0;
	json_t *out, *v;
	int r = 0;

	out = json_object();
	keys = calloc(json_object_size(a) + json_object_size(b) + 1, sizeof(*keys));
	if (!out || !keys) {
		json_decref(out);
		free(keys);
		return -ENOMEM;
	}
	json_object_foreach(a, key, v)
		keys[n++] = key;
	json_object_foreach(b, key, v)
		if (!json_object_get(a, key))
			keys[n++] = key;
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *x = NULL, *y = NULL;

		/* Counters move between any two snapshots: not a difference of placement. */
		if (strncmp(keys[i], "cpu.stat.", 9) == 0)
			continue;
		if (value_dup(json_object_get(a, keys[i]), &x) < 0 || value_dup(json_object_get(b, keys[i]), &y) < 0) {
			r = -ENOMEM;
			break;
		}
		if (streq_ptr(x, y))
			continue;
		if (json_object_set_new(out, keys[i], json_pack("[s?s?]", x, y)) < 0)
			r = -ENOMEM;
	}
	free(keys);
	if (r < 0) {
		json_decref(out);
		return r;
	}
	*ret = out;
	return 0;
}

static int compute_diffs(struct model *m, const json_t *places, const struct strv *ctxs)
{
	json_t *base;

	m->diffs = json_object();
	if (!m->diffs)
		return -ENOMEM;
	if (!m->baseline || !(base = find_placement(places, m->baseline)))
		return 0;
	for (size_t i = 0; i < ctxs->n; i++) {
		json_t *other, *d;
		int r;

		if (streq(ctxs->v[i], m->baseline) || !(other = find_placement(places, ctxs->v[i])))
			continue;
		r = diff_one(base, other, &d);
		if (r < 0)
			return r;
		if (json_object_set_new(m->diffs, ctxs->v[i], d) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int add_failure(struct model *m, const json_t *s)
{
	char buf[64];
	json_t *f;

	f = json_pack("{s:s?, s:s?, s:O?, s:O?, s:s?}", "context", json_string_value(json_object_get(s, "context")),
		      "vary_value", scalar_str(json_object_get(s, "vary_value"), buf, sizeof(buf)), "threads",
		      json_object_get(s, "threads"), "repeat", json_object_get(s, "repeat"), "reason",
		      json_string_value(json_object_get(s, "reason")));
	return f && json_array_append_new(m->failures, f) == 0 ? 0 : -ENOMEM;
}

static int model_fill(struct model *m, const json_t *doc, struct strv *ctxs)
{
	const json_t *exp, *steps, *vary, *v, *s;
	long long *th = NULL;
	size_t i, nth = 0, cap;
	int r;

	if (!json_is_object(doc))
		return -EINVAL;
	v = json_object_get(doc, "format_version");
	if (!json_is_integer(v))
		return -EINVAL;
	if (json_integer_value(v) != RESULTS_FORMAT_VERSION)
		return -EPROTONOSUPPORT;
	exp = json_object_get(doc, "experiment");
	steps = json_object_get(doc, "steps");
	if (steps && !json_is_array(steps))
		return -EINVAL;
	m->name = json_string_value(json_object_get(exp, "name"));
	if (!m->name)
		m->name = "slicebench";
	m->baseline = json_string_value(json_object_get(exp, "baseline"));
	vary = json_object_get(exp, "vary");
	m->vary_property = json_string_value(json_object_get(vary, "property"));
	m->failures = json_array();
	if (!m->failures)
		return -ENOMEM;

	/* Columns and rows: what the experiment asked for, in its order, then
	 * whatever the steps hold beyond it. */
	json_array_foreach(json_object_get(exp, "contexts"), i, v)
		if (json_is_string(v) && strv_add_unique(ctxs, json_string_value(v)) < 0)
			return -ENOMEM;
	json_array_foreach(steps, i, s)
		if (json_is_string(v = json_object_get(s, "context")) && strv_add_unique(ctxs, json_string_value(v)) < 0)
			return -ENOMEM;
	json_array_foreach(json_object_get(vary, "values"), i, v) {
		char buf[64];
		const char *x = scalar_str(v, buf, sizeof(buf));
		char **p;
		bool dup = false;

		for (size_t k = 0; x && k < m->nvary; k++)
			dup = dup || streq_ptr(m->vary[k], x);
		if (!x || dup)
			continue;
		p = realloc(m->vary, (m->nvary + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		m->vary = p;
		if (!(m->vary[m->nvary] = strdup(x)))
			return -ENOMEM;
		m->nvary++;
	}
	json_array_foreach(steps, i, s) {
		char buf[64];
		const char *x = scalar_str(json_object_get(s, "vary_value"), buf, sizeof(buf));
		bool dup = false;
		char **p;

		for (size_t k = 0; k < m->nvary; k++)
			dup = dup || streq_ptr(m->vary[k], x);
		if (dup)
			continue;
		p = realloc(m->vary, (m->nvary + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		m->vary = p;
		m->vary[m->nvary] = NULL;
		if (x && !(m->vary[m->nvary] = strdup(x)))
			return -ENOMEM;
		m->nvary++;
	}
	if (m->nvary == 0) {
		m->vary = calloc(1, sizeof(*m->vary));
		if (!m->vary)
			return -ENOMEM;
		m->nvary = 1;
	}

	cap = json_array_size(json_object_get(exp, "threads")) + json_array_size(steps);
	th = calloc(cap + 1, sizeof(*th));
	if (!th)
		return -ENOMEM;
	m->threads = th;
	json_array_foreach(json_object_get(exp, "threads"), i, v)
		if (json_is_number(v))
			th[nth++] = (long long)json_number_value(v);
	json_array_foreach(steps, i, s)
		if (json_is_number(v = json_object_get(s, "threads")))
			th[nth++] = (long long)json_number_value(v);
	qsort(th, nth, sizeof(*th), cmp_ll);
	for (i = 0; i < nth; i++)
		if (m->nrows == 0 || th[m->nrows - 1] != th[i])
			th[m->nrows++] = th[i];

	m->cols = calloc(ctxs->n * m->nvary + 1, sizeof(*m->cols));
	if (!m->cols)
		return -ENOMEM;
	for (size_t vi = 0; vi < m->nvary; vi++)
		for (size_t ci = 0; ci < ctxs->n; ci++) {
			struct column *c = &m->cols[m->ncols];

			c->context = ctxs->v[ci];
			c->vary = m->vary[vi];
			c->vary_index = vi;
			c->is_baseline = streq_ptr(c->context, m->baseline);
			c->base = -1;
			if (!c->vary)
				r = xasprintf(&c->label, "%s", c->context);
			else if (m->vary_property)
				r = xasprintf(&c->label, "%s %s=%s", c->context, m->vary_property, c->vary);
			else
				r = xasprintf(&c->label, "%s %s", c->context, c->vary);
			if (r < 0)
				return r;
			m->ncols++;
		}
	for (size_t k = 0; k < m->ncols; k++)
		for (size_t b = 0; b < m->ncols && !m->cols[k].is_baseline; b++)
			if (m->cols[b].is_baseline && m->cols[b].vary_index == m->cols[k].vary_index)
				m->cols[k].base = (long)b;

	m->cells = calloc(m->nrows * m->ncols + 1, sizeof(*m->cells));
	if (!m->cells)
		return -ENOMEM;
	{
		_cleanup_free_ double *buf = calloc(4 * json_array_size(steps) + 1, sizeof(double));

		if (!buf)
			return -ENOMEM;
		for (size_t row = 0; row < m->nrows; row++)
			for (size_t col = 0; col < m->ncols; col++)
				compute_cell(m, steps, row, col, buf);
	}
	compute_ratios(m);
	json_array_foreach(steps, i, s)
		if (step_failed(s) && add_failure(m, s) < 0)
			return -ENOMEM;
	return compute_diffs(m, json_object_get(doc, "placements"), ctxs);
}

static int model_build(const json_t *doc, struct model *ret)
{
	struct strv ctxs = {};
	struct model m = {};
	int r;

	r = model_fill(&m, doc, &ctxs);
	free(ctxs.v);
	if (r < 0) {
		model_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

/* ---- a table of strings, shared by the text and Markdown renderers ---- */

struct table {
	size_t ncols, n, left; /* left: how many leading columns are words, aligned left */
	char **cells; /* row-major, row 0 the header */
	int error;
};

static void table_add(struct table *t, const char *fmt, ...) _printf_(2, 3);
static void table_add(struct table *t, const char *fmt, ...)
{
	char **p, *s = NULL;
	va_list ap;

	if (t->error)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	p = s ? realloc(t->cells, (t->n + 1) * sizeof(*p)) : NULL;
	if (!p) {
		free(s);
		t->error = -ENOMEM;
		return;
	}
	t->cells = p;
	t->cells[t->n++] = s;
}

static void table_done(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
}

/* Terminal columns of UTF-8 text (no wide characters here). */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void table_print_text(const struct table *t, FILE *out)
{
	size_t w[64] = {}, nc = MIN(t->ncols, ELEMENTSOF(w));

	for (size_t i = 0; i < t->n; i++)
		if (i % t->ncols < nc)
			w[i % t->ncols] = MAX(w[i % t->ncols], text_width(t->cells[i]));
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncols, pad = c < nc ? w[c] - text_width(t->cells[i]) : 0;

		/* The first column (threads, keys) reads left to right; numbers align right. */
		if (c < MAX(t->left, 1))
			fprintf(out, "%s%s%*s", c ? "  " : "", t->cells[i], (int)pad, "");
		else
			fprintf(out, "  %*s%s", (int)pad, "", t->cells[i]);
		if (c + 1 == t->ncols) {
			fputc('\n', out);
			if (i + 1 == t->ncols)
				for (size_t k = 0; k < t->ncols; k++)
					fprintf(out, "%s%.*s", k ? "  " : "", (int)w[k],
						"----------------------------------------------------------------");
			if (i + 1 == t->ncols)
				fputc('\n', out);
		}
	}
}

static void md_cell(const char *s, FILE *out)
{
	fputs("| ", out);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc(' ', out);
}

static void table_print_markdown(const struct table *t, FILE *out)
{
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncols;

		md_cell(t->cells[i], out);
		if (c + 1 == t->ncols) {
			fputs("|\n", out);
			if (i + 1 == t->ncols)
				for (size_t k = 0; k < t->ncols; k++)
					fputs(k == 0 ? "|---" : "|---:", out);
			if (i + 1 == t->ncols)
				fputs("|\n", out);
		}
	}
}

/* ---- the tables of a report: content shared by text and Markdown ---- */

static void add_tps(struct table *t, const struct cell *c)
{
	if (c->n == 0)
		table_add(t, "%s", c->n_failed ? "failed" : GAP);
	else if (c->n == 1)
		table_add(t, "%.1f n=1", c->median);
	else
		table_add(t, "%.1f (%.1f..%.1f) n=%zu", c->median, c->min, c->max, c->n);
}

static void add_ratio(struct table *t, const struct cell *c)
{
	if (isnan(c->ratio))
		table_add(t, GAP);
	else
		table_add(t, "%.2fx%s", c->ratio, c->significant ? "" : " (n.s.)");
}

static void add_number(struct table *t, double v, int decimals)
{
	if (isnan(v))
		table_add(t, GAP);
	else
		table_add(t, "%.*f", decimals, v);
}

enum metric { METRIC_TPS, METRIC_P95, METRIC_IDLE, METRIC_THROTTLED };

static int build_table(const struct model *m, enum metric what, struct table *t)
{
	*t = (struct table){ .ncols = 1 };
	for (size_t k = 0; k < m->ncols; k++)
		t->ncols += 1 + (what == METRIC_TPS && m->cols[k].base >= 0);
	table_add(t, "threads");
	for (size_t k = 0; k < m->ncols; k++) {
		table_add(t, "%s", m->cols[k].label);
		if (what == METRIC_TPS && m->cols[k].base >= 0)
			table_add(t, "ratio");
	}
	for (size_t r = 0; r < m->nrows; r++) {
		table_add(t, "%lld", m->threads[r]);
		for (size_t k = 0; k < m->ncols; k++) {
			const struct cell *c = model_cell(m, r, k);

			switch (what) {
			case METRIC_TPS:
				add_tps(t, c);
				if (m->cols[k].base >= 0)
					add_ratio(t, c);
				break;
			case METRIC_P95:
				add_number(t, c->p95_ms, 2);
				break;
			case METRIC_IDLE:
				add_number(t, c->idle_pct, 1);
				break;
			case METRIC_THROTTLED:
				add_number(t, c->throttled, 0);
				break;
			}
		}
	}
	if (t->error) {
		table_done(t);
		return t->error;
	}
	return 0;
}

static const char *metric_caption(const struct model *m, enum metric what, char *buf, size_t len)
{
	switch (what) {
	case METRIC_TPS:
		if (m->baseline)
			snprintf(buf, len, "TPS, median of the repeats (min..max) n=repeats; ratio to %s", m->baseline);
		else
			snprintf(buf, len, "TPS, median of the repeats (min..max) n=repeats");
		break;
	case METRIC_P95:
		snprintf(buf, len, "p95 latency (ms), median of the repeats");
		break;
	case METRIC_IDLE:
		snprintf(buf, len, "cpu idle %%, mean per step, median of the repeats");
		break;
	case METRIC_THROTTLED:
		snprintf(buf, len, "nr_throttled delta per step, median of the repeats");
		break;
	}
	return buf;
}

static int render_tables(const struct model *m, const struct report_options *o, bool markdown, FILE *out)
{
	enum metric list[4] = { METRIC_TPS };
	size_t n = 1, i;
	const char *ctx, *key;
	json_t *d, *v;
	char buf[160];

	if (o->latency)
		list[n++] = METRIC_P95;
	if (o->telemetry) {
		list[n++] = METRIC_IDLE;
		list[n++] = METRIC_THROTTLED;
	}
	if (markdown)
		fprintf(out, "### %s\n\n", m->name);
	for (i = 0; i < n; i++) {
		struct table t;
		int r = build_table(m, list[i], &t);

		if (r < 0)
			return r;
		if (markdown) {
			fprintf(out, "%s\n\n", metric_caption(m, list[i], buf, sizeof(buf)));
			table_print_markdown(&t, out);
		} else {
			if (i == 0)
				fprintf(out, "%s: ", m->name);
			fprintf(out, "%s\n", metric_caption(m, list[i], buf, sizeof(buf)));
			table_print_text(&t, out);
		}
		table_done(&t);
		if (i == 0 && m->any_ns)
			fprintf(out, "%s(n.s.): the difference is within the run-to-run noise\n", markdown ? "\n" : "");
		fputc('\n', out);
	}
	if (json_array_size(m->failures) > 0) {
		fprintf(out, "failed steps:\n%s", markdown ? "\n" : "");
		json_array_foreach(m->failures, i, v) {
			char vb[64];
			const char *vary = scalar_str(json_object_get(v, "vary_value"), vb, sizeof(vb));

			fprintf(out, "%s%s%s%s threads=%s repeat=%s: %s\n", markdown ? "- " : "  ",
				strempty(json_string_value(json_object_get(v, "context"))), vary ? " " : "", strempty(vary),
				strempty(scalar_str(json_object_get(v, "threads"), buf, 32)),
				strempty(scalar_str(json_object_get(v, "repeat"), buf + 32, 32)),
				json_string_value(json_object_get(v, "reason")) ?: "(no reason recorded)");
		}
		fputc('\n', out);
	}
	if (json_object_size(m->diffs) > 0) {
		fprintf(out, "placement differences, %s | context (vary index 0, repeat 1):\n%s", m->baseline,
			markdown ? "\n" : "");
		json_object_foreach(m->diffs, ctx, d) {
			fprintf(out, "%s%s:%s\n", markdown ? "- " : "  ", ctx, json_object_size(d) ? "" : " no difference");
			json_object_foreach(d, key, v)
				fprintf(out, "%s%s: %s | %s\n", markdown ? "  - " : "    ", key,
					json_string_value(json_array_get(v, 0)) ?: GAP,
					json_string_value(json_array_get(v, 1)) ?: GAP);
		}
	}
	return 0;
}

/* ---- CSV ---- */

static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_number(FILE *out, double v, int decimals)
{
	fputc(',', out);
	if (!isnan(v))
		fprintf(out, "%.*f", decimals, v);
}

static int render_csv(const struct model *m, const struct report_options *o, FILE *out)
{
	fputs("column,threads,median_tps,min_tps,max_tps,n,ratio,significant,failed", out);
	if (o->latency)
		fputs(",p95_ms", out);
	if (o->telemetry)
		fputs(",cpu_idle_pct,nr_throttled_delta", out);
	fputc('\n', out);
	for (size_t k = 0; k < m->ncols; k++)
		for (size_t r = 0; r < m->nrows; r++) {
			const struct cell *c = model_cell(m, r, k);

			csv_field(out, m->cols[k].label);
			fprintf(out, ",%lld", m->threads[r]);
			csv_number(out, c->median, 3);
			csv_number(out, c->min, 3);
			csv_number(out, c->max, 3);
			fprintf(out, ",%zu", c->n);
			csv_number(out, c->ratio, 4);
			fprintf(out, ",%s", isnan(c->ratio) ? "" : c->significant ? "true" : "false");
			fprintf(out, ",%zu", c->n_failed);
			if (o->latency)
				csv_number(out, c->p95_ms, 3);
			if (o->telemetry) {
				csv_number(out, c->idle_pct, 2);
				csv_number(out, c->throttled, 0);
			}
			fputc('\n', out);
		}
	return 0;
}

/* ---- JSON ---- */

static json_t *real_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static int put(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0 ? 0 : -ENOMEM;
}

static int build_json(const struct model *m, const struct report_options *o, json_t **ret)
{
	json_t *doc, *cols, *rows;
	int r = 0;

	doc = json_pack("{s:i, s:s, s:s?, s:s?, s:[], s:[], s:O, s:O}", "format_version", REPORT_FORMAT_VERSION,
			"experiment", m->name, "baseline", m->baseline, "vary_property", m->vary_property, "columns",
			"rows", "diffs", m->diffs, "failures", m->failures);
	if (!doc)
		return -ENOMEM;
	cols = json_object_get(doc, "columns");
	rows = json_object_get(doc, "rows");
	for (size_t k = 0; k < m->ncols && r == 0; k++) {
		const struct column *c = &m->cols[k];

		if (json_array_append_new(cols, json_pack("{s:s, s:s, s:s?, s:b}", "label", c->label, "context",
							  c->context, "vary_value", c->vary, "baseline",
							  c->is_baseline)) < 0)
			r = -ENOMEM;
	}
	for (size_t i = 0; i < m->nrows && r == 0; i++) {
		json_t *row = json_pack("{s:I, s:[]}", "threads", (json_int_t)m->threads[i], "cells"), *cells;

		if (!row || json_array_append_new(rows, row) < 0) {
			r = -ENOMEM;
			break;
		}
		cells = json_object_get(row, "cells");
		for (size_t k = 0; k < m->ncols && r == 0; k++) {
			const struct cell *c = model_cell(m, i, k);
			json_t *cell = json_object();

			if (!cell || json_array_append_new(cells, cell) < 0) {
				r = -ENOMEM;
				break;
			}
			r = put(cell, "median", real_or_null(c->median));
			r = r ?: put(cell, "min", real_or_null(c->min));
			r = r ?: put(cell, "max", real_or_null(c->max));
			r = r ?: put(cell, "n", json_integer((json_int_t)c->n));
			r = r ?: put(cell, "failed", json_integer((json_int_t)c->n_failed));
			r = r ?: put(cell, "noise", real_or_null(c->noise));
			r = r ?: put(cell, "ratio", real_or_null(c->ratio));
			r = r ?: put(cell, "significant", isnan(c->ratio) ? json_null() : json_boolean(c->significant));
			if (o->latency)
				r = r ?: put(cell, "p95_ms", real_or_null(c->p95_ms));
			if (o->telemetry) {
				r = r ?: put(cell, "cpu_idle_pct", real_or_null(c->idle_pct));
				r = r ?: put(cell, "nr_throttled_delta", real_or_null(c->throttled));
			}
		}
	}
	if (r < 0) {
		json_decref(doc);
		return r;
	}
	*ret = doc;
	return 0;
}

static int dump_json(json_t *j, FILE *out)
{
	int r = json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0 ? -EIO : 0;

	if (r == 0)
		fputc('\n', out);
	return r;
}

/* ---- SVG and PNG: TPS against threads, one line per column ---- */

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

static int render_plot(const struct model *m, bool png, FILE *out)
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

/* ---- the entry points ---- */

static const char *const format_names[] = {
	[REPORT_TEXT] = "text", [REPORT_MARKDOWN] = "markdown", [REPORT_CSV] = "csv",
	[REPORT_JSON] = "json", [REPORT_SVG] = "svg",		[REPORT_PNG] = "png",
};

int report_format_from_string(const char *s, enum report_format *ret)
{
	if (!s)
		return -EINVAL;
	if (streq(s, "md")) {
		*ret = REPORT_MARKDOWN;
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(format_names); i++)
		if (streq(s, format_names[i])) {
			*ret = (enum report_format)i;
			return 0;
		}
	return -EINVAL;
}

const char *report_format_to_string(enum report_format f)
{
	return (size_t)f < ELEMENTSOF(format_names) ? format_names[f] : NULL;
}

static int finish_output(int r, FILE *out)
{
	if (r < 0)
		return r;
	return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}

int report_render(const json_t *doc, const struct report_options *o, FILE *out)
{
	struct model m;
	json_t *j;
	int r;

	if (!o || !out || !report_format_to_string(o->format))
		return -EINVAL;
	r = model_build(doc, &m);
	if (r < 0)
		return r;
	switch (o->format) {
	case REPORT_TEXT:
	case REPORT_MARKDOWN:
		r = render_tables(&m, o, o->format == REPORT_MARKDOWN, out);
		break;
	case REPORT_CSV:
		r = render_csv(&m, o, out);
		break;
	case REPORT_JSON:
		r = build_json(&m, o, &j);
		if (r >= 0) {
			r = dump_json(j, out);
			json_decref(j);
		}
		break;
	case REPORT_SVG:
	case REPORT_PNG:
		r = render_plot(&m, o->format == REPORT_PNG, out);
		break;
	}
	model_done(&m);
	return finish_output(r, out);
}

/* ---- compare: n documents side by side ---- */

struct comparison {
	size_t n;
	struct model *m;
	const char **labels;
	char **label_buf;
	const char **cols; /* union of the column labels, first document first */
	size_t ncols;
	long long *threads;
	size_t nrows;
	const char **keys; /* host keys whose values differ */
	size_t nkeys;
	char **values; /* nkeys x n, NULL: absent */
	json_t **hosts; /* [n] each document's host facts flattened to dotted keys (cpu.vendor) */
};

static void comparison_done(struct comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		model_done(&c->m[i]);
		if (c->label_buf)
			free(c->label_buf[i]);
	}
	for (size_t i = 0; i < c->nkeys * c->n; i++)
		free(c->values[i]);
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

static const struct cell *comparison_cell(const struct comparison *c, size_t doc, size_t row, size_t col)
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

		if (i > 0 && streq(all[i], all[i - 1]))
			continue;
		for (size_t d = 0; d < c->n; d++)
			if (value_dup(json_object_get(c->hosts[d], all[i]), &vals[d]) < 0) {
				for (size_t k = 0; k < d; k++)
					free(vals[k]);
				free(all);
				return -ENOMEM;
			}
		for (size_t d = 1; d < c->n; d++)
			same = same && streq_ptr(vals[0], vals[d]);
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

static int comparison_build(json_t *const *docs, const char *const *labels, size_t n, struct comparison *c)
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
		r = model_build(docs[i], &c->m[i]);
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
	return comparison_host(c, docs);
}

static int compare_tables(const struct comparison *c, bool markdown, FILE *out)
{
	struct table t = { .ncols = 2 + 2 * c->n, .left = 2 };
	int r = 0;

	if (markdown)
		fprintf(out, "### %s\n\n", c->m[0].name);
	fprintf(out, "%s%sTPS, median of the repeats; ratio to each document's own baseline\n%s",
		markdown ? "" : c->m[0].name, markdown ? "" : ": ", markdown ? "\n" : "");
	table_add(&t, "threads");
	table_add(&t, "column");
	for (size_t d = 0; d < c->n; d++) {
		table_add(&t, "%s", c->labels[d]);
		table_add(&t, "%s ratio", c->labels[d]);
	}
	for (size_t row = 0; row < c->nrows; row++)
		for (size_t col = 0; col < c->ncols; col++) {
			table_add(&t, "%lld", c->threads[row]);
			table_add(&t, "%s", c->cols[col]);
			for (size_t d = 0; d < c->n; d++) {
				const struct cell *x = comparison_cell(c, d, row, col);

				if (!x || x->n == 0)
					table_add(&t, "%s", x && x->n_failed ? "failed" : GAP);
				else
					table_add(&t, "%.1f", x->median);
				if (!x)
					table_add(&t, GAP);
				else
					add_ratio(&t, x);
			}
		}
	if (t.error) {
		table_done(&t);
		return t.error;
	}
	markdown ? table_print_markdown(&t, out) : table_print_text(&t, out);
	table_done(&t);
	fputc('\n', out);
	if (c->nkeys == 0) {
		fprintf(out, "host: no differences\n");
		return 0;
	}
	t = (struct table){ .ncols = 1 + c->n, .left = 1 + c->n };
	fprintf(out, "host differences:\n%s", markdown ? "\n" : "");
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
	/* One table for both parts: a record of kind "tps" per document, thread
	 * count and column, and one of kind "host" per differing key and document. */
	fputs("record,document,threads,column,median_tps,ratio,significant,key,value\n", out);
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
				csv_number(out, x->ratio, 4);
				fprintf(out, ",%s,,\n", isnan(x->ratio) ? "" : x->significant ? "true" : "false");
			}
	for (size_t k = 0; k < c->nkeys; k++)
		for (size_t d = 0; d < c->n; d++) {
			fputs("host,", out);
			csv_field(out, c->labels[d]);
			fputs(",,,,,,", out);
			csv_field(out, c->keys[k]);
			fputc(',', out);
			csv_field(out, strempty(c->values[k * c->n + d]));
			fputc('\n', out);
		}
	return 0;
}

static int compare_json(const struct comparison *c, json_t **ret)
{
	json_t *doc, *docs, *rows, *hosts;
	int r = 0;

	doc = json_pack("{s:i, s:s, s:[], s:[], s:{}}", "format_version", REPORT_FORMAT_VERSION, "experiment",
			c->m[0].name, "documents", "rows", "host_diffs");
	if (!doc)
		return -ENOMEM;
	docs = json_object_get(doc, "documents");
	rows = json_object_get(doc, "rows");
	hosts = json_object_get(doc, "host_diffs");
	for (size_t d = 0; d < c->n && r == 0; d++)
		if (json_array_append_new(docs, json_pack("{s:s, s:s, s:s?}", "label", c->labels[d], "experiment",
							  c->m[d].name, "baseline", c->m[d].baseline)) < 0)
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
					v = json_pack("{s:o, s:I, s:o, s:o}", "median", real_or_null(x->median), "n",
						      (json_int_t)x->n, "ratio", real_or_null(x->ratio), "significant",
						      isnan(x->ratio) ? json_null() : json_boolean(x->significant));
				if (json_array_append_new(vals, v) < 0)
					r = -ENOMEM;
			}
		}
	for (size_t k = 0; k < c->nkeys && r == 0; k++) {
		json_t *a = json_array();

		for (size_t d = 0; a && d < c->n; d++)
			if (json_array_append_new(a, c->values[k * c->n + d] ? json_string(c->values[k * c->n + d])
									     : json_null()) < 0) {
				json_decref(a);
				a = NULL;
			}
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

int compare_render(json_t *const *docs, const char *const *labels, size_t n, enum report_format format, FILE *out)
{
	struct comparison c;
	json_t *j;
	int r;

	if (!out || !report_format_to_string(format))
		return -EINVAL;
	if (format == REPORT_SVG || format == REPORT_PNG)
		return -EOPNOTSUPP;
	r = comparison_build(docs, labels, n, &c);
	if (r >= 0)
		switch (format) {
		case REPORT_TEXT:
		case REPORT_MARKDOWN:
			r = compare_tables(&c, format == REPORT_MARKDOWN, out);
			break;
		case REPORT_CSV:
			r = compare_csv(&c, out);
			break;
		case REPORT_JSON:
			r = compare_json(&c, &j);
			if (r >= 0) {
				r = dump_json(j, out);
				json_decref(j);
			}
			break;
		default:
			r = -EOPNOTSUPP;
		}
	comparison_done(&c);
	return finish_output(r, out);
}

/* The HTML renderer: a run's page.  The numbers are the model's (its cells,
 * verdicts, noises, failures and placement differences); the page adds
 * what only the document holds: the experiment, the host facts that
 * decide a comparison, the per-second TPS of every step (render/steps.c)
 * and the commands that reproduce it. */
#include <math.h>
#include <stdio.h>

#include "store/provenance.h"
#include "report/render/page.h"
#include "report/render/cells.h"
#include "common/util.h"

/* A member of the experiment by dotted path ("server.engine"). */
static const json_t *get_dotted(const json_t *o, const char *path)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)MIN((size_t)(dot - path), sizeof(key) - 1), path);
		o = json_object_get(o, key);
		path = dot + 1;
	}
	return json_object_get(o, path);
}

/* One row key | value of a fact table; nothing for an absent value. */
static int fact_row(FILE *out, const char *key, const json_t *v)
{
	_cleanup_free_ char *s = NULL;

	if (value_dup(v, &s) < 0)
		return -ENOMEM;
	if (!s)
		return 0;
	fputs("<tr><th class=\"l\">", out);
	html_text(out, key);
	fputs("</th><td class=\"l wrap\">", out);
	html_text(out, s);
	fputs("</td></tr>\n", out);
	return 0;
}

static const char *const experiment_keys[] = {
	"description", "path", "threads", "warmup_s", "duration_s", "repeat", "repeat_max", "until",
	"driver", "workload", "tables", "table_size", "baseline", "vary.property", "vary.values", "vary.mode",
	"server.engine", "server.binary", "server.buffer_pool", "client.pin", "client.cpus", "client.scope",
};

/* A context's proxy by its name, with its engine and kind: "pool
 * (pgbouncer, service)"; nothing for a context without one. */
static void proxy_cell(FILE *out, const json_t *exp, const char *name)
{
	const json_t *p;
	size_t i;

	json_array_foreach(json_object_get(exp, "proxies"), i, p)
		if (name && streq_ptr(json_string_value(json_object_get(p, "name")), name)) {
			html_printf(out, "%s (%s, %s)", name, strempty(json_string_value(json_object_get(p, "engine"))),
				    strempty(json_string_value(json_object_get(p, "kind"))));
			return;
		}
	html_text(out, name);
}

/* The experiment's settings, then its contexts one row each. */
static int page_experiment(FILE *out, const json_t *doc)
{
	const json_t *exp = json_object_get(doc, "experiment"), *spec;
	size_t i;
	int r = 0;

	fputs("<h2 id=\"experiment\">The experiment</h2>\n", out);
	if (!json_is_object(exp)) {
		html_no_figure(out, "no experiment.json in this directory: the run was interrupted before it wrote one");
		return 0;
	}
	fputs("<table id=\"experiment-facts\">\n", out);
	for (i = 0; i < ELEMENTSOF(experiment_keys) && r >= 0; i++)
		r = fact_row(out, experiment_keys[i], get_dotted(exp, experiment_keys[i]));
	fputs("</table>\n", out);
	if (json_array_size(json_object_get(exp, "context_specs")) == 0)
		return r;
	fputs("<div class=\"scroll\"><table class=\"sortable\" id=\"contexts\">\n<thead><tr><th>context</th>"
	      "<th class=\"l\">kind</th><th class=\"l\">session</th><th class=\"l\">properties</th><th class=\"l\">slice</th>"
	      "<th class=\"l\">proxy</th></tr></thead><tbody>\n", out);
	json_array_foreach(json_object_get(exp, "context_specs"), i, spec) {
		_cleanup_free_ char *props = NULL;
		char buf[64];

		if (r >= 0)
			r = value_dup(json_object_get(spec, "properties"), &props);
		fputs("<tr><td>", out);
		html_text(out, scalar_str(json_object_get(spec, "name"), buf, sizeof(buf)));
		fputs("</td><td class=\"l\">", out);
		html_text(out, scalar_str(json_object_get(spec, "kind"), buf, sizeof(buf)));
		fputs("</td><td class=\"l\">", out);
		html_text(out, scalar_str(json_object_get(spec, "session"), buf, sizeof(buf)));
		fputs("</td><td class=\"l wrap\">", out);
		html_text(out, props);
		fputs("</td><td class=\"l\">", out);
		html_text(out, scalar_str(json_object_get(spec, "slice"), buf, sizeof(buf)));
		fputs("</td><td class=\"l\">", out);
		proxy_cell(out, exp, json_string_value(json_object_get(spec, "proxy")));
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
	return r;
}

/* The host facts that decide a comparison across machines. */
static int page_host(FILE *out, const json_t *doc)
{
	char *vals[HOST_FACTS_N];
	int r;

	fputs("<h2 id=\"host\">The host</h2>\n", out);
	if (!json_is_object(json_object_get(doc, "host"))) {
		html_no_figure(out, "no host.json in this directory");
		return 0;
	}
	r = host_fact_values(json_object_get(doc, "host"), vals);
	if (r < 0)
		return r;
	fputs("<table id=\"host-facts\">\n", out);
	for (size_t k = 0; k < HOST_FACTS_N; k++) {
		fputs("<tr><th class=\"l\">", out);
		html_text(out, host_fact_key(k));
		fputs("</th><td class=\"l\">", out);
		html_text(out, vals[k] ?: GAP);
		fputs("</td></tr>\n", out);
		free(vals[k]);
	}
	fputs("</table>\n", out);
	return 0;
}

/* The verdict's class (which colours its row) and its word. */
struct verdict_look {
	const char *cls, *word;
};

static struct verdict_look verdict_look(const struct model *m, size_t k, const struct cell *c)
{
	if (m->cols[k].is_baseline)
		return (struct verdict_look){ "base", "baseline" };
	if (c->too_many_failed)
		return (struct verdict_look){ "fail", "no ratio: too many failed" };
	if (isnan(c->vs_base.ratio))
		return (struct verdict_look){ "none", c->n ? "no ratio" : "no TPS" };
	/* repeat = decide: the look's answer, not the whole run's test. */
	if (m->seq.on && c->decided_here)
		return (struct verdict_look){ c->decision.answer == SEQ_DIFFERENT ? "sig" : "ns",
					      c->decision.answer == SEQ_DIFFERENT ? "different"
					      : c->decision.answer == SEQ_SAME	  ? "the same"
										  : "undecided" };
	if (c->vs_base.verdict == STATS_SIGNIFICANT)
		return (struct verdict_look){ "sig", "significant" };
	return (struct verdict_look){ "ns", c->vs_base.verdict == STATS_NOT_SIGNIFICANT ? "n.s." : "no interval" };
}

/* "%.3f" or the gap, into buf. */
static const char *num(double v, const char *fmt, char *buf, size_t len)
{
	if (isnan(v))
		return GAP;
	snprintf(buf, len, fmt, v);
	return buf;
}

/* The verdicts' columns: the header, and each cell's label where a narrow
 * screen shows a row as a card (html.c's style). */
enum { VH_THREADS, VH_CONTEXT, VH_MEDIAN, VH_RANGE, VH_N, VH_RATIO, VH_INTERVAL, VH_P, VH_VERDICT, VH_FAILED, VH_MDE,
       VH_VS_FIRST, _VH_MAX };
static const struct {
	const char *head, *cls;
} verdict_cols[_VH_MAX] = {
	[VH_THREADS] = { "threads" },	 [VH_CONTEXT] = { "context", "l" },   [VH_MEDIAN] = { "median TPS" },
	[VH_RANGE] = { "min..max" },	 [VH_N] = { "n" },		      [VH_RATIO] = { "ratio", "v" },
	[VH_INTERVAL] = { "interval" },	 [VH_P] = { "p (Holm)" },	      [VH_VERDICT] = { "verdict", "v l" },
	[VH_FAILED] = { "failed starts" }, [VH_MDE] = { "smallest gap it could see" },
	[VH_VS_FIRST] = { "against the first vary value", "l" },
};

/* <td> of column i, its label and class from verdict_cols[], then s. */
static void verdict_td(FILE *out, int i, const char *s)
{
	fprintf(out, "<td data-h=\"%s\"%s%s%s>", verdict_cols[i].head, verdict_cols[i].cls ? " class=\"" : "",
		strempty(verdict_cols[i].cls), verdict_cols[i].cls ? "\"" : "");
	html_text(out, s);
	fputs("</td>", out);
}

/* A decided ratio's cells: its look's estimate and repeated confidence
 * interval (the run's fixed-design interval would be narrower than the
 * looks allow), no p (a boundary, not a test of the whole run). */
static void verdict_decided(FILE *out, const struct seq_hypothesis *h)
{
	char a[64];

	verdict_td(out, VH_RATIO, num(exp(h->d), "%.3f", a, sizeof(a)));
	if (!isnan(h->lo) && !isinf(h->hi))
		snprintf(a, sizeof(a), "%.3f-%.3f", exp(h->lo), exp(h->hi));
	verdict_td(out, VH_INTERVAL, isnan(h->lo) || isinf(h->hi) ? GAP : a);
	verdict_td(out, VH_P, GAP);
}

static void verdict_row(FILE *out, const struct model *m, size_t row, size_t k)
{
	const struct cell *c = model_cell(m, row, k);
	const struct stats_ratio *v = &c->vs_base;
	char a[64], text[REPORT_RATIO_MAX];
	struct verdict_look look = verdict_look(m, k, c);
	bool decided = m->seq.on && c->decided_here;

	fprintf(out, "<tr class=\"verdict %s\">", look.cls);
	snprintf(a, sizeof(a), "%lld", m->threads[row]);
	verdict_td(out, VH_THREADS, a);
	verdict_td(out, VH_CONTEXT, m->cols[k].label);
	verdict_td(out, VH_MEDIAN, num(c->median, "%.1f", a, sizeof(a)));
	if (c->n > 0)
		snprintf(a, sizeof(a), "%.1f..%.1f", c->min, c->max);
	verdict_td(out, VH_RANGE, c->n > 0 ? a : GAP);
	snprintf(a, sizeof(a), "%zu", c->n);
	verdict_td(out, VH_N, a);
	if (decided)
		verdict_decided(out, &c->decision);
	else {
		verdict_td(out, VH_RATIO, num(v->ratio, "%.3f", a, sizeof(a)));
		if (!isnan(v->lo))
			snprintf(a, sizeof(a), "%.3f-%.3f", v->lo, v->hi);
		verdict_td(out, VH_INTERVAL, isnan(v->lo) ? GAP : a);
		verdict_td(out, VH_P, num(v->p, "%.3g", a, sizeof(a)));
	}
	verdict_td(out, VH_VERDICT, look.word);
	snprintf(a, sizeof(a), "%zu of %zu", c->n_failed, c->n + c->n_failed);
	verdict_td(out, VH_FAILED, a);
	verdict_td(out, VH_MDE, decided ? GAP : num(v->mde, "%.2fx", a, sizeof(a)));
	if (m->any_vs_first)
		verdict_td(out, VH_VS_FIRST,
			   isnan(c->vs_first.ratio) ? GAP : report_format_ratio(&c->vs_first, text, sizeof(text)));
	fputs("</tr>\n", out);
}

/* A row per thread count and column: the TPS, the verdict against the
 * baseline with its interval and Holm-adjusted p, the failures, and what a
 * "not significant" could have seen. */
static void page_verdicts(FILE *out, const struct model *m)
{
	char method[1024];

	fputs("<h2 id=\"verdicts-h\">Verdicts</h2>\n", out);
	if (!m->baseline)
		fputs("<p class=\"note\">The experiment names no baseline: no ratios.</p>\n", out);
	fputs("<div class=\"scroll\"><table class=\"sortable cards\" id=\"verdicts\">\n<thead><tr>", out);
	for (int i = 0; i < _VH_MAX; i++)
		if (i != VH_VS_FIRST || m->any_vs_first)
			fprintf(out, "<th%s>%s</th>", verdict_cols[i].cls && strchr(verdict_cols[i].cls, 'l') ? " class=\"l\"" : "",
				i == VH_THREADS ? model_unit(m, 2) : verdict_cols[i].head);
	fputs("</tr></thead><tbody>\n", out);
	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++)
			verdict_row(out, m, row, k);
	fputs("</tbody></table></div>\n<p class=\"note\">", out);
	if (m->baseline)
		html_printf(out, "ratio: %s; smallest gap: what a not-significant ratio could have told from noise at %.0f%% "
				 "power. A cell whose starts fail more than a fifth of the time gets no ratio.",
			    ratio_method_text(m, m->baseline, m->family_base, method, sizeof(method)), 100 * STATS_POWER);
	if (m->pilot)
		html_printf(out, " repeat = auto: the sigma and degrees of freedom are the pilot's %u rounds'.", m->pilot);
	if (m->seq.on)
		fputs(" repeat = decide: a ratio's verdict is its answer at the look that decided it (or the last), its "
		      "interval that look's repeated confidence interval (Decisions, above), with no p or smallest gap.", out);
	fputs("</p>\n", out);
}

/* A step of the model's lists (noisy, failed): "shell 400, round 2,
 * threads 8", escaped. */
static void page_step_label(FILE *out, const json_t *v)
{
	char vb[64], rb[32], tb[32];
	const char *vary = scalar_str(json_object_get(v, "vary_value"), vb, sizeof(vb));

	html_printf(out, "%s%s%s, round %s, threads %s", strempty(json_string_value(json_object_get(v, "context"))),
		    vary ? " " : "", strempty(vary), strempty(scalar_str(json_object_get(v, "repeat"), rb, sizeof(rb))),
		    strempty(scalar_str(json_object_get(v, "threads"), tb, sizeof(tb))));
}

/* The table of metric what as <table id="id">, under its caption and suffix. */
static int page_captioned_table(FILE *out, const struct model *m, enum metric what, const char *suffix, const char *id)
{
	char caption[640];
	struct table t;
	int r = report_table(m, what, 0, &t);

	if (r < 0)
		return r;
	fputs("<p class=\"note\">", out);
	html_text(out, report_table_caption(m, what, caption, sizeof(caption)));
	html_text(out, suffix);
	fputs("</p>\n", out);
	html_table(out, &t, id);
	table_done(&t);
	return 0;
}

/* The two CVs of every cell with their intervals, and each column's noise
 * against its baseline's, a sentence each. */
static int page_noise_intervals(FILE *out, const struct model *m)
{
	char buf[NOISE_SENTENCE_MAX], heading[640];
	bool said = false;
	int r = page_captioned_table(out, m, METRIC_NOISE_CI, ".", "noise-intervals");

	if (r < 0)
		return r;
	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++) {
			if (!noise_verdict_text(m, row, k, buf, sizeof(buf)))
				continue;
			if (!said) {
				fputs("<p class=\"note\">", out);
				noise_verdicts_heading(m, heading, sizeof(heading));
				html_text(out, heading);
				fputs(":</p>\n<ul id=\"noise-verdicts\">\n", out);
			}
			said = true;
			fputs("<li>", out);
			html_text(out, buf);
			fputs("</li>\n", out);
		}
	if (said)
		fputs("</ul>\n", out);
	return 0;
}

/* The noise within a start and across starts, and the noisy steps. */
static int page_noise(FILE *out, const struct model *m)
{
	json_t *v;
	size_t i;
	int r;

	fputs("<h2 id=\"noise-h\">Noise</h2>\n", out);
	r = page_captioned_table(out, m, METRIC_NOISE, "; ! marks a cell with a step above 10%.", "noise");
	r = r < 0 ? r : page_noise_intervals(out, m);
	if (r < 0)
		return r;
	if (json_array_size(m->noisy) == 0)
		return 0;
	fputs("<ul id=\"noisy\">\n", out);
	json_array_foreach(m->noisy, i, v) {
		fputs("<li>", out);
		page_step_label(out, v);
		html_printf(out, ": CV %.0f%%", 100 * json_number_value(json_object_get(v, "cv")));
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
	return 0;
}

/* With --latency and --telemetry, their tables as the text has them (the
 * list's first, TPS, is the page's figure and verdicts). */
static int page_metrics(FILE *out, const struct model *m, const struct report_options *o)
{
	enum metric list[REPORT_METRICS_MAX];
	size_t n = report_metric_list(o, list);
	char buf[200], id[32];

	if (n > 1)
		fputs("<h2 id=\"metrics-h\">Latency and telemetry</h2>\n", out);
	for (size_t i = 1; i < n; i++) {
		struct table t;
		int r = report_table(m, list[i], 0, &t);

		if (r < 0)
			return r;
		fputs("<h3>", out);
		html_text(out, report_table_caption(m, list[i], buf, sizeof(buf)));
		fputs("</h3>\n", out);
		snprintf(id, sizeof(id), "metric-%d", (int)list[i]);
		html_table(out, &t, id);
		table_done(&t);
	}
	return 0;
}

/* The failed steps with their reasons. */
static void page_failures(FILE *out, const struct model *m)
{
	json_t *v;
	size_t i;

	char sentence[256];

	fputs("<h2 id=\"failures-h\">Failed steps</h2>\n", out);
	report_starts_sentence(m, sentence, sizeof(sentence));
	/* html_printf escapes the whole text: the markup goes around it. */
	fputs("<p id=\"starts\">", out);
	html_printf(out, "%s; ", sentence);
	report_busy_sentence(m, sentence, sizeof(sentence));
	html_printf(out, "%s.", sentence);
	fputs("</p>\n", out);
	if (json_array_size(m->failures) == 0) {
		fputs("<p id=\"failures\">None.</p>\n", out);
		return;
	}
	fputs("<ul id=\"failures\">\n", out);
	json_array_foreach(m->failures, i, v) {
		fputs("<li class=\"failure\">", out);
		page_step_label(out, v);
		html_printf(out, ": %s", json_string_value(json_object_get(v, "reason")) ?: "(no reason recorded)");
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* Every context's placement against the baseline's, key by key. */
static void page_placements(FILE *out, const struct model *m)
{
	const char *ctx, *key;
	json_t *d, *v;

	fputs("<h2 id=\"placements-h\">Placement against the baseline</h2>\n", out);
	if (json_object_size(m->diffs) == 0) {
		html_no_figure(out, m->baseline ? "no placement of the baseline and another context to compare"
						: "no baseline to compare placements with");
		return;
	}
	fputs("<p class=\"note\">The first vary value's first repeat of each; counters left out.</p>\n", out);
	json_object_foreach(m->diffs, ctx, d) {
		fputs("<h3 class=\"placement\">", out);
		html_printf(out, "%s against %s", ctx, m->baseline);
		fputs("</h3>\n", out);
		if (json_object_size(d) == 0) {
			fputs("<p>No difference.</p>\n", out);
			continue;
		}
		fputs("<div class=\"scroll\"><table class=\"placement-diff\"><thead><tr><th>key</th><th class=\"l\">", out);
		html_text(out, m->baseline);
		fputs("</th><th class=\"l\">", out);
		html_text(out, ctx);
		fputs("</th></tr></thead><tbody>\n", out);
		json_object_foreach(d, key, v) {
			fputs("<tr><td>", out);
			html_text(out, key);
			fputs("</td><td class=\"l wrap\">", out);
			html_text(out, json_string_value(json_array_get(v, 0)) ?: GAP);
			fputs("</td><td class=\"l wrap\">", out);
			html_text(out, json_string_value(json_array_get(v, 1)) ?: GAP);
			fputs("</td></tr>\n", out);
		}
		fputs("</tbody></table></div>\n", out);
	}
}

/* An argument for a shell, quoted when it needs to be. */
static void shell_word(FILE *out, const char *s)
{
	bool plain = *s != 0;

	for (const char *p = s; *p; p++)
		plain &= strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,%+@", *p) != NULL;
	if (plain) {
		html_text(out, s);
		return;
	}
	fputc('\'', out);
	for (; *s; s++)
		*s == '\'' ? fputs("'\\''", out) : html_printf(out, "%c", *s);
	fputc('\'', out);
}

/* The commands: the run again, in the recorded order of rounds, and this
 * page.  The run as it recorded itself (the file's path, the options, the
 * taskset it ran under); a directory of an older run has only its name,
 * order and seed. */
static void page_reproduce(FILE *out, const struct model *m, const json_t *doc, const struct report_options *o)
{
	const json_t *exp = json_object_get(doc, "experiment"), *sched = json_object_get(doc, "schedule");
	const char *path = json_string_value(json_object_get(exp, "path"));
	const char *command = json_string_value(json_object_get(sched, "command"));
	char buf[64];

	fputs("<h2 id=\"reproduce-h\">To reproduce it</h2>\n<pre id=\"reproduce\">", out);
	if (command)
		html_text(out, command);
	else {
		fputs("slicebench run ", out);
		shell_word(out, path ? path : m->name);
		if (json_is_string(json_object_get(sched, "order"))) {
			fputs(" --order ", out);
			shell_word(out, json_string_value(json_object_get(sched, "order")));
		}
		if (scalar_str(json_object_get(sched, "seed"), buf, sizeof(buf)))
			fprintf(out, " --seed %s", buf);
	}
	fputs("\nslicebench report ", out);
	shell_word(out, o->source ? o->source : "DIR");
	fputs(" --format html -o report.html\n</pre>\n<p class=\"note\">The seed draws the same order of the rounds; "
	      "the host, its neighbours and the server's version are what a new run cannot take from here.</p>\n", out);
}

/* Sentences of the text report, written by write, as <pre id="id"> under
 * a heading of that id with "-h". */
static int page_sentences(FILE *out, const struct model *m, const char *id, const char *heading,
			  int (*write)(const struct model *m, FILE *f))
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r = f ? write(m, f) : -ENOMEM;

	if (f && fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	fprintf(out, "<h2 id=\"%s-h\">%s</h2>\n<pre id=\"%s\">", id, heading, id);
	html_text(out, text);
	fputs("</pre>\n", out);
	return 0;
}

/* repeat = decide: its answers first, as the text report's (different,
 * the same within the margin, undecided and what would decide it), in the
 * same sentences. */
static int decisions_text(const struct model *m, FILE *f)
{
	print_decisions(m, false, f);
	print_decisions_plan(m, false, f);
	return 0;
}

/* An open loop: the rate, the latencies' tables, the steps that outran
 * the server, as the text report says them. */
static int open_loop_text(const struct model *m, FILE *f)
{
	return render_open_loop_text(m, false, f);
}

/* The title, what was run where, and the contents. */
static void page_header(FILE *out, const struct model *m, const struct report_options *o)
{
	char built[PROVENANCE_TEXT_MAX];

	fputs("<h1>", out);
	html_text(out, m->name);
	fputs("</h1>\n<p class=\"note\">", out);
	if (o->source) {
		fputs("Results directory ", out);
		html_text(out, o->source);
		fputs(". ", out);
	}
	html_printf(out, "%zu context%s, %zu thread count%s; intervals at %g%%.", m->ncols, m->ncols == 1 ? "" : "s",
		    m->nrows, m->nrows == 1 ? "" : "s", 100 * m->level);
	fputs("</p>\n<p class=\"note\" id=\"provenance\">", out);
	html_printf(out, "%s.", provenance_text(m->builds, built, sizeof(built)));
	fputs("</p>\n<p>", out);
	if (model_has_decisions(m))
		fputs("<a href=\"#decisions-h\">decisions</a> · ", out);
	fputs("<a href=\"#experiment\">experiment</a> · <a href=\"#host\">host</a> · <a href=\"#tps-h\">TPS</a> · "
	      "<a href=\"#verdicts-h\">verdicts</a> · ", out);
	if (m->open_loop.latency[0])
		fputs("<a href=\"#latency-h\">latency</a> · ", out);
	fputs("<a href=\"#steps-h\">per second</a> · <a href=\"#noise-h\">noise</a> · "
	      "<a href=\"#failures-h\">failures</a> · <a href=\"#placements-h\">placement</a> · "
	      "<a href=\"#reproduce-h\">reproduce</a></p>\n", out);
}

int render_html(const struct model *m, const json_t *doc, const struct report_options *o, FILE *out)
{
	_cleanup_free_ char *title = NULL;
	int r;

	if (xasprintf(&title, "slicebench: %s", m->name) < 0)
		return -ENOMEM;
	html_begin(out, title);
	page_header(out, m, o);
	r = model_has_decisions(m) ? page_sentences(out, m, "decisions", "Decisions", decisions_text) : 0;
	r = r < 0 ? r : page_experiment(out, doc);
	r = r < 0 ? r : page_host(out, doc);
	if (r >= 0) {
		page_tps(out, m);
		page_verdicts(out, m);
		r = m->open_loop.latency[0] ? page_sentences(out, m, "latency", "Latency at a fixed rate", open_loop_text) : 0;
		r = r < 0 ? r : page_steps(out, m, doc);
	}
	r = r < 0 ? r : page_noise(out, m);
	r = r < 0 ? r : page_metrics(out, m, o);
	r = r < 0 ? r : page_profile(out, m);
	if (r < 0)
		return r;
	page_failures(out, m);
	page_placements(out, m);
	page_reproduce(out, m, doc, o);
	html_end(out);
	return 0;
}

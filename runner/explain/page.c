/* An explanation as one HTML page (explain/page.h). */
#include <math.h>
#include <stdio.h>

#include "explain/reading.h"
#include "store/provenance.h"
#include "explain/page.h"
#include "explain/sentences.h"
#include "report/render/cells.h"
#include "report/render/html.h"
#include "common/util.h"

#define WF_W 900
#define WF_LABEL 300
#define WF_ROW 30

/* A bar of the waterfall: a share of the gap, its interval where it has one. */
struct wf_bar {
	char label[200];
	const char *cls, *colour;
	double share, lo, hi; /* lo, hi: NAN without an interval, +-INFINITY unbounded */
};

struct waterfall {
	struct wf_bar bar[FACTORS_MAX + 3];
	size_t n;
	double min, max; /* the shares' range shown, 0 and 1 within it */
};

static void wf_add(struct waterfall *w, const char *label, const char *cls, const char *colour, double share,
		   const struct stats_share *iv)
{
	struct wf_bar *b = &w->bar[w->n++];

	(void)text_copy(b->label, sizeof(b->label), label);
	b->cls = cls;
	b->colour = colour ? colour : share < 0 ? "#d62728" : "#2ca02c";
	b->share = share;
	b->lo = iv && !isnan(iv->lo) ? (iv->bounded ? iv->lo : -INFINITY) : NAN;
	b->hi = iv && !isnan(iv->hi) ? (iv->bounded ? iv->hi : INFINITY) : NAN;
}

/* From B: each factor alone, the interactions (what the closure reaches
 * beyond the factors alone), the rest up to A, and A. */
static void wf_build(const struct explain_record *rec, const struct explanation *x, struct waterfall *w)
{
	struct stats_share rest = { .share = 1 - x->closure.share, .lo = 1 - x->closure.hi, .hi = 1 - x->closure.lo,
				    .bounded = x->closure.bounded };
	const struct stats_share *pair = NULL;
	double sum = 0, cum = 0;
	char label[200];

	*w = (struct waterfall){ .min = 0, .max = 1 };
	for (size_t k = 0; k < rec->n_factors; k++) {
		if (!((x->factors >> k) & 1))
			continue;
		snprintf(label, sizeof(label), "%s alone", rec->labels[k]);
		wf_add(w, label, "bar factor", NULL, x->alone[k].share, &x->alone[k]);
		sum += x->alone[k].share;
	}
	for (size_t j = 0; j < rec->n_factors; j++)
		for (size_t k = j + 1; k < rec->n_factors; k++)
			if (!isnan(x->pair[j][k].share))
				pair = x->n_pairs == 1 ? &x->pair[j][k] : NULL;
	wf_add(w, x->n_pairs == 1 ? "their interaction" : "the interactions", "bar interaction", "#9467bd",
	       x->closure.share - sum, pair);
	wf_add(w, rec->closure_is_a ? "the rest (A is the closure)" : "the rest, no hybrid reaches it", "bar rest",
	       "#7f7f7f", rest.share, rec->closure_is_a ? NULL : &rest);
	snprintf(label, sizeof(label), "A: %s", rec->a);
	wf_add(w, label, "bar total", "#1f77b4", 1, NULL);
	for (size_t i = 0; i + 1 < w->n; i++) {
		const struct wf_bar *b = &w->bar[i];

		cum += isnan(b->share) ? 0 : b->share;
		w->min = MIN(w->min, cum);
		w->max = MAX(w->max, cum);
		if (isfinite(b->lo))
			w->min = MIN(w->min, cum - b->share + b->lo);
		if (isfinite(b->hi))
			w->max = MAX(w->max, cum - b->share + b->hi);
	}
	w->min = MAX(w->min, -1);
	w->max = MIN(w->max, 2);
}

static double wx(const struct waterfall *w, double s)
{
	s = MAX(w->min, MIN(w->max, s));
	return WF_LABEL + 10 + (s - w->min) / (w->max - w->min) * (WF_W - WF_LABEL - 40);
}

/* The axis: percent of the gap above, the TPS it comes to below. */
static void wf_axes(FILE *out, const struct waterfall *w, const struct explanation *x, double bottom)
{
	double step = html_nice_step((w->max - w->min) * 100) / 100;

	fputs("<g class=\"grid\">", out);
	for (double s = ceil(w->min / step) * step; s <= w->max + 1e-9; s += step)
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"24\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"18\" "
			     "text-anchor=\"middle\">%.0f%%</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>",
			wx(w, s), wx(w, s), bottom, wx(w, s), 100 * s, wx(w, s), bottom + 16, x->med_b * pow(x->med_a / x->med_b, s));
	fprintf(out, "</g><text x=\"%d\" y=\"18\" text-anchor=\"end\">share of the gap</text>"
		     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">TPS (geometric, B to A)</text>\n",
		WF_LABEL - 8, WF_LABEL - 8, bottom + 16);
}

/* Row i: its label, its bar from where the last ended, its interval. */
static void wf_row(FILE *out, const struct waterfall *w, size_t i, double from, double y)
{
	const struct wf_bar *b = &w->bar[i];
	double to = i + 1 == w->n ? 1 : from + (isnan(b->share) ? 0 : b->share), x0 = wx(w, MIN(from, to));

	if (i + 1 == w->n)
		from = 0;
	fprintf(out, "<g class=\"row\"><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", WF_LABEL, y + 15);
	html_text(out, b->label);
	fprintf(out, "</text><rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>",
		b->cls, i + 1 == w->n ? wx(w, 0) : x0, y + 4, MAX(1.0, fabs(wx(w, to) - wx(w, from))), WF_ROW - 10, b->colour);
	html_printf(out, "%s: %.0f%% of the gap", b->label, 100 * (i + 1 == w->n ? 1 : b->share));
	if (isfinite(b->lo) && isfinite(b->hi))
		html_printf(out, " (interval %.0f%% to %.0f%%)", 100 * b->lo, 100 * b->hi);
	else if (!isnan(b->lo))
		html_printf(out, " (interval unbounded)");
	fputs("</title></rect>", out);
	if (!isnan(b->lo) && i + 1 < w->n)
		fprintf(out, "<path class=\"ci\" stroke=\"#222\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\"/>",
			wx(w, from + b->lo), y + 15, wx(w, from + b->hi), wx(w, from + b->lo), y + 10, y + 20,
			wx(w, from + b->hi), y + 10, y + 20);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%.0f%%</text></g>\n",
		MAX(MAX(wx(w, from), wx(w, to)), !isnan(b->hi) && i + 1 < w->n ? wx(w, from + b->hi) : 0) + 4, y + 15,
		100 * (i + 1 == w->n ? 1 : b->share));
}

static void page_waterfall(FILE *out, const struct explain_record *rec, const struct explanation *x)
{
	struct waterfall w;
	double cum = 0, h;

	fputs("<h2 id=\"waterfall-h\">The gap, from B to A</h2>\n", out);
	if (x->gap.verdict != STATS_SIGNIFICANT || !(x->med_a > 0 && x->med_b > 0)) {
		html_no_figure(out, x->ends_failed ? "A's or B's starts failed too often to take part: there is no gap to "
						     "share out"
						   : "no significant gap between A and B: there is nothing to share out");
		return;
	}
	for (size_t k = 0; k < rec->n_factors; k++)
		if ((x->factors >> k) & 1 && isnan(x->alone[k].share)) {
			html_no_figure(out, "a mix failed too often to take part (see the failed starts): the bars need "
					    "every factor alone");
			return;
		}
	wf_build(rec, x, &w);
	h = 40 + WF_ROW * (double)(w.n + 1) + 30;
	fprintf(out, "<div class=\"scroll\"><svg id=\"waterfall\" class=\"figure\" width=\"%d\" height=\"%.0f\" "
		     "viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"the gap's shares from B to A\">\n",
		WF_W, h, WF_W, h);
	wf_axes(out, &w, x, h - 30);
	fprintf(out, "<g class=\"row\"><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", WF_LABEL, 24 + 15);
	html_printf(out, "B: %s, %.1f TPS", rec->b, x->med_b);
	fprintf(out, "</text><path class=\"axis\" d=\"M%.1f 28V%.1f\"/></g>\n", wx(&w, 0), h - 30);
	for (size_t i = 0; i < w.n; i++) {
		wf_row(out, &w, i, cum, 24 + WF_ROW * (double)(i + 1));
		cum += isnan(w.bar[i].share) ? 0 : w.bar[i].share;
	}
	fprintf(out, "</svg></div>\n<p class=\"note\">Each factor's bar is what it moves added to %s by itself, its "
		     "whisker the %g%% interval; then what the factors add together beyond that (the closure's share less "
		     "theirs alone); then what the closure does not reach; A is at %.1f TPS. The shares below are the "
		     "Shapley values, which split each interaction among its factors.</p>\n",
		rec->b, 100 * rec->level, x->med_a);
}

static const char *pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		return GAP;
	snprintf(buf, len, "%.0f%%", v == 0 ? 0 : 100 * v);
	return buf;
}

/* Without a significant gap, the factors and why their shares are
 * withheld: a share of a gap that may be 0 can take any value. */
static void page_withheld(FILE *out, const struct explain_record *rec, const struct explanation *x)
{
	char verdict[REPORT_RATIO_MAX];

	fputs("<p id=\"withheld\" class=\"ns\">", out);
	if (x->ends_failed)
		html_printf(out, "The shares are withheld: %s's or %s's starts failed too often to take part (see the "
				 "failed starts), so there is no gap to share out.", rec->a, rec->b);
	else
		html_printf(out, "The shares are withheld: the gap, %s, is not significant, so a share of it (a factor's "
				 "effect over a gap that may be 0) can take any value. The mixes' TPS below show what each "
				 "moved.",
			    isnan(x->gap.ratio) ? "with no ratio" : report_format_ratio(&x->gap, verdict, sizeof(verdict)));
	fputs("</p>\n<ul id=\"factors\">\n", out);
	for (size_t k = 0; k < rec->n_factors; k++) {
		fputs("<li>", out);
		html_printf(out, "%s: %s", rec->labels[k], rec->details[k]);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* A row per factor: its Shapley share with its interval, alone, the
 * fraction's main effect; withheld without a significant gap. */
static void page_shares(FILE *out, const struct explain_record *rec, const struct explanation *x)
{
	char a[32], b[32], c[32], d[32];

	if (x->gap.verdict != STATS_SIGNIFICANT) {
		fputs("<h2 id=\"shares-h\">Each factor's share</h2>\n", out);
		page_withheld(out, rec, x);
		return;
	}
	fputs("<h2 id=\"shares-h\">Each factor's share</h2>\n<div class=\"scroll\"><table class=\"sortable\" id=\"shares\">"
	      "<thead><tr><th>factor</th><th class=\"l\">what</th><th>share</th><th>interval (Fieller, Holm)</th><th>alone</th>"
	      "<th>alone's interval</th><th>main effect (fraction)</th></tr></thead><tbody>\n", out);
	for (size_t k = 0; k < rec->n_factors; k++) {
		bool in = (x->factors >> k) & 1;

		fprintf(out, "<tr class=\"factor%s\"><td>", in ? "" : " out");
		html_text(out, rec->labels[k]);
		fputs("</td><td class=\"l wrap\">", out);
		html_text(out, rec->details[k]);
		fprintf(out, "</td><td class=\"v\">%s</td><td>%s</td>", in ? pct(x->shapley[k].share, a, sizeof(a)) : "screened out",
			in ? sentences_interval(&x->shapley[k], b, sizeof(b)) : GAP);
		fprintf(out, "<td>%s</td><td>%s</td>", in ? pct(x->alone[k].share, c, sizeof(c)) : GAP,
			in ? sentences_interval(&x->alone[k], d, sizeof(d)) : GAP);
		fprintf(out, "<td>%s</td></tr>\n", pct(x->main_effect[k], c, sizeof(c)));
	}
	fputs("</tbody></table></div>\n", out);
	if (x->n_pairs == 0)
		return;
	fputs("<table id=\"pairs\"><thead><tr><th>pair</th><th>interaction</th><th>interval (Holm)</th><th class=\"l\">"
	      "</th></tr></thead><tbody>\n", out);
	for (size_t j = 0; j < rec->n_factors; j++)
		for (size_t k = j + 1; k < rec->n_factors; k++) {
			if (isnan(x->pair[j][k].share))
				continue;
			fputs("<tr><td>", out);
			html_printf(out, "%s x %s", rec->labels[j], rec->labels[k]);
			fprintf(out, "</td><td>%s</td><td>%s</td><td class=\"l\">%s</td></tr>\n", pct(x->pair[j][k].share, a, sizeof(a)),
				sentences_interval(&x->pair[j][k], b, sizeof(b)), x->pair_claimed[j][k] ? "an interaction" : "");
		}
	fputs("</tbody></table>\n", out);
}

/* What explain printed, word for word. */
static int page_sentences(FILE *out, const struct explain_record *rec, const struct analysis_inputs *in,
			  const struct explanation *x)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return -ENOMEM;
	sentences_print(rec, in, x, mem);
	if (fclose(mem) != 0)
		return -ENOMEM;
	fputs("<h2 id=\"sentences-h\">What explain says</h2>\n<pre id=\"sentences\">", out);
	html_text(out, text);
	fputs("</pre>\n", out);
	return 0;
}

/* The highest start of a mix, 0 without any. */
static double mix_top(const struct stage_mix *mx)
{
	double top = 0;

	for (size_t j = 0; j < mx->n; j++)
		top = MAX(top, mx->tps[j]);
	return top;
}

/* A stage's mixes: each a bar at its median TPS, each start a point. */
static void page_stage(FILE *out, const struct explain_record *rec, const struct analysis_inputs *in,
		       const struct stage *st, const char *name)
{
	double top = 0, h = 30 + 24.0 * (double)st->n_mix;
	char label[512];

	fputs("<h3>", out);
	html_printf(out, "%s: %zu mixes, %u rounds", name, st->n_mix, st->n_rounds);
	fputs("</h3>\n", out);
	for (size_t i = 0; i < st->n_mix; i++)
		top = MAX(top, mix_top(&st->mix[i]));
	if (!(top > 0)) {
		html_no_figure(out, "no start of this stage completed a transaction");
		return;
	}
	top *= 1.05;
	fprintf(out, "<div class=\"scroll\"><svg class=\"figure mixes\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\">\n",
		WF_W, h, WF_W, h);
	for (size_t i = 0; i < st->n_mix; i++) {
		const struct stage_mix *mx = &st->mix[i];
		double y = 10 + 24.0 * (double)i, scale = (WF_W - WF_LABEL - 80) / top;

		sentences_mix_label(rec, in->labels, mx->mask, label, sizeof(label));
		fprintf(out, "<g><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", WF_LABEL, y + 13);
		html_text(out, label);
		fprintf(out, "</text><rect class=\"mix\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"16\" fill=\"#aec7e8\"><title>",
			WF_LABEL + 10, y + 2, isnan(mx->med) ? 0 : mx->med * scale);
		html_printf(out, "%s: median %.1f TPS of %zu starts, %zu failed", label, mx->med, mx->n, mx->n_failed);
		fputs("</title></rect>", out);
		for (size_t j = 0; j < mx->n; j++)
			fprintf(out, "<circle class=\"start\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#1f77b4\"><title>round %u: "
				     "%.1f TPS</title></circle>",
				WF_LABEL + 10 + mx->tps[j] * scale, y + 10, mx->round[j], mx->tps[j]);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%.1f%s</text></g>\n", WF_LABEL + 18 + mix_top(mx) * scale, y + 13,
			isnan(mx->med) ? 0 : mx->med, mx->n_failed ? " (and failed starts)" : "");
	}
	fputs("</svg></div>\n", out);
}

static void page_mixes(FILE *out, const struct explain_record *rec, const struct analysis_inputs *in)
{
	fputs("<h2 id=\"mixes-h\">The mixes and their TPS</h2>\n<p class=\"note\">Each mix takes the factors named from A "
	      "and the rest from B; the bar is its median TPS, each point a start.</p>\n", out);
	if (in->fraction)
		page_stage(out, rec, in, in->fraction, "the fraction (a resolution IV screen)");
	page_stage(out, rec, in, in->screen, "the screen (every mix)");
	if (in->confirm)
		page_stage(out, rec, in, in->confirm, "the hold-out (fresh rounds)");
}

static void page_head(FILE *out, const struct explain_record *rec, const struct explanation *x, const char *dir)
{
	char verdict[REPORT_RATIO_MAX], built[PROVENANCE_TEXT_MAX];
	json_t *builds = explain_builds(dir);

	fputs("<h1>", out);
	html_printf(out, "%s against %s at %ld thread%s", rec->a, rec->b, rec->threads, rec->threads == 1 ? "" : "s");
	fputs("</h1>\n<p class=\"note\">", out);
	html_printf(out, "explain of experiment %s, directory %s; %zu factor%s, hybrids of kind %s%s%s, intervals at %g%%.",
		    rec->experiment, dir, rec->n_factors, rec->n_factors == 1 ? "" : "s", rec->hybrids,
		    *rec->proxy_hybrids ? " through proxies of kind " : "", rec->proxy_hybrids, 100 * rec->level);
	fputs("</p>\n<p class=\"note\" id=\"provenance\">", out);
	html_printf(out, "%s.", provenance_text(builds, built, sizeof(built)));
	json_decref(builds);
	fprintf(out, "</p>\n<p id=\"gap\" class=\"%s\">", x->gap.verdict == STATS_SIGNIFICANT ? "sig" : "ns");
	html_printf(out, "%s at %.1f TPS against %s at %.1f TPS (medians): %s, from all %zu starts of the %zu mixes.", rec->a,
		    x->med_a, rec->b, x->med_b, isnan(x->gap.ratio) ? "no ratio" : report_format_ratio(&x->gap, verdict, sizeof(verdict)),
		    x->n_starts, x->n_mixes);
	fputs("</p>\n", out);
}

/* The mixes with failed starts, stage by stage, and whether each took
 * part. */
static void page_failures(FILE *out, const struct explain_record *rec, const struct analysis_inputs *in)
{
	char line[1024];
	bool said = false;

	fputs("<h2 id=\"failures-h\">Failed starts</h2>\n", out);
	for (size_t s = 0; s < _STAGE_MAX; s++) {
		const struct stage *st = explain_stage_of(in, (enum explain_stage)s);

		for (size_t i = 0; st && i < st->n_mix; i++) {
			if (st->mix[i].n_failed == 0)
				continue;
			fputs(said ? "" : "<ul id=\"failures\">\n", out);
			said = true;
			fprintf(out, "<li class=\"failure%s\">", st->mix[i].too_many_failed ? " excluded" : "");
			html_text(out, sentences_failure(rec, in->labels, (enum explain_stage)s, &st->mix[i], line, sizeof(line)));
			fputs("</li>\n", out);
		}
	}
	fputs(said ? "</ul>\n" : "<p id=\"failures\">None.</p>\n", out);
}

static void page_commands(FILE *out, const struct explain_record *rec, const char *dir)
{
	fputs("<h2 id=\"reproduce-h\">To reproduce it</h2>\n<pre id=\"reproduce\">", out);
	/* As explain recorded it (the file's path, every option, the taskset);
	 * an older explain's directory has only its name, pair and seed. */
	if (*rec->command)
		html_printf(out, "%s\n", rec->command);
	else
		html_printf(out, "slicebench explain %s %s %s --threads %ld --seed %llu\n", rec->experiment, rec->a, rec->b,
			    rec->threads, (unsigned long long)rec->seed);
	html_printf(out, "slicebench report %s --format html -o report.html\n", dir);
	fputs("</pre>\n", out);
}

int page_explanation(const struct explain_record *rec, const struct analysis_inputs *in, const struct explanation *x,
		     const char *dir, FILE *out)
{
	_cleanup_free_ char *title = NULL;
	int r;

	if (xasprintf(&title, "slicebench explain: %s against %s", rec->a, rec->b) < 0)
		return -ENOMEM;
	html_begin(out, title);
	page_head(out, rec, x, dir);
	page_waterfall(out, rec, x);
	page_shares(out, rec, x);
	r = page_sentences(out, rec, in, x);
	if (r < 0)
		return r;
	page_failures(out, rec, in);
	page_mixes(out, rec, in);
	page_commands(out, rec, dir);
	html_end(out);
	return 0;
}

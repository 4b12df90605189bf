/* compare of explain directories, one per host, of the same experiment
 * and pair: which cause differs?  Each factor's effect on each host, as a
 * ratio (its Shapley contribution, exp(share * ln gap)) and as a share,
 * and each other host's effect over the first's: a contrast across the
 * two hosts' fits, the difference of the factor's Shapley log-effects,
 * whose variance is the sum of the two hosts' (each fit its own sigma,
 * Satterthwaite's degrees of freedom), Holm-adjusted across the table.
 * Factors are matched by label; one that only a host has is said so. */
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "store/provenance.h"
#include "explain/explain.h"
#include "explain/reading.h"
#include "report/render/cells.h"
#include "report/report.h"
#include "common/input.h"
#include "common/util.h"

struct factor_row {
	const char *label;		   /* borrowed from a reading */
	long k[COMPARE_HOSTS_MAX];	   /* the factor's index on each host; -1: none */
	struct stats_ratio differ[COMPARE_HOSTS_MAX]; /* [d]: host d's effect over the first's; [0] none */
};

struct explain_hosts {
	size_t n;
	const char *const *labels;
	struct reading *rd[COMPARE_HOSTS_MAX];
	json_t *host[COMPARE_HOSTS_MAX]; /* the screen's host.json */
	char *facts[COMPARE_HOSTS_MAX];	 /* [d]: the host facts that differ from the first's; NULL: none */
	struct factor_row rows[FACTORS_MAX * 2];
	size_t nrows, family;
	double level;
};

static void explain_hosts_done(struct explain_hosts *h)
{
	for (size_t d = 0; d < h->n; d++) {
		free(h->rd[d]);
		json_decref(h->host[d]);
		free(h->facts[d]);
	}
}

/* The screen's host facts of dir; -EBADMSG without. */
static int load_host(const char *dir, json_t **ret, char **ret_why)
{
	_cleanup_free_ char *path = NULL;

	if (xasprintf(&path, "%s/%s/host.json", dir, explain_stage_dir(STAGE_SCREEN)) < 0)
		return -ENOMEM;
	_cleanup_free_ char *why = NULL;

	*ret = input_load_json(path, INPUT_JSON_MAX, &why);
	if (json_is_object(*ret))
		return 0;
	json_decref(*ret);
	*ret = NULL;
	return xasprintf(ret_why, "%s has no host facts (%s): a comparison across hosts needs them", dir, path),
	       -EBADMSG;
}

/* Each directory read and analysed; all of one experiment, pair and
 * thread count, each with its host facts. */
static int hosts_load(char *const *dirs, size_t n, double level, struct explain_hosts *h, char **ret_why)
{
	int r = 0;

	for (size_t d = 0; d < n && r >= 0; d++) {
		struct explain_record *a, *b;

		if (!(h->rd[d] = calloc(1, sizeof(*h->rd[d]))))
			return -ENOMEM;
		h->n++;
		r = reading_load(dirs[d], level, 0, h->rd[d], ret_why);
		if (r >= 0 && !h->rd[d]->rec.stage[STAGE_SCREEN].present)
			r = xasprintf(ret_why, "%s: explain stopped before its screen: no factor's effect to compare",
				      dirs[d]) < 0 ? -ENOMEM : -EBADMSG;
		if (r >= 0)
			r = load_host(dirs[d], &h->host[d], ret_why);
		a = &h->rd[0]->rec;
		b = &h->rd[d]->rec;
		if (r >= 0 && (!streq(a->experiment, b->experiment) || !streq(a->a, b->a) || !streq(a->b, b->b) ||
			       a->threads != b->threads))
			r = xasprintf(ret_why, "%s explains %s against %s at %ld thread%s (%s) but %s explains %s against %s "
				      "at %ld thread%s (%s): compare takes explanations of the same pair", dirs[d], b->a, b->b,
				      b->threads, b->threads == 1 ? "" : "s", b->experiment, dirs[0], a->a, a->b, a->threads,
				      a->threads == 1 ? "" : "s", a->experiment) < 0
				    ? -ENOMEM
				    : -EBADMSG;
		if (r >= 0 && d > 0)
			r = compare_host_differences(h->host[0], h->host[d], &h->facts[d]);
	}
	return r;
}

static long factor_index(const struct reading *rd, const char *label)
{
	for (size_t k = 0; k < rd->rec.n_factors; k++)
		if (streq(rd->rec.labels[k], label))
			return (long)k;
	return -1;
}

/* The row of label, made when new. */
static struct factor_row *row_of(struct explain_hosts *h, const char *label)
{
	struct factor_row *row;

	for (size_t i = 0; i < h->nrows; i++)
		if (streq(h->rows[i].label, label))
			return &h->rows[i];
	row = &h->rows[h->nrows++];
	row->label = label;
	for (size_t d = 0; d < h->n; d++)
		row->k[d] = factor_index(h->rd[d], label);
	return row;
}

/* Factor k's effect on host d; NULL where it has none. */
static const struct stats_ratio *effect(const struct explain_hosts *h, const struct factor_row *row, size_t d)
{
	const struct stats_ratio *e = row->k[d] < 0 ? NULL : &h->rd[d]->x.effect[row->k[d]];

	return e && !isnan(e->ratio) ? e : NULL;
}

/* Host d's effect over the first's: the difference of the log-effects,
 * their variances summed, Satterthwaite's degrees of freedom. */
static void judge_factor(struct explain_hosts *h, struct factor_row *row, size_t d)
{
	const struct stats_ratio *a = effect(h, row, 0), *b = effect(h, row, d);
	double va, vb;

	row->differ[d] = (struct stats_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN, .se = NAN,
					       .sigma = NAN, .p_raw = NAN, .mde = NAN, .verdict = STATS_TOO_FEW,
					       .family = 1, .level = h->level };
	if (!a || !b)
		return;
	va = a->se * a->se;
	vb = b->se * b->se;
	stats_ratio_from_t(log(b->ratio) - log(a->ratio), sqrt(va + vb), (va + vb) * (va + vb) / (va * va / a->df + vb * vb / b->df),
			   h->level, &row->differ[d]);
}

/* The rows (the first host's factors, then any the others add), each
 * judged, Holm across the table. */
static void hosts_judge(struct explain_hosts *h)
{
	struct stats_ratio *fam[FACTORS_MAX * 2 * COMPARE_HOSTS_MAX];
	size_t m = 0;

	for (size_t d = 0; d < h->n; d++)
		for (size_t k = 0; k < h->rd[d]->rec.n_factors && h->nrows < ELEMENTSOF(h->rows); k++)
			row_of(h, h->rd[d]->rec.labels[k]);
	for (size_t i = 0; i < h->nrows; i++)
		for (size_t d = 1; d < h->n; d++) {
			judge_factor(h, &h->rows[i], d);
			if (!isnan(h->rows[i].differ[d].p_raw))
				fam[m++] = &h->rows[i].differ[d];
		}
	stats_holm_ratios(fam, m, h->level);
	h->family = m;
}

/* "1.20x (1.10-1.31), 45%": the effect and its share of the gap; the
 * share only where the host's gap is significant (of a gap that may be 0
 * a share can take any value). */
static void put_effect(FILE *f, const struct explain_hosts *h, const struct factor_row *row, size_t d)
{
	const struct stats_ratio *e = effect(h, row, d);
	const struct explanation *x = &h->rd[d]->x;

	if (!e)
		fputs(row->k[d] < 0 ? "not a factor here" : "not shared out", f);
	else if (isnan(e->lo))
		fprintf(f, "%.2fx", e->ratio);
	else
		fprintf(f, "%.2fx (%.2f-%.2f)", e->ratio, e->lo, e->hi);
	if (e && x->gap.verdict == STATS_SIGNIFICANT)
		fprintf(f, ", %.0f%%", 100 * x->shapley[row->k[d]].share);
	else if (e)
		fputs(", no share (n.s. gap)", f);
}

/* The hosts that have the factor, when not all do, and its effect on
 * each; false when all do. */
static bool put_only(FILE *f, const struct explain_hosts *h, const struct factor_row *row)
{
	size_t have = 0, i = 0;

	for (size_t d = 0; d < h->n; d++)
		have += row->k[d] >= 0;
	if (have == h->n)
		return false;
	fprintf(f, "%s: a factor only on", row->label);
	for (size_t d = 0; d < h->n; d++)
		if (row->k[d] >= 0)
			fprintf(f, "%s %s", i++ ? "," : "", h->labels[d]);
	for (size_t d = 0; d < h->n; d++)
		if (row->k[d] >= 0) {
			fprintf(f, "; on %s it moves the gap by ", h->labels[d]);
			put_effect(f, h, row, d);
		}
	return true;
}

/* The sentence of row against host d, or nothing when its effect does
 * not differ; true when it said one. */
static bool put_sentence(FILE *f, const struct explain_hosts *h, const struct factor_row *row, size_t d)
{
	const struct stats_ratio *x = &row->differ[d];
	bool up = x->ratio >= 1;

	if (x->verdict != STATS_SIGNIFICANT)
		return false;
	fprintf(f, "%s moves the gap by %.2fx on %s and %.2fx on %s (they differ by %.2fx, %.2f-%.2f)", row->label,
		effect(h, row, 0)->ratio, h->labels[0], effect(h, row, d)->ratio, h->labels[d], up ? x->ratio : 1 / x->ratio,
		up ? x->lo : 1 / x->hi, up ? x->hi : 1 / x->lo);
	if (h->facts[d])
		fprintf(f, "; the hosts differ in %s", h->facts[d]);
	else
		fputs("; the host facts compare weighs are the same", f);
	return true;
}

/* What the differences that were not shown could have been: the range of
 * their smallest detectable gaps at STATS_POWER. */
static const char *hosts_mde(const struct explain_hosts *h, char *buf, size_t len)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < h->nrows; i++)
		for (size_t d = 1; d < h->n; d++)
			if (!isnan(h->rows[i].differ[d].mde)) {
				lo = MIN(lo, h->rows[i].differ[d].mde);
				hi = MAX(hi, h->rows[i].differ[d].mde);
			}
	if (hi == 0)
		snprintf(buf, len, "no difference had an interval, so none could have been shown");
	else if (hi - lo < 0.005)
		snprintf(buf, len, "a difference of %.2fx either way would have been shown at %.0f%% power", lo,
			 100 * STATS_POWER);
	else
		snprintf(buf, len, "a difference of %.2fx to %.2fx either way (by factor) would have been shown at %.0f%% power",
			 lo, hi, 100 * STATS_POWER);
	return buf;
}

/* Every sentence: each factor that differs or that one host has alone,
 * or that none differs. */
static int hosts_sentences(const struct explain_hosts *h, char ***ret, size_t *ret_n)
{
	char **v = calloc(h->nrows * h->n + 2, sizeof(*v)), mde[128];
	size_t n = 0, len;
	bool any = false;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < h->nrows; i++)
		for (size_t d = 0; d < h->n; d++) {
			FILE *f = open_memstream(&v[n], &len);
			bool said;

			if (!f)
				break;
			said = d == 0 ? put_only(f, h, &h->rows[i]) : put_sentence(f, h, &h->rows[i], d);
			any |= said && d > 0;
			if (fclose(f) == 0 && said)
				n++;
			else
				free(v[n]), v[n] = NULL;
			if (d == 0 && said)
				break;
		}
	/* Not shown is not shown equal: say what could have been. */
	if (!any && xasprintf(&v[n], "none shown: no factor's effect was shown to differ between the hosts (%zu compared, "
				     "Holm-adjusted); %s%s%s",
			      h->family, h->family ? hosts_mde(h, mde, sizeof(mde)) : "nothing could be compared",
			      h->facts[1] ? "; the hosts differ in " : "", strempty(h->facts[1])) >= 0)
		n++;
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The table: the gap and each factor, a column per host and per other
 * host over the first; then the sentences. */
static void hosts_text(const struct explain_hosts *h, char *const *sentences, size_t n_sentences, FILE *out)
{
	const struct explain_record *r = &h->rd[0]->rec;
	char buf[REPORT_RATIO_MAX];

	fprintf(out, "which cause differs: %s against %s at %ld thread%s (%s), each factor's effect on each host (its "
		     "Shapley contribution to the gap as a ratio, with its %g%% interval, and its share), and each other "
		     "host's effect over %s's (the difference of the log-effects, each host's own variance), "
		     "Holm-adjusted across the %zu of this table\n\n",
		r->a, r->b, r->threads, r->threads == 1 ? "" : "s", r->experiment, 100 * h->level, h->labels[0], h->family);
	fprintf(out, "%-24s", "the gap");
	for (size_t d = 0; d < h->n; d++)
		fprintf(out, "  %s: %s", h->labels[d], report_format_ratio(&h->rd[d]->x.gap, buf, sizeof(buf)));
	fputc('\n', out);
	for (size_t i = 0; i < h->nrows; i++) {
		fprintf(out, "%-24s", h->rows[i].label);
		for (size_t d = 0; d < h->n; d++) {
			fprintf(out, "  %s: ", h->labels[d]);
			put_effect(out, h, &h->rows[i], d);
		}
		for (size_t d = 1; d < h->n; d++)
			fprintf(out, "  %s over %s: %s", h->labels[d], h->labels[0],
				isnan(h->rows[i].differ[d].ratio)
					? "\u2014"
					: report_format_ratio(&h->rows[i].differ[d], buf, sizeof(buf)));
		fputc('\n', out);
	}
	fputc('\n', out);
	for (size_t i = 0; i < n_sentences; i++)
		fprintf(out, "%s\n", sentences[i]);
}

/* A verdict's numbers, or null. */
static json_t *ratio_json(const struct stats_ratio *v)
{
	if (!v || isnan(v->ratio))
		return json_null();
	return json_pack("{s:f, s:o, s:o, s:o, s:o, s:o, s:I, s:b}", "ratio", v->ratio, "ratio_lo",
			 isnan(v->lo) ? json_null() : json_real(v->lo), "ratio_hi",
			 isnan(v->hi) ? json_null() : json_real(v->hi), "p", isnan(v->p) ? json_null() : json_real(v->p),
			 "p_raw", isnan(v->p_raw) ? json_null() : json_real(v->p_raw), "mde",
			 isnan(v->mde) ? json_null() : json_real(v->mde), "family", (json_int_t)v->family, "significant",
			 v->verdict == STATS_SIGNIFICANT);
}

static json_t *factor_json(const struct explain_hosts *h, const struct factor_row *row)
{
	json_t *o = json_pack("{s:s, s:[], s:[], s:[n]}", "label", row->label, "effect", "share", "differ");

	for (size_t d = 0; o && d < h->n; d++) {
		const struct stats_ratio *e = effect(h, row, d);

		if (json_array_append_new(json_object_get(o, "effect"), ratio_json(e)) < 0 ||
		    json_array_append_new(json_object_get(o, "share"),
					  e ? json_real(h->rd[d]->x.shapley[row->k[d]].share) : json_null()) < 0 ||
		    (d > 0 && json_array_append_new(json_object_get(o, "differ"), ratio_json(&row->differ[d])) < 0)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* Long because the JSON tree is built member by member. */
static int hosts_json(const struct explain_hosts *h, char *const *sentences, size_t n_sentences, FILE *out)
{
	const struct explain_record *r = &h->rd[0]->rec;
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:I, s:f, s:I, s:[], s:[], s:[], s:[], s:[n]}",
			      "format_version", REPORT_FORMAT_VERSION, "kind", "explain_hosts", "experiment", r->experiment,
			      "a", r->a, "b", r->b, "threads", (json_int_t)r->threads, "confidence", h->level, "family",
			      (json_int_t)h->family, "hosts", "gap", "factors", "sentences", "host_differences");
	int ret = o ? 0 : -ENOMEM;

	for (size_t d = 0; d < h->n && ret >= 0; d++)
		if (json_array_append_new(json_object_get(o, "hosts"), json_string(h->labels[d])) < 0 ||
		    json_array_append_new(json_object_get(o, "gap"), ratio_json(&h->rd[d]->x.gap)) < 0 ||
		    (d > 0 && json_array_append_new(json_object_get(o, "host_differences"),
						    h->facts[d] ? json_string(h->facts[d]) : json_null()) < 0))
			ret = -ENOMEM;
	for (size_t i = 0; i < h->nrows && ret >= 0; i++)
		if (json_array_append_new(json_object_get(o, "factors"), factor_json(h, &h->rows[i])) < 0)
			ret = -ENOMEM;
	for (size_t i = 0; i < n_sentences && ret >= 0; i++)
		if (json_array_append_new(json_object_get(o, "sentences"), json_string(sentences[i])) < 0)
			ret = -ENOMEM;
	if (ret >= 0 && json_dumpf(o, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0)
		ret = -EIO;
	fputc('\n', out);
	json_decref(o);
	return ret;
}

/* Which build measured each host's explanation, and which reports them. */
static void print_builds(char *const *dirs, const char *const *labels, size_t n, FILE *out)
{
	char built[PROVENANCE_TEXT_MAX];

	for (size_t d = 0; d < n; d++) {
		json_t *builds = explain_builds(dirs[d]);

		fprintf(out, "%s: %s\n", labels ? labels[d] : dirs[d], provenance_text(builds, built, sizeof(built)));
		json_decref(builds);
	}
	fputc('\n', out);
}

/* A cell of explain-compare's row: the hosts' explanations, judged, with
 * their sentences, in one format. */
typedef int hosts_render_fn(const struct document_input *in, const struct explain_hosts *h, char *const *sentences,
			    size_t n_sentences, FILE *out);

/* Which build measured each, then the table and the sentences. */
static int render_hosts_text(const struct document_input *in, const struct explain_hosts *h, char *const *sentences,
			     size_t n_sentences, FILE *out)
{
	print_builds(in->dirs, in->labels, in->n, out);
	hosts_text(h, sentences, n_sentences, out);
	return 0;
}

static int render_hosts_json(const struct document_input *in _unused_, const struct explain_hosts *h,
			     char *const *sentences, size_t n_sentences, FILE *out)
{
	return hosts_json(h, sentences, n_sentences, out);
}

/* In's explain directories of the same experiment and pair from 2 to
 * COMPARE_HOSTS_MAX hosts, read once, judged, rendered by render. */
static int hosts_document(const struct document_input *in, hosts_render_fn *render, FILE *out, char **ret_why)
{
	struct explain_hosts h = { .labels = in->labels };
	char **sentences = NULL;
	size_t n_sentences = 0;
	int r;

	if (!in->o || !out || in->n < 2 || in->n > COMPARE_HOSTS_MAX)
		return -EINVAL;
	r = hosts_load(in->dirs, in->n, in->o->confidence, &h, ret_why);
	if (r >= 0) {
		h.level = h.rd[0]->in.level;
		hosts_judge(&h);
		r = hosts_sentences(&h, &sentences, &n_sentences);
	}
	if (r >= 0)
		r = render(in, &h, sentences, n_sentences, out);
	for (size_t i = 0; i < n_sentences; i++)
		free(sentences[i]);
	free(sentences);
	explain_hosts_done(&h);
	return r >= 0 && (fflush(out) != 0 || ferror(out)) ? -EIO : r;
}

#define HOSTS_CELL(fmt)                                                                            \
	static int explain_compare_##fmt(const struct document_input *in, FILE *out, char **ret_why) \
	{                                                                                            \
		return hosts_document(in, render_hosts_##fmt, out, ret_why);                         \
	}
HOSTS_CELL(text)
HOSTS_CELL(json)

const struct document document_explain_compare = {
	.name = "explain-compare",
	.of = "explain directories of one pair from several hosts",
	.format = {
		[REPORT_TEXT] = explain_compare_text,
		[REPORT_JSON] = explain_compare_json,
	},
};

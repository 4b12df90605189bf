/* An explain directory analysed from what it holds (explain/explain.h):
 * explain.json and each stage's results directory, the same analysis and
 * the same sentences as explain printed when it measured them. */
#include <math.h>
#include <stdio.h>

#include "explain/explain.h"
#include "explain/record.h"
#include "explain/reading.h"
#include "explain/page.h"
#include "explain/sentences.h"
#include "store/provenance.h"
#include "report/report.h"
#include "common/util.h"

int reading_load(const char *dir, double level, double width, struct reading *rd, char **ret_why)
{
	int r = explain_record_read(dir, &rd->rec, ret_why);

	/* A hold-out a signal cut holds a part of its rounds: the set is
	 * named from the screen until explain --resume finishes it. */
	if (r >= 0 && rd->rec.stage[STAGE_CONFIRM].cut)
		rd->rec.stage[STAGE_CONFIRM].present = false, rd->cut = true;
	for (size_t s = 0; r >= 0 && s < _STAGE_MAX; s++)
		if (rd->rec.stage[s].present)
			r = explain_stage_load(dir, (enum explain_stage)s, &rd->rec, &rd->stage[s], ret_why);
	if (r < 0)
		return r;
	for (size_t k = 0; k < rd->rec.n_factors; k++)
		rd->labels[k] = rd->rec.labels[k];
	rd->in = (struct analysis_inputs){
		.n_factors = rd->rec.n_factors, .labels = rd->labels, .closure_is_a = rd->rec.closure_is_a,
		.level = level ? level : rd->rec.level,
		.fraction = rd->rec.stage[STAGE_FRACTION].present ? &rd->stage[STAGE_FRACTION] : NULL,
		.screen = &rd->stage[STAGE_SCREEN], .screen_factors = rd->rec.stage[STAGE_SCREEN].factors,
		.confirm = rd->rec.stage[STAGE_CONFIRM].present ? &rd->stage[STAGE_CONFIRM] : NULL,
		.named = rd->rec.stage[STAGE_CONFIRM].set,
	};
	rd->rec.level = rd->in.level;
	for (size_t s = 0; s < _STAGE_MAX; s++)
		analysis_judge_failures(&rd->stage[s], rd->in.level);
	if (width > 0)
		rd->rec.width = width;
	if (!rd->rec.stage[STAGE_SCREEN].present)
		return analysis_main_effects(&rd->in, &rd->x);
	r = analysis_explain(&rd->in, &rd->x);
	if (r == -EDOM)
		return xasprintf(ret_why, "%s: a stage without A's or B's starts: nothing to explain", dir), -EBADMSG;
	return r;
}

/* The explanation of dir as explain printed it: the set named from the
 * screen when no hold-out measured one. */
static int reading_explain(const char *dir, double level, double width, struct reading *rd, char **ret_why)
{
	int r = reading_load(dir, level, width, rd, ret_why);

	if (r < 0)
		return r;
	if (!rd->rec.stage[STAGE_SCREEN].present)
		return xasprintf(ret_why, "%s: explain stopped after its screen of %zu factors", dir, rd->rec.n_factors),
		       -EBADMSG;
	/* Without a hold-out (explain stopped before it, or none was asked
	 * for), the set is named from the screen, and says so. */
	if (!rd->in.confirm)
		rd->x.named = analysis_choose_set(&rd->x), rd->in.named = rd->x.named;
	if (!rd->in.confirm && rd->x.named)
		r = analysis_explain(&rd->in, &rd->x);
	return r;
}

/* A cell of explain's row: the explanation of dir, read into rd, in one
 * format. */
typedef int explanation_render_fn(const struct reading *rd, const char *dir, FILE *out);

/* The sentences explain printed, under the builds that measured dir. */
static int render_explanation_text(const struct reading *rd, const char *dir, FILE *out)
{
	char built[PROVENANCE_TEXT_MAX];
	json_t *builds = explain_builds(dir);

	fprintf(out, "%s\n\n", provenance_text(builds, built, sizeof(built)));
	json_decref(builds);
	sentences_print(&rd->rec, &rd->in, &rd->x, out);
	if (rd->cut)
		fprintf(out, "\nthe hold-out was cut before its rounds were done: the set is named from the screen; "
			"slicebench explain --resume %s measures the rest\n", dir);
	return 0;
}

/* The explanation as one JSON document, with the builds that measured it
 * and the one that reports it. */
static int render_explanation_json(const struct reading *rd, const char *dir, FILE *out)
{
	json_t *j = sentences_json(&rd->rec, &rd->in, &rd->x), *builds = explain_builds(dir);
	int r;

	if (j && json_object_set_new(j, "holdout_cut", json_boolean(rd->cut)) < 0)
		json_decref(j), j = NULL;
	if (j && json_object_set_new(j, "slicebench", json_pack("{s:O, s:o}", "measured_by", builds, "reported_by",
								 provenance_this_build())) < 0)
		json_decref(j), j = NULL;
	json_decref(builds);
	if (!j)
		return -ENOMEM;
	r = json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0 ? -EIO : 0;
	fputc('\n', out);
	json_decref(j);
	return r;
}

/* The explanation as one HTML page (explain/page.h). */
static int render_explanation_html(const struct reading *rd, const char *dir, FILE *out)
{
	return page_explanation(&rd->rec, &rd->in, &rd->x, dir, out);
}

/* The explanation of in's one directory, as explain printed it, read once
 * and rendered by render; -EIO if out cannot be written. */
static int explain_document(const struct document_input *in, explanation_render_fn *render, FILE *out, char **ret_why)
{
	_cleanup_free_ struct reading *rd = calloc(1, sizeof(*rd));
	int r;

	if (!rd)
		return -ENOMEM;
	if (!in->o || !out || in->n != 1)
		return -EINVAL;
	r = reading_explain(in->dirs[0], in->o->confidence, in->width, rd, ret_why);
	if (r >= 0)
		r = render(rd, in->dirs[0], out);
	if (r < 0)
		return r;
	return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}

/* A cell of the row: the document in one format, through its renderer. */
#define EXPLAIN_CELL(fmt)                                                                        \
	static int explain_##fmt(const struct document_input *in, FILE *out, char **ret_why)     \
	{                                                                                        \
		return explain_document(in, render_explanation_##fmt, out, ret_why);             \
	}
EXPLAIN_CELL(text)
EXPLAIN_CELL(json)
EXPLAIN_CELL(html)

const struct document document_explain = {
	.name = "explain",
	.of = "an explain directory",
	.format = {
		[REPORT_TEXT] = explain_text,
		[REPORT_JSON] = explain_json,
		[REPORT_HTML] = explain_html,
	},
};

int explain_plan_holdout(const char *dir, double width, unsigned *ret_set, unsigned *ret_rounds, double *ret_width,
			 char **ret_why)
{
	_cleanup_free_ struct reading *rd = calloc(1, sizeof(*rd));
	int r;

	if (!rd)
		return -ENOMEM;
	r = reading_load(dir, 0, 0, rd, ret_why);
	if (r < 0)
		return r;
	*ret_set = analysis_choose_set(&rd->x);
	rd->x.named = *ret_set;
	*ret_rounds = *ret_set ? analysis_confirm_rounds(&rd->in, &rd->x, width) : 0;
	*ret_width = *ret_set ? analysis_predicted_width(&rd->in, &rd->x, *ret_rounds) : NAN;
	return 0;
}

int explain_plan_strongest(const char *dir, unsigned *ret, char **ret_why)
{
	_cleanup_free_ struct reading *rd = calloc(1, sizeof(*rd));
	int r;

	if (!rd)
		return -ENOMEM;
	r = reading_load(dir, 0, 0, rd, ret_why);
	if (r >= 0)
		*ret = analysis_strongest(&rd->x, rd->rec.n_factors);
	return r;
}

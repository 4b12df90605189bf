/* The CSV renderer: a record per column and thread count, with the verdict
 * against the baseline and the two noises, and with a vary the verdict
 * against the first value (after the other fields, so that a vary adds
 * columns and moves none). */
#include <math.h>
#include <stdio.h>

#include "report/render/render.h"
#include "common/util.h"

void csv_number(FILE *out, double v, int decimals)
{
	fputc(',', out);
	if (!isnan(v))
		fprintf(out, "%.*f", decimals, v);
}

void csv_verdict(FILE *out, const struct stats_ratio *r, double level)
{
	bool none = isnan(r->ratio);

	csv_number(out, r->ratio, 4);
	csv_number(out, r->lo, 4);
	csv_number(out, r->hi, 4);
	csv_number(out, r->p, 6);
	csv_number(out, r->df, 2);
	csv_number(out, none ? NAN : level, 4);
	fprintf(out, ",%s", none ? "" : r->verdict == STATS_SIGNIFICANT ? "true" : "false");
	csv_number(out, r->p_raw, 6);
	if (none)
		fputc(',', out);
	else
		fprintf(out, ",%zu", r->family);
	csv_number(out, r->mde, 4);
	csv_number(out, r->sigma, 4);
}

int render_csv(const struct model *m, const json_t *doc _unused_, const struct report_options *o, FILE *out)
{
	size_t n_mech;
	const struct oltp_mechanism_def *mech = oltp_mechanism_table(&n_mech);

	fputs("column,threads,median_tps,min_tps,max_tps,n," CSV_VERDICT_HEADER ",within_cv,across_cv,noisy_steps,failed,zero_tps",
	      out);
	if (o->latency)
		fputs(",p95_ms", out);
	for (size_t k = 0; o->telemetry && k < _TEL_MAX; k++)
		fprintf(out, ",%s", telemetry_summaries[k].name);
	for (size_t i = 0; o->telemetry && i < n_mech; i++)
		fprintf(out, ",%s", mech[i].key);
	if (m->any_vs_first)
		fputs("," CSV_VARY_VERDICT_HEADER, out);
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
			csv_verdict(out, &c->vs_base, m->level);
			csv_number(out, c->within_cv, 4);
			csv_number(out, c->across_cv, 4);
			fprintf(out, ",%zu,%zu,%zu", c->n_noisy, c->n_failed, c->n_zero);
			if (o->latency)
				csv_number(out, c->p95_ms, 3);
			for (size_t t = 0; o->telemetry && t < _TEL_MAX; t++)
				csv_number(out, c->tel[t], telemetry_summaries[t].decimals);
			for (size_t i = 0; o->telemetry && i < n_mech; i++)
				csv_number(out, c->mechanism[i], 3);
			if (m->any_vs_first) {
				fputc(',', out);
				csv_field(out, m->cols[k].first >= 0 ? m->cols[m->cols[k].first].label : "");
				csv_verdict(out, &c->vs_first, m->level);
			}
			fputc('\n', out);
		}
	return 0;
}

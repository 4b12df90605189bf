/* Noise as a result in the text and Markdown report, and the pieces the
 * page shares: the noise table (the CV within a start, median of the
 * starts, and the CV of TPS across starts), the same two with their
 * intervals (report/judge/noise.c), each column's noise against its baseline's
 * as a sentence, the noisy steps and what to do about them. */
#include <math.h>
#include <stdio.h>

#include "report/render/render.h"
#include "report/render/cells.h"
#include "common/util.h"

/* A noise table under its caption. */
static int print_noise_table(const struct model *m, enum metric what, bool markdown, FILE *out)
{
	struct table t;
	char caption[512];
	int r = report_table(m, what, markdown ? 0 : table_width(), &t);

	if (r < 0)
		return r;
	fprintf(out, "%s%s\n%s", what == METRIC_NOISE ? "" : markdown ? "\n" : "",
		report_table_caption(m, what, caption, sizeof(caption)), markdown ? "\n" : "");
	markdown ? table_print_markdown(&t, out) : table_print_text(&t, out);
	table_done(&t);
	return 0;
}

/* A sentence per column with a baseline and thread count. */
static void print_noise_verdicts(const struct model *m, bool markdown, FILE *out)
{
	char buf[NOISE_SENTENCE_MAX];
	bool said = false;

	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++) {
			if (!noise_verdict_text(m, row, k, buf, sizeof(buf)))
				continue;
			if (!said) {
				char heading[640];

				noise_verdicts_heading(m, heading, sizeof(heading));
				fprintf(out, "%s%s:\n%s", markdown ? "\n" : "", heading, markdown ? "\n" : "");
			}
			said = true;
			fprintf(out, "%s%s\n", markdown ? "- " : "  ", buf);
		}
}
/* The noisy steps named in the text; JSON and CSV carry all of them. */
#define NOISY_LISTED 6

/* mode = restart live: each NAME-live column beside NAME's at the same
 * value, the CV across starts of each, so that the restarts' share of the
 * variance is read off one line per thread count. */
static void print_restart_vs_live(const struct model *m, bool markdown, FILE *out)
{
	bool said = false;
	char a[16], b[16];

	for (size_t k = 0; k < m->ncols; k++) {
		const char *live = m->cols[k].context;
		size_t n = strlen(live);

		if (n <= 5 || !streq(live + n - 5, "-live"))
			continue;
		for (size_t j = 0; j < m->ncols; j++) {
			if (strlen(m->cols[j].context) != n - 5 || strncmp(m->cols[j].context, live, n - 5) ||
			    !streq_ptr(m->cols[j].vary, m->cols[k].vary))
				continue;
			for (size_t r = 0; r < m->nrows; r++) {
				if (!said)
					fprintf(out, "%srestart against live, CV of TPS across starts (a fresh server per "
						     "value | one changed in place):\n%s", markdown ? "\n" : "",
						markdown ? "\n" : "");
				said = true;
				fprintf(out, "%s%s %s, %lld threads: %s | %s\n", markdown ? "- " : "  ", m->cols[j].context,
					strempty(m->cols[j].vary), m->threads[r],
					report_percent(model_cell(m, r, j)->across_cv, a, sizeof(a)),
					report_percent(model_cell(m, r, k)->across_cv, b, sizeof(b)));
			}
		}
	}
}

/* What to do about the noise, from the noise verdicts: a placement shown
 * to quiet the starts is named; one shown to make them noisier is said
 * not to be the remedy; the published study's pinning is offered only
 * where no verdict says a placement made the noise worse (a proxy run
 * once said pinning made it 3.28x worse and advised pinning on the next
 * line). */
static void print_noise_advice(const struct model *m, bool markdown, FILE *out)
{
	bool worse = false, quieter = false;

	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++) {
			const struct stats_spread_ratio *v = &model_cell(m, row, k)->noise_base;
			bool up;

			if (m->cols[k].base < 0 || v->verdict != STATS_SIGNIFICANT)
				continue;
			up = v->ratio > 1;
			if ((up && worse) || (!up && quieter))
				continue; /* each kind said once, at its first thread count */
			fprintf(out, "%s%s's starts varied %.2fx as much as %s's at %lld thread%s (Brown-Forsythe, Holm): %s\n",
				markdown ? "\n" : "", m->cols[k].label, v->ratio, m->cols[m->cols[k].base].label,
				m->threads[row], m->threads[row] == 1 ? "" : "s",
				up ? "its placement made the noise worse, so it is not the remedy here"
				   : "its placement is the quieter one here, the one to measure with");
			worse |= up;
			quieter |= !up;
		}
	if (!worse && !quieter)
		fprintf(out, "%sNo placement here was shown to change the noise between starts. The published taskset study "
			     "found that pinning client and server removed most of a 20%% run-to-run noise: pin the server "
			     "with CPUAffinity= in its [context NAME] and the client with cpus = in [client] (or client-cpus "
			     "= in the context), and compare the noise with a run of each.\n",
			markdown ? "\n" : "");
}

/* The steps above MODEL_NOISY_CV, the first NOISY_LISTED of them named,
 * and what the noise verdicts advise. */
static void print_noisy_steps(const struct model *m, bool markdown, FILE *out)
{
	char buf[64], vb[64];
	json_t *v;
	size_t i;

	fprintf(out, "%s! %zu step%s vary more than %.0f%% from second to second:", markdown ? "\n" : "",
		json_array_size(m->noisy), json_array_size(m->noisy) == 1 ? "" : "s", 100 * MODEL_NOISY_CV);
	json_array_foreach(m->noisy, i, v) {
		const char *vary = scalar_str(json_object_get(v, "vary_value"), vb, sizeof(vb));
		json_int_t silent = json_integer_value(json_object_get(v, "stalled_s"));

		if (i == NOISY_LISTED) {
			fprintf(out, " and %zu more (--format json lists them all)", json_array_size(m->noisy) - i);
			break;
		}
		fprintf(out, "%s %s%s%s r%s t%s (%.0f%%", i ? "," : "",
			strempty(json_string_value(json_object_get(v, "context"))), vary ? " " : "", strempty(vary),
			strempty(scalar_str(json_object_get(v, "repeat"), buf, 32)),
			strempty(scalar_str(json_object_get(v, "threads"), buf + 32, 32)),
			100 * json_number_value(json_object_get(v, "cv")));
		if (silent > 0)
			fprintf(out, ", %lld s without a transaction", (long long)silent);
		fputc(')', out);
	}
	fputs(".\n", out);
	print_noise_advice(m, markdown, out);
	fputc('\n', out);
}

int print_noise(const struct model *m, bool markdown, FILE *out)
{
	int r = print_noise_table(m, METRIC_NOISE, markdown, out);

	if (r < 0)
		return r;
	print_restart_vs_live(m, markdown, out);
	r = print_noise_table(m, METRIC_NOISE_CI, markdown, out);
	if (r < 0)
		return r;
	print_noise_verdicts(m, markdown, out);
	if (json_array_size(m->noisy) == 0)
		fputc('\n', out);
	else
		print_noisy_steps(m, markdown, out);
	return 0;
}

/* The decisions of a run, as the first thing a report says: a line for
 * each ratio that differs, one for those that are the same, then what it
 * would take to decide the rest; and, at the end of a run with looks
 * (repeat = decide), the plan's spread against the one met.  A design
 * without looks has one, at its end.  Text and Markdown; the page and
 * JSON take the same sentences from here. */
#include <math.h>
#include <stdio.h>

#include "report/render/render.h"
#include "common/util.h"

/* "1, 2 and 4 threads" of column k's ratios decided as `answer`. */
static const char *threads_list(const struct model *m, size_t k, enum seq_answer answer, char *buf, size_t len)
{
	size_t n = 0, seen = 0, at = 0;
	long long last = 0;

	buf[0] = 0;
	for (size_t row = 0; row < m->nrows; row++)
		n += model_cell(m, row, k)->decided_here && model_cell(m, row, k)->decision.answer == answer;
	for (size_t row = 0; row < m->nrows && at < len; row++) {
		const struct cell *c = model_cell(m, row, k);

		if (!c->decided_here || c->decision.answer != answer)
			continue;
		seen++;
		last = m->threads[row];
		at += (size_t)snprintf(buf + at, len - at, "%s%lld", seen == 1 ? "" : seen == n ? " and " : ", ", last);
	}
	if (at < len)
		snprintf(buf + at, len - at, " %s", model_unit(m, n == 1 ? last : 2));
	return buf;
}

/* A decision's ratio and interval: "1.18x (1.07-1.30)". */
static const char *decision_ratio(const struct seq_hypothesis *h, char *buf, size_t len)
{
	if (isnan(h->d))
		snprintf(buf, len, "no estimate");
	else if (isnan(h->lo) || isinf(h->hi))
		snprintf(buf, len, "%.2fx", exp(h->d));
	else
		snprintf(buf, len, "%.2fx (%.2f-%.2f)", exp(h->d), exp(h->lo), exp(h->hi));
	return buf;
}

const char *report_decision_cell(const struct cell *c, char *buf, size_t len)
{
	static const char *const word[] = { [SEQ_OPEN] = "undecided", [SEQ_DIFFERENT] = "different",
					    [SEQ_SAME] = "the same" };
	char r[64];

	snprintf(buf, len, "%s %s", decision_ratio(&c->decision, r, sizeof(r)), word[c->decision.answer]);
	return buf;
}

/* Each ratio that differs, a line. */
static void print_different(const struct model *m, const char *lead, FILE *out)
{
	char r[64];

	for (size_t k = 0; k < m->ncols; k++)
		for (size_t row = 0; row < m->nrows; row++) {
			const struct cell *c = model_cell(m, row, k);

			if (!c->decided_here || c->decision.answer != SEQ_DIFFERENT)
				continue;
			fprintf(out, "%s%s vs %s at %lld %s: different, %s", lead, m->cols[k].label, strempty(m->baseline),
				m->threads[row], model_unit(m, m->threads[row]), decision_ratio(&c->decision, r, sizeof(r)));
			if (c->decision.within)
				fprintf(out, ", a gap within +-%g%% all the same", 100 * m->seq.margin);
			if (!m->seq.fixed)
				fprintf(out, " (after round %u)", c->decided_round);
			fputc('\n', out);
		}
}

/* Whether column k has a ratio decided as answer, and whether all its
 * ratios are. */
static bool column_has(const struct model *m, size_t k, enum seq_answer answer, bool *ret_all)
{
	size_t n = 0, of = 0;

	for (size_t row = 0; row < m->nrows; row++) {
		const struct cell *c = model_cell(m, row, k);

		of += c->decided_here;
		n += c->decided_here && c->decision.answer == answer;
	}
	*ret_all = n == of;
	return n > 0;
}

/* Those that are the same, one line: the columns all of whose ratios
 * are, by name; the others with their thread counts. */
static void print_same(const struct model *m, const char *lead, FILE *out)
{
	char list[160];
	size_t whole = 0, part = 0, seen = 0;
	bool all;

	for (size_t k = 0; k < m->ncols; k++)
		if (column_has(m, k, SEQ_SAME, &all))
			all ? whole++ : part++;
	if (!whole && !part)
		return;
	fprintf(out, "%s", lead);
	for (size_t k = 0; k < m->ncols; k++)
		if (column_has(m, k, SEQ_SAME, &all) && all)
			fprintf(out, "%s%s", !seen++ ? "" : seen == whole ? " and " : ", ", m->cols[k].label);
	if (whole)
		fprintf(out, ": the same as %s within +-%g%% at every thread count%s", strempty(m->baseline),
			100 * m->seq.margin, part ? "; " : "");
	else
		fprintf(out, "the same as %s within +-%g%%: ", strempty(m->baseline), 100 * m->seq.margin);
	seen = 0;
	for (size_t k = 0; k < m->ncols; k++)
		if (column_has(m, k, SEQ_SAME, &all) && !all)
			fprintf(out, "%s%s at %s", seen++ ? ", " : "", m->cols[k].label,
				threads_list(m, k, SEQ_SAME, list, sizeof(list)));
	fputc('\n', out);
}

/* What would decide a column's open ratios: the rounds a run at their
 * widest spread would need for a gap of the margin (most, of this run's
 * done), or past repeat's most the gap its most rounds would decide. */
static void print_what_decides(const struct model *m, unsigned most, double spread, double decidable, unsigned done,
			       FILE *out)
{
	if (most > SEQ_ROUNDS_MAX) {
		fprintf(out, ": at this spread (%.1f%%) no run of up to %u rounds (repeat's most) would decide a %g%% gap",
			100 * spread, SEQ_ROUNDS_MAX, 100 * m->seq.margin);
		if (!isnan(decidable))
			fprintf(out, "; %u rounds would decide a %.0f%% gap (margin = %.0f%%), a quieter host a smaller one",
				SEQ_ROUNDS_MAX, ceil(100 * decidable), ceil(100 * decidable));
	} else if (most && m->seq.fixed)
		fprintf(out, ": at this spread (%.1f%%), repeat = %u would decide a %g%% gap, %u rounds more than this "
			     "run's %u (repeat = decide stops each ratio once it is decided)",
			100 * spread, most, 100 * m->seq.margin, most > done ? most - done : 0, done);
	else if (most)
		fprintf(out, ": at this spread (%.1f%%), %u rounds would decide a %g%% gap, %u more than this run's %u",
			100 * spread, most, 100 * m->seq.margin, most > done ? most - done : 0, done);
}

/* Those still open, a line per column: their ratios, and what would
 * decide them. */
static void print_open(const struct model *m, const char *lead, FILE *out)
{
	char list[160], r[64];
	bool all;

	unsigned done = m->seq.n_looks ? m->seq.looks[m->seq.n_looks - 1].round : 0;

	for (size_t k = 0; k < m->ncols; k++) {
		unsigned most = 0;
		double spread = 0, decidable = 0;
		size_t seen = 0;

		if (!column_has(m, k, SEQ_OPEN, &all))
			continue;
		fprintf(out, "%sundecided: %s at %s (", lead, m->cols[k].label, threads_list(m, k, SEQ_OPEN, list, sizeof(list)));
		for (size_t row = 0; row < m->nrows; row++) {
			const struct cell *c = model_cell(m, row, k);

			if (!c->decided_here || c->decision.answer != SEQ_OPEN)
				continue;
			fprintf(out, "%s%s", seen++ ? ", " : "", decision_ratio(&c->decision, r, sizeof(r)));
			most = MAX(most, c->rounds_to_decide);
			spread = MAX(spread, c->spread);
			if (c->rounds_to_decide > SEQ_ROUNDS_MAX)
				decidable = isnan(c->decidable_margin) || isnan(decidable) ? NAN
											   : MAX(decidable, c->decidable_margin);
		}
		fputc(')', out);
		print_what_decides(m, most, spread, decidable, done, out);
		fputc('\n', out);
	}
}

/* The first line: how many ratios each answer has, after how much. */
static void print_decisions_head(const struct model *m, bool markdown, FILE *out)
{
	unsigned rounds = m->seq.n_looks ? m->seq.looks[m->seq.n_looks - 1].round : 0;

	fprintf(out, "%s", markdown ? "### " : "");
	if (m->seq.fixed)
		fprintf(out, "answers after %u round%s (a fixed design, judged once at its end)", rounds,
			rounds == 1 ? "" : "s");
	else
		fprintf(out, "decisions after %u round%s of at most %u (%zu look%s)", rounds, rounds == 1 ? "" : "s",
			m->seq.max_rounds, m->seq.n_looks, m->seq.n_looks == 1 ? "" : "s");
	fprintf(out, ": %zu different, %zu the same within +-%g%%, %zu undecided\n%s", m->seq.n_different, m->seq.n_same,
		100 * m->seq.margin, m->seq.n_open, markdown ? "\n" : "");
}

/* How the answers were reached, one sentence. */
static void print_decisions_method(const struct model *m, bool markdown, FILE *out)
{
	size_t n = m->seq.n_different + m->seq.n_same + m->seq.n_open;

	fprintf(out, "%seach ratio against %s from the model of ", markdown ? "\n" : "", strempty(m->baseline));
	if (m->seq.fixed)
		fprintf(out, "every round, Holm's step-down across the %zu ratios", n);
	else
		fprintf(out, "the rounds up to its look, judged at an O'Brien-Fleming boundary (Lan-DeMets) held over "
			     "every look and Holm's step-down across the %zu ratios", n);
	fprintf(out, ", %g%% for the table: \"different\" when its interval excludes 1, \"the same\" when two one-sided "
		     "tests put it within +-%g%% (the margin: margin = in the file, run --margin; %g%% unless given)%s\n",
		100 * m->level, 100 * m->seq.margin, 100 * MODEL_MARGIN,
		m->seq.fixed ? "; \"undecided\": neither, with the rounds a fixed design at its spread would need"
			     : "; each interval is the repeated confidence interval of its look");
}

void print_decisions(const struct model *m, bool markdown, FILE *out)
{
	const char *lead = markdown ? "- " : "  ";

	if (!model_has_decisions(m))
		return;
	print_decisions_head(m, markdown, out);
	print_different(m, lead, out);
	print_same(m, lead, out);
	print_open(m, lead, out);
	print_decisions_method(m, markdown, out);
	if (!m->seq.as_run)
		fprintf(out, "%sthese decisions, made again from the steps, leave open other contexts than the run's own "
			     "looks did (schedule.json): a results directory of another build, or edited\n",
			markdown ? "\n" : "");
	fputc('\n', out);
}

void print_decisions_plan(const struct model *m, bool markdown, FILE *out)
{
	struct seq_design d = { .sigma = m->seq.spread_seen, .margin = m->seq.margin, .level = m->level,
				.power = STATS_POWER, .family = MAX(m->seq.n_different + m->seq.n_same + m->seq.n_open, 1),
				.cells = m->ncols, .rows = m->nrows, .every = m->seq.look_every, .max = SEQ_ROUNDS_MAX };
	unsigned need;

	if (!m->seq.on || !(m->seq.planned_sigma > 0) || isnan(m->seq.spread_seen) ||
	    m->seq.spread_seen < 1.5 * m->seq.planned_sigma)
		return;
	need = seq_plan_rounds(&d);
	fprintf(out, "%sthe plan assumed a spread of %.1f%% between starts (%s) and met %.1f%%, %.1f times it: ",
		markdown ? "\n" : "", 100 * m->seq.planned_sigma, strempty(m->seq.planned_from), 100 * m->seq.spread_seen,
		m->seq.spread_seen / m->seq.planned_sigma);
	if (need > SEQ_ROUNDS_MAX)
		fprintf(out, "no run of up to %u rounds would decide a %g%% gap at it; a quieter host would\n", SEQ_ROUNDS_MAX,
			100 * m->seq.margin);
	else
		fprintf(out, "a quiet host, or %u rounds at this spread, would decide a %g%% gap\n", need, 100 * m->seq.margin);
}

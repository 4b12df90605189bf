/* Noise as a result (issue 28: runs that usually agree within 1% differed
 * by 20% at random until each process had its own core): per cell the CV
 * across starts and the CV within a step, each with its interval, and each
 * column's noise against its baseline's, the same pairs as the TPS
 * verdicts, Holm-adjusted across the table.  The statistics are
 * stats/spread.h's; here only which values go in.
 *
 * Across starts: a start is a unit of one round, a fresh server; a step
 * that failed or completed nothing is not counted (the cell's n_failed
 * says how many), since its TPS has no logarithm.
 *
 * Within a step: the CV of its per-second TPS (intervals_tps, the warm-up
 * already left out by the recorder) as the model's noise table takes it,
 * seconds at 0 TPS included: a stall is noise within the step, and the
 * step is counted among the stalled ones besides.  The seconds of a step
 * are not independent (a second that lost its CPU drags the next), so no
 * interval is made from them; the starts are, so the cell's figure is the
 * mean of its starts' CVs with a t interval across the starts. */
#include <math.h>

#include "report/judge/judge.h"
#include "stats/spread.h"
#include "common/util.h"

/* A cell's two CVs with their intervals at level. */
static int noise_cell(struct cell *c, double level)
{
	stats_mean_interval(c->within, c->n_within, level, 0, &c->cv_within);
	return stats_log_sd(c->tps, c->n, level, &c->cv_starts);
}

/* Column k's noise against its baseline's in row, or none. */
static int judge_noise_pair(const struct model *m, size_t row, size_t k)
{
	struct cell *c = model_cell(m, row, k);
	const struct cell *b;

	c->noise_base = (struct stats_spread_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .df = NAN,
						     .verdict = STATS_TOO_FEW, .family = 1, .p_raw = NAN,
						     .level = m->level, .mde = NAN };
	if (m->cols[k].base < 0)
		return 0;
	b = model_cell(m, row, (size_t)m->cols[k].base);
	if (!cell_takes_part(c) || !cell_takes_part(b))
		return 0;
	return stats_spread_ratio(c->tps, c->n, b->tps, b->n, m->level, &c->noise_base);
}

int noise_judge(struct model *m)
{
	_cleanup_free_ struct stats_spread_ratio **family = calloc(m->nrows * m->ncols + 1, sizeof(*family));
	size_t n = 0;

	if (!family)
		return -ENOMEM;
	for (size_t i = 0; i < m->nrows * m->ncols; i++) {
		int r = noise_cell(&m->cells[i], m->level);

		if (r < 0)
			return r;
	}
	for (size_t row = 0; row < m->nrows; row++)
		for (size_t k = 0; k < m->ncols; k++) {
			struct cell *c = model_cell(m, row, k);
			int r = judge_noise_pair(m, row, k);

			if (r < 0)
				return r;
			if (!isnan(c->noise_base.p_raw))
				family[n++] = &c->noise_base;
		}
	stats_holm_spread_ratios(family, n, m->level);
	m->family_noise = n;
	return 0;
}

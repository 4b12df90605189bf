/* The report's judge, after the model (report/model/): the verdicts of
 * every cell and the noise as a result, and compare's host x context
 * interaction.  The model is read once from the documents and knows
 * nothing of this floor; the renderers (report/render/) read both. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "report/model/comparison.h"
#include "report/model/model.h"

/* The verdicts of every cell (report/judge/verdicts.c): per thread count the
 * block model over every column, each column against its baseline and its
 * first vary value, Holm-adjusted across each table, with Welch's and the
 * rank-based cross-checks and the failure rates; then the noise
 * (noise_judge()). */
int model_judge(struct model *m);
/* Only the model's ratios, Holm-adjusted across each table: what a look
 * of repeat = decide judges (report/judge/decide.c). */
int model_judge_ratios(struct model *m);

/* repeat = decide (report/judge/decide.c): the decisions of the looks
 * the run recorded (m->seq), made again from doc's steps into each
 * cell's decision, and of one look more after them (extra; NULL: none,
 * as a report has it); into ret_open (NULL, or one per column) the
 * columns the last look leaves running.  A run without looks (repeat = N
 * or auto) and no extra: one look after its last round (m->seq.fixed).
 * A judged model (model_judge()). */
int model_decide(struct model *m, const json_t *doc, const struct model_look *extra, bool *ret_open);

/* The rule for a cell's failed starts (model_judge() judges a run's
 * cells by it, explain its mixes): the failure rate's Wilson interval at
 * level into *ret_lo and *ret_hi (NAN without any start), and whether more
 * than MODEL_FAIL_MAX (a fifth) of the starts failed, so that the cell
 * takes no part in the verdicts: what it measured is a server that keeps
 * failing, not a placement's TPS. */
bool report_fails_too_often(size_t n_ok, size_t n_failed, double level, double *ret_lo, double *ret_hi);

/* Noise as a result (report/judge/noise.c): each cell's two CVs with their
 * intervals, from its successful starts' TPS and each successful step's
 * per-second CV; and, after the verdicts (a cell that failed too often
 * takes no part), each column's noise against its baseline's,
 * Holm-adjusted across the table into m->family_noise. */
int noise_judge(struct model *m);

/* Observations of the block model being gathered: obs[0..n), blocks the
 * blocks they use; report fits every row of one model together (or of a
 * pair of its columns), compare every host's rows (report/judge/hosts.c),
 * each row's cells, blocks, variance groups and starts from its own
 * offsets on: column k as cell cell0 + k in variance group group0 + k (a
 * column's noise, at every thread count) within pool `pool`, round r as
 * block block0 + r - 1, a start (the unit in place s of round r, whose
 * steps are every thread count's) as start0 + model_start_of(), its place
 * under place-term set `order`. */
struct block_obs;
struct row_obs {
	struct block_obs *obs;
	size_t n, blocks;
	size_t cell0, block0, group0, pool, start0;
	unsigned order;	 /* the place terms' set; 0: none */
	const bool *take; /* [ncols]: the columns to take; NULL: every one */
};

/* The observations of the block model in a row: log TPS of every column
 * that takes part (its starts did not fail too often) and that o->take
 * takes, up to round until (0: all), appended to o as its offsets say;
 * o->blocks grows to the blocks used.  o->obs must have room for
 * model_row_size() more. */
size_t model_row_size(const struct model *m, size_t row);
void model_row_append(const struct model *m, size_t row, unsigned until, struct row_obs *o);
/* The most rounds any cell has. */
unsigned model_rounds(const struct model *m);
/* The numbers model_row_append() gives m's starts: below this. */
size_t model_starts(const struct model *m);

/* compare's question, is a difference between hosts real? (report/judge/hosts.c)
 * For each thread count and context, each host's ratio to its own
 * baseline and the ratio of that ratio to the first host's (the host x
 * context interaction), all from one model of log TPS (stats/block.h,
 * block_fit_nested()):
 *
 *     ln TPS = cell[host, threads, context] + round[host, threads, r] + first[host] + e
 *
 * one model of every thread count of every host, each host's rounds its
 * own blocks, each host's column its own sigma at every thread count (a
 * noisier host or context widens an interval by its own noise, on
 * Satterthwaite's degrees of freedom), each host its own term for the
 * first unit of a round; a host's own ratio its report's (Holm-adjusted
 * in its table: one interval per ratio), and the interaction the
 * contrast
 * (l[h,c] - l[h,base]) - (l[1,c] - l[1,base]), Holm-adjusted across the
 * table.  Compared where the hosts overlap (the thread counts and columns
 * both have); the rest is listed.
 *
 * The interaction of judged models m[0..n) (the same experiment from n
 * hosts) at level.  -ENOMEM; a design that cannot be fitted leaves its
 * rows without ratios. */
int host_model_build(const struct model *m, const char *const *labels, size_t n, double level, struct host_model *ret);

/* Each of c's models judged, then, of two or more, their interaction into
 * c->inter at level. */
int comparison_judge(struct comparison *c, double level);

/* Rounds of repeats, interleaved (A B C D A B C D): every repeat of a
 * fixed count, or with repeat = auto the units next_round asks for. */
#include "run/runner.h"
#include "common/interrupt.h"

/* The document of record so far, handed to next_round. */
static int ask_next_round(struct runner *rn, struct run_options *o, bool more[EXP_VARY_MAX][EXP_CONTEXTS_MAX])
{
	_cleanup_free_ char *why = NULL;
	json_t *doc = NULL;
	int r;

	r = results_load(results_dir(rn->res), &doc, &why);
	if (r < 0 && why)
		return log_error("run: cannot read back %s: %s", results_dir(rn->res), why), r;
	if (r < 0)
		return log_error_errno(r, "run: cannot read back %s: %m", results_dir(rn->res));
	memset(more, 0, sizeof(bool) * EXP_VARY_MAX * EXP_CONTEXTS_MAX);
	r = o->next_round(o->userdata, doc, more);
	json_decref(doc);
	return r;
}

/* How many units the next round runs: the selected ones in more. */
static size_t round_size(const struct runner *rn, bool more[EXP_VARY_MAX][EXP_CONTEXTS_MAX])
{
	size_t n = 0;

	for (size_t v = 0; v < experiment_n_values(rn->e); v++)
		for (size_t c = 0; c < rn->e->n_contexts; c++)
			n += more[v][c] && rn->plan->selected[c];
	return n;
}

/* Rounds of repeats, interleaved (A B C D A B C D): every repeat of a fixed
 * count; with repeat = auto, from RUN_AUTO_MIN_REPEATS on only the units
 * next_round asks for, until it asks for none, repeat-max is reached, or
 * the next round would end past the budget. */
int runner_run_rounds(struct runner *rn, struct run_options *o)
{
	const struct experiment *e = rn->e;
	bool more[EXP_VARY_MAX][EXP_CONTEXTS_MAX];
	bool adaptive = e->repeat_auto && o->next_round;
	uint64_t start = now_ns();
	size_t units = 0;
	int r = 0;

	memset(more, 1, sizeof(more));
	for (unsigned rep = 1; rep <= e->repeat; rep++) {
		size_t next;
		double per_unit_s, left_s;

		o->rounds = rep;
		for (size_t v = 0; r >= 0 && (runner_vary_modes(e) & VARY_RESTART) && v < experiment_n_values(e); v++)
			for (size_t c = 0; r >= 0 && c < e->n_contexts; c++)
				if (rn->plan->selected[c] && more[v][c]) {
					r = interrupt_signal ? -EINTR : runner_run_unit(rn, c, v, rep);
					units++;
				}
		for (size_t c = 0; r >= 0 && (runner_vary_modes(e) & VARY_LIVE) && c < e->n_contexts; c++)
			if (rn->plan->selected[c]) {
				r = interrupt_signal ? -EINTR : runner_run_live_unit(rn, c, rep);
				units++;
			}
		if (r < 0 || !adaptive || rep < RUN_AUTO_MIN_REPEATS)
			continue;
		r = ask_next_round(rn, o, more);
		if (r < 0)
			return r;
		next = round_size(rn, more);
		if (next == 0) {
			o->stopped = RUN_STOP_SETTLED;
			return 0;
		}
		if (rep == e->repeat) {
			o->stopped = RUN_STOP_MAX;
			return 0;
		}
		per_unit_s = (double)(now_ns() - start) / 1e9 / (double)units;
		left_s = (double)o->budget_ns / 1e9 - (double)(now_ns() - start) / 1e9;
		if (o->budget_ns && per_unit_s * (double)next > left_s) {
			runner_progress("the budget leaves no time for round %u (%zu units, about %.0fs)", rep + 1, next,
				 per_unit_s * (double)next);
			o->stopped = RUN_STOP_BUDGET;
			return 0;
		}
		runner_progress("round %u: %zu units whose ratios are not yet known well enough", rep + 1, next);
	}
	return r;
}

/* A run's plan: which contexts run, how many server starts and steps
 * that makes, and about how long it takes. */
#include "run/runner.h"

/* A server start, its ping and the buffer pool warm-up, for the estimate. */
#define UNIT_OVERHEAD_S 6

double run_plan_unit_s(const struct experiment *e _unused_)
{
	return UNIT_OVERHEAD_S;
}

double run_plan_step_s(const struct experiment *e)
{
	return (double)(e->warmup_ns + e->duration_ns) / 1e9 + 1;
}

int run_plan_make(const struct experiment *e, const char *only, struct run_plan *ret)
{
	_cleanup_free_ char *list = only ? strdup(only) : NULL;
	size_t n_ctx = 0;
	char *save = NULL;

	*ret = (struct run_plan){ .e = e };
	if (only && !list)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_contexts; i++)
		ret->selected[i] = !only;
	for (char *name = list ? strtok_r(list, ",", &save) : NULL; name; name = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < e->n_contexts && !streq(e->contexts[i].name, name))
			i++;
		if (i == e->n_contexts) {
			log_error("run: --only: %s has no context '%s'", e->path, name);
			return -EINVAL;
		}
		ret->selected[i] = true;
	}
	for (size_t i = 0; i < e->n_contexts; i++)
		n_ctx += ret->selected[i];
	if (n_ctx == 0) {
		log_error("run: --only: give the contexts to run, as --only %s", e->contexts[0].name);
		return -EINVAL;
	}
	/* live: one server per repeat and context for all the vary values */
	ret->n_units = e->repeat * n_ctx *
		       ((runner_vary_modes(e) & VARY_RESTART ? experiment_n_values(e) : 0) + (runner_vary_modes(e) & VARY_LIVE ? 1 : 0));
	ret->n_steps = e->repeat * n_ctx * experiment_n_values(e) * e->n_threads *
		       (!!(runner_vary_modes(e) & VARY_RESTART) + !!(runner_vary_modes(e) & VARY_LIVE));
	ret->estimate_s = (double)ret->n_units * run_plan_unit_s(e) + (double)ret->n_steps * run_plan_step_s(e);
	return 0;
}

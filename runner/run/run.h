/* Running an experiment, for the verbs built on run (explain). */
#pragma once

#include "run/experiment.h"

/* Every context of e, into the results directory out (created; refused if
 * it holds results).  Returns an exit status: 0, 1, or 128+signal. */
int run_whole_experiment(const struct experiment *e, const char *out);

/* What a results directory may choose when explain re-measures from it:
 * its placements' keys that the hybrids take (env.*, user, group) pass
 * the trust gate (slices/attr/gate.h), as experiment.json's settings did
 * when it was read (experiment_from_results()); code that is not root's is
 * shown and refused unless the user passes --trust-results-code, which
 * takes it and says so. */
#pragma once

#include <stdbool.h>

#include "experiment/experiment.h"
#include "slices/attr/placement.h"

/* The option that lets a results directory choose code anyway. */
#define EXPLAIN_TRUST_OPTION "trust-results-code"

/* Checks e (read from dir's experiment.json) and the placements pa and pb
 * (DIR/placements/A's and B's, named by pa_path and pb_path).  0 if
 * nothing names code other than the host's, or if trusted; else each is
 * logged with its file and key, and -EINVAL. */
int explain_check_code(const char *dir, const struct experiment *e, const struct placement *pa, const char *pa_path,
		       const struct placement *pb, const char *pb_path, bool trusted);

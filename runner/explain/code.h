/* What a results directory may choose when explain re-measures from it:
 * no code.  The server's binary is the engine's own on this host (and the
 * parser's check: root alone could have put it there); every setting that names
 * code (an LD_* or PATH variable of a placement's environment or of a
 * section's Environment=, an EnvironmentFile=) is taken when it names only
 * the host's code (common/trust.h), and otherwise shown and refused unless
 * the user passes --trust-results-code. */
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

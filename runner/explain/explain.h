/* explain: which settings account for the TPS gap between two contexts of
 * an experiment (or of a results directory's experiment). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct explain_args {
	const char *experiment, *a, *b, *out;
	long threads;
	unsigned repeat;
	uint64_t duration_ns, budget_ns;
	double confidence; /* the level of the gap's and the shares' intervals, 0.95 */
	bool what_if;
};

/* Designs the mixes, runs them (unless what_if) and prints the analysis.
 * Returns 0 or -errno, logged: -EINVAL for bad input (nothing started),
 * -EINTR when a signal ended the measurement, -EIO for any other failure
 * while measuring. */
int explain_run(const struct explain_args *a);

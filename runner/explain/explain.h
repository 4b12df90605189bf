/* explain: which settings account for the TPS gap between two contexts of
 * an experiment (or of a results directory's experiment), and the same
 * explanation again from an explain directory alone. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct explain_args {
	const char *experiment, *a, *b, *out;
	const char *resume; /* an explain directory whose hold-out a signal cut */
	long threads;
	unsigned repeat; /* the screen's rounds */
	uint64_t duration_ns, budget_ns;
	double confidence; /* the level of the gap's and the shares' intervals, 0.95 */
	double width;	   /* the named share's interval the hold-out aims at, a fraction of the gap (0.20) */
	int order;	   /* enum run_order */
	uint64_t seed;	   /* of the rounds' orders, with seed_given */
	bool seed_given;
	bool what_if;
	bool verbose;	 /* each stage's report as it ends, not only the explanation */
	bool trust_code; /* a results directory may choose code that is not the host's (explain/code.h) */
};

/* Designs the mixes, runs the stages (unless what_if) and prints the
 * analysis.  Returns 0 or -errno, logged: -EINVAL for bad input (nothing
 * started), -EINTR when a signal ended the measurement, -EIO for any other
 * failure while measuring. */
int explain_run(const struct explain_args *a);
/* explain --resume DIR: the hold-out a signal cut, its missing rounds run
 * as run --resume runs them (its experiment.json through the gate,
 * trust_code as --trust-results-code), then the explanation.  Errors as
 * explain_run(). */
int explain_resume(const char *dir, bool trust_code);

/* The rows of the table of document x format (report/report.h), one
 * renderer per cell: an explain directory (explain/reanalyse.c: the
 * explanation as explain printed it, as JSON, as one HTML page: the gap,
 * its shares as a waterfall from B to A, the failed starts, the mixes and
 * their TPS), and explain directories of the same experiment and pair from
 * several hosts (explain/hosts.c: each factor's effect per host, as a
 * ratio and a share, and each other host's over the first's,
 * Holm-adjusted; which differ, in sentences, with the host facts that
 * differ).  A cell's errors: -ENOENT, a directory without explain.json;
 * -EBADMSG with *ret_why, one not as explain writes it (without host
 * facts, or of another pair); -EIO, a write to out failed.  Rendered
 * through document_render() (report/report.h). */
struct document;
extern const struct document document_explain, document_explain_compare;

/* An explanation as one HTML page (report/render/html.h): the gap, its shares as
 * a waterfall from B to A (each factor alone with its interval, what they
 * add together beyond that, the rest the closure does not reach), the
 * table of shares and pairs (withheld, and why, without a significant
 * gap), explain's own sentences, the failed starts, and every stage's
 * mixes with their TPS. */
#pragma once

#include <stdio.h>

#include "explain/analysis.h"
#include "explain/record.h"

/* dir: the explain directory, for the commands that reproduce it.  -ENOMEM. */
int page_explanation(const struct explain_record *rec, const struct analysis_inputs *in, const struct explanation *x,
		     const char *dir, FILE *out);

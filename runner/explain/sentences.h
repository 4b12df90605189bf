/* What explain says of an explanation (explain/analysis.h): the gap's
 * verdict, what a "not significant" could have seen, the table of shares,
 * the pairs, the sentence naming the cause and how its members combine,
 * the closure and the figure of mechanism; as text, and as JSON (the whole
 * explanation, for re-analysis and for the tests of the statistics). */
#pragma once

#include <stdio.h>

#include <jansson.h>

#include "explain/analysis.h"
#include "explain/record.h"

/* The explanation of the record's stages, in full: in holds the stages
 * (its labels the record's), x the analysis of them. */
void sentences_print(const struct explain_record *rec, const struct analysis_inputs *in, const struct explanation *x,
		     FILE *out);
json_t *sentences_json(const struct explain_record *rec, const struct analysis_inputs *in,
		       const struct explanation *x);

/* "B: free", "A: limited", or the factors the mix takes from A. */
void sentences_mix_label(const struct explain_record *rec, const char *const *labels, unsigned mask, char *buf,
			 size_t len);

/* Mix m of stage s with failed starts, as a run's report counts them
 * (report_fails_too_often()): "screen, A: limited: 2 of 3 starts failed
 * (67%, 21-94%): more than a fifth, so it takes no part". */
const char *sentences_failure(const struct explain_record *rec, const char *const *labels, enum explain_stage s,
			      const struct stage_mix *m, char *buf, size_t len);

/* "43-58%", "-12 to 6%", "unbounded", or "no interval". */
const char *sentences_interval(const struct stats_share *s, char *buf, size_t len);

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

/* "43-58%", "unbounded", or "no interval". */
const char *sentences_interval(const struct stats_share *s, char *buf, size_t len);

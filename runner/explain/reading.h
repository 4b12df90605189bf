/* Inside explain/: what the stages measured so far decide about the next
 * (explain/reanalyse.c reads them as explain_report() does). */
#pragma once

#include "explain/analysis.h"
#include "explain/record.h"

/* Everything one analysis needs, large: one of it is made at a time. */
struct reading {
	struct explain_record rec;
	struct stage stage[_STAGE_MAX];
	const char *labels[FACTORS_MAX];
	struct analysis_inputs in;
	struct explanation x;
	bool cut; /* its hold-out was cut (and is left out) */
};

/* The record and its stages into *rd, and the analysis of them (at
 * level and width, 0: the record's); -EBADMSG with *ret_why for a
 * directory not as explain writes it. */
int reading_load(const char *dir, double level, double width, struct reading *rd, char **ret_why);

/* After a fraction: the strongest factors to share out, as a mask. */
int explain_plan_strongest(const char *dir, unsigned *ret, char **ret_why);
/* After the screen: the set to name (0: none) and the hold-out rounds
 * that make its share's interval about width wide, with the width that
 * number is predicted to give. */
int explain_plan_holdout(const char *dir, double width, unsigned *ret_set, unsigned *ret_rounds, double *ret_width,
			 char **ret_why);

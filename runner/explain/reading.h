/* Inside explain/: what the stages measured so far decide about the next
 * (explain/reanalyse.c reads them as explain_report() does). */
#pragma once

/* After a fraction: the strongest factors to share out, as a mask. */
int explain_plan_strongest(const char *dir, unsigned *ret, char **ret_why);
/* After the screen: the set to name (0: none) and the hold-out rounds
 * that make its share's interval about width wide, with the width that
 * number is predicted to give. */
int explain_plan_holdout(const char *dir, double width, unsigned *ret_set, unsigned *ret_rounds, double *ret_width,
			 char **ret_why);

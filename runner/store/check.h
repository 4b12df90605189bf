/* The check of each file of a results directory read back (check.c). */
#pragma once

#include <jansson.h>

enum results_file {
	RESULTS_FILE_STEP,
	RESULTS_FILE_PLACEMENT,
	RESULTS_FILE_EXPERIMENT,
	RESULTS_FILE_HOST,
	RESULTS_FILE_SCHEDULE,
};

/* 0 if j has the shape of its kind of file (types, and values within
 * bounds that no run reaches), else -EBADMSG and ret_why: the JSON path,
 * what it must be and what it holds. */
int results_check(enum results_file kind, const json_t *j, char **ret_why);

/* A step as its file is named and as experiment.json (exp, null when
 * missing) says the run was: file (steps/NAME.json) named for its unit and
 * thread count, its unit for its context and repeat, and with exp its
 * context one of the experiment's (or its NAME-live column), its threads
 * one of the experiment's, its repeat within its repeats: a copied or
 * linked step counted twice would be a start that never was.  -EBADMSG
 * and ret_why (naming file and the disagreement) if not. */
int results_check_step(const json_t *exp, const json_t *step, const char *file, char **ret_why);

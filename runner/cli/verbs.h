/* One function per verb, as in signify.  Each returns an exit status:
 * 0 ok, 1 run-time failure, 2 usage or bad input. */
#pragma once

#define EXIT_USAGE 2

int verb_host(int argc, char **argv);
int verb_sandbox(int argc, char **argv);
int verb_prepare(int argc, char **argv);
int verb_sweep(int argc, char **argv);
int verb_run(int argc, char **argv);
int verb_explain(int argc, char **argv);
int verb_place(int argc, char **argv);
int verb_diff(int argc, char **argv);
int verb_list(int argc, char **argv);
int verb_cleanup(int argc, char **argv);
int verb_report(int argc, char **argv);
int verb_compare(int argc, char **argv);
int verb_properties(int argc, char **argv);
int find_helper(const char *name, char **ret);

/* The exit status of a run engine's result r (run_experiment()): 0, 1 for
 * a failure or failed steps, 128+signal when a signal ended it. */
int run_exit_status(int r);

/* --confidence PCT of report, compare, explain and run: above 50 and below
 * 99.9, into a level (0.95).  Logs "VERB: --confidence: ..." and returns
 * -EINVAL for anything else. */
int parse_confidence_option(const char *verb, const char *value, double *ret);

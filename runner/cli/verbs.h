/* One function per verb, as in signify.  Each decides its exit status once:
 * 0 ok, 1 run-time failure, 2 usage or bad input, 128+signal when a signal
 * ended it. */
#pragma once

#include "cli/options.h"

#define EXIT_USAGE 2

int verb_host(int argc, char **argv);
int verb_sandbox(int argc, char **argv);
int verb_prepare(int argc, char **argv);
int verb_sweep(int argc, char **argv);
int verb_run(int argc, char **argv);
int verb_explain(int argc, char **argv);
int verb_calibrate(int argc, char **argv);
int verb_place(int argc, char **argv);
int verb_diff(int argc, char **argv);
int verb_list(int argc, char **argv);
int verb_cleanup(int argc, char **argv);
int verb_hog(int argc, char **argv);
int verb_report(int argc, char **argv);
int verb_compare(int argc, char **argv);
int verb_properties(int argc, char **argv);
int find_helper(const char *name, char **ret);
/* slicebench __complete, hidden: bash completion from the tables above. */
int verb_complete(int argc, char **argv);
/* slicebench __sandbox-bind SLOTS CHECKOUT -- CMD..., hidden: each --out
 * DIR of the slicebench command in CMD whose verb takes --out, opened by
 * descriptor and bound at SLOTS/N (sandbox exec's, cli/sandbox_out.c);
 * "N DIR" a line each.  2 if one is refused. */
int verb_sandbox_bind(int argc, char **argv);

/* What a verb's operands are, for completion (cli/complete.c). */
enum verb_operand {
	OPERAND_NONE,
	OPERAND_EXPERIMENT, /* a named experiment or an experiment file */
	OPERAND_DIR,	    /* results directories */
	OPERAND_FILE,
	OPERAND_KIND,	    /* kinds of context */
	OPERAND_WORDS,	    /* one of operand_words */
};

/* The verbs: name, function, one line for `slicebench --help`, the option
 * table, and what its operands are.  The last row's name is NULL. */
struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const struct cli_verb *cli;
	enum verb_operand operand;
	const char *const *operand_words; /* OPERAND_WORDS: NULL-terminated */
};
extern const struct verb verbs[];

/* The exit status of a verb's work that returned r (0 or -errno, logged;
 * the run engine's count of failed steps): 0, 1, or 128+signal when a
 * signal came. */
int verb_exit_status(int r);
/* The same for r of reading what the command line names (an experiment,
 * a results or explain directory, a snapshot): what was wrong with it is
 * bad input, EXIT_USAGE: refused (-EINVAL), not as slicebench writes it
 * (-EBADMSG), not there (-ENOENT), not a directory (-ENOTDIR). */
int verb_input_exit_status(int r);
/* A parse_argv()'s result that ends the verb: <0 a usage error
 * (EXIT_USAGE), 0 --help printed (0). */
int verb_parse_exit_status(int r);

extern const struct cli_verb cli_host, cli_properties, cli_diff, cli_list, cli_run, cli_explain, cli_calibrate, cli_report,
	cli_compare, cli_cleanup, cli_sandbox, cli_hog;

/* The command line of every verb in one style, after signify and fio: a
 * verb is a table of options (name, short name, argument, help, and the key
 * the verb's parse function switches on), and getopt's table, the parsing,
 * the one-line usage errors and --help are all made from it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/util.h"
#include "common/words.h"
#include "run/run.h"

/* How cli_parse() takes an option's value: into the field at offset in the
 * verb's argument struct, checked against min..max or words; CLI_CUSTOM
 * options go to the verb's parse function. */
enum cli_type {
	CLI_CUSTOM,
	CLI_STRING,   /* const char *, argv's own */
	CLI_FLAG,     /* bool, set */
	CLI_UINT,     /* unsigned, min..max */
	CLI_LONG,     /* long, min..max */
	CLI_U64,      /* uint64_t, at least min */
	CLI_DURATION, /* uint64_t nanoseconds, at least min */
	CLI_WORD,     /* an enum, one of words */
	CLI_CONFIDENCE, /* double, a confidence level (stats/stats.h) */
	CLI_SEED,	/* struct cli_seed: a seed of the rounds' orders, at most RNG_SEED_MAX */
	/* A setting of the experiment file, row key of its key table
	 * (experiment/parse.h), which gives the option's name, short name
	 * and help and parses its value, as in a file, into the experiment
	 * of the struct parser * at offset (experiment_options_start()). */
	CLI_SETTING,
};

/* A seed given or not. */
struct cli_seed {
	uint64_t value;
	bool given;
};

struct cli_option {
	const char *name; /* --name */
	char short_name;  /* -c; 0: none */
	const char *arg;  /* the argument as --help names it; NULL: a flag */
	const char *help;
	enum cli_type type;
	size_t offset;
	long min, max;
	const struct word *words;
	int key; /* CLI_CUSTOM: for the verb's parse function; CLI_SETTING: the key table's row */
	/* A deprecated name of another row: parsed as that row (its type,
	 * offset, words and key, not this row's), with a warning that names
	 * the row to use; --help says so and completion leaves it out. */
	const struct cli_option *alias_of;
};

/* What an option is called and what its value is called in --help,
 * whichever table its row comes from (a setting's: the key table), for
 * completion (cli/complete.c). */
const char *cli_option_name(const struct cli_option *o);
const char *cli_option_arg(const struct cli_option *o);
/* The values it takes that can be listed, one a line (a word's names, not
 * their aliases; the kinds of context), or nothing. */
void cli_option_print_values(const struct cli_option *o, FILE *f);

/* The option of a setting: row id of the key table, parsed into the
 * experiment of the parser at field of the verb's argument struct. */
#define CLI_SETTING_OPTION(args_type, field, id) \
	(&(const struct cli_option){ .type = CLI_SETTING, .key = (id), .offset = offsetof(args_type, field) })

/* --confidence, the one row of the verbs that judge ratios, into the double
 * field of their argument struct. */
#define CLI_CONFIDENCE_OPTION(args_type, field)                                                                          \
	(&(const struct cli_option){ .name = "confidence", .arg = "PCT", .type = CLI_CONFIDENCE,                     \
				     .offset = offsetof(args_type, field),                                              \
				     .help = "the level of the intervals, above 50 and below 99.9 (95)" })

/* --order and --seed, the rows of the verbs that run rounds (run, explain,
 * calibrate): the order of the units within a round (run/run.h's
 * words) into an int field, the seed it is drawn from into a struct
 * cli_seed. */
#define CLI_ORDER_OPTION(args_type, field)                                                                               \
	(&(const struct cli_option){ .name = "order", .arg = "random|fixed", .type = CLI_WORD, .words = run_order_words, \
				     .offset = offsetof(args_type, field),                                              \
				     .help = "the units of a round in a balanced order, each round a row of a Williams "    \
					     "square drawn from the seed (random), or in the file's order every round (fixed)" })
#define CLI_SEED_OPTION(args_type, field)                                                                                \
	(&(const struct cli_option){ .name = "seed", .arg = "N", .type = CLI_SEED, .offset = offsetof(args_type, field), \
				     .help = "the seed of the rounds' orders (one is drawn, and recorded in "             \
					     "schedule.json)" })

/* -q and -v of the verbs that run rounds (run, explain, calibrate): how
 * much of the progress reaches the terminal (run/engine.h). */
struct cli_verbosity {
	bool quiet, verbose;
};
#define CLI_QUIET_OPTION(args_type, field)                                                                               \
	(&(const struct cli_option){ .name = "quiet", .short_name = 'q', .type = CLI_FLAG,                               \
				     .offset = offsetof(args_type, field.quiet),                                         \
				     .help = "no progress: the warnings and the answer only (the results directory's " RUN_LOG \
					     " has it all)" })
#define CLI_VERBOSE_OPTION(args_type, field)                                                                             \
	(&(const struct cli_option){ .name = "verbose", .short_name = 'v', .type = CLI_FLAG,                             \
				     .offset = offsetof(args_type, field.verbose),                                       \
				     .help = "every unit and step as a line of its own, and the whole report" })

struct cli_verb;
/* Takes one option: 0, or -EINVAL after logging why (cli_bad_value()). */
typedef int (*cli_parse_t)(const struct cli_verb *v, const struct cli_option *o, const char *value, void *userdata);

struct cli_verb {
	const char *name;
	const char *const *usage; /* the forms after "slicebench NAME ", NULL-terminated */
	/* Or the forms made from the verb's tables: form i into buf, NULL
	 * past the last. */
	const char *(*usage_form)(size_t i, char *buf, size_t len);
	const char *about;	  /* what it does, for --help */
	const struct cli_option *const *options; /* NULL-terminated; --help is every verb's */
	cli_parse_t parse;			 /* the CLI_CUSTOM options; NULL: none */
	void (*help_tables)(FILE *f);		 /* --help's last part, made from the verb's tables; NULL: none */
};

/* Parses the options of argv[1..]; operands are argv[*ret_first..argc).
 * signify's shape: <0 a usage error (logged, one line), 0 --help printed,
 * >0 go on. */
int cli_parse(const struct cli_verb *v, int argc, char **argv, void *userdata, int *ret_first);
void cli_help(const struct cli_verb *v, FILE *f);
/* cli_parse() for a verb that takes options only: an operand is a usage
 * error. */
int cli_parse_options_only(const struct cli_verb *v, int argc, char **argv, void *userdata);

/* "VERB: why (slicebench VERB --help)", logged; returns -EINVAL. */
int cli_usage_error(const struct cli_verb *v, const char *fmt, ...) _printf_(2, 3);
/* "VERB: --NAME: bad value 'VALUE' (want)", logged; returns -EINVAL. */
int cli_bad_value(const struct cli_verb *v, const struct cli_option *o, const char *value, const char *want);

/* -q and -v into run_set_verbosity(); both: a usage error, -EINVAL. */
int cli_set_verbosity(const struct cli_verb *v, const struct cli_verbosity *talk);

/* The option table of verb i (cli/verbs.c), for the usage error that names
 * the verbs an option belongs to; NULL past the last. */
const struct cli_verb *cli_verb_at(size_t i);

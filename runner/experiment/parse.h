/* The experiment file parser (parse.c): inih reads the INI, and each key
 * goes through its row of the key table into struct experiment; the
 * command line's settings go through the same rows. */
#pragma once

#include "experiment/where.h"

/* Parses and checks one value of k, through its type, into its place. */
int set_key(struct parser *p, const struct key_def *k, const char *value);
/* Every key's default, through the parser that reads the file. */
int experiment_defaults(struct experiment *e);
/* Reads the file at p->path; -errno with *ret_msg if it cannot be opened,
 * else p->msg says what was wrong with it. */
int parse_file(struct parser *p, char **ret_msg);

/* The command line's settings, as fio's options serve its job files and
 * its command line: a parser of e with its defaults (to free()), each
 * option a row's (experiment_set_option()), then the file's checks
 * across keys (experiment_check_options()).  -EINVAL with p->msg, as
 * "--option: why". */
int experiment_options_start(struct experiment *e, struct parser **ret);
int experiment_set_option(struct parser *p, const struct key_def *k, const char *value);

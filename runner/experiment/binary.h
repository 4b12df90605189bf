/* A binary an experiment names (binary.c). */
#pragma once

#include "experiment/where.h"

/* A binary the file names (its path, or found in PATH): a file root alone
 * could have put there (trust_code_file()), else refused at line, key. */
int check_code_file(struct parser *p, const char *binary, unsigned line, const char *key);

/* What may choose the code root runs.  slicebench runs as root, and what it
 * reads (an experiment file, a results directory, a snapshot) is input: a
 * value that names code (an LD_PRELOAD library, a binary) is taken only
 * when the file it names is one root alone could have put there. */
#pragma once

#include <stdbool.h>

/* Whether an environment variable of this name chooses code that a process
 * loads or runs (LD_PRELOAD, LD_LIBRARY_PATH and the dynamic loader's
 * others, GCONV_PATH, PATH). */
bool trust_env_chooses_code(const char *name);

/* 0 if path is an absolute path to a regular file owned by root, writable
 * by root alone, in a directory that root alone can change (and every one
 * above it: dir_check_trusted()).  -EPERM (or -ENOENT, -EINVAL) if not,
 * with why in *ret_why (allocated; the caller frees it). */
int trust_code_file(const char *path, char **ret_why);

/* The same for every library of an LD_PRELOAD value (blanks or colons
 * between them): a name without a slash is found by the loader in the
 * system's own directories and is trusted as they are. */
int trust_preload_list(const char *value, char **ret_why);

/* The value of an environment variable that chooses code (see
 * trust_env_chooses_code()), as input gave it: 0 if what it names is
 * root's alone; -EPERM (or -ENOENT, -EINVAL) with why in *ret_why if not.
 * LD_PRELOAD and LD_AUDIT: each library (trust_preload_list()); a variable
 * of directories (PATH, LD_LIBRARY_PATH, GCONV_PATH): each directory
 * (dir_check_trusted()); any other that names a path (a word with a '/'):
 * each such word as a file or a directory.  A variable that chooses no
 * code is 0. */
int trust_env_value(const char *name, const char *value, char **ret_why);

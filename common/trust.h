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

/* 0 if the value of variable name (trust_env_chooses_code()) names only
 * code that root alone could have put there, the host's: LD_PRELOAD and
 * LD_AUDIT as trust_preload_list(); a search path (PATH, LD_LIBRARY_PATH,
 * GCONV_PATH, any *PATH) only absolute directories that root alone can
 * change (dir_check_trusted(): there, and no empty or relative element,
 * which means the current directory); any other value every path in it.  A variable
 * that chooses no code is 0.  -EPERM with why in *ret_why if not. */
int trust_env_value(const char *name, const char *value, char **ret_why);

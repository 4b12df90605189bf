/* What may choose the code root runs.  slicebench runs as root, and what it
 * reads (an experiment file, a results directory, a snapshot) is input: a
 * value that names code (an LD_PRELOAD library, a binary) is taken only
 * when the file it names is one root alone could have put there. */
#pragma once

#include <stdbool.h>

/* What a setting can do: the column of the attribute table
 * (slices/attr/props.c) and of the experiment key table that the trust
 * gate reads (slices/attr/gate.h).  A mask; 0 is no value, so that a row
 * written without the column is seen (t/160). */
enum power {
	POWER_NOTHING = 1 << 0,	  /* none of the below: a number, a word, a limit */
	POWER_CODE = 1 << 1,	  /* chooses code the server (or root) runs */
	POWER_PRIVILEGE = 1 << 2, /* raises a privilege of the server's account */
	POWER_PATH = 1 << 3,	  /* names a path root reads or writes */
	POWER_ACCOUNT = 1 << 4,	  /* names an account or a group */
	POWER_BY_ROW = 1 << 5,	  /* a key that takes any property: the attribute table's row says */
};

/* Is name an environment variable's name, [A-Za-z_][A-Za-z0-9_]*?  Any
 * other (a blank, an =) would be split again where the environment is
 * written as words. */
bool trust_env_name_valid(const char *name);

/* Whether an environment variable of this name chooses code that a process
 * loads or runs, or files it reads as its own (LD_PRELOAD, LD_LIBRARY_PATH
 * and the dynamic loader's others, GCONV_PATH, PATH, LOCPATH, NLSPATH,
 * TZDIR, HOSTALIASES, MALLOC_CONF, whose paths name jemalloc's files). */
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

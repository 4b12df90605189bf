/* What may choose the code root runs: the one check of a path that names
 * code, for every reader of input (see trust.h). */
#include <ctype.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>

#include "common/trust.h"
#include "common/util.h"

/* The variables that make a process load or run other code than its own. */
static const char *const code_env_prefixes[] = { "LD_", NULL };
static const char *const code_env_names[] = { "GCONV_PATH", "PATH",	 "LOCPATH",	"NLSPATH",
					       "TZDIR",	     "HOSTALIASES", "MALLOC_CONF", NULL };

bool trust_env_name_valid(const char *name)
{
	if (!name || !((isascii((unsigned char)*name) && isalpha((unsigned char)*name)) || *name == '_'))
		return false;
	for (const char *c = name; *c; c++)
		if (!(isascii((unsigned char)*c) && (isalnum((unsigned char)*c) || *c == '_')))
			return false;
	return true;
}

bool trust_env_chooses_code(const char *name)
{
	for (size_t i = 0; code_env_prefixes[i]; i++)
		if (strncmp(name, code_env_prefixes[i], strlen(code_env_prefixes[i])) == 0)
			return true;
	for (size_t i = 0; code_env_names[i]; i++)
		if (streq(name, code_env_names[i]))
			return true;
	return false;
}

int trust_code_file(const char *path, char **ret_why)
{
	_cleanup_free_ char *real = NULL, *dir = NULL;
	struct stat st;

	if (path[0] != '/')
		return xasprintf(ret_why, "%s is not an absolute path", path) < 0 ? -ENOMEM : -EINVAL;
	real = realpath(path, NULL);
	if (!real || stat(real, &st) < 0)
		return xasprintf(ret_why, "%s: %s", path, strerror(errno)) < 0 ? -ENOMEM : -ENOENT;
	if (!S_ISREG(st.st_mode))
		return xasprintf(ret_why, "%s is not a regular file", path) < 0 ? -ENOMEM : -EPERM;
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return xasprintf(ret_why, "%s is not root's alone (owner uid %u, mode %04o)", path,
				 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777)) < 0 ? -ENOMEM : -EPERM;
	dir = strdup(real);
	if (!dir)
		return -ENOMEM;
	if (dir_check_trusted(dirname(dir)) < 0)
		return xasprintf(ret_why, "%s lies in a directory someone other than root can change", path) < 0 ?
			       -ENOMEM : -EPERM;
	return 0;
}

static bool is_search_path(const char *name)
{
	size_t len = strlen(name);

	return len >= 4 && streq(name + len - 4, "PATH");
}

/* Each directory of a search path: absolute and root's alone. */
static int trust_search_path(const char *value, char **ret_why)
{
	const char *p = value;

	for (;;) {
		size_t len = strcspn(p, ":");
		_cleanup_free_ char *dir = strndup(p, len);

		if (!dir)
			return -ENOMEM;
		if (dir[0] != '/')
			return xasprintf(ret_why, "'%s' in %s is not an absolute directory (it means the current one)", dir,
					 value) < 0 ? -ENOMEM : -EPERM;
		/* A missing one could be made later by whoever may write above it. */
		if (dir_check_trusted(dir) < 0)
			return xasprintf(ret_why, "%s is no directory that root alone can change", dir) < 0 ? -ENOMEM : -EPERM;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* Every word of the value that is a path (it holds a slash) names a file
 * or a directory of root's alone. */
static int trust_paths_in(const char *value, char **ret_why)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, " :\t=,", &save); w; w = strtok_r(NULL, " :\t=,", &save)) {
		struct stat st;
		int r;

		if (!strchr(w, '/'))
			continue;
		r = stat(w, &st) == 0 && S_ISDIR(st.st_mode) ? (dir_check_trusted(w) < 0 ? -EPERM : 0)
							     : trust_code_file(w, ret_why);
		if (r == -EPERM && !*ret_why)
			return xasprintf(ret_why, "%s is a directory someone other than root can change", w) < 0 ? -ENOMEM
														 : -EPERM;
		if (r < 0)
			return r == -ENOMEM ? r : -EPERM;
	}
	return 0;
}

int trust_env_value(const char *name, const char *value, char **ret_why)
{
	*ret_why = NULL;
	if (!trust_env_chooses_code(name))
		return 0;
	if (streq(name, "LD_PRELOAD") || streq(name, "LD_AUDIT")) {
		int r = trust_preload_list(value, ret_why);
		return r < 0 && r != -ENOMEM ? -EPERM : r;
	}
	if (is_search_path(name))
		return trust_search_path(value, ret_why);
	return trust_paths_in(value, ret_why);
}

int trust_preload_list(const char *value, char **ret_why)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *lib = strtok_r(copy, " :\t", &save); lib; lib = strtok_r(NULL, " :\t", &save)) {
		if (!strchr(lib, '/'))
			continue;
		int r = trust_code_file(lib, ret_why);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Where a results directory lands when slicebench runs in the container
 * sandbox (SLICEBENCH_IN_SANDBOX=container, set by its exec): the
 * container's / is a volatile overlay and its /tmp a tmpfs of its own, so a
 * directory written there vanishes at `sandbox down` while the path printed
 * names nothing on the host.  What reaches the host is a bind from it: the
 * checkout, and what exec binds for an --out.  The environment variable
 * only ever adds a refusal. */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "store/results.h"
#include "common/util.h"

/* The mount that holds path (absolute, with no link in it): its mount
 * point, the root of its file system it shows, its device's major number
 * and its type, from the longest mount point that is a prefix of path. */
struct mount_of {
	char point[PATH_MAX], root[PATH_MAX], type[64];
	unsigned major;
};

/* Whether mount point mp holds path: a prefix up to a component's end. */
static bool holds(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (streq(mp, "/"))
		return true;
	return strncmp(mp, path, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* mountinfo escapes a space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++, w++) {
		unsigned o;

		if (s[0] == '\\' && sscanf(s + 1, "%3o", &o) == 1 && strspn(s + 1, "01234567") >= 3) {
			*w = (char)o;
			s += 3;
		} else
			*w = *s;
	}
	*w = 0;
}

static int mount_find(const char *path, struct mount_of *ret)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t len = 0, best = 0;
	bool found = false;

	if (!f)
		return -errno;
	while (getline(&line, &len, f) > 0) {
		struct mount_of m = {};
		const char *dash = strstr(line, " - ");

		/* ID PARENT MAJOR:MINOR ROOT POINT ... - TYPE SOURCE ... */
		if (!dash || sscanf(line, "%*u %*u %u:%*u %4095s %4095s", &m.major, m.root, m.point) != 3 ||
		    sscanf(dash + 3, "%63s", m.type) != 1)
			continue;
		unescape(m.root);
		unescape(m.point);
		/* The last of equal points is the one on top. */
		if (holds(m.point, path) && strlen(m.point) >= best) {
			best = strlen(m.point);
			*ret = m;
			found = true;
		}
	}
	return found ? 0 : -ENOENT;
}

/* dir made absolute and its nearest existing ancestor resolved: what
 * results_open() would create it under. */
static int nearest_existing(const char *dir, char *buf, size_t len)
{
	char cwd[PATH_MAX], *slash;
	struct stat st;

	if (*dir != '/' && !getcwd(cwd, sizeof(cwd)))
		return -errno;
	if (snprintf(buf, len, "%s%s%s", *dir == '/' ? "" : cwd, *dir == '/' ? "" : "/", dir) >= (int)len)
		return -ENAMETOOLONG;
	while (stat(buf, &st) < 0) {
		slash = strrchr(buf, '/');
		if (!slash || slash == buf) {
			snprintf(buf, len, "/");
			break;
		}
		*slash = 0;
	}
	return realpath(buf, cwd) ? text_copy(buf, len, cwd) : -errno;
}

int results_reaches_host(const char *dir, char **ret_why)
{
	const char *sandbox = getenv("SLICEBENCH_IN_SANDBOX"), *name = getenv("SLICEBENCH_SANDBOX_NAME");
	char real[PATH_MAX];
	struct mount_of m;
	int r;

	*ret_why = NULL;
	if (!streq_ptr(sandbox, "container"))
		return 0;
	r = nearest_existing(dir, real, sizeof(real));
	if (r >= 0)
		r = mount_find(real, &m);
	if (r < 0)
		return r;
	/* A bind from the host shows the directory it binds, or a device; the
	 * container's own overlay and tmpfs show their root on no device. */
	if (!streq(m.root, "/") || m.major != 0)
		return 0;
	r = xasprintf(ret_why, "%s would be written into the sandbox's own %s (%s), which vanishes at `sandbox down`; "
		      "run the command as `slicebench sandbox --name %s exec -- slicebench ... --out %s`, which binds "
		      "the directory that holds it from the host, or put it under the checkout",
		      dir, m.point, m.type, name && *name ? name : "NAME", dir);
	return r < 0 ? -ENOMEM : -EXDEV;
}

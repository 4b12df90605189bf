/* common/trust.h, the one check of a value that names code root would run:
 * which variables choose code; a file that root alone could have put
 * there (owner, mode, every directory above it) and one that someone else
 * could change; preload lists; and each kind of variable's value (search
 * paths, preload lists, paths inside other LD_* values), on real files. */
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "common/trust.h"
#include "common/util.h"

static char *path_in(const char *name)
{
	char *p = NULL;

	if (xasprintf(&p, "%s/%s", scratch_dir(), name) < 0)
		bail_out("out of memory");
	return p;
}

static void make_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	if (fd < 0 || fchmod(fd, mode) < 0)
		bail_out("%s: %m", path);
	close(fd);
}

/* r and why of trust_env_value(name, value), why freed. */
static int env_value(const char *name, const char *value)
{
	_cleanup_free_ char *why = NULL;
	int r = trust_env_value(name, value, &why);

	if (why)
		diag("%s=%s: %s", name, value, why);
	return r;
}

static int code_file(const char *path)
{
	_cleanup_free_ char *why = NULL;
	int r = trust_code_file(path, &why);

	if (why)
		diag("%s: %s", path, why);
	return r;
}

int main(void)
{
	_cleanup_free_ char *mine = path_in("lib.so"), *open_file = path_in("open.so"), *open_dir = path_in("open"),
			    *in_open = path_in("open/lib.so"), *theirs = path_in("theirs.so"), *link = path_in("link.so"),
			    *list = NULL, *path = NULL, *debug = NULL;
	struct passwd *nobody = getpwnam("nobody");
	_cleanup_free_ char *why = NULL;

	require("ROOT");
	plan(25);

	ok(trust_env_chooses_code("LD_PRELOAD") && trust_env_chooses_code("LD_LIBRARY_PATH") &&
		   trust_env_chooses_code("LD_AUDIT") && trust_env_chooses_code("PATH") && trust_env_chooses_code("GCONV_PATH"),
	   "LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, PATH and GCONV_PATH choose code");
	ok(!trust_env_chooses_code("HOME") && !trust_env_chooses_code("MALLOC_ARENA_MAX") &&
		   !trust_env_chooses_code("GLIBC_TUNABLES") && !trust_env_chooses_code("OLDPWD"),
	   "HOME, MALLOC_ARENA_MAX, GLIBC_TUNABLES and OLDPWD do not");

	/* The scratch directory is root's 0755 under a sticky /tmp. */
	make_file(mine, 0755);
	is_int(code_file(mine), 0, "a 0755 file of root's in a directory of root's");
	make_file(open_file, 0666);
	is_int(code_file(open_file), -EPERM, "a world-writable one is not");
	chmod(open_file, 0775);
	is_int(code_file(open_file), -EPERM, "nor a group-writable one");
	mkdir(open_dir, 0777);
	chmod(open_dir, 0777);
	make_file(in_open, 0755);
	is_int(code_file(in_open), -EPERM, "nor root's 0755 file in a world-writable directory (it can be swapped)");
	make_file(theirs, 0755);
	if (nobody && chown(theirs, nobody->pw_uid, nobody->pw_gid) == 0)
		is_int(code_file(theirs), -EPERM, "nor a file that another user owns");
	else
		skip(1, "no user nobody");
	is_int(code_file("lib.so"), -EINVAL, "nor a relative path");
	is_int(code_file("/nonexistent/lib.so"), -ENOENT, "nor a missing file");
	is_int(code_file("/dev/zero"), -EPERM, "nor a device");
	if (symlink(in_open, link) < 0)
		bail_out("symlink: %m");
	is_int(code_file(link), -EPERM, "a link is judged by what it points to (here: in the world-writable directory)");
	is_int(code_file("/bin/sh"), 0, "the host's /bin/sh is root's alone");

	xasprintf(&list, "libc.so.6 %s:%s", mine, open_file);
	is_int(trust_preload_list(list, &why), -EPERM, "a preload list with one world-writable library is refused");
	ok(why && strstr(why, open_file), "naming it (%s)", strempty(why));
	free(list);
	xasprintf(&list, "libc.so.6:%s", mine);
	is_int(env_value("LD_PRELOAD", list), 0, "LD_PRELOAD of a bare name and root's file is the host's");
	is_int(env_value("LD_AUDIT", open_file), -EPERM, "LD_AUDIT of a world-writable file is not");

	is_int(env_value("PATH", "/usr/local/bin:/usr/bin:/bin"), 0, "PATH of root's directories is the host's");
	is_int(env_value("PATH", "/usr/bin::/bin"), -EPERM, "an empty element (the current directory) is not");
	is_int(env_value("PATH", ".:/usr/bin"), -EPERM, "nor a relative one");
	xasprintf(&path, "/usr/bin:%s", open_dir);
	is_int(env_value("LD_LIBRARY_PATH", path), -EPERM, "LD_LIBRARY_PATH with a world-writable directory is not");
	is_int(env_value("GCONV_PATH", "/nonexistent/gconv"), -EPERM, "nor a directory that is not there (anyone may make it)");
	xasprintf(&debug, "%s/out", open_dir);
	is_int(env_value("LD_DEBUG_OUTPUT", debug), -EPERM, "another LD_ variable naming a path in it is not");
	is_int(env_value("LD_BIND_NOW", "1"), 0, "one naming no path is taken");
	is_int(env_value("HOME", debug), 0, "a variable that chooses no code is never refused");
	is_int(env_value("LD_PRELOAD", "/bin/sh /dev/zero"), -EPERM, "nor a device in a preload list");
	return done_testing();
}

/* The file helpers under a hostile writer in the same directory: a symbolic
 * link planted at the temporary name write_file_atomic() used to use, or at
 * the file itself, is never followed; remove_tree() never follows a link out
 * of the tree; dir_check_trusted() accepts only what root alone can write. */
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "common/util.h"

static char *path_in(const char *name)
{
	char *p = NULL;

	if (xasprintf(&p, "%s/%s", scratch_dir(), name) < 0)
		bail_out("out of memory");
	return p;
}

/* A root-only file, as an attacker's target. */
static void make_root_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, "root only\n", 10) != 10)
		bail_out("%s: %m", path);
	close(fd);
}

static char *content(const char *path)
{
	char *s = NULL;

	return read_file_str(path, &s) < 0 ? strdup("(unreadable)") : s;
}

int main(void)
{
	_cleanup_free_ char *target = path_in("target"), *file = path_in("file"), *planted = NULL,
			    *tree = path_in("tree"), *outside = path_in("outside"), *keep = NULL,
			    *link = NULL, *dir = path_in("dir"), *dirlink = path_in("dirlink");
	struct passwd *nobody = getpwnam("nobody");
	struct stat st;
	char *got;

	require("ROOT");
	plan(12);

	make_root_file(target);
	xasprintf(&planted, "%s.tmp.%d", file, (int)getpid());
	if (symlink(target, planted) < 0)
		bail_out("symlink: %m");
	is_int(write_file_atomic(file, "new\n", 4), 0, "write_file_atomic with a link planted at %s", planted);
	got = content(target);
	is_str(got, "root only", "the link's target is untouched");
	free(got);
	got = content(file);
	is_str(got, "new", "and the file holds what was written");
	free(got);

	unlink(file);
	if (symlink(target, file) < 0)
		bail_out("symlink: %m");
	is_int(write_file_atomic(file, "new\n", 4), 0, "write_file_atomic where the file is a link");
	got = content(target);
	ok(lstat(file, &st) == 0 && S_ISREG(st.st_mode) && streq(got, "root only"),
	   "the link is replaced by a file, its target untouched (%s)", got);
	free(got);

	/* A tree holding a link to a directory outside it. */
	mkdir(tree, 0755);
	mkdir(outside, 0755);
	keep = path_in("outside/keep");
	make_root_file(keep);
	xasprintf(&link, "%s/sub", tree);
	if (symlink(outside, link) < 0)
		bail_out("symlink: %m");
	is_int(remove_tree(tree), 0, "remove_tree of a tree holding a link to a directory outside it");
	ok(access(keep, F_OK) == 0 && access(tree, F_OK) < 0, "the tree is gone, what the link pointed to is not");
	if (symlink(outside, tree) < 0)
		bail_out("symlink: %m");
	ok(remove_tree(tree) < 0 && access(keep, F_OK) == 0, "remove_tree of a link refuses and removes nothing");

	mkdir(dir, 0755);
	is_int(dir_check_trusted(dir), 0, "a 0755 directory of root's (under a sticky /tmp) is trusted");
	chmod(dir, 0777);
	is_int(dir_check_trusted(dir), -EPERM, "a world-writable one is not");
	chmod(dir, 0755);
	if (nobody) {
		chown(dir, nobody->pw_uid, nobody->pw_gid);
		is_int(dir_check_trusted(dir), -EPERM, "nor one that another user owns");
		chown(dir, 0, 0);
		symlink(dir, dirlink);
		lchown(dirlink, nobody->pw_uid, nobody->pw_gid);
		is_int(dir_check_trusted(dirlink), -ELOOP, "nor a link that another user made, even to a trusted one");
	} else
		skip(2, "no user nobody");
	return done_testing();
}

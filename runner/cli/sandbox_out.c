/* slicebench __sandbox-bind, hidden: what `sandbox exec` binds from the
 * host into the container, so that a run's results land where it says.
 * Only a results directory, only of a slicebench verb that takes --out,
 * and bound by descriptor: each directory of its path opened in turn with
 * O_PATH|O_NOFOLLOW from /, made (root's, 0755) where missing, every one
 * root's and writable by no one else (or sticky, as /tmp), never / nor a
 * directory right below it; the last one bound through /proc/self/fd, so
 * that a symbolic link swapped in while it works (renameat2's
 * RENAME_EXCHANGE in a loop) finds nothing to follow, and the host's /etc
 * is never what is bound. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "common/util.h"
#include "cli/verbs.h"

/* The options that name a results directory the verb writes. */
static const char *const out_options[] = { "out", "resume", NULL };

/* Whether the verb named takes --out. */
static bool verb_takes_out(const char *name)
{
	for (size_t i = 0; verbs[i].name; i++)
		for (size_t k = 0; streq(verbs[i].name, name) && verbs[i].cli->options && verbs[i].cli->options[k]; k++)
			if (streq_ptr(cli_option_name(verbs[i].cli->options[k]), out_options[0]))
				return true;
	return false;
}

/* The directory word i (and i+1) gives, as --NAME DIR or --NAME=DIR of an
 * out option; NULL if none.  *i moves past a separate value. */
static const char *out_dir(int argc, char **argv, int *i)
{
	for (size_t o = 0; out_options[o]; o++) {
		size_t n = strlen(out_options[o]);

		if (strncmp(argv[*i], "--", 2) != 0 || strncmp(argv[*i] + 2, out_options[o], n) != 0)
			continue;
		if (!argv[*i][2 + n] && *i + 1 < argc)
			return argv[++*i];
		if (argv[*i][2 + n] == '=')
			return argv[*i] + 3 + n;
	}
	return NULL;
}

/* A directory of the path: root's, writable by no one else unless it is
 * sticky (where no one else may rename root's entries), and for the last
 * one not even then. */
static const char *dir_refusal(int fd, bool last)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
		return "not a directory";
	if (st.st_uid != 0)
		return "not root's (its owner could swap what lies below it)";
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (last || !(st.st_mode & S_ISVTX)))
		return "writable by someone other than root";
	return NULL;
}

/* The results directory path, opened as described above: its O_PATH
 * descriptor (*ret_made: its last directory made here), or -errno with
 * why. */
static int out_dir_open(const char *path, const char **ret_why, bool *ret_made)
{
	_cleanup_free_ char *cwd = path[0] == '/' ? NULL : get_current_dir_name(), *abs = NULL;
	_cleanup_close_ int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *save = NULL, *next;
	unsigned depth = 0;
	int r;

	if (xasprintf(&abs, "%s/%s", strempty(cwd), path) < 0)
		return -ENOMEM;
	if (fd < 0 || (*ret_why = dir_refusal(fd, false)))
		return -EPERM;
	for (char *c = strtok_r(abs, "/", &save); c; c = next) {
		_cleanup_close_ int child = -EBADF;

		next = strtok_r(NULL, "/", &save);
		if (streq(c, ".") || streq(c, ".."))
			return *ret_why = "holds . or ..", -EINVAL;
		child = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		*ret_made = false;
		if (child < 0 && errno == ENOENT) {
			*ret_made = mkdirat(fd, c, 0755) == 0;
			if (*ret_made || errno == EEXIST)
				child = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (child < 0)
			return *ret_why = errno == ELOOP || errno == ENOTDIR ? "a symbolic link or not a directory on the way"
									       : strerror(errno), -errno;
		if ((*ret_why = dir_refusal(child, !next)))
			return -EPERM;
		close(fd);
		fd = child;
		child = -EBADF;
		depth++;
	}
	if (depth < 2)
		return *ret_why = "a top-level directory, never bound whole", -EPERM;
	r = fd;
	fd = -EBADF;
	return r;
}

/* Binds one --out DIR at slots/N, unless the checkout (bound already) holds
 * it: "N DIR" on stdout.  -errno, logged. */
static int bind_one(const char *slots, const char *checkout, const char *dir, unsigned *n)
{
	_cleanup_free_ char *slot = NULL;
	_cleanup_close_ int fd = -EBADF;
	const char *why = NULL;
	char real[4096], self[64];
	bool made = false;
	ssize_t len;

	fd = out_dir_open(dir, &why, &made);
	if (fd < 0)
		return why ? log_error_errno(fd, "sandbox: --out %s is not bound: %s", dir, why)
			   : log_error_errno(fd, "sandbox: --out %s is not bound: %m", dir);
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	len = readlink(self, real, sizeof(real) - 1);
	if (len < 0)
		return log_error_errno(-errno, "sandbox: --out %s: %m", dir);
	real[len] = 0;
	/* The checkout is bound already: the verb makes its --out there itself,
	 * and a verb that refuses its input leaves none behind.  Every
	 * directory on the way is root's and no one else's to rename, so the
	 * path still names the one made. */
	if (*checkout && strncmp(real, checkout, strlen(checkout)) == 0 && real[strlen(checkout)] == '/')
		return made && rmdir(real) < 0 ? log_error_errno(-errno, "sandbox: --out %s: %m", dir) : 0;
	for (;; (*n)++) {
		free(slot);
		if (xasprintf(&slot, "%s/%u", slots, *n) < 0)
			return log_error_errno(-ENOMEM, "sandbox: %m");
		if (mkdir(slot, 0700) == 0)
			break;
		if (errno != EEXIST)
			return log_error_errno(-errno, "sandbox: %s: %m", slot);
	}
	/* The directory opened, by its descriptor: no path is looked up again. */
	if (mount(self, slot, NULL, MS_BIND, NULL) < 0)
		return log_error_errno(-errno, "sandbox: binding --out %s: %m", dir);
	printf("%u %s\n", (*n)++, real);
	return 0;
}

int verb_sandbox_bind(int argc, char **argv)
{
	unsigned n = 0;
	int i = 4;

	/* __sandbox-bind SLOTS CHECKOUT -- CMD... */
	if (argc < 4 || !streq(argv[3], "--"))
		return EXIT_USAGE;
	while (i < argc && !streq(basename(argv[i]), "slicebench"))
		i++;
	/* The verb is the word after slicebench; others bind nothing. */
	if (i + 1 >= argc || !verb_takes_out(argv[i + 1]))
		return 0;
	for (i += 2; i < argc && !streq(argv[i], "--"); i++) {
		const char *dir = out_dir(argc, argv, &i);

		if (dir && bind_one(argv[1], argv[2], dir, &n) < 0)
			return EXIT_USAGE;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* Files read from a directory someone else may have made (see input.h). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/input.h"
#include "common/util.h"

/* fd of path: a regular file of at most max bytes, opened without
 * following a link or blocking; -errno and why if not. */
static int input_open(const char *path, size_t max, char **ret_why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), r;

	if (fd < 0) {
		r = -errno;
		(void)xasprintf(ret_why, "%s: %s", path, r == -ELOOP ? "a symbolic link, not a file of the directory's"
								  : strerror(-r));
		return r;
	}
	r = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : (size_t)st.st_size > max ? -EFBIG : 0;
	if (r < 0) {
		close(fd);
		if (r == -EFBIG)
			(void)xasprintf(ret_why, "%s: %lld bytes, more than slicebench writes (%zu at most)", path,
					(long long)st.st_size, max);
		else
			(void)xasprintf(ret_why, "%s: %s", path, r == -EINVAL ? "not a regular file" : strerror(-r));
		return r;
	}
	return fd;
}

json_t *input_load_json(const char *path, size_t max, char **ret_why)
{
	json_error_t err;
	json_t *j;
	int fd;

	*ret_why = NULL;
	fd = input_open(path, max, ret_why);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	j = json_loadfd(fd, JSON_REJECT_DUPLICATES, &err);
	close(fd);
	if (!j) {
		/* jansson quotes the token it stopped at: none of it is shown. */
		char *near = strstr(err.text, " near '");

		if (near)
			*near = 0;
		(void)xasprintf(ret_why, "%s:%d: %s", path, err.line, err.text);
		errno = EBADMSG;
	}
	return j;
}

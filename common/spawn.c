#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/spawn.h"
#include "common/util.h"

int spawn(char *const *argv, int (*setup)(void *userdata), void *userdata, pid_t *ret_pid)
{
	_cleanup_free_ char *path = NULL;
	pid_t pid;

	/* The program by its absolute path, found here in slicebench's own
	 * PATH: setup() may give the child another environment (a context's
	 * Environment=PATH=), which must not choose what runs. */
	if (!executable_in_path(argv[0], &path) && !(path = strdup(argv[0])))
		return -ENOMEM;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int status = setup ? setup(userdata) : 0;

		if (status != 0)
			_exit(status);
		execv(path, argv);
		_exit(127);
	}
	*ret_pid = pid;
	return 0;
}

int spawn_wait(char *const *argv, int (*setup)(void *userdata), void *userdata)
{
	int status, r;
	pid_t pid;

	r = spawn(argv, setup, userdata, &pid);
	if (r < 0)
		return r;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

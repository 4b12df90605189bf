#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/spawn.h"

int spawn(char *const *argv, int (*setup)(void *userdata), void *userdata, pid_t *ret_pid)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int status = setup ? setup(userdata) : 0;

		if (status != 0)
			_exit(status);
		execvp(argv[0], argv);
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

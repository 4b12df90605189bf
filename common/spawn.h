/* The one fork-and-exec: every child slicebench starts (useradd, the datadir's
 * installer, the server, sysbench) goes through here. */
#pragma once

#include <sys/types.h>

/* Forks with every stdio buffer flushed first (a child that exits instead
 * of exec'ing would flush them a second time), runs setup(userdata) in the
 * child if given, then execv() of argv[0] by the absolute path found in
 * slicebench's own PATH before the fork, so that an environment setup()
 * gives the child never chooses the program.  setup returns 0 to go on, or
 * the status the child exits with; a failed exec exits 127.  Returns 0 with
 * *ret_pid set, or -errno if the fork failed. */
int spawn(char *const *argv, int (*setup)(void *userdata), void *userdata, pid_t *ret_pid);
/* spawn() and wait for the child: 0 if it exited 0, -EIO if it did not. */
int spawn_wait(char *const *argv, int (*setup)(void *userdata), void *userdata);

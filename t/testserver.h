/* A real mariadbd for one test file: datadir and socket under the scratch
 * directory, forked from the test itself, stopped at exit. */
#pragma once

#include <sys/types.h>

#include "slices/server/server.h"

/* Sets up the datadir (user NULL: the default) or bails out. */
void test_server_setup(const char *user, struct server *ret);
/* Forks the server, waits until it answers a ping (bails out with the log
 * otherwise) and registers its stop at exit. */
pid_t test_server_fork(const struct server *s);

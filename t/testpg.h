/* A real PostgreSQL 15 for one test file: initdb into the scratch
 * directory as the postgres user, a unix socket only, the superuser root
 * over peer authentication, forked from the test and stopped at exit. */
#pragma once

#include <sys/types.h>

#define TEST_PG_BINDIR "/usr/lib/postgresql/15/bin"

struct test_pg {
	char *datadir, *socket_dir, *log;
	pid_t pid;
};

/* Starts it (bails out with the log's tail if it does not come up); *ret
 * must outlive main, since the stop at exit uses it. */
void test_pg_start(unsigned max_connections, struct test_pg *ret);
/* The log's lines that contain needle, each once, sorted, joined by \n. */
char *test_pg_log_lines(const struct test_pg *pg, const char *needle);

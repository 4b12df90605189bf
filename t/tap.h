/* A small TAP producer for the C tests, after c-tap-harness and git's t/.
 * Every check prints "ok N - desc" or "not ok N - desc" with the file:line
 * and both values on failure. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

void plan(int n);
void plan_skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
int done_testing(void);
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void skip(int n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bail_out(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

bool ok_at(const char *file, int line, bool cond, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool is_str_at(const char *file, int line, const char *got, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
bool is_int_at(const char *file, int line, long long got, long long want, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
bool cmp_ok_at(const char *file, int line, double got, const char *op, double want, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#define ok(cond, ...) ok_at(__FILE__, __LINE__, (cond), __VA_ARGS__)
#define is_str(got, want, ...) is_str_at(__FILE__, __LINE__, (got), (want), __VA_ARGS__)
#define is_int(got, want, ...) is_int_at(__FILE__, __LINE__, (got), (want), __VA_ARGS__)
#define cmp_ok(got, op, want, ...) cmp_ok_at(__FILE__, __LINE__, (got), (op), (want), __VA_ARGS__)

/* Named prerequisites, as in git's t/: ROOT, SYSTEMD (a manager reachable on
 * the system bus), NSPAWN, MYSQLD, SYSBENCH, POSTGRES (PostgreSQL 15's
 * initdb and the postgres user), PGBENCH.  require() skips the whole file with the
 * reason, except that under CI=true a missing sandbox prerequisite fails. */
bool have_prereq(const char *name);
void require(const char *names);

/* Run this test program inside a sandbox: on the host, boot one, re-exec
 * argv inside it, tear it down and exit with the inner status.  Inside the
 * sandbox it returns.  kind is "container" or "vm". */
void run_in_sandbox(const char *kind, char **argv);

/* Cleanup registered per test file; runs at exit, also after a failure. */
void on_exit_run(void (*fn)(void *), void *arg);

/* A per-test scratch directory, removed at exit. */
const char *scratch_dir(void);

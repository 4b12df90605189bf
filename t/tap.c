#include "tap.h"

#include <errno.h>
#include <signal.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int test_count, fail_count, planned = -1;

void plan(int n)
{
	planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

void plan_skip_all(const char *fmt, ...)
{
	va_list ap;
	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(0);
}

void bail_out(const char *fmt, ...)
{
	va_list ap;
	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(255);
}

void diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void vreport(bool cond, const char *fmt, va_list ap)
{
	test_count++;
	if (!cond)
		fail_count++;
	printf("%sok %d - ", cond ? "" : "not ", test_count);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

void skip(int n, const char *fmt, ...)
{
	for (int i = 0; i < n; i++) {
		va_list ap;
		test_count++;
		printf("ok %d # SKIP ", test_count);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

bool ok_at(const char *file, int line, bool cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		diag("  Failed test at %s:%d", file, line);
	return cond;
}

bool is_str_at(const char *file, int line, const char *got, const char *want, const char *fmt, ...)
{
	bool cond = got && want ? strcmp(got, want) == 0 : got == want;
	va_list ap;
	va_start(ap, fmt);
	vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		diag("  Failed test at %s:%d", file, line);
		diag("         got: '%s'", got ? got : "(null)");
		diag("    expected: '%s'", want ? want : "(null)");
	}
	return cond;
}

bool is_int_at(const char *file, int line, long long got, long long want, const char *fmt, ...)
{
	bool cond = got == want;
	va_list ap;
	va_start(ap, fmt);
	vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		diag("  Failed test at %s:%d", file, line);
		diag("         got: %lld", got);
		diag("    expected: %lld", want);
	}
	return cond;
}

bool cmp_ok_at(const char *file, int line, double got, const char *op, double want, const char *fmt, ...)
{
	bool cond;
	va_list ap;

	if (!strcmp(op, "<"))
		cond = got < want;
	else if (!strcmp(op, "<="))
		cond = got <= want;
	else if (!strcmp(op, ">"))
		cond = got > want;
	else if (!strcmp(op, ">="))
		cond = got >= want;
	else if (!strcmp(op, "=="))
		cond = got == want;
	else if (!strcmp(op, "!="))
		cond = got != want;
	else
		bail_out("cmp_ok: unknown operator %s at %s:%d", op, file, line);
	va_start(ap, fmt);
	vreport(cond, fmt, ap);
	va_end(ap);
	if (!cond) {
		diag("  Failed test at %s:%d", file, line);
		diag("    %g", got);
		diag("        %s", op);
		diag("    %g", want);
	}
	return cond;
}

int done_testing(void)
{
	if (planned < 0)
		printf("1..%d\n", test_count);
	else if (planned != test_count)
		diag("planned %d tests but ran %d", planned, test_count);
	fflush(stdout);
	return fail_count || (planned >= 0 && planned != test_count) ? 1 : 0;
}

static bool in_ci(void)
{
	const char *ci = getenv("CI");
	return ci && !strcmp(ci, "true");
}

static bool command_exists(const char *name)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "command -v %s >/dev/null 2>&1", name);
	return system(buf) == 0;
}

bool have_prereq(const char *name)
{
	if (!strcmp(name, "ROOT"))
		return geteuid() == 0;
	if (!strcmp(name, "NSPAWN"))
		return command_exists("systemd-nspawn") && access("/lib/systemd/systemd", X_OK) == 0;
	if (!strcmp(name, "QEMU"))
		return command_exists("qemu-system-x86_64");
	if (!strcmp(name, "SYSTEMD"))
		return access("/run/systemd/system", F_OK) == 0;
	if (!strcmp(name, "MYSQLD"))
		return command_exists("mariadbd") || command_exists("mysqld");
	if (!strcmp(name, "SYSBENCH"))
		return command_exists("sysbench");
	if (!strcmp(name, "POSTGRES"))
		return access("/usr/lib/postgresql/15/bin/initdb", X_OK) == 0 && getpwnam("postgres");
	if (!strcmp(name, "PGBENCH"))
		return access("/usr/lib/postgresql/15/bin/pgbench", X_OK) == 0;
	bail_out("unknown prerequisite %s", name);
}

/* Prerequisites that the sandbox provides must be met under CI. */
static bool prereq_is_sandbox(const char *name)
{
	return !strcmp(name, "ROOT") || !strcmp(name, "NSPAWN") || !strcmp(name, "QEMU") ||
	       !strcmp(name, "SYSTEMD") || !strcmp(name, "MYSQLD") || !strcmp(name, "SYSBENCH") ||
	       !strcmp(name, "POSTGRES") || !strcmp(name, "PGBENCH");
}

void require(const char *names)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", names);
	for (char *n = strtok_r(buf, " ,", &save); n; n = strtok_r(NULL, " ,", &save)) {
		if (have_prereq(n))
			continue;
		if (in_ci() && prereq_is_sandbox(n)) {
			printf("1..1\nnot ok 1 - prerequisite %s is missing, and CI=true forbids skipping\n", n);
			exit(1);
		}
		plan_skip_all("missing prerequisite %s", n);
	}
}

static const char *top_dir(void)
{
	const char *top = getenv("SLICEBENCH_TOP");
	return top ? top : ".";
}

static int run_helper(const char *helper, const char *name, const char *verb)
{
	char path[4096];
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/sandbox/%s", top_dir(), helper);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Keep the helper's chatter out of the TAP stream. */
		dup2(2, 1);
		execl(path, path, "--name", name, verb, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static char sandbox_name[64];
static const char *sandbox_helper;

static void sandbox_down(void)
{
	if (sandbox_name[0])
		run_helper(sandbox_helper, sandbox_name, "down");
}

static void forward_signal(int sig)
{
	/* Let the inner test die first; sandbox_down() runs from atexit. */
	(void)sig;
}

void run_in_sandbox(const char *kind, char **argv)
{
	const char *inside = getenv("SLICEBENCH_IN_SANDBOX");
	char path[4096];
	const char *base;
	pid_t pid;
	int status, r;

	if (inside && *inside)
		return;
	require("ROOT");
	if (!strcmp(kind, "vm")) {
		require("QEMU");
		sandbox_helper = "slicebench-vm";
	} else {
		require("NSPAWN");
		sandbox_helper = "slicebench-sandbox";
	}
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	/* t-NNN from "NNN-name.t", so that tests can run side by side. */
	snprintf(sandbox_name, sizeof(sandbox_name), "t%.*s-%d", 3, base, (int)getpid());
	r = run_helper(sandbox_helper, sandbox_name, "up");
	atexit(sandbox_down);
	if (r != 0) {
		printf("1..1\nnot ok 1 - sandbox %s (%s) came up (helper exited %d)\n", sandbox_name, kind, r);
		exit(1);
	}
	signal(SIGINT, forward_signal);
	signal(SIGTERM, forward_signal);
	snprintf(path, sizeof(path), "%s/sandbox/%s", top_dir(), sandbox_helper);
	pid = fork();
	if (pid < 0)
		bail_out("fork: %s", strerror(errno));
	if (pid == 0) {
		int n = 0;
		char **args;
		while (argv[n])
			n++;
		args = calloc((size_t)n + 6, sizeof(char *));
		if (!args)
			_exit(127);
		args[0] = path;
		args[1] = "--name";
		args[2] = sandbox_name;
		args[3] = "exec";
		args[4] = "--";
		for (int i = 0; i < n; i++)
			args[5 + i] = argv[i];
		execv(path, args);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

struct cleanup_entry {
	void (*fn)(void *);
	void *arg;
};
static struct cleanup_entry cleanups[32];
static int n_cleanups;

static void run_cleanups(void)
{
	while (n_cleanups > 0) {
		n_cleanups--;
		cleanups[n_cleanups].fn(cleanups[n_cleanups].arg);
	}
}

void on_exit_run(void (*fn)(void *), void *arg)
{
	if (n_cleanups == 0)
		atexit(run_cleanups);
	if (n_cleanups >= (int)(sizeof(cleanups) / sizeof(cleanups[0])))
		bail_out("too many cleanups");
	cleanups[n_cleanups++] = (struct cleanup_entry){ fn, arg };
}

static char scratch[256];

static void remove_scratch(void *arg)
{
	char cmd[512];
	(void)arg;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		diag("could not remove %s", scratch);
}

const char *scratch_dir(void)
{
	if (scratch[0])
		return scratch;
	snprintf(scratch, sizeof(scratch), "/tmp/slicebench-t.XXXXXX");
	if (!mkdtemp(scratch))
		bail_out("mkdtemp: %s", strerror(errno));
	on_exit_run(remove_scratch, NULL);
	return scratch;
}

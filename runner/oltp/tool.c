/* The child that runs a real load generator (see tool.h). */
#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "oltp/tool.h"
#include "common/interrupt.h"
#include "common/spawn.h"

void tool_arg(struct tool_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s || a->n == TOOL_ARGS_MAX) {
		free(s);
		a->oom = true;
		return;
	}
	a->argv[a->n++] = s;
	a->argv[a->n] = NULL;
}

void tool_argv_done(struct tool_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->argv[i]);
	a->n = 0;
}

/* Reads the child's output until it closes or the deadline passes; with
 * tel, samples the host and the child's threads about once a second. */
static int read_all(int fd, uint64_t deadline_ns, struct oltp_telemetry *tel, struct step_result *samples, char **buf,
		    size_t *len)
{
	uint64_t start = now_ns(), next_sample = start + NSEC_PER_SEC;
	size_t cap = 1 << 16;

	*buf = malloc(cap);
	if (!*buf)
		return -ENOMEM;
	*len = 0;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		ssize_t n;

		if (interrupt_signal)
			return -EINTR;
		if (now >= deadline_ns)
			return -ETIMEDOUT;
		if (tel && now >= next_sample) {
			if (oltp_telemetry_append(tel, (double)(now - start) / 1e9, samples) < 0)
				return -ENOMEM;
			next_sample += NSEC_PER_SEC;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (*len + 4096 >= cap) {
			char *b = realloc(*buf, cap * 2);
			if (!b)
				return -ENOMEM;
			*buf = b;
			cap *= 2;
		}
		n = read(fd, *buf + *len, cap - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	(*buf)[*len] = 0;
	return 0;
}

#define PGBENCH_DEBIAN "/usr/lib/postgresql/15/bin/pgbench"

const char *tool_pgbench(const struct oltp_options *o)
{
	if (streq(o->pgbench_path, "pgbench") && access(PGBENCH_DEBIAN, X_OK) == 0)
		return PGBENCH_DEBIAN;
	return o->pgbench_path;
}

struct child {
	const struct oltp_options *o;
	int out;
};

/* In the child: the client CPUs, and stdout and stderr into the pipe. */
static int child_setup(void *userdata)
{
	const struct child *c = userdata;
	const struct oltp_options *o = c->o;

	/* The tools cannot pin per thread: every thread gets the whole list. */
	if (o->pin != OLTP_PIN_INHERIT && o->n_client_cpus > 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		for (unsigned i = 0; i < o->n_client_cpus; i++)
			CPU_SET(o->client_cpus[i], &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			return 126;
	}
	dup2(c->out, STDOUT_FILENO);
	dup2(c->out, STDERR_FILENO);
	return 0;
}

int tool_run(const struct oltp_options *o, const struct tool_argv *a, uint64_t timeout_s, struct step_result *samples,
	     char **ret_out, int *ret_status)
{
	struct oltp_telemetry *tel = NULL;
	size_t len = 0;
	int pipefd[2], r;
	pid_t pid;

	if (a->oom || !a->n)
		return -ENOMEM;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	r = spawn(a->argv, child_setup, &(struct child){ .o = o, .out = pipefd[1] }, &pid);
	if (r < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return r;
	}
	close(pipefd[1]);
	if (samples && oltp_telemetry_new(o, &tel) >= 0)
		oltp_telemetry_set_client(tel, (int)pid);
	r = read_all(pipefd[0], now_ns() + timeout_s * NSEC_PER_SEC, tel, samples, ret_out, &len);
	oltp_telemetry_profile(tel, samples);
	oltp_telemetry_free(tel);
	close(pipefd[0]);
	if (r < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, ret_status, 0) < 0 && errno == EINTR)
		;
	return r;
}

int tool_failed(const char *tool, int r, int status, const char *out, const char *marker, struct step_result *ret)
{
	ret->failed = true;
	if (r == -EINTR)
		snprintf(ret->reason, sizeof(ret->reason), "interrupted by a signal");
	else if (r == -ETIMEDOUT)
		snprintf(ret->reason, sizeof(ret->reason), "%s did not finish in time and was killed", tool);
	else if (r < 0)
		return r;
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(ret->reason, sizeof(ret->reason), "cannot run %s", tool);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		const char *line = out ? strstr(out, marker) : NULL;
		int cut = line ? (int)strcspn(line, "\n") : 0;

		snprintf(ret->reason, sizeof(ret->reason), "%s exited with status %d%s%.*s", tool,
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), line ? ": " : "", cut,
			 line ? line : "");
		/* pgbench's "connection to server ... failed", sysbench's
		 * "Can't connect", "Lost connection": the connection's class. */
		if (line && (memmem(line, (size_t)cut, "connect", 7) || memmem(line, (size_t)cut, "Connect", 7)))
			ret->rule = OLTP_RULE_CONNECTION;
	} else {
		ret->failed = false;
		return 0;
	}
	return 1;
}

/* What follows the first `key` in text, or NULL. */
static const char *after_key(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? p + strlen(key) : NULL;
}

bool tool_report_number(const char *text, const char *key, double *ret)
{
	const char *p = after_key(text, key);
	char *end;

	if (!p)
		return false;
	*ret = strtod(p, &end);
	return end != p;
}

bool tool_report_count(const char *text, const char *key, uint64_t *ret)
{
	const char *p = after_key(text, key);
	char *end;

	if (!p)
		return false;
	p += strspn(p, " \t");
	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	*ret = strtoull(p, &end, 10);
	return errno == 0 && (!*end || isspace((unsigned char)*end) || *end == '/');
}

/* The next line after p that begins with prefix, or NULL. */
static const char *next_line_with(const char *p, const char *prefix)
{
	while ((p = strchr(p + 1, '\n')))
		if (strncmp(p + 1, prefix, strlen(prefix)) == 0)
			return p + 1;
	return NULL;
}

int tool_report_intervals(const char *text, const char *prefix,
			  bool (*rate)(const char *line, const void *userdata, double *ret_tps), const void *userdata,
			  struct step_result *ret)
{
	for (const char *p = strstr(text, prefix); p; p = next_line_with(p, prefix)) {
		double tps, *n;

		if (!rate(p, userdata, &tps))
			continue;
		n = realloc(ret->intervals, (ret->n_intervals + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		ret->intervals = n;
		ret->intervals[ret->n_intervals++] = tps;
	}
	return 0;
}

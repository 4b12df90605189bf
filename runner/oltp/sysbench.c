/* The cross-check: the same step run by the real sysbench 1.0.20
 * (oltp_read_only), with its report parsed into the same record. */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "oltp/oltp.h"
#include "common/spawn.h"
#include "common/interrupt.h"
#include "common/util.h"

/* The number after `key` on the first line that contains it. */
static bool find_number(const char *text, const char *key, double *ret)
{
	const char *p = strstr(text, key);
	char *end;

	if (!p)
		return false;
	p += strlen(key);
	*ret = strtod(p, &end);
	return end != p;
}

/* "    transactions:   5676   (2837.04 per sec.)": the count and the rate. */
static bool find_count_rate(const char *text, const char *key, uint64_t *ret_count, double *ret_rate)
{
	const char *p = strstr(text, key);
	char *end;

	if (!p)
		return false;
	p += strlen(key);
	*ret_count = strtoull(p, &end, 10);
	if (end == p)
		return false;
	p = strchr(end, '(');
	*ret_rate = p ? strtod(p + 1, NULL) : NAN;
	return true;
}

/* The histogram rows ("   0.537 |****   12") give p50 and p99, which the
 * summary does not print. */
static void parse_histogram(const char *text, struct step_result *ret)
{
	const char *start = strstr(text, "Latency histogram");
	double values[4096];
	uint64_t counts[4096], total = 0, cum = 0;
	size_t n = 0;

	if (!start)
		return;
	for (const char *line = strchr(start, '\n'); line && n < ELEMENTSOF(values); line = strchr(line, '\n')) {
		double v;
		unsigned long long c;

		line++;
		if (sscanf(line, " %lf |%*[*] %llu", &v, &c) != 2 && sscanf(line, " %lf | %llu", &v, &c) != 2) {
			if (strncmp(line, "SQL statistics", 14) == 0 || !*line)
				break;
			continue;
		}
		values[n] = v;
		counts[n++] = c;
		total += c;
	}
	ret->lat_p50_ms = ret->lat_p99_ms = -1;
	for (size_t i = 0; i < n; i++) {
		cum += counts[i];
		if (ret->lat_p50_ms < 0 && cum * 100 >= total * 50)
			ret->lat_p50_ms = values[i];
		if (ret->lat_p99_ms < 0 && cum * 100 >= total * 99)
			ret->lat_p99_ms = values[i];
	}
}

static int parse_intervals(const char *text, struct step_result *ret)
{
	for (const char *p = strstr(text, "[ "); p; p = strstr(p + 1, "\n[ ")) {
		double tps, *n;
		unsigned s;

		if (sscanf(p + (*p == '\n'), "[ %us ] thds: %*u tps: %lf", &s, &tps) != 2)
			continue;
		n = realloc(ret->intervals, (ret->n_intervals + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		ret->intervals = n;
		ret->intervals[ret->n_intervals++] = tps;
	}
	return 0;
}

int sysbench_parse_report(const char *text, struct step_result *ret)
{
	uint64_t ignored = 0, reconnects = 0;
	double rate, total_time;

	snprintf(ret->driver, sizeof(ret->driver), "%s", word_name(oltp_driver_words, OLTP_DRIVER_SYSBENCH));
	if (!find_count_rate(text, "transactions:", &ret->transactions, &ret->tps) ||
	    !find_count_rate(text, "queries:", &ret->queries, &ret->qps))
		return -EBADMSG;
	if (find_count_rate(text, "ignored errors:", &ignored, &rate))
		ret->errors[OLTP_ERR_IGNORABLE] = ignored;
	if (find_count_rate(text, "reconnects:", &reconnects, &rate))
		ret->reconnects = reconnects;
	if (find_number(text, "total time:", &total_time))
		ret->duration_s = ret->tps > 0 ? (double)ret->transactions / ret->tps : total_time;
	ret->lat_avg_ms = ret->lat_max_ms = ret->lat_p95_ms = -1;
	find_number(text, "avg:", &ret->lat_avg_ms);
	find_number(text, "max:", &ret->lat_max_ms);
	find_number(text, "th percentile:", &ret->lat_p95_ms);
	parse_histogram(text, ret);
	return parse_intervals(text, ret);
}

static char *opt(const char *fmt, ...) _printf_(1, 2);
static char *opt(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static void free_argv(char ***argv)
{
	for (char **a = *argv; a && *a; a++)
		free(*a);
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

struct child {
	const struct oltp_options *o;
	int out;
};

/* In the child: the client CPUs, and stdout and stderr into the pipe. */
static int child_setup(void *userdata)
{
	const struct child *c = userdata;
	const struct oltp_options *o = c->o;

	/* sysbench cannot pin per thread: every thread gets the whole list. */
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

/* Runs sysbench once for time_s seconds (or events); its output in *ret_out,
 * and with samples, the telemetry of the run in samples->samples. */
static int run_sysbench(const struct oltp_options *o, unsigned threads, uint64_t time_s, uint64_t events,
			struct step_result *samples, char **ret_out, int *ret_status)
{
	struct oltp_telemetry *tel = NULL;
	_cleanup_(free_argv) char **argv_owned = NULL;
	char *argv[32] = { (char *)o->sysbench_path, (char *)"oltp_read_only" };
	size_t n = 2, len = 0;
	int pipefd[2], r;
	pid_t pid;

	argv[n++] = opt("--db-driver=mysql");
	argv[n++] = opt("--mysql-socket=%s", o->socket);
	argv[n++] = opt("--mysql-user=%s", o->user);
	argv[n++] = opt("--mysql-db=%s", oltp_db(o));
	argv[n++] = opt("--tables=%u", o->tables);
	argv[n++] = opt("--table-size=%u", o->table_size);
	argv[n++] = opt("--range-size=%u", o->range_size);
	argv[n++] = opt("--rand-type=%s", sbrand_type_to_string(o->rand.type));
	argv[n++] = opt("--rand-spec-iter=%u", o->rand.spec_iter);
	argv[n++] = opt("--rand-spec-pct=%u", o->rand.spec_pct);
	argv[n++] = opt("--rand-spec-res=%u", o->rand.spec_res);
	argv[n++] = opt("--rand-pareto-h=%g", o->rand.pareto_h);
	argv[n++] = opt("--threads=%u", threads);
	argv[n++] = opt("--time=%" PRIu64, time_s);
	argv[n++] = opt("--events=%" PRIu64, events);
	argv[n++] = opt("--report-interval=1");
	argv[n++] = opt("--histogram=on");
	argv[n++] = opt("--mysql-ignore-errors=1213,1020,1205");
	argv[n++] = opt("run");
	argv[n] = NULL;
	argv_owned = &argv[2];
	for (size_t i = 2; i < n; i++)
		if (!argv[i])
			return -ENOMEM;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	r = spawn(argv, child_setup, &(struct child){ .o = o, .out = pipefd[1] }, &pid);
	if (r < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return r;
	}
	close(pipefd[1]);
	if (samples && oltp_telemetry_new(o, &tel) >= 0)
		oltp_telemetry_set_client(tel, (int)pid);
	r = read_all(pipefd[0], now_ns() + (time_s + 60) * NSEC_PER_SEC, tel, samples, ret_out, &len);
	oltp_telemetry_free(tel);
	close(pipefd[0]);
	if (r < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, ret_status, 0) < 0 && errno == EINTR)
		;
	return r;
}

int sysbench_run_step(const struct oltp_options *o, unsigned threads, struct step_result *ret)
{
	uint64_t time_s = (o->duration_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	_cleanup_free_ char *out = NULL;
	int status = 0, r = 0;

	*ret = (struct step_result){ .threads = threads };
	snprintf(ret->driver, sizeof(ret->driver), "%s", word_name(oltp_driver_words, OLTP_DRIVER_SYSBENCH));
	/* sysbench 1.0.20 has no --warmup-time: the warm-up is a run of its own
	 * whose report is dropped. */
	if (o->warmup_ns) {
		r = run_sysbench(o, threads, (o->warmup_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC, 0, NULL, &out, &status);
		free(out);
		out = NULL;
	}
	if (r >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		r = run_sysbench(o, threads, time_s, o->events, ret, &out, &status);
	ret->failed = true;
	if (r == -EINTR)
		snprintf(ret->reason, sizeof(ret->reason), "interrupted by a signal");
	else if (r == -ETIMEDOUT)
		snprintf(ret->reason, sizeof(ret->reason), "sysbench did not finish in time and was killed");
	else if (r < 0)
		return r;
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(ret->reason, sizeof(ret->reason), "cannot run %s", o->sysbench_path);
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		const char *fatal = out ? strstr(out, "FATAL:") : NULL;
		int cut = fatal ? (int)strcspn(fatal, "\n") : 0;

		snprintf(ret->reason, sizeof(ret->reason), "sysbench exited with status %d%s%.*s",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), fatal ? ": " : "", cut,
			 fatal ? fatal : "");
	} else if (sysbench_parse_report(out, ret) < 0)
		snprintf(ret->reason, sizeof(ret->reason), "cannot parse sysbench's report");
	else
		ret->failed = false;
	return 0;
}

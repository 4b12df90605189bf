/* The cross-check: the same step run by the real pgbench (-M prepared, the
 * same script, clients and threads), into the same record, measured as
 * the native driver measures: from its per-transaction log (-l), the
 * clock starting once every client is connected and the warm-up's
 * transactions left out, its summary for the errors and the connection
 * time (an event-count step keeps the summary's counts and the -P 1
 * progress lines for the intervals). */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "oltp/histogram.h"
#include "oltp/pg.h"
#include "oltp/script.h"
#include "oltp/tool.h"
#include "common/util.h"

/* A -P 1 line after the connections were made (userdata: when that was,
 * in s): pgbench's -T counts from before it connects, its rates from
 * after. */
static bool progress_rate(const char *line, const void *userdata, double *ret_tps)
{
	const double *connect_s = userdata;
	double t;

	return sscanf(line, "progress: %lf s, %lf tps", &t, ret_tps) == 2 && !(t <= *connect_s);
}

int pgbench_parse_report(const char *text, struct step_result *ret)
{
	double connect_ms = 0;

	(void)text_copy(ret->driver, sizeof(ret->driver), word_name(oltp_driver_words, OLTP_DRIVER_PGBENCH));
	if (!tool_report_count(text, "number of transactions actually processed:", &ret->transactions) ||
	    !tool_report_number(text, "\ntps = ", &ret->tps))
		return -EBADMSG;
	/* pgbench 15 goes on after serialization failures and deadlocks and
	 * counts them, as the native driver's ignorable class. */
	tool_report_count(text, "number of failed transactions:", &ret->errors[OLTP_ERR_IGNORABLE]);
	ret->duration_s = ret->tps > 0 ? (double)ret->transactions / ret->tps : 0;
	ret->lat_avg_ms = -1;
	tool_report_number(text, "latency average = ", &ret->lat_avg_ms);
	tool_report_number(text, "initial connection time = ", &connect_ms);
	ret->connect_s = connect_ms / 1000;
	return tool_report_intervals(text, "progress: ", progress_rate, &ret->connect_s, ret);
}

/* A transaction from pgbench's log, in microseconds of the epoch. */
struct logged_txn {
	unsigned client;
	uint64_t start_us, end_us; /* with --rate its start is the scheduled one */
	uint64_t lag_us;	   /* with --rate: from its scheduled start to its actual one */
	bool skipped;		   /* with --latency-limit: never sent, already late (start_us == end_us: when) */
};

struct txn_log {
	struct logged_txn *v;
	size_t n, cap;
	unsigned n_clients; /* the step's: client ids are below it */
	uint64_t last_end_us;
};

static void txn_log_done(struct txn_log *log)
{
	free(log->v);
	*log = (struct txn_log){ .n_clients = log->n_clients };
}

/* One transaction log line: "client_id transaction_no time script_no
 * time_epoch time_us [schedule_lag]", time being the latency in
 * microseconds ("failed" and the like for a transaction that failed; with
 * --rate from its scheduled start, which it was schedule_lag behind) and
 * time_epoch time_us when it ended; with --latency-limit "skipped" for
 * time, and when it was. */
static int add_log_file(const char *path, struct txn_log *log)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long us, sec, usec, lag = 0;
		unsigned client;

		bool skipped = sscanf(line, "%u %*d skipped %*d %llu %llu", &client, &sec, &usec) == 3;

		if (skipped)
			us = 0;
		else if (sscanf(line, "%u %*d %llu %*d %llu %llu %llu", &client, &us, &sec, &usec, &lag) < 4)
			continue;
		if (sec * USEC_PER_SEC + usec < us || client >= log->n_clients || lag > us)
			continue;
		if (log->n == log->cap) {
			size_t cap = MAX(log->cap * 2, (size_t)4096);
			struct logged_txn *v = realloc(log->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			log->v = v;
			log->cap = cap;
		}
		log->v[log->n] = (struct logged_txn){ .client = client, .end_us = sec * USEC_PER_SEC + usec,
						      .start_us = sec * USEC_PER_SEC + usec - us, .lag_us = lag,
						      .skipped = skipped };
		log->last_end_us = MAX(log->last_end_us, log->v[log->n].end_us);
		log->n++;
	}
	return 0;
}

/* Every thread's log (PREFIX.PID, PREFIX.PID.N) in dir. */
static int read_logs(const char *dir, struct txn_log *log)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	while (r >= 0 && d && (e = readdir(d))) {
		_cleanup_free_ char *path = NULL;

		if (strncmp(e->d_name, "txn.", 4) == 0 && xasprintf(&path, "%s/%s", dir, e->d_name) >= 0)
			r = add_log_file(path, log);
	}
	if (d)
		closedir(d);
	return r;
}

/* When every client had completed its first transaction: pgbench -M
 * prepared prepares its statements then, where the native driver's clients
 * do it before the clock starts.  With hundreds of fresh backends that is
 * seconds of catalog loading on a small machine, with nothing completed. */
static int clients_ready_us(const struct txn_log *log, uint64_t *ret)
{
	_cleanup_free_ uint64_t *first = calloc(MAX(log->n_clients, 1u), sizeof(*first));
	uint64_t ready = 0;

	if (!first)
		return -ENOMEM;
	for (size_t i = 0; i < log->n; i++) {
		uint64_t *f = &first[log->v[i].client];

		if (log->v[i].skipped)
			continue;
		*f = *f ? MIN(*f, log->v[i].end_us) : log->v[i].end_us;
	}
	/* A client that completed none is not ready when the run ends. */
	for (unsigned c = 0; c < log->n_clients; c++)
		ready = MAX(ready, first[c] ? first[c] : log->last_end_us);
	*ret = ready;
	return 0;
}

/* An open loop's figures over the measured window, gathered in
 * measure_log()'s one pass: its service time and lag, and with a latency
 * limit the transactions above it and those skipped. */
struct lag_pass {
	struct histogram *service; /* NULL: a closed loop */
	uint64_t sum_us, max_us;
};

static void lag_add(struct lag_pass *p, struct step_open_loop *l, const struct logged_txn *t)
{
	l->skipped += t->skipped;
	if (t->skipped)
		return;
	l->late += l->latency_limit_ms > 0 && (double)(t->end_us - t->start_us) > l->latency_limit_ms * 1e3;
	histogram_add(p->service, (t->end_us - t->start_us - t->lag_us) * NSEC_PER_USEC);
	p->sum_us += t->lag_us;
	p->max_us = MAX(p->max_us, t->lag_us);
}

/* The measured window [*from, *to) of duration_us once every client is
 * ready, with ret's per-second intervals made for it; 1: the log ends
 * before it (w->short_s says by how much). */
static int open_window(const struct txn_log *log, struct pgbench_window *w, struct step_result *ret, uint64_t *from,
		       uint64_t *to)
{
	size_t n_seconds = (w->duration_us + USEC_PER_SEC - 1) / USEC_PER_SEC;
	double *iv;
	int r = clients_ready_us(log, from);

	if (r < 0)
		return r;
	*from += w->warmup_us;
	*to = *from + w->duration_us;
	w->from_us = *from;
	if (log->n == 0 || *to > log->last_end_us) {
		w->short_s = log->n ? (double)(*to - log->last_end_us) / USEC_PER_SEC : 0;
		return 1;
	}
	iv = calloc(n_seconds, sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	free(ret->intervals);
	ret->intervals = iv;
	ret->n_intervals = n_seconds;
	ret->transactions = 0;
	return 0;
}

/* The step as the native driver measures it, from pgbench's log: the clock
 * starts once every client is connected and has prepared (completed a
 * transaction), the warm-up's transactions are not counted, and the
 * measured phase is duration_us long: its transactions, their percentiles
 * and one interval per second (see pg.h). */
static int measure_log(const struct txn_log *log, struct pgbench_window *w, struct step_result *ret)
{
	uint64_t duration_us = w->duration_us, from = 0, to = UINT64_MAX;
	_cleanup_free_ struct histogram *h = malloc(sizeof(*h));
	_cleanup_free_ struct histogram *service = ret->open_loop.rate ? malloc(sizeof(*service)) : NULL;
	struct lag_pass lag = { .service = service };
	int r;

	if (!h || (ret->open_loop.rate && !service))
		return -ENOMEM;
	histogram_init(h);
	if (service)
		histogram_init(service);
	if (duration_us && (r = open_window(log, w, ret, &from, &to)) != 0)
		return r;
	for (size_t i = 0; i < log->n; i++) {
		const struct logged_txn *t = &log->v[i];

		if (t->start_us < from || t->end_us > to)
			continue;
		if (service)
			lag_add(&lag, &ret->open_loop, t);
		if (t->skipped)
			continue;
		histogram_add(h, (t->end_us - t->start_us) * NSEC_PER_USEC);
		if (duration_us) {
			ret->intervals[MIN((t->end_us - from) / USEC_PER_SEC, ret->n_intervals - 1)]++;
			ret->transactions++;
		}
	}
	if (duration_us) {
		ret->duration_s = (double)duration_us / USEC_PER_SEC;
		ret->tps = (double)ret->transactions / ret->duration_s;
		/* A last second shorter than one counts at its rate. */
		if (duration_us % USEC_PER_SEC)
			ret->intervals[ret->n_intervals - 1] /= (double)(duration_us % USEC_PER_SEC) / USEC_PER_SEC;
		ret->lat_avg_ms = h->count ? histogram_mean(h) / 1e6 : -1;
	}
	if (h->count == 0)
		return 0;
	if (service)
		step_open_loop_service(&ret->open_loop, service, lag.sum_us * NSEC_PER_USEC, lag.max_us * NSEC_PER_USEC);
	ret->lat_p50_ms = (double)histogram_percentile(h, 50) / 1e6;
	ret->lat_p95_ms = (double)histogram_percentile(h, 95) / 1e6;
	ret->lat_p99_ms = (double)histogram_percentile(h, 99) / 1e6;
	ret->lat_max_ms = (double)histogram_max(h) / 1e6;
	return 0;
}

int pgbench_measure_logs(const char *dir, unsigned clients, struct pgbench_window *w, struct step_result *ret)
{
	_cleanup_(txn_log_done) struct txn_log log = { .n_clients = clients };
	int r = read_logs(dir, &log);

	return r < 0 ? r : measure_log(&log, w, ret);
}

/* pgbench's log is timed by the wall clock. */
static uint64_t realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / NSEC_PER_USEC;
}

/* The telemetry of the measured part only, its clock starting with it,
 * as the native driver's: pgbench's run also connects, warms up and goes
 * on to the end of its -T.  Samples are timed from pgbench's start. */
static void keep_measured_samples(struct step_result *r, double from_s, double to_s)
{
	size_t kept = 0;

	for (size_t i = 0; i < r->n_samples; i++) {
		struct oltp_telemetry_sample *s = &r->samples[i];

		if (s->t_s < from_s || s->t_s > to_s + 0.5) {
			oltp_telemetry_sample_done(s);
			continue;
		}
		s->t_s -= from_s;
		r->samples[kept++] = *s;
	}
	r->n_samples = kept;
}

/* pgbench's -T includes making the connections, which takes seconds for
 * hundreds of them (a backend forked for each, more on a loaded machine):
 * the first run is given this on top of the warm-up and the measured
 * time, and a run that spent more than that connecting is run again with
 * the time it took (twice at most). */
static uint64_t pgbench_connect_allowance(unsigned clients)
{
	return 1 + clients / 50;
}

/* Runs pgbench once as run says (its clients, -T time or events in all,
 * samples), each transaction logged in log_dir; its output and status
 * into run. */
static int run_pgbench(const struct oltp_options *o, const char *log_dir, struct tool_step *run)
{
	unsigned clients = run->size;
	uint64_t time_s = run->time_s, events = run->events;
	_cleanup_(tool_argv_done) struct tool_argv a = {};
	_cleanup_free_ char *host = NULL, *port = NULL;
	int r;

	r = pg_socket_split(o->socket, &host, &port);
	if (r < 0)
		return r;
	tool_arg(&a, "%s", tool_pgbench(o));
	/* slicebench's prepare did what pgbench's pre-run vacuum would. */
	tool_arg(&a, "--no-vacuum");
	tool_arg(&a, "--host=%s", host);
	tool_arg(&a, "--port=%s", port);
	tool_arg(&a, "--username=%s", o->user);
	tool_arg(&a, "--protocol=prepared");
	if (oltp_workload_def(o->workload)->user_script)
		(void)oltp_script_args(o, &a);
	else
		tool_arg(&a, "--builtin=%s", oltp_workload_name(o->workload));
	tool_arg(&a, "--client=%u", clients);
	tool_arg(&a, "--jobs=%u", MAX(1u, MIN(o->client_threads ? o->client_threads : 1, clients)));
	if (events)
		tool_arg(&a, "--transactions=%" PRIu64, (events + clients - 1) / clients);
	else
		tool_arg(&a, "--time=%" PRIu64, time_s);
	if (o->rate)
		tool_arg(&a, "--rate=%u", o->rate);
	if (o->latency_limit_ns)
		tool_arg(&a, "--latency-limit=%.3f", (double)o->latency_limit_ns / 1e6);
	tool_arg(&a, "--progress=1");
	tool_arg(&a, "--log");
	tool_arg(&a, "--log-prefix=%s/txn", log_dir);
	tool_arg(&a, "%s", oltp_db(o));
	return tool_run(o, &a, time_s + 60 + clients / 10, run->samples, &run->out, &run->status);
}

static void remove_logs(char **dir)
{
	if (*dir)
		(void)remove_tree(*dir);
	free(*dir);
}

/* A private directory for one pgbench run's transaction logs. */
static int make_log_dir(char **ret)
{
	char *dir = strdup("/tmp/slicebench-pgbench.XXXXXX");

	if (!dir)
		return -ENOMEM;
	if (!mkdtemp(dir)) {
		free(dir);
		return -errno;
	}
	*ret = dir;
	return 0;
}

static int warm_up(const struct oltp_options *o, unsigned clients, uint64_t time_s)
{
	_cleanup_(remove_logs) char *logs = NULL;
	struct tool_step run = { .size = clients, .time_s = time_s };
	int r = make_log_dir(&logs);

	if (r >= 0)
		r = run_pgbench(o, logs, &run);
	free(run.out);
	return r;
}

/* Runs pgbench for the step into ret: 1 if it gave no report (ret says
 * why), 0 with the report parsed and *ret_connect_s the time it took to
 * connect, <0 on an error of ours. */
static int run_and_parse(const struct oltp_options *o, unsigned clients, uint64_t time_s, const char *logs,
			 struct step_result *ret, double *ret_connect_s)
{
	struct tool_step run = { .size = clients, .time_s = time_s, .events = o->events, .samples = ret };
	_cleanup_free_ char *out = NULL;
	uint64_t processed;
	int r;

	*ret_connect_s = 0;
	r = run_pgbench(o, logs, &run);
	out = run.out;
	r = tool_failed(tool_pgbench(o), r, run.status, out, "pgbench: error:", ret);
	if (r != 0)
		return r;
	r = pgbench_parse_report(out, ret);
	/* pgbench 15 prints no rates (nor the connection time) for a run that
	 * processed nothing: its -T ran out while it connected. */
	if (r == -EBADMSG && tool_report_count(out, "number of transactions actually processed:", &processed) &&
	    processed == 0)
		return 0;
	if (r == -EBADMSG) {
		ret->failed = true;
		snprintf(ret->reason, sizeof(ret->reason), "cannot parse pgbench's report");
		return 1;
	}
	*ret_connect_s = ret->connect_s;
	return r;
}

/* The open loop pgbench runs: its rate and latency limit. */
static void open_loop_of(const struct oltp_options *o, struct step_result *ret)
{
	ret->open_loop.rate = o->rate;
	ret->open_loop.latency_limit_ms = (double)o->latency_limit_ns / 1e6;
}

int pgbench_tool_step(const struct oltp_options *o, unsigned clients, struct step_result *ret)
{
	uint64_t time_s = (o->duration_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	uint64_t warmup_s = (o->warmup_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	uint64_t given = pgbench_connect_allowance(clients) + warmup_s + time_s;
	_cleanup_(remove_logs) char *logs = NULL;
	struct pgbench_window w = {};
	double connect_s = 0;
	uint64_t launched_us = 0;
	int r;

	step_result_start(ret, OLTP_DRIVER_PGBENCH, clients);
	open_loop_of(o, ret);
	/* An event-count step is pgbench -t: its warm-up, a run of its own
	 * (one that fails, fails again in the step, which says why). */
	if (o->events && o->warmup_ns)
		(void)warm_up(o, clients, warmup_s);
	for (unsigned attempt = 0;; attempt++) {
		r = make_log_dir(&logs);
		if (r < 0)
			return r;
		launched_us = realtime_us();
		r = run_and_parse(o, clients, given, logs, ret, &connect_s);
		if (r != 0)
			return r < 0 ? r : 0;
		w = (struct pgbench_window){ .warmup_us = o->events ? 0 : o->warmup_ns / NSEC_PER_USEC,
					     .duration_us = o->events ? 0 : o->duration_ns / NSEC_PER_USEC };
		r = pgbench_measure_logs(logs, clients, &w, ret);
		if (r <= 0 || attempt == 2)
			break;
		/* Connecting and the clients' first transactions took more of
		 * -T than allowed for: again, with the time they took (all of
		 * it and more if nothing was logged). */
		given += (uint64_t)ceil(w.short_s > 0 ? w.short_s * 1.5 : MAX(connect_s * 1.5, (double)given)) + 1;
		remove_logs(&logs);
		logs = NULL;
		step_result_done(ret);
		step_result_start(ret, OLTP_DRIVER_PGBENCH, clients);
		open_loop_of(o, ret);
	}
	if (r < 0)
		return r;
	if (r > 0) {
		ret->failed = true;
		snprintf(ret->reason, sizeof(ret->reason),
			 "pgbench's -T %" PRIu64 " ended before the measured part did, three times: connecting %u clients "
			 "and their first transactions (pgbench prepares then) took longer",
			 given, clients);
		return 0;
	}
	if (!o->events)
		keep_measured_samples(ret, (double)(w.from_us - launched_us) / USEC_PER_SEC,
				      (double)(w.from_us + w.duration_us - launched_us) / USEC_PER_SEC);
	ret->queries = ret->transactions * pgbench_statements(o->workload);
	ret->qps = ret->tps * pgbench_statements(o->workload);
	return 0;
}

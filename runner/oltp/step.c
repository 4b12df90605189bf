/* One measured step of the native driver, after sysbench's core: workers
 * start behind a gate, count into their own padded counters and histogram,
 * and the calling thread reports on absolute deadlines until the step ends
 * or a worker fails. */
#include <errmsg.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "oltp/histogram.h"
#include "oltp/oltp.h"
#include "common/interrupt.h"
#include "common/util.h"

enum stmt_kind { STMT_POINT, STMT_SIMPLE, STMT_SUM, STMT_ORDER, STMT_DISTINCT, _STMT_PER_TABLE };

/* sysbench's oltp_common stmt_defs, character for character, so that the
 * server parses and plans the same statements. */
static const char *const table_stmt_sql[_STMT_PER_TABLE] = {
	[STMT_POINT] = "SELECT c FROM sbtest%u WHERE id=?",
	[STMT_SIMPLE] = "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?",
	[STMT_SUM] = "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?",
	[STMT_ORDER] = "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
	[STMT_DISTINCT] = "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
};

/* oltp_read_only's defaults: --point-selects=10 and one of each range. */
#define POINT_SELECTS 10
#define QUERIES_PER_TXN (2 + POINT_SELECTS + 4)


struct step {
	const struct oltp_options *o;
	uint64_t measure_ns, end_ns; /* set before the gate opens */
	atomic_bool stop;
	atomic_uint_fast64_t events_done;
	pthread_mutex_t lock; /* the gate, and the first failure */
	pthread_cond_t cond;
	unsigned n_ready;
	bool go;
	char reason[256];
};

struct worker {
	struct step *step;
	unsigned id;
	pthread_t thread;
	MYSQL *conn;
	MYSQL_STMT *begin, *commit;
	MYSQL_STMT **table_stmts; /* [tables * _STMT_PER_TABLE] */
	MYSQL_BIND params[2];
	int param_from, param_to;
	struct sbrand rand;
	bool failed;
	char error[200]; /* why worker_connect() failed */
	uint64_t last_counted_ns;
	/* written by this worker only; read after the join */
	uint64_t errors[_OLTP_ERR_MAX], reconnects, queries;
	uint64_t *per_second; /* counted transactions by second of the measured phase */
	size_t n_seconds;
	/* also read by the reporter while the step runs */
	_Alignas(64) atomic_uint_fast64_t transactions;
	struct histogram latency;
};

static void step_fail(struct step *st, const char *fmt, ...) _printf_(2, 3);
static void step_fail(struct step *st, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&st->lock);
	if (!st->reason[0]) {
		va_start(ap, fmt);
		vsnprintf(st->reason, sizeof(st->reason), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&st->lock);
	atomic_store(&st->stop, true);
}

static void worker_close(struct worker *w)
{
	unsigned n = w->step->o->tables * _STMT_PER_TABLE;

	for (unsigned i = 0; w->table_stmts && i < n; i++)
		if (w->table_stmts[i])
			mysql_stmt_close(w->table_stmts[i]);
	if (w->begin)
		mysql_stmt_close(w->begin);
	if (w->commit)
		mysql_stmt_close(w->commit);
	memset(w->table_stmts, 0, n * sizeof(*w->table_stmts));
	w->begin = w->commit = NULL;
	if (w->conn)
		mysql_close(w->conn);
	w->conn = NULL;
}

static MYSQL_STMT *prepare_one(struct worker *w, const char *sql, unsigned n_params)
{
	MYSQL_STMT *s = mysql_stmt_init(w->conn);

	if (!s)
		return NULL;
	if (mysql_stmt_prepare(s, sql, strlen(sql)) != 0 ||
	    (n_params > 0 && mysql_stmt_bind_param(s, w->params) != 0)) {
		snprintf(w->error, sizeof(w->error), "cannot prepare \"%s\": %s (%u)", sql, mysql_stmt_error(s),
			 mysql_stmt_errno(s));
		mysql_stmt_close(s);
		return NULL;
	}
	return s;
}

/* Connects and prepares every statement for every table, as sysbench's
 * prepare_statements() does for each connection.  On failure w->error says why. */
static int worker_connect(struct worker *w)
{
	const struct oltp_options *o = w->step->o;
	_cleanup_free_ char *msg = NULL;
	char sql[128];
	int r;

	r = oltp_connect(o, o->db, &w->conn, &msg);
	if (r < 0) {
		snprintf(w->error, sizeof(w->error), "%s", strempty(msg));
		return r;
	}
	w->begin = prepare_one(w, "BEGIN", 0);
	w->commit = prepare_one(w, "COMMIT", 0);
	if (!w->begin || !w->commit)
		return -EIO;
	for (unsigned t = 0; t < o->tables; t++)
		for (unsigned k = 0; k < _STMT_PER_TABLE; k++) {
			snprintf(sql, sizeof(sql), table_stmt_sql[k], t + 1);
			w->table_stmts[t * _STMT_PER_TABLE + k] = prepare_one(w, sql, k == STMT_POINT ? 1 : 2);
			if (!w->table_stmts[t * _STMT_PER_TABLE + k])
				return -EIO;
		}
	return 0;
}

/* Executes and reads every row: the client does what sysbench's does with
 * a result set, without copying the columns out. */
static int execute(MYSQL_STMT *s, unsigned *ret_errno)
{
	int r;

	if (mysql_stmt_execute(s) != 0)
		goto fail;
	if (mysql_stmt_field_count(s) > 0) {
		while ((r = mysql_stmt_fetch(s)) == 0 || r == MYSQL_DATA_TRUNCATED)
			;
		if (r != MYSQL_NO_DATA)
			goto fail;
	}
	return 0;
fail:
	*ret_errno = mysql_stmt_errno(s);
	return -EIO;
}

/* sysbench's event(): the table is drawn afresh for the point-select block
 * and for each range kind. */
static int run_transaction(struct worker *w, unsigned *ret_errno, uint64_t *ret_queries)
{
	const struct oltp_options *o = w->step->o;
	MYSQL_STMT **stmts;
	uint64_t q = 0;
	int r;

	r = execute(w->begin, ret_errno);
	if (r < 0)
		goto out;
	q++;
	stmts = w->table_stmts + (sbrand_uniform(&w->rand, 1, o->tables) - 1) * _STMT_PER_TABLE;
	for (unsigned i = 0; i < POINT_SELECTS; i++) {
		w->param_from = (int)sbrand_default(&w->rand, 1, o->table_size);
		r = execute(stmts[STMT_POINT], ret_errno);
		if (r < 0)
			goto out;
		q++;
	}
	for (unsigned k = STMT_SIMPLE; k <= STMT_DISTINCT; k++) {
		stmts = w->table_stmts + (sbrand_uniform(&w->rand, 1, o->tables) - 1) * _STMT_PER_TABLE;
		w->param_from = (int)sbrand_default(&w->rand, 1, o->table_size);
		w->param_to = w->param_from + (int)o->range_size - 1;
		r = execute(stmts[k], ret_errno);
		if (r < 0)
			goto out;
		q++;
	}
	r = execute(w->commit, ret_errno);
	if (r == 0)
		q++;
out:
	*ret_queries = q;
	return r;
}

static int worker_pin(struct worker *w)
{
	const struct oltp_options *o = w->step->o;
	cpu_set_t set;

	if (o->pin == OLTP_PIN_INHERIT || o->n_client_cpus == 0)
		return 0;
	CPU_ZERO(&set);
	if (o->pin == OLTP_PIN_ROUND_ROBIN)
		CPU_SET(o->client_cpus[w->id % o->n_client_cpus], &set);
	else
		for (unsigned i = 0; i < o->n_client_cpus; i++)
			CPU_SET(o->client_cpus[i], &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static int worker_count(struct worker *w, uint64_t end_ns)
{
	size_t slot = (end_ns - w->step->measure_ns) / NSEC_PER_SEC;

	if (slot >= w->n_seconds) {
		size_t n = MAX(slot + 1, w->n_seconds * 2);
		uint64_t *p = realloc(w->per_second, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + w->n_seconds, 0, (n - w->n_seconds) * sizeof(*p));
		w->per_second = p;
		w->n_seconds = n;
	}
	w->per_second[slot]++;
	return 0;
}

/* Lost connections are retried as sysbench's before_restart_event does;
 * other errors outside the ignorable list end the step. */
static bool worker_recover(struct worker *w, unsigned err)
{
	const struct oltp_options *o = w->step->o;
	enum oltp_err_class class = oltp_classify_error(err);
	char msg[160];

	w->errors[class]++;
	if (class == OLTP_ERR_IGNORABLE)
		return true;
	snprintf(msg, sizeof(msg), "%s (%u)", w->conn ? mysql_error(w->conn) : "", err);
	if (class == OLTP_ERR_RECONNECT)
		for (unsigned attempt = 0; attempt < o->max_reconnects && !atomic_load(&w->step->stop); attempt++) {
			worker_close(w);
			if (worker_connect(w) == 0) {
				w->reconnects++;
				return true;
			}
			worker_close(w);
			nanosleep(&(struct timespec){ .tv_nsec = 200 * 1000 * 1000 }, NULL);
		}
	if (class == OLTP_ERR_RECONNECT)
		step_fail(w->step, "thread %u: %s; reconnecting failed: %s", w->id, msg, w->error);
	else
		step_fail(w->step, "thread %u: %s", w->id, msg);
	return false;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct step *st = w->step;
	const struct oltp_options *o = st->o;
	int r;

	r = worker_pin(w);
	if (r < 0)
		step_fail(st, "thread %u: cannot pin to the client CPUs: %s", w->id, strerror(-r));
	else if ((r = worker_connect(w)) < 0)
		step_fail(st, "thread %u: %s", w->id, w->error);
	w->failed = r < 0;

	pthread_mutex_lock(&st->lock);
	st->n_ready++;
	pthread_cond_broadcast(&st->cond);
	while (!st->go)
		pthread_cond_wait(&st->cond, &st->lock);
	pthread_mutex_unlock(&st->lock);

	while (!w->failed && !atomic_load_explicit(&st->stop, memory_order_relaxed)) {
		uint64_t t0 = now_ns(), t1, queries;
		unsigned err = 0;

		if (t0 >= st->end_ns)
			break;
		r = run_transaction(w, &err, &queries);
		t1 = now_ns();
		if (r < 0) {
			if (!worker_recover(w, err))
				break;
			continue;
		}
		if (t0 < st->measure_ns || t1 > st->end_ns)
			continue;
		/* An event-count step counts exactly o->events transactions. */
		if (o->events) {
			uint64_t n = atomic_fetch_add(&st->events_done, 1);

			if (n >= o->events)
				break;
			if (n + 1 == o->events)
				atomic_store(&st->stop, true);
		}
		histogram_add(&w->latency, t1 - t0);
		w->last_counted_ns = t1;
		w->queries += queries;
		atomic_store_explicit(&w->transactions, atomic_load_explicit(&w->transactions, memory_order_relaxed) + 1,
				      memory_order_relaxed);
		if (worker_count(w, t1) < 0) {
			step_fail(st, "thread %u: out of memory", w->id);
			break;
		}
	}
	worker_close(w);
	return NULL;
}

static uint64_t sum_transactions(struct worker *ws, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += atomic_load_explicit(&ws[i].transactions, memory_order_relaxed);
	return sum;
}

/* Gone, or dead and not yet reaped (a zombie answers kill(pid, 0)); the
 * step does not reap it: the PID stays its starter's to account for. */
static bool server_gone(pid_t pid)
{
	_cleanup_free_ char *stat = NULL;
	char path[64];
	const char *p;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return read_file_str(path, &stat) >= 0 && (p = strrchr(stat, ')')) && p[1] == ' ' && p[2] == 'Z';
}

/* Sleeps to an absolute deadline, waking every 100 ms to notice a stop. */
static void sleep_until(struct step *st, uint64_t deadline)
{
	for (uint64_t now; !atomic_load(&st->stop) && !interrupt_signal && (now = now_ns()) < deadline;) {
		uint64_t t = MIN(deadline, now + 100 * NSEC_PER_MSEC);
		struct timespec ts = { .tv_sec = t / NSEC_PER_SEC, .tv_nsec = t % NSEC_PER_SEC };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* The calling thread's part: samples once a second on absolute deadlines
 * and watches the server, until the time is up or the step stops. */
static void report(struct step *st, struct worker *ws, unsigned threads, struct oltp_telemetry *tel,
		   struct step_result *ret)
{
	const struct oltp_options *o = st->o;
	uint64_t last = 0;

	sleep_until(st, st->measure_ns);
	if (interrupt_signal)
		step_fail(st, "interrupted by a signal");
	for (uint64_t k = 1; !atomic_load(&st->stop); k++) {
		uint64_t tick = st->measure_ns + k * NSEC_PER_SEC, txns;

		sleep_until(st, MIN(tick, st->end_ns));
		if (interrupt_signal)
			step_fail(st, "interrupted by a signal");
		if (atomic_load(&st->stop))
			break;
		if (tel && oltp_telemetry_append(tel, (double)(MIN(tick, st->end_ns) - st->measure_ns) / NSEC_PER_SEC, ret) < 0)
			step_fail(st, "out of memory");
		txns = sum_transactions(ws, threads);
		if (o->progress)
			fprintf(stderr, "[ %" PRIu64 "s ] thds: %u tps: %.2f\n", k, threads, (double)(txns - last));
		last = txns;
		if (o->server_pid > 0 && server_gone(o->server_pid))
			step_fail(st, "the server (PID %d) is gone", o->server_pid);
		if (tick >= st->end_ns)
			break;
	}
	atomic_store(&st->stop, true);
}

static int collect(struct step *st, struct worker *ws, unsigned threads, struct step_result *ret)
{
	_cleanup_free_ struct histogram *all = malloc(sizeof(*all));
	uint64_t last_end = st->measure_ns;
	size_t n_seconds = 0;

	if (!all)
		return -ENOMEM;
	histogram_init(all);
	for (unsigned i = 0; i < threads; i++) {
		histogram_merge(all, &ws[i].latency);
		ret->queries += ws[i].queries;
		ret->reconnects += ws[i].reconnects;
		for (unsigned c = 0; c < _OLTP_ERR_MAX; c++)
			ret->errors[c] += ws[i].errors[c];
		n_seconds = MAX(n_seconds, ws[i].n_seconds);
	}
	ret->transactions = all->count;
	/* An event-count step ends with its last transaction; a timed one at its deadline. */
	if (st->end_ns != UINT64_MAX)
		last_end = st->end_ns;
	else
		for (unsigned i = 0; i < threads; i++)
			last_end = MAX(last_end, ws[i].last_counted_ns);
	ret->duration_s = (double)(last_end - st->measure_ns) / NSEC_PER_SEC;
	n_seconds = MIN(n_seconds, (size_t)ceil(ret->duration_s));
	ret->intervals = calloc(MAX(n_seconds, 1), sizeof(double));
	if (!ret->intervals)
		return -ENOMEM;
	ret->n_intervals = n_seconds;
	for (size_t s = 0; s < n_seconds; s++) {
		double len = MIN(1.0, ret->duration_s - (double)s);

		for (unsigned i = 0; i < threads; i++)
			if (s < ws[i].n_seconds)
				ret->intervals[s] += (double)ws[i].per_second[s];
		ret->intervals[s] /= len > 0 ? len : 1.0;
	}
	if (ret->duration_s > 0) {
		ret->tps = (double)ret->transactions / ret->duration_s;
		ret->qps = (double)ret->queries / ret->duration_s;
	}
	if (all->count > 0) {
		ret->lat_avg_ms = histogram_mean(all) / 1e6;
		ret->lat_p50_ms = (double)histogram_percentile(all, 50) / 1e6;
		ret->lat_p95_ms = (double)histogram_percentile(all, 95) / 1e6;
		ret->lat_p99_ms = (double)histogram_percentile(all, 99) / 1e6;
		ret->lat_max_ms = (double)histogram_max(all) / 1e6;
	}
	return 0;
}

static void workers_free(struct worker *ws, unsigned n)
{
	for (unsigned i = 0; ws && i < n; i++) {
		free(ws[i].table_stmts);
		free(ws[i].per_second);
	}
	free(ws);
}

int oltp_run_step(const struct oltp_options *o, unsigned threads, struct step_result *ret)
{
	struct step st = { .o = o, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	struct oltp_telemetry *tel = NULL;
	struct worker *ws = NULL;
	unsigned started = 0;
	uint64_t seed;
	int r = 0;

	if (threads == 0 || o->tables == 0 || o->table_size == 0 || (!o->duration_ns && !o->events))
		return -EINVAL;
	*ret = (struct step_result){ .threads = threads, .lat_avg_ms = -1, .lat_p50_ms = -1, .lat_p95_ms = -1,
				     .lat_p99_ms = -1, .lat_max_ms = -1 };
	snprintf(ret->driver, sizeof(ret->driver), "%s", word_name(oltp_driver_words, OLTP_DRIVER_NATIVE));
	ws = calloc(threads, sizeof(*ws));
	if (!ws)
		return -ENOMEM;
	seed = o->seed ? o->seed : now_ns();
	for (unsigned i = 0; i < threads; i++) {
		struct worker *w = ws + i;

		w->step = &st;
		w->id = i;
		w->table_stmts = calloc(o->tables * _STMT_PER_TABLE, sizeof(*w->table_stmts));
		if (!w->table_stmts) {
			r = -ENOMEM;
			goto out;
		}
		w->params[0] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &w->param_from };
		w->params[1] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &w->param_to };
		sbrand_init(&w->rand, &o->rand, seed + i);
		histogram_init(&w->latency);
	}
	/* Telemetry is an extra: a step still runs where /proc cannot be read. */
	(void)oltp_telemetry_new(o, &tel);

	for (; started < threads; started++) {
		r = -pthread_create(&ws[started].thread, NULL, worker_main, ws + started);
		if (r < 0)
			break;
	}
	pthread_mutex_lock(&st.lock);
	while (st.n_ready < started)
		pthread_cond_wait(&st.cond, &st.lock);
	st.measure_ns = now_ns() + o->warmup_ns;
	st.end_ns = o->duration_ns ? st.measure_ns + o->duration_ns : UINT64_MAX;
	if (r < 0)
		atomic_store(&st.stop, true);
	st.go = true;
	pthread_cond_broadcast(&st.cond);
	pthread_mutex_unlock(&st.lock);

	if (r == 0)
		report(&st, ws, threads, tel, ret);
	for (unsigned i = 0; i < started; i++)
		pthread_join(ws[i].thread, NULL);
	if (r < 0)
		goto out;

	r = collect(&st, ws, threads, ret);
	if (r < 0)
		goto out;
	if (st.reason[0]) {
		ret->failed = true;
		snprintf(ret->reason, sizeof(ret->reason), "%s", st.reason);
	}
out:
	if (r < 0)
		step_result_done(ret);
	oltp_telemetry_free(tel);
	workers_free(ws, threads);
	return r;
}

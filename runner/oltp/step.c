/* One measured step of the native MySQL driver (oltp_read_only or
 * oltp_point_select, as the workload's row shapes an event): one thread
 * per connection, each in the step frame (oltp/frame.h) that runs the
 * gate, the counters and the reporter. */
#include <errmsg.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "oltp/frame.h"
#include "oltp/oltp.h"
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

struct worker {
	struct step_frame *frame;
	unsigned id;
	MYSQL *conn;
	MYSQL_STMT *begin, *commit;
	MYSQL_STMT **table_stmts; /* [tables * _STMT_PER_TABLE] */
	MYSQL_BIND params[2];
	int param_from, param_to;
	struct sbrand rand;
	char error[200]; /* why worker_connect() failed */
};

static void worker_close(struct worker *w)
{
	unsigned n = w->frame->o->tables * _STMT_PER_TABLE;

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
	const struct oltp_options *o = w->frame->o;
	_cleanup_free_ char *msg = NULL;
	char sql[128];
	int r;

	bool ranges = oltp_workload_def(o->workload)->ranges;

	r = oltp_connect(o, oltp_db(o), &w->conn, &msg);
	if (r < 0) {
		(void)text_copy(w->error, sizeof(w->error), strempty(msg));
		return r;
	}
	/* What the script prepares: oltp_point_select its point select alone. */
	if (ranges) {
		w->begin = prepare_one(w, "BEGIN", 0);
		w->commit = prepare_one(w, "COMMIT", 0);
		if (!w->begin || !w->commit)
			return -EIO;
	}
	for (unsigned t = 0; t < o->tables; t++)
		for (unsigned k = 0; k < (ranges ? _STMT_PER_TABLE : STMT_POINT + 1); k++) {
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
 * and for each range kind; oltp_point_select's is one point select, with
 * no transaction around it. */
static int run_transaction(struct worker *w, unsigned *ret_errno, uint64_t *ret_queries)
{
	const struct oltp_options *o = w->frame->o;
	const struct oltp_workload_def *def = oltp_workload_def(o->workload);
	MYSQL_STMT **stmts;
	uint64_t q = 0;
	int r = 0;

	if (def->ranges) {
		r = execute(w->begin, ret_errno);
		if (r < 0)
			goto out;
		q++;
	}
	stmts = w->table_stmts + (sbrand_uniform(&w->rand, 1, o->tables) - 1) * _STMT_PER_TABLE;
	for (unsigned i = 0; i < def->point_selects; i++) {
		w->param_from = (int)sbrand_default(&w->rand, 1, o->table_size);
		r = execute(stmts[STMT_POINT], ret_errno);
		if (r < 0)
			goto out;
		q++;
	}
	if (!def->ranges)
		goto out;
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

/* Lost connections are retried as sysbench's before_restart_event does;
 * other errors outside the ignorable list end the step. */
static bool worker_recover(struct worker *w, struct step_counters *c, unsigned err)
{
	const struct oltp_options *o = w->frame->o;
	enum oltp_err_class class = oltp_classify_error(err);
	char msg[160];

	c->errors[class]++;
	if (class == OLTP_ERR_IGNORABLE)
		return true;
	snprintf(msg, sizeof(msg), "%s (%u)", w->conn ? mysql_error(w->conn) : "", err);
	if (class == OLTP_ERR_RECONNECT)
		for (unsigned attempt = 0; attempt < o->max_reconnects && !step_frame_stopped(w->frame); attempt++) {
			worker_close(w);
			if (worker_connect(w) == 0) {
				c->reconnects++;
				return true;
			}
			worker_close(w);
			nanosleep(&(struct timespec){ .tv_nsec = 200 * 1000 * 1000 }, NULL);
		}
	if (class == OLTP_ERR_RECONNECT)
		step_fail_as(w->frame, OLTP_RULE_CONNECTION, "thread %u: %s; reconnecting failed: %s", w->id, msg, w->error);
	else
		step_fail(w->frame, "thread %u: %s", w->id, msg);
	return false;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct step_frame *f = w->frame;
	struct step_counters *c = &f->counters[w->id];
	bool failed;
	int r;

	r = step_frame_pin(f->o, w->id);
	if (r < 0)
		step_fail(f, "thread %u: cannot pin to the client CPUs: %s", w->id, strerror(-r));
	else if ((r = worker_connect(w)) < 0)
		step_fail_as(f, OLTP_RULE_CONNECTION, "thread %u: %s", w->id, w->error);
	failed = r < 0;
	if (!failed)
		step_frame_connected(f);
	step_frame_ready(f);

	while (!failed && !step_frame_stopped(f)) {
		uint64_t t0 = now_ns(), t1, queries;
		unsigned err = 0;

		if (t0 >= f->end_ns)
			break;
		r = run_transaction(w, &err, &queries);
		t1 = now_ns();
		if (r < 0) {
			if (!worker_recover(w, c, err))
				break;
			continue;
		}
		if (step_frame_count(f, c, t0, t1, queries) < 0)
			break;
	}
	worker_close(w);
	return NULL;
}

int oltp_run_step(const struct oltp_options *o, unsigned threads, struct step_result *ret)
{
	struct step_frame frame;
	struct worker *ws = NULL;
	uint64_t seed;
	int r = -ENOMEM;

	if (threads == 0 || o->tables == 0 || o->table_size == 0 || (!o->duration_ns && !o->events && !o->until))
		return -EINVAL;
	ws = calloc(threads, sizeof(*ws));
	if (!ws)
		return -ENOMEM;
	seed = o->seed ? o->seed : now_ns();
	for (unsigned i = 0; i < threads; i++) {
		struct worker *w = ws + i;

		w->frame = &frame;
		w->id = i;
		w->table_stmts = calloc(o->tables * _STMT_PER_TABLE, sizeof(*w->table_stmts));
		if (!w->table_stmts)
			goto out;
		w->params[0] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &w->param_from };
		w->params[1] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &w->param_to };
		sbrand_init(&w->rand, &o->rand, seed + i);
	}
	r = step_frame_run(&frame, o, threads, threads, worker_main, ws, sizeof(*ws), ret);
out:
	for (unsigned i = 0; i < threads; i++)
		free(ws[i].table_stmts);
	free(ws);
	return r;
}

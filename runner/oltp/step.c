/* One measured step of the native MySQL driver (sysbench's OLTP scripts,
 * as the workload's row shapes an event): one thread
 * per connection, each in the step frame (oltp/frame.h) that runs the
 * gate, the counters and the reporter. */
#include <errmsg.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "oltp/frame.h"
#include "oltp/oltp.h"
#include "common/util.h"

enum stmt_kind {
	STMT_POINT,
	STMT_SIMPLE,
	STMT_SUM,
	STMT_ORDER,
	STMT_DISTINCT,
	STMT_INDEX_UPDATE,
	STMT_NON_INDEX_UPDATE,
	STMT_DELETE,
	STMT_INSERT,
	_STMT_PER_TABLE
};

/* What a statement's placeholders take, from the worker's buffers. */
enum param { P_ID, P_TO, P_K, P_C, P_PAD, _P_MAX };

/* sysbench's oltp_common stmt_defs, character for character, so that the
 * server parses and plans the same statements, with their parameters. */
static const struct stmt_def {
	const char *sql;
	unsigned n_params;
	enum param params[4];
} stmt_defs[_STMT_PER_TABLE] = {
	[STMT_POINT] = { "SELECT c FROM sbtest%u WHERE id=?", 1, { P_ID } },
	[STMT_SIMPLE] = { "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?", 2, { P_ID, P_TO } },
	[STMT_SUM] = { "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?", 2, { P_ID, P_TO } },
	[STMT_ORDER] = { "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", 2, { P_ID, P_TO } },
	[STMT_DISTINCT] = { "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", 2, { P_ID, P_TO } },
	[STMT_INDEX_UPDATE] = { "UPDATE sbtest%u SET k=k+1 WHERE id=?", 1, { P_ID } },
	[STMT_NON_INDEX_UPDATE] = { "UPDATE sbtest%u SET c=? WHERE id=?", 2, { P_C, P_ID } },
	[STMT_DELETE] = { "DELETE FROM sbtest%u WHERE id=?", 1, { P_ID } },
	[STMT_INSERT] = { "INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)", 4, { P_ID, P_K, P_C, P_PAD } },
};

struct worker {
	struct step_frame *frame;
	unsigned id;
	MYSQL *conn;
	MYSQL_STMT *begin, *commit;
	MYSQL_STMT **table_stmts; /* [tables * _STMT_PER_TABLE] */
	/* The parameters' buffers, bound once to every statement. */
	MYSQL_BIND params[_P_MAX];
	int param_id, param_to, param_k;
	char param_c[sizeof(SBTEST_C_TEMPLATE)], param_pad[sizeof(SBTEST_PAD_TEMPLATE)];
	unsigned long c_len, pad_len;
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
	step_frame_watch(&w->frame->counters[w->id], -1);
	if (w->conn)
		mysql_close(w->conn);
	w->conn = NULL;
}

static MYSQL_STMT *prepare_one(struct worker *w, const char *sql, const struct stmt_def *def)
{
	MYSQL_STMT *s = mysql_stmt_init(w->conn);
	MYSQL_BIND binds[4];

	if (!s)
		return NULL;
	for (unsigned i = 0; def && i < def->n_params; i++)
		binds[i] = w->params[def->params[i]];
	if (mysql_stmt_prepare(s, sql, strlen(sql)) != 0 || (def && mysql_stmt_bind_param(s, binds) != 0)) {
		snprintf(w->error, sizeof(w->error), "cannot prepare \"%s\": %s (%u)", sql, mysql_stmt_error(s),
			 mysql_stmt_errno(s));
		mysql_stmt_close(s);
		return NULL;
	}
	return s;
}

/* Does an event of def run statement k? */
static bool stmt_used(const struct oltp_workload_def *def, enum stmt_kind k)
{
	switch (k) {
	case STMT_POINT:
		return def->point_selects > 0;
	case STMT_INDEX_UPDATE:
		return def->index_updates > 0;
	case STMT_NON_INDEX_UPDATE:
		return def->non_index_updates > 0;
	case STMT_DELETE:
	case STMT_INSERT:
		return def->delete_inserts > 0;
	default:
		return def->ranges;
	}
}

/* Connects and prepares what the script prepares, for every table, as
 * sysbench's prepare_statements() does for each connection (oltp_insert's
 * query is text: nothing).  On failure w->error says why. */
static int worker_connect(struct worker *w)
{
	const struct oltp_options *o = w->frame->o;
	const struct oltp_workload_def *def = oltp_workload_def(o->workload);
	_cleanup_free_ char *msg = NULL;
	char sql[128];
	int r;

	r = oltp_connect_flags(o, oltp_db(o), OLTP_CONNECT_WATCHED, &w->conn, &msg);
	if (r < 0) {
		(void)text_copy(w->error, sizeof(w->error), strempty(msg));
		return r;
	}
	step_frame_watch(&w->frame->counters[w->id], mysql_get_socket(w->conn));
	if (def->transaction) {
		w->begin = prepare_one(w, "BEGIN", NULL);
		w->commit = prepare_one(w, "COMMIT", NULL);
		if (!w->begin || !w->commit)
			return -EIO;
	}
	for (unsigned t = 0; t < o->tables; t++)
		for (unsigned k = 0; k < _STMT_PER_TABLE; k++) {
			if (!stmt_used(def, k))
				continue;
			snprintf(sql, sizeof(sql), stmt_defs[k].sql, t + 1);
			w->table_stmts[t * _STMT_PER_TABLE + k] = prepare_one(w, sql, &stmt_defs[k]);
			if (!w->table_stmts[t * _STMT_PER_TABLE + k])
				return -EIO;
		}
	return 0;
}

/* Executes and reads the result whole, as sysbench's MySQL driver does
 * (mysql_stmt_store_result(), then mysql_stmt_free_result()): the rows
 * are received, not converted column by column. */
static int execute(MYSQL_STMT *s, unsigned *ret_errno, uint64_t *queries)
{
	if (mysql_stmt_execute(s) != 0)
		goto fail;
	if (mysql_stmt_field_count(s) > 0) {
		if (mysql_stmt_store_result(s) != 0)
			goto fail;
		mysql_stmt_free_result(s);
	}
	(*queries)++;
	return 0;
fail:
	*ret_errno = mysql_stmt_errno(s);
	return -EIO;
}

/* The statements of kind k for a table drawn for the block. */
static MYSQL_STMT *drawn_table(struct worker *w, enum stmt_kind k)
{
	const struct oltp_options *o = w->frame->o;

	return w->table_stmts[(sbrand_uniform(&w->rand, 1, o->tables) - 1) * _STMT_PER_TABLE + k];
}

static int draw_id(struct worker *w)
{
	return (int)sbrand_default(&w->rand, 1, w->frame->o->table_size);
}

/* n executions of statement k on one table drawn for them, each with an
 * id drawn afresh (and for a range, its end; for a non-index update, a
 * new c): sysbench's execute_point_selects(), execute_range(),
 * execute_index_updates(), execute_non_index_updates(). */
static int run_block(struct worker *w, enum stmt_kind k, unsigned n, unsigned *ret_errno, uint64_t *queries)
{
	MYSQL_STMT *s = drawn_table(w, k);
	int r = 0;

	for (unsigned i = 0; i < n && r == 0; i++) {
		if (k == STMT_NON_INDEX_UPDATE)
			sbrand_string(&w->rand, SBTEST_C_TEMPLATE, w->param_c);
		w->param_id = draw_id(w);
		w->param_to = w->param_id + (int)w->frame->o->range_size - 1;
		r = execute(s, ret_errno, queries);
	}
	return r;
}

/* execute_delete_inserts(): the row of a drawn id deleted and inserted
 * again with a k drawn the same way and new c and pad, on one table. */
static int run_delete_inserts(struct worker *w, unsigned n, unsigned *ret_errno, uint64_t *queries)
{
	unsigned t = sbrand_uniform(&w->rand, 1, w->frame->o->tables) - 1;
	MYSQL_STMT **stmts = w->table_stmts + t * _STMT_PER_TABLE;
	int r = 0;

	for (unsigned i = 0; i < n && r == 0; i++) {
		w->param_id = draw_id(w);
		w->param_k = draw_id(w);
		sbrand_string(&w->rand, SBTEST_C_TEMPLATE, w->param_c);
		sbrand_string(&w->rand, SBTEST_PAD_TEMPLATE, w->param_pad);
		r = execute(stmts[STMT_DELETE], ret_errno, queries);
		if (r == 0)
			r = execute(stmts[STMT_INSERT], ret_errno, queries);
	}
	return r;
}

/* oltp_insert's event: a new row by the AUTO_INCREMENT (id 0), k drawn, c
 * and pad random, sent as the script sends it, as a text query. */
static int run_insert(struct worker *w, unsigned *ret_errno, uint64_t *queries)
{
	const struct oltp_options *o = w->frame->o;
	unsigned t = sbrand_uniform(&w->rand, 1, o->tables);
	int k = draw_id(w), n;
	char sql[320];

	sbrand_string(&w->rand, SBTEST_C_TEMPLATE, w->param_c);
	sbrand_string(&w->rand, SBTEST_PAD_TEMPLATE, w->param_pad);
	n = snprintf(sql, sizeof(sql), "INSERT INTO sbtest%u (id, k, c, pad) VALUES (0, %d, '%s', '%s')", t, k,
		     w->param_c, w->param_pad);
	if (mysql_real_query(w->conn, sql, (unsigned long)n) != 0) {
		*ret_errno = mysql_errno(w->conn);
		return -EIO;
	}
	(*queries)++;
	return 0;
}

/* sysbench's event() of the workload's script, block by block in its
 * order; a block's table is drawn afresh (oltp_point_select's is one
 * point select, with no transaction around it). */
static int run_transaction(struct worker *w, unsigned *ret_errno, uint64_t *ret_queries)
{
	const struct oltp_workload_def *def = oltp_workload_def(w->frame->o->workload);
	uint64_t q = 0;
	int r = 0;

	if (def->transaction)
		r = execute(w->begin, ret_errno, &q);
	if (r == 0 && def->point_selects)
		r = run_block(w, STMT_POINT, def->point_selects, ret_errno, &q);
	for (unsigned k = STMT_SIMPLE; r == 0 && def->ranges && k <= STMT_DISTINCT; k++)
		r = run_block(w, k, 1, ret_errno, &q);
	if (r == 0 && def->index_updates)
		r = run_block(w, STMT_INDEX_UPDATE, def->index_updates, ret_errno, &q);
	if (r == 0 && def->non_index_updates)
		r = run_block(w, STMT_NON_INDEX_UPDATE, def->non_index_updates, ret_errno, &q);
	if (r == 0 && def->delete_inserts)
		r = run_delete_inserts(w, def->delete_inserts, ret_errno, &q);
	if (r == 0 && def->insert)
		r = run_insert(w, ret_errno, &q);
	if (r == 0 && def->transaction)
		r = execute(w->commit, ret_errno, &q);
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

/* The buffers the statements' placeholders read (c and pad always full
 * length: the templates are). */
static void worker_bind(struct worker *w)
{
	w->c_len = sizeof(w->param_c) - 1;
	w->pad_len = sizeof(w->param_pad) - 1;
	w->params[P_ID] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &w->param_id };
	w->params[P_TO] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &w->param_to };
	w->params[P_K] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &w->param_k };
	w->params[P_C] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_STRING, .buffer = w->param_c,
				       .buffer_length = w->c_len, .length = &w->c_len };
	w->params[P_PAD] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_STRING, .buffer = w->param_pad,
					 .buffer_length = w->pad_len, .length = &w->pad_len };
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

	/* In a closed loop one clock read a transaction: its end is the next
	 * one's start.  In an open loop a transaction is due at its arrival. */
	for (uint64_t t0 = now_ns(), t1, started; !failed && !step_frame_stopped(f); t0 = t1) {
		uint64_t queries;
		unsigned err = 0;

		if (f->o->rate && !(t0 = step_frame_arrival(f, c)))
			break;
		started = f->o->rate ? now_ns() : t0;
		if (started >= f->end_ns)
			break;
		r = run_transaction(w, &err, &queries);
		t1 = now_ns();
		if (r < 0) {
			if (!worker_recover(w, c, err))
				break;
			t1 = now_ns(); /* a reconnection took its time */
			continue;
		}
		if (step_frame_count(f, c, t0, started, t1, queries) < 0)
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
		worker_bind(w);
		sbrand_init(&w->rand, &o->rand, seed + i);
	}
	r = step_frame_run(&frame, o, threads, threads, worker_main, ws, sizeof(*ws), ret);
out:
	for (unsigned i = 0; i < threads; i++)
		free(ws[i].table_stmts);
	free(ws);
	return r;
}

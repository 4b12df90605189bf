/* One measured step of pgbench's built-in scripts, natively: as pgbench
 * -M prepared -c C -j J does, C connections driven by J threads, each
 * thread waiting on all of its connections at once (epoll) and keeping
 * every one of them busy through libpq's non-blocking API.  The threads
 * run in the step frame (oltp/frame.h), so the gate, the counters, the
 * reporter and the record are the MySQL driver's. */
#include <inttypes.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>

#include "oltp/frame.h"
#include "oltp/pg.h"
#include "common/util.h"

#define NACCOUNTS 100000
#define NTELLERS 10
#define NBRANCHES 1

/* pgbench's \set variables, drawn afresh for every transaction. */
enum pg_var { VAR_AID, VAR_BID, VAR_TID, VAR_DELTA, _VAR_MAX };

struct pg_command {
	const char *sql; /* pgbench's text with :var replaced by $n in order of appearance */
	unsigned n_params;
	enum pg_var params[_VAR_MAX];
};

/* The built-in scripts of pgbench 15, character for character, so that the
 * server parses and plans the same statements. */
static const struct pg_command select_only[] = {
	{ "SELECT abalance FROM pgbench_accounts WHERE aid = $1;", 1, { VAR_AID } },
};

static const struct pg_command tpcb_like[] = {
	{ "BEGIN;", 0, {} },
	{ "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;", 2, { VAR_DELTA, VAR_AID } },
	{ "SELECT abalance FROM pgbench_accounts WHERE aid = $1;", 1, { VAR_AID } },
	{ "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2;", 2, { VAR_DELTA, VAR_TID } },
	{ "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2;", 2, { VAR_DELTA, VAR_BID } },
	{ "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP);", 4,
	  { VAR_TID, VAR_BID, VAR_AID, VAR_DELTA } },
	{ "END;", 0, {} },
};

struct pg_script {
	const struct pg_command *commands;
	unsigned n;
};

static const struct pg_script scripts[_OLTP_WORKLOAD_MAX] = {
	[OLTP_WORKLOAD_SELECT_ONLY] = { select_only, ELEMENTSOF(select_only) },
	[OLTP_WORKLOAD_TPCB_LIKE] = { tpcb_like, ELEMENTSOF(tpcb_like) },
};

unsigned pgbench_statements(enum oltp_workload w)
{
	return (unsigned)w < _OLTP_WORKLOAD_MAX ? scripts[w].n : 0;
}

struct pg_worker;

struct pg_client {
	struct pg_worker *w;
	PGconn *conn;
	unsigned id;
	unsigned cmd;	  /* the command in flight */
	bool rolling_back; /* a ROLLBACK after an error inside the transaction */
	bool writing;	  /* waiting for the socket to take the rest of a command */
	/* The transaction's intended start (in a closed loop its start),
	 * its actual start, and its statements so far */
	uint64_t t0, started, queries;
	bool parked; /* an open loop's: waiting for its arrival at t0 */
	char vars[_VAR_MAX][12];
	char error[160];  /* the first error of the command in flight */
	char sqlstate[6]; /* and its SQLSTATE ("" for none) */
	bool failed_cmd;
};

struct pg_worker {
	struct step_frame *frame;
	const struct pg_script *script;
	unsigned id;
	struct pg_client *clients;
	unsigned n_clients;
	struct sbrand rand;
	int epfd;
	char error[200]; /* why client_connect() failed */
};

static const char *statement_name(unsigned cmd)
{
	/* pgbench names its prepared statements P_0, P_1, ... in script order. */
	static const char *const names[] = { "P_0", "P_1", "P_2", "P_3", "P_4", "P_5", "P_6", "P_7" };

	return names[cmd];
}

static void client_close(struct pg_client *c)
{
	if (!c->conn)
		return;
	if (PQsocket(c->conn) >= 0)
		(void)epoll_ctl(c->w->epfd, EPOLL_CTL_DEL, PQsocket(c->conn), NULL);
	PQfinish(c->conn);
	c->conn = NULL;
	c->writing = false;
}

/* Connects, prepares every command of the script as pgbench -M prepared
 * does (untyped parameters), and puts the connection in non-blocking mode
 * under the thread's epoll.  On failure w->error says why. */
static int client_connect(struct pg_client *c)
{
	struct pg_worker *w = c->w;
	const struct oltp_options *o = w->frame->o;
	_cleanup_free_ char *msg = NULL;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	int r;

	r = pg_connect(o, NULL, &c->conn, &msg);
	if (r < 0) {
		(void)text_copy(w->error, sizeof(w->error), strempty(msg));
		return r;
	}
	for (unsigned i = 0; i < w->script->n; i++) {
		_cleanup_pgresult_ PGresult *res =
			PQprepare(c->conn, statement_name(i), w->script->commands[i].sql, 0, NULL);

		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			const char *m = PQerrorMessage(c->conn);

			snprintf(w->error, sizeof(w->error), "cannot prepare \"%s\": %.*s", w->script->commands[i].sql,
				 (int)strcspn(m, "\n"), m);
			return -EIO;
		}
	}
	if (PQsetnonblocking(c->conn, 1) != 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, PQsocket(c->conn), &ev) < 0) {
		snprintf(w->error, sizeof(w->error), "cannot watch the connection: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

static int watch(struct pg_client *c, bool writing)
{
	struct epoll_event ev = { .events = EPOLLIN | (writing ? EPOLLOUT : 0), .data.ptr = c };

	if (c->writing == writing)
		return 0;
	c->writing = writing;
	return epoll_ctl(c->w->epfd, EPOLL_CTL_MOD, PQsocket(c->conn), &ev) < 0 ? -errno : 0;
}

/* Sends what libpq holds; the rest goes when the socket is writable. */
static int flush(struct pg_client *c)
{
	int r = PQflush(c->conn);

	return r < 0 ? -EIO : watch(c, r == 1);
}

static void note_error(struct pg_client *c, const PGresult *res)
{
	const char *m = res ? PQresultErrorMessage(res) : PQerrorMessage(c->conn);
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if (c->failed_cmd)
		return;
	c->failed_cmd = true;
	snprintf(c->error, sizeof(c->error), "%.*s%s%s%s", (int)strcspn(m, "\n"), m, state ? " (" : "", strempty(state),
		 state ? ")" : "");
	(void)text_copy(c->sqlstate, sizeof(c->sqlstate), strempty(state));
}

static int send_command(struct pg_client *c)
{
	const struct pg_command *cmd = &c->w->script->commands[c->cmd];
	const char *values[_VAR_MAX];

	for (unsigned i = 0; i < cmd->n_params; i++)
		values[i] = c->vars[cmd->params[i]];
	c->failed_cmd = false;
	if (!PQsendQueryPrepared(c->conn, statement_name(c->cmd), (int)cmd->n_params, values, NULL, NULL, 0)) {
		note_error(c, NULL);
		return -EIO;
	}
	return flush(c);
}

static int start_transaction(struct pg_client *c)
{
	struct pg_worker *w = c->w;
	unsigned scale = w->frame->o->scale;

	snprintf(c->vars[VAR_AID], sizeof(c->vars[0]), "%" PRIu32, sbrand_uniform(&w->rand, 1, NACCOUNTS * scale));
	snprintf(c->vars[VAR_BID], sizeof(c->vars[0]), "%" PRIu32, sbrand_uniform(&w->rand, 1, NBRANCHES * scale));
	snprintf(c->vars[VAR_TID], sizeof(c->vars[0]), "%" PRIu32, sbrand_uniform(&w->rand, 1, NTELLERS * scale));
	snprintf(c->vars[VAR_DELTA], sizeof(c->vars[0]), "%d", (int)sbrand_uniform(&w->rand, 0, 10000) - 5000);
	c->started = now_ns();
	if (!w->frame->o->rate)
		c->t0 = c->started;
	c->cmd = 0;
	c->queries = 0;
	c->rolling_back = false;
	return send_command(c);
}

/* The client's next transaction: at once in a closed loop; in an open
 * one parked until its arrival (none once the arrivals are over). */
static int next_transaction(struct pg_client *c)
{
	if (!c->w->frame->o->rate)
		return start_transaction(c);
	c->t0 = step_frame_take_arrival(c->w->frame);
	c->parked = c->t0 != 0;
	return 0;
}

/* A client whose connection broke: reconnected as pgbench's clients are
 * not (they abort), as the MySQL driver's are; false if the step is over. */
static bool client_reconnect(struct pg_client *c, struct step_counters *cnt)
{
	const struct oltp_options *o = c->w->frame->o;

	for (unsigned attempt = 0; attempt < o->max_reconnects && !step_frame_stopped(c->w->frame); attempt++) {
		client_close(c);
		if (client_connect(c) == 0) {
			cnt->reconnects++;
			return next_transaction(c) == 0;
		}
		client_close(c);
		nanosleep(&(struct timespec){ .tv_nsec = 200 * 1000 * 1000 }, NULL);
	}
	if (!step_frame_stopped(c->w->frame))
		step_fail_as(c->w->frame, OLTP_RULE_CONNECTION, "client %u: %s; reconnecting failed: %s", c->id, c->error,
			     c->w->error);
	return false;
}

/* The command in flight failed: pgbench's failures (serialization,
 * deadlock) are counted and the client goes on, after a ROLLBACK if it was
 * inside a transaction; a lost connection is reconnected; anything else
 * ends the step. */
static void command_failed(struct pg_client *c, struct step_counters *cnt)
{
	struct step_frame *f = c->w->frame;
	enum oltp_err_class class = pg_classify_error(c->sqlstate[0] ? c->sqlstate : NULL, PQstatus(c->conn) == CONNECTION_BAD);

	cnt->errors[class]++;
	if (class == OLTP_ERR_RECONNECT) {
		client_reconnect(c, cnt);
		return;
	}
	if (class == OLTP_ERR_FATAL) {
		step_fail(f, "client %u: %s", c->id, c->error);
		return;
	}
	if (PQtransactionStatus(c->conn) == PQTRANS_INERROR) {
		c->rolling_back = true;
		if (PQsendQuery(c->conn, "ROLLBACK") && flush(c) >= 0)
			return;
		note_error(c, NULL);
		client_reconnect(c, cnt);
		return;
	}
	if (start_transaction(c) < 0)
		client_reconnect(c, cnt);
}

/* All results of the command in flight are in. */
static void command_done(struct pg_client *c, struct step_counters *cnt)
{
	struct step_frame *f = c->w->frame;
	uint64_t t1;

	if (c->failed_cmd && !c->rolling_back) {
		command_failed(c, cnt);
		return;
	}
	if (!c->rolling_back) {
		c->queries++;
		if (++c->cmd < c->w->script->n) {
			if (send_command(c) < 0)
				command_failed(c, cnt);
			return;
		}
		t1 = now_ns();
		if (step_frame_count(f, cnt, c->t0, c->started, t1, c->queries) < 0)
			return;
	}
	if (step_frame_stopped(f) || now_ns() >= f->end_ns)
		return;
	if (next_transaction(c) < 0)
		command_failed(c, cnt);
}

/* The socket has something: every result that is complete is taken. */
static void client_readable(struct pg_client *c, struct step_counters *cnt)
{
	PGresult *res;

	if (!PQconsumeInput(c->conn)) {
		note_error(c, NULL);
		command_failed(c, cnt);
		return;
	}
	while (c->conn && !PQisBusy(c->conn)) {
		ExecStatusType st;

		res = PQgetResult(c->conn);
		if (!res) {
			command_done(c, cnt);
			/* A new command was sent (or the client stopped): its results
			 * are not in yet. */
			return;
		}
		st = PQresultStatus(res);
		if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
			note_error(c, res);
		PQclear(res);
	}
}

/* An open loop's parked clients whose arrival is due are sent; the time
 * of the next arrival still parked (UINT64_MAX: none). */
static uint64_t send_due(struct pg_worker *w, struct step_counters *cnt, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < w->n_clients && !step_frame_stopped(w->frame); i++) {
		struct pg_client *c = &w->clients[i];

		/* an arrival already later than the latency limit: the next one */
		while (c->parked && c->t0 <= now && step_frame_skip(w->frame, cnt, c->t0, now))
			next_transaction(c);
		if (!c->parked)
			continue;
		if (c->t0 > now) {
			next = MIN(next, c->t0);
			continue;
		}
		c->parked = false;
		if (start_transaction(c) < 0)
			command_failed(c, cnt);
	}
	return next;
}

/* What epoll said of the worker's clients: the rest of a command
 * written, results read. */
static void handle_events(struct pg_worker *w, struct step_counters *cnt, const struct epoll_event *events, int n)
{
	for (int i = 0; i < n && !step_frame_stopped(w->frame); i++) {
		struct pg_client *c = events[i].data.ptr;

		if (!c->conn)
			continue;
		if ((events[i].events & EPOLLOUT) && flush(c) < 0) {
			note_error(c, NULL);
			command_failed(c, cnt);
			continue;
		}
		if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
			client_readable(c, cnt);
	}
}

static void *worker_main(void *arg)
{
	struct pg_worker *w = arg;
	struct step_frame *f = w->frame;
	struct step_counters *cnt = &f->counters[w->id];
	struct epoll_event events[64];
	bool failed;
	int r;

	r = step_frame_pin(f->o, w->id);
	if (r < 0)
		step_fail(f, "thread %u: cannot pin to the client CPUs: %s", w->id, strerror(-r));
	for (unsigned i = 0; r >= 0 && i < w->n_clients; i++) {
		r = client_connect(&w->clients[i]);
		if (r < 0)
			step_fail_as(f, OLTP_RULE_CONNECTION, "client %u: %s", w->clients[i].id, w->error);
		else
			step_frame_connected(f);
	}
	failed = r < 0;
	step_frame_ready(f);

	for (unsigned i = 0; !failed && i < w->n_clients && !step_frame_stopped(f); i++)
		if (next_transaction(&w->clients[i]) < 0)
			command_failed(&w->clients[i], cnt);
	while (!failed && !step_frame_stopped(f)) {
		uint64_t now = now_ns(), wake = f->end_ns, timeout;
		int n;

		if (now >= f->end_ns)
			break;
		if (f->o->rate)
			wake = MIN(wake, send_due(w, cnt, now));
		/* Wake at least every 100 ms to notice a stop or the deadline,
		 * and at an open loop's next arrival: to the nanosecond, not
		 * to epoll_wait's millisecond, which would add half of one to
		 * every arrival's lag. */
		now = now_ns(); /* once: MIN() evaluates its arguments twice */
		timeout = wake > now ? MIN(100 * NSEC_PER_MSEC, wake - now) : 0;
		n = epoll_pwait2(w->epfd, events, ELEMENTSOF(events),
				 &(struct timespec){ .tv_sec = timeout / NSEC_PER_SEC, .tv_nsec = timeout % NSEC_PER_SEC },
				 NULL);
		if (n < 0 && errno != EINTR) {
			step_fail(f, "thread %u: epoll_pwait2: %s", w->id, strerror(errno));
			break;
		}
		handle_events(w, cnt, events, n);
	}
	for (unsigned i = 0; i < w->n_clients; i++) {
		const struct pg_client *c = &w->clients[i];

		/* an arrival still parked at the step's end */
		cnt->backlog_at_end += c->parked && c->t0 < f->end_ns;
		client_close(&w->clients[i]);
	}
	return NULL;
}

/* 800 connections need 800 descriptors: the soft limit is raised toward
 * the hard one if it is short, as a shell's ulimit -n would. */
static void raise_nofile(unsigned clients)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= (rlim_t)clients + 64)
		return;
	rl.rlim_cur = MIN(rl.rlim_max, (rlim_t)clients + 64);
	(void)setrlimit(RLIMIT_NOFILE, &rl);
}

/* pgbench finds the scale in the data; here the options name it, and a
 * dataset of another scale would be measured as if it were this one. */
static int check_scale(const struct oltp_options *o, struct step_result *ret)
{
	_cleanup_pg_ PGconn *c = NULL;
	_cleanup_free_ char *msg = NULL;
	unsigned scale = 0;
	int r;

	r = pg_connect(o, NULL, &c, &msg);
	if (r >= 0)
		r = pgbench_scale_of(c, &scale);
	if (r >= 0 && scale == o->scale)
		return 0;
	ret->failed = true;
	if (r < 0)
		snprintf(ret->reason, sizeof(ret->reason), "cannot read the dataset's scale: %s",
			 msg ? msg : "no pgbench_branches");
	else
		snprintf(ret->reason, sizeof(ret->reason), "the dataset in %s has scale %u, not %u", oltp_db(o), scale,
			 o->scale);
	return 1;
}

int pgbench_run_step(const struct oltp_options *o, unsigned clients, struct step_result *ret)
{
	const struct pg_script *script = &scripts[o->workload];
	const struct sbrand_params uniform = { .type = SBRAND_UNIFORM }; /* pgbench's random() */
	unsigned n_threads = MAX(1u, MIN(o->client_threads ? o->client_threads : 1, clients));
	struct step_frame frame;
	_cleanup_free_ struct pg_client *cs = NULL;
	struct pg_worker *ws = NULL;
	uint64_t seed;
	int r;

	if (clients == 0 || (unsigned)o->workload >= _OLTP_WORKLOAD_MAX || !script->commands || o->scale == 0 || (!o->duration_ns && !o->events))
		return -EINVAL;
	step_result_start(ret, OLTP_DRIVER_NATIVE, clients);
	if (check_scale(o, ret) > 0)
		return 0;
	raise_nofile(clients);
	cs = calloc(clients, sizeof(*cs));
	ws = calloc(n_threads, sizeof(*ws));
	if (!cs || !ws) {
		free(ws);
		return -ENOMEM;
	}
	for (unsigned t = 0; t < n_threads; t++)
		ws[t].epfd = -EBADF;
	seed = o->seed ? o->seed : now_ns();
	for (unsigned t = 0; t < n_threads; t++) {
		struct pg_worker *w = &ws[t];
		/* As pgbench deals them: thread t gets the clients [t*C/J, (t+1)*C/J). */
		unsigned first = (unsigned)((uint64_t)clients * t / n_threads);
		unsigned last = (unsigned)((uint64_t)clients * (t + 1) / n_threads);

		*w = (struct pg_worker){ .frame = &frame, .script = script, .id = t, .clients = cs + first,
					 .n_clients = last - first, .epfd = epoll_create1(EPOLL_CLOEXEC) };
		sbrand_init(&w->rand, &uniform, seed + t);
		for (unsigned i = first; i < last; i++)
			cs[i] = (struct pg_client){ .w = w, .id = i };
		if (w->epfd < 0) {
			r = -errno;
			goto out;
		}
	}
	r = step_frame_run(&frame, o, n_threads, clients, worker_main, ws, sizeof(*ws), ret);
out:
	for (unsigned t = 0; t < n_threads; t++)
		if (ws[t].epfd >= 0)
			close(ws[t].epfd);
	free(ws);
	return r;
}

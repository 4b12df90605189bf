/* pgbench's workloads over libpq against a real PostgreSQL 15 that the test
 * starts: prepare loads pgbench's dataset and reuses it, and refuses one of
 * another scale; the native driver's steps add up for select-only and
 * tpcb-like, drive many connections from few threads, prepare pgbench's
 * statements as pgbench -M prepared does (the server's log says), count
 * an event-count step exactly, and fail a step whose server dies; the real
 * pgbench runs the same step into a record of the same shape; 800 clients
 * on 2 threads complete a step without an error with either. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>

#include "oltp/pg.h"
#include "tap.h"
#include "testpg.h"
#include "common/util.h"

static double sum_intervals(const struct step_result *r)
{
	double sum = 0;

	for (size_t i = 0; i < r->n_intervals; i++)
		sum += r->intervals[i] * MIN(1.0, r->duration_s - (double)i);
	return sum;
}

static char *value(const struct oltp_options *o, const char *sql)
{
	_cleanup_pg_ PGconn *c = NULL;
	char *v = NULL;

	if (pg_connect(o, NULL, &c, NULL) < 0 || pg_value(c, NULL, &v, "%s", sql) < 0)
		return strdup("(error)");
	return v;
}

static int sql(const struct oltp_options *o, const char *db, const char *q)
{
	_cleanup_pg_ PGconn *c = NULL;

	if (pg_connect(o, db, &c, NULL) < 0)
		return -ECONNREFUSED;
	return pg_exec(c, NULL, "%s", q);
}

/* The real pgbench -i at the same scale in another database: the same
 * pages for the accounts and their key, and prepare takes its dataset. */
static void check_as_pgbench_i(const struct oltp_options *o)
{
	static const char sizes[] = "SELECT pg_relation_size('pgbench_accounts') || ' ' || "
				    "pg_relation_size('pgbench_accounts_pkey')";
	_cleanup_free_ char *ours = NULL, *theirs = NULL, *msg = NULL;
	struct oltp_options t = *o;
	char cmd[1024];

	if (!have_prereq("PGBENCH")) {
		skip(2, "pgbench is not installed");
		return;
	}
	t.db = "pgbench_i";
	snprintf(cmd, sizeof(cmd), "%s/pgbench -i -q -s %u -h %s -U root %s >/dev/null 2>&1", TEST_PG_BINDIR, o->scale,
		 o->socket, t.db);
	if (sql(o, "postgres", "CREATE DATABASE pgbench_i") < 0 || system(cmd) != 0)
		bail_out("%s failed", cmd);
	ours = value(o, sizes);
	theirs = value(&t, sizes);
	is_str(ours, theirs, "the accounts and their key take the pages pgbench -i's do (bytes)");
	if (!is_int(oltp_prepare(&t, &msg), 0, "prepare takes pgbench -i's dataset as it is"))
		diag("%s", strempty(msg));
}

static void check_prepare(struct oltp_options *o)
{
	_cleanup_free_ char *msg = NULL, *accounts = NULL, *tellers = NULL, *filler = NULL, *keys = NULL, *frozen = NULL;
	uint64_t t0;

	if (!is_int(oltp_prepare(o, &msg), 0, "prepare pgbench's dataset at scale 2"))
		bail_out("prepare: %s", strempty(msg));
	accounts = value(o, "SELECT count(*) || ' ' || min(aid) || '-' || max(aid) || ' ' || max(bid) FROM pgbench_accounts");
	tellers = value(o, "SELECT count(*) || ' ' || max(bid) FROM pgbench_tellers");
	is_str(accounts, "200000 1-200000 2", "200000 accounts, aid 1 to 200000, in 2 branches");
	is_str(tellers, "20 2", "20 tellers in 2 branches");
	filler = value(o, "SELECT count(*) FROM pgbench_accounts WHERE filler = '' AND abalance = 0");
	is_str(filler, "200000", "every account has pgbench's balance and blank filler");
	keys = value(o, "SELECT string_agg(indexrelid::regclass::text, ',' ORDER BY 1) FROM pg_index WHERE indisprimary "
			"AND indrelid::regclass::text LIKE 'pgbench_%'");
	is_str(keys, "pgbench_tellers_pkey,pgbench_accounts_pkey,pgbench_branches_pkey", "pgbench's primary keys");
	frozen = sql(o, NULL, "CREATE EXTENSION IF NOT EXISTS pg_visibility") < 0
			 ? strdup("(no pg_visibility)")
			 : value(o, "SELECT all_frozen || ' of ' || pg_relation_size('pgbench_accounts') / 8192 "
				    "FROM pg_visibility_map_summary('pgbench_accounts')");
	is_str(frozen, "3279 of 3279", "COPY FREEZE loaded the accounts: every page all-frozen");
	check_as_pgbench_i(o);
	t0 = now_ns();
	is_int(oltp_prepare(o, NULL), 0, "a second prepare reuses the dataset");
	cmp_ok((double)(now_ns() - t0) / 1e9, "<", 2, "and loads nothing");
	free(msg);
	msg = NULL;
	o->scale = 3;
	is_int(oltp_prepare(o, &msg), -EEXIST, "a dataset of another scale is refused");
	ok(msg && strstr(msg, "pgbench_") && strstr(msg, "scale 3"), "naming the table: %s", strempty(msg));
	o->scale = 2;
	is_int(oltp_prewarm(o, NULL), 0, "prewarm reads the tables and keys into shared buffers");
}

static void check_step(const struct oltp_options *o, unsigned clients, unsigned queries_per_txn)
{
	struct step_result r = {};
	unsigned workers = MIN(MAX(o->client_threads, 1u), clients), seen = 0;
	uint64_t t0 = now_ns();
	double wall_s;

	is_int(oltp_step(o, clients, &r), 0, "%s, %u client(s): the step runs", oltp_workload_name(o->workload),
	       clients);
	wall_s = (double)(now_ns() - t0) / 1e9;
	/* Connecting is reported apart and is outside the tps's window: the
	 * step took connecting plus the measured seconds, and the tps is the
	 * transactions over the measured seconds alone. */
	ok(r.connect_s > 0 && r.duration_s == (double)o->duration_ns / 1e9 && wall_s >= r.connect_s + r.duration_s &&
		   fabs(r.tps * r.duration_s - (double)r.transactions) < 0.5,
	   "%u client(s): connecting took %.3f s, apart from the %.1f s measured (%.1f tps, the step %.2f s)", clients,
	   r.connect_s, r.duration_s, r.tps, wall_s);
	ok(!r.failed, "%u client(s): not failed (%s)", clients, r.reason);
	cmp_ok(r.tps, ">", 0, "%u client(s): TPS above zero", clients);
	is_int(r.queries, r.transactions * queries_per_txn, "%u client(s): %u statements per transaction", clients,
	       queries_per_txn);
	is_int(r.errors[OLTP_ERR_IGNORABLE] + r.errors[OLTP_ERR_RECONNECT] + r.errors[OLTP_ERR_FATAL], 0,
	       "%u client(s): no errors", clients);
	ok(r.lat_p50_ms > 0 && r.lat_p50_ms <= r.lat_p95_ms && r.lat_p95_ms <= r.lat_p99_ms &&
		   r.lat_p99_ms <= r.lat_max_ms,
	   "%u client(s): 0 < p50 %.3f <= p95 %.3f <= p99 %.3f <= max %.3f ms", clients, r.lat_p50_ms, r.lat_p95_ms,
	   r.lat_p99_ms, r.lat_max_ms);
	if (!is_int(r.n_intervals, 2, "%u client(s): one interval per second", clients))
		diag("%zu intervals, %.1f s, max latency %.1f ms", r.n_intervals, r.duration_s, r.lat_max_ms);
	cmp_ok(fabs(sum_intervals(&r) - (double)r.transactions), "<", 0.5,
	       "%u client(s): the intervals add up to the %" PRIu64 " transactions", clients, r.transactions);
	for (unsigned n = 0; r.n_samples && n < r.samples[0].n_nodes; n++)
		seen += r.samples[0].client_per_node[n];
	if (!is_int(seen, workers, "%u client(s) are driven by %u thread(s) (telemetry counts the client's threads)",
		    clients, workers))
		diag("%zu samples, %.2f s, %" PRIu64 " transactions", r.n_samples, r.duration_s, r.transactions);
	ok(r.n_samples && r.samples[0].procs_running >= 1, "telemetry has the running tasks (%u) and blocked ones (%u)",
	   r.n_samples ? r.samples[0].procs_running : 0, r.n_samples ? r.samples[0].procs_blocked : 0);
	step_result_done(&r);
}

/* The statements as the server logs their executions ("execute P_0: ..."). */
static void check_statements(struct oltp_options *o, const struct test_pg *pg)
{
	_cleanup_free_ char *native = NULL, *theirs = NULL, *before = NULL;
	struct step_result r = {};
	char cmd[1024];

	if (sql(o, "postgres", "ALTER SYSTEM SET log_statement = 'all'") < 0 ||
	    sql(o, "postgres", "SELECT pg_reload_conf()") < 0) {
		skip(4, "cannot turn log_statement on");
		return;
	}
	/* New backends take the setting once the postmaster has reloaded. */
	for (int i = 0; i < 100; i++) {
		_cleanup_free_ char *v = value(o, "SHOW log_statement");

		if (streq(v, "all"))
			break;
		usleep(100000);
	}
	before = test_pg_log_lines(pg, "execute P_");
	o->workload = OLTP_WORKLOAD_TPCB_LIKE;
	o->events = 20;
	oltp_step(o, 2, &r);
	o->events = 0;
	is_int(r.transactions, 20, "an event-count step counts exactly 20 transactions");
	step_result_done(&r);
	native = test_pg_log_lines(pg, "execute P_");
	if (!ok(*before == 0 && strstr(native, "execute P_1: UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;"),
		"the native driver executes prepared statements P_0, P_1, ..."))
		diag("before:\n%s\nafter:\n%s", before, native);
	if (!have_prereq("PGBENCH")) {
		skip(1, "pgbench is not installed");
	} else {
		/* The same statements from the real pgbench. */
		snprintf(cmd, sizeof(cmd),
			 "%s/pgbench -n -h %s -U root -M prepared -b tpcb-like -t 5 %s >/dev/null 2>&1 && sleep 0.3",
			 TEST_PG_BINDIR, pg->socket_dir, oltp_db(o));
		if (system(cmd) != 0)
			diag("%s failed", cmd);
		theirs = test_pg_log_lines(pg, "execute P_");
		if (!is_str(native, theirs, "the server executed the same statements for pgbench -M prepared"))
			diag("native:\n%s\npgbench:\n%s", native, theirs);
	}
	sql(o, "postgres", "ALTER SYSTEM RESET log_statement");
	sql(o, "postgres", "SELECT pg_reload_conf()");
	o->workload = OLTP_WORKLOAD_SELECT_ONLY;
}

/* The same keys from both drivers, so that reports need not care. */
static void check_pgbench_driver(const struct oltp_options *o)
{
	struct step_result native = {}, pb = {};
	struct oltp_options t = *o;
	json_t *a = NULL, *b = NULL, *v;
	const char *key;
	bool same = true;

	if (!have_prereq("PGBENCH")) {
		skip(5, "pgbench is not installed");
		return;
	}
	t.client_threads = 2;
	oltp_step(&t, 8, &native);
	t.driver = OLTP_DRIVER_PGBENCH;
	is_int(oltp_step(&t, 8, &pb), 0, "the pgbench driver runs the same step");
	step_result_to_json(&native, &a);
	step_result_to_json(&pb, &b);
	json_object_foreach(a, key, v) if (!json_object_get(b, key)) {
		diag("pgbench's record lacks %s", key);
		same = false;
	}
	json_object_foreach(b, key, v) if (!json_object_get(a, key)) {
		diag("the native record lacks %s", key);
		same = false;
	}
	if (!ok(same && !pb.failed && pb.tps > 0, "both records have the same keys (pgbench: %.1f tps, native %.1f)",
		pb.tps, native.tps))
		diag("pgbench: %s", pb.reason);
	ok(pb.lat_p50_ms > 0 && pb.lat_p50_ms <= pb.lat_p99_ms && pb.lat_p99_ms <= pb.lat_max_ms &&
		   pb.n_intervals >= 1 && pb.queries == pb.transactions,
	   "pgbench's percentiles come from its transaction log (p50 %.3f, p99 %.3f, max %.3f ms), intervals from it",
	   pb.lat_p50_ms, pb.lat_p99_ms, pb.lat_max_ms);
	ok(json_number_value(json_object_get(a, "connect_s")) > 0 && json_number_value(json_object_get(b, "connect_s")) > 0,
	   "both records carry connect_s, the initial connection time (native %.3f s, pgbench's %.3f s)",
	   json_number_value(json_object_get(a, "connect_s")), json_number_value(json_object_get(b, "connect_s")));
	ok(pb.n_samples >= 1 && pb.samples[0].client_per_node[0] >= 2,
	   "the pgbench step samples telemetry, pgbench's threads as the client (%zu samples, %u client threads)",
	   pb.n_samples, pb.n_samples ? pb.samples[0].client_per_node[0] : 0);
	json_decref(a);
	json_decref(b);
	step_result_done(&native);
	step_result_done(&pb);
}

/* The seed's -c 800 -j 2 with either driver: the clock starts once every
 * client is connected (and, for pgbench, has prepared), the warm-up takes
 * the rest of the ramp of 800 fresh backends, and what is measured has no
 * error and no silent second.  800 connections take 25 to 45 s per driver
 * on a 2-core machine, more than CI's budget: SLICEBENCH_TEST_800=1 runs
 * it. */
static void check_800_clients(const struct oltp_options *o)
{
	static const enum oltp_driver drivers[] = { OLTP_DRIVER_NATIVE, OLTP_DRIVER_PGBENCH };
	struct oltp_options t = *o;

	if (!getenv("SLICEBENCH_TEST_800")) {
		skip(4, "800 clients take minutes here; SLICEBENCH_TEST_800=1 runs them");
		return;
	}

	t.client_threads = 2;
	t.warmup_ns = 2 * NSEC_PER_SEC;
	t.duration_ns = 2 * NSEC_PER_SEC;
	for (size_t i = 0; i < ELEMENTSOF(drivers); i++) {
		const char *name = word_name(oltp_driver_words, drivers[i]);
		struct step_result r = {};
		uint64_t t0 = now_ns(), errors;
		bool busy = true;

		if (drivers[i] == OLTP_DRIVER_PGBENCH && !have_prereq("PGBENCH")) {
			skip(2, "pgbench is not installed");
			continue;
		}
		t.driver = drivers[i];
		int rc = oltp_step(&t, 800, &r);

		is_int(rc, 0, "%s, 800 clients on 2 threads: the step runs (%.1f s)", name, (double)(now_ns() - t0) / 1e9);
		errors = r.errors[OLTP_ERR_IGNORABLE] + r.errors[OLTP_ERR_RECONNECT] + r.errors[OLTP_ERR_FATAL];
		for (size_t s = 0; s < r.n_intervals; s++)
			busy = busy && r.intervals[s] > 0;
		ok(!r.failed && errors == 0 && r.n_intervals == 2 && busy && r.tps > 0,
		   "%s, 800 clients: %" PRIu64 " errors, %zu intervals, none silent, %.1f tps%s%s", name, errors,
		   r.n_intervals, r.tps, r.failed ? "; failed: " : "", r.failed ? r.reason : "");
		step_result_done(&r);
	}
}

static void *commit_later(void *arg)
{
	PGconn *c = arg;

	usleep(2500 * 1000);
	pg_exec(c, NULL, "COMMIT");
	return NULL;
}

/* Clients that take 2.5 s to connect: their statements cannot be prepared
 * while another session holds the accounts' lock.  --progress says so once
 * a second meanwhile, the record has the 2.5 s as its connection time, and
 * the measured second after it has no silent second in it. */
static void check_connecting(const struct oltp_options *o)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	_cleanup_pg_ PGconn *locker = NULL;
	struct oltp_options t = *o;
	struct step_result r = {};
	pthread_t committer;
	int fd, saved;

	xasprintf(&path, "%s/progress", scratch_dir());
	if (pg_connect(o, NULL, &locker, NULL) < 0 || pg_exec(locker, NULL, "BEGIN") < 0 ||
	    pg_exec(locker, NULL, "LOCK TABLE pgbench_accounts IN ACCESS EXCLUSIVE MODE") < 0)
		bail_out("cannot lock pgbench_accounts");
	t.client_threads = 2;
	t.duration_ns = NSEC_PER_SEC;
	t.progress = true;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (saved < 0 || fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		bail_out("cannot redirect stderr: %m");
	close(fd);
	pthread_create(&committer, NULL, commit_later, locker);
	oltp_step(&t, 4, &r);
	pthread_join(committer, NULL);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	if (read_file_str(path, &text) < 0)
		text = strdup("");
	if (!ok(strstr(text, "connecting: 0 of 4 clients\n") && strstr(text, "connected: 4 of 4 clients in "),
		"--progress says how many clients are connected while they connect"))
		diag("stderr:\n%s", text);
	ok(!r.failed && r.connect_s >= 2.4 && r.duration_s == 1.0 && r.n_intervals == 1 && r.intervals[0] > 0,
	   "the 2.5 s of connecting are the record's connection time (%.2f s), not in its measured second (%.1f tps)%s%s",
	   r.connect_s, r.tps, r.failed ? ": " : "", r.failed ? r.reason : "");
	step_result_done(&r);
}

static void *kill_later(void *arg)
{
	sleep(1);
	kill(*(pid_t *)arg, SIGKILL);
	return NULL;
}

int main(void)
{
	struct oltp_options o;
	struct step_result r = {};
	static struct test_pg pg; /* stopped at exit, after main returns */
	_cleanup_free_ char *history = NULL;
	pthread_t killer;
	uint64_t t0;

	require("ROOT POSTGRES");
	plan(66);
	test_pg_start(getenv("SLICEBENCH_TEST_800") ? 850 : 200, &pg);
	oltp_options_default(&o);
	o.workload = OLTP_WORKLOAD_SELECT_ONLY;
	o.socket = pg.socket_dir;
	o.scale = 2;
	o.duration_ns = 2 * NSEC_PER_SEC;
	o.server_pid = pg.pid;
	check_prepare(&o);

	o.client_threads = 1;
	check_step(&o, 1, 1);
	o.client_threads = 2;
	check_step(&o, 40, 1);
	o.workload = OLTP_WORKLOAD_TPCB_LIKE;
	check_step(&o, 4, 7);
	history = value(&o, "SELECT count(*) > 0 FROM pgbench_history");
	is_str(history, "t", "tpcb-like wrote pgbench_history");
	o.workload = OLTP_WORKLOAD_SELECT_ONLY;

	o.scale = 3;
	oltp_step(&o, 1, &r);
	ok(r.failed && strstr(r.reason, "has scale 2, not 3"), "a step at another scale than the data's fails: %s",
	   r.reason);
	step_result_done(&r);
	o.scale = 2;

	check_connecting(&o);
	check_statements(&o, &pg);
	check_pgbench_driver(&o);
	check_800_clients(&o);

	/* The server dies a second into a 10 s step. */
	o.duration_ns = 10 * NSEC_PER_SEC;
	pthread_create(&killer, NULL, kill_later, &pg.pid);
	t0 = now_ns();
	is_int(oltp_step(&o, 8, &r), 0, "a step whose server dies still returns a record");
	pthread_join(killer, NULL);
	waitpid(pg.pid, NULL, 0);
	pg.pid = 0;
	ok(r.failed, "the step is marked failed");
	ok(r.reason[0] != 0, "with a reason: %s", r.reason);
	cmp_ok((double)(now_ns() - t0) / 1e9, "<", 9, "and it ends soon after, not at the deadline");
	step_result_done(&r);
	return done_testing();
}

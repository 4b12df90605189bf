/* The dataset: sbtest1..N with sysbench oltp_common's schema and value
 * distributions, loaded in parallel with large multi-row inserts, and
 * checked (schema, index, row count) before it is reused. */
#include <errmsg.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#include "oltp/oltp.h"
#include "common/util.h"

#define MAX_LOAD_THREADS 16
#define ROWS_PER_INSERT 2000

static const char c_template[] = SBTEST_C_TEMPLATE;
static const char pad_template[] = SBTEST_PAD_TEMPLATE;

/* COLUMN_NAME:COLUMN_TYPE:IS_NULLABLE of information_schema, in order. */
static const char expected_columns[] = "id:int(11):NO,k:int(11):NO,c:char(120):NO,pad:char(60):NO";

struct load_job {
	const struct oltp_options *o;
	const unsigned *tables; /* the tables to work on: tables[first], tables[first+step], ... */
	unsigned n_tables, first, step;
	bool prewarm;
	int r;
	char *msg;
};

static bool db_name_is_valid(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static int vquery(MYSQL *m, char **ret_msg, const char *fmt, va_list ap)
{
	_cleanup_free_ char *sql = NULL;
	int n = vasprintf(&sql, fmt, ap);

	if (n < 0)
		return -ENOMEM;
	if (mysql_real_query(m, sql, (unsigned long)n) == 0)
		return 0;
	if (ret_msg && !*ret_msg)
		xasprintf(ret_msg, "%.80s%s: %s (%u)", sql, n > 80 ? "..." : "", mysql_error(m), mysql_errno(m));
	return -EIO;
}

static int query(MYSQL *m, char **ret_msg, const char *fmt, ...) _printf_(3, 4);
static int query(MYSQL *m, char **ret_msg, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vquery(m, ret_msg, fmt, ap);
	va_end(ap);
	return r;
}

/* The first column of the first row of a query, as a string ("" for no row). */
static int query_value(MYSQL *m, char **ret_msg, char **ret, const char *fmt, ...) _printf_(4, 5);
static int query_value(MYSQL *m, char **ret_msg, char **ret, const char *fmt, ...)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vquery(m, ret_msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return r;
	res = mysql_store_result(m);
	if (!res) {
		if (ret_msg && !*ret_msg)
			xasprintf(ret_msg, "no result: %s (%u)", mysql_error(m), mysql_errno(m));
		return -EIO;
	}
	row = mysql_fetch_row(res);
	*ret = strdup(row && row[0] ? row[0] : "");
	mysql_free_result(res);
	return *ret ? 0 : -ENOMEM;
}

/* 1: the table matches and can be reused; 0: it does not exist; -EEXIST with
 * *ret_msg: it exists and differs. */
static int check_table(MYSQL *m, const struct oltp_options *o, unsigned t, char **ret_msg)
{
	_cleanup_free_ char *columns = NULL, *index = NULL, *rows = NULL;
	int r;

	r = query_value(m, ret_msg, &columns,
			"SELECT GROUP_CONCAT(CONCAT_WS(':', COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE) "
			"ORDER BY ORDINAL_POSITION SEPARATOR ',') FROM information_schema.COLUMNS "
			"WHERE TABLE_SCHEMA='%s' AND TABLE_NAME='sbtest%u'",
			oltp_db(o), t);
	if (r < 0)
		return r;
	if (!*columns)
		return 0;
	if (!streq(columns, expected_columns)) {
		xasprintf(ret_msg, "table %s.sbtest%u exists with columns %s, not sysbench's %s", oltp_db(o), t, columns,
			  expected_columns);
		return -EEXIST;
	}
	r = query_value(m, ret_msg, &index,
			"SELECT GROUP_CONCAT(COLUMN_NAME) FROM information_schema.STATISTICS "
			"WHERE TABLE_SCHEMA='%s' AND TABLE_NAME='sbtest%u' AND INDEX_NAME='k_%u'",
			oltp_db(o), t, t);
	if (r < 0)
		return r;
	if (!streq(index, "k")) {
		xasprintf(ret_msg, "table %s.sbtest%u exists without the index k_%u on k (an interrupted load?)", oltp_db(o),
			  t, t);
		return -EEXIST;
	}
	r = query_value(m, ret_msg, &rows, "SELECT COUNT(*) FROM `%s`.sbtest%u", oltp_db(o), t);
	if (r < 0)
		return r;
	/* oltp_insert's own steps grow its tables: more rows are its dataset still. */
	if (strtoull(rows, NULL, 10) != o->table_size &&
	    !(oltp_workload_def(o->workload)->insert && strtoull(rows, NULL, 10) > o->table_size)) {
		xasprintf(ret_msg, "table %s.sbtest%u exists with %s rows, not --table-size %u", oltp_db(o), t, rows,
			  o->table_size);
		return -EEXIST;
	}
	return 1;
}

/* The rows of one table, generated as they are sent: k drawn with
 * rand.default as sysbench does (so --rand-type applies), c and pad from
 * their templates. */
struct row_source {
	const struct oltp_options *o;
	struct sbrand rand;
	unsigned rows_left;
	char line[16 + sizeof(c_template) + sizeof(pad_template)];
	size_t len, off;
};

static void next_row(struct row_source *s, const char *fmt)
{
	char c[sizeof(c_template)] = {}, pad[sizeof(pad_template)] = {};
	uint32_t k = sbrand_default(&s->rand, 1, s->o->table_size);

	sbrand_string(&s->rand, c_template, c);
	sbrand_string(&s->rand, pad_template, pad);
	s->len = (size_t)snprintf(s->line, sizeof(s->line), fmt, k, c, pad);
	s->off = 0;
	s->rows_left--;
}

static int infile_init(void **ptr, const char *filename _unused_, void *userdata)
{
	*ptr = userdata;
	return 0;
}

/* LOAD DATA LOCAL reads the "file" from here: tab-separated rows. */
static int infile_read(void *ptr, char *buf, unsigned int len)
{
	struct row_source *s = ptr;
	unsigned n = 0;

	while (n < len) {
		size_t chunk;

		if (s->off == s->len) {
			if (!s->rows_left)
				break;
			next_row(s, "%" PRIu32 "\t%s\t%s\n");
		}
		chunk = MIN((size_t)(len - n), s->len - s->off);
		memcpy(buf + n, s->line + s->off, chunk);
		s->off += chunk;
		n += (unsigned)chunk;
	}
	return (int)n;
}

static void infile_end(void *ptr _unused_)
{
}

static int infile_error(void *ptr _unused_, char *msg, unsigned int len)
{
	snprintf(msg, len, "the row generator failed");
	return CR_UNKNOWN_ERROR;
}

/* Multi-row INSERTs, for servers that refuse LOAD DATA LOCAL (MySQL 8's
 * local_infile defaults to OFF). */
static int insert_rows(MYSQL *m, unsigned t, struct row_source *src, char **ret_msg)
{
	_cleanup_free_ char *sql = malloc(64 + ROWS_PER_INSERT * sizeof(src->line));
	int r = 0;

	if (!sql)
		return -ENOMEM;
	while (r >= 0 && src->rows_left) {
		size_t len = (size_t)sprintf(sql, "INSERT INTO sbtest%u(k, c, pad) VALUES ", t);

		for (unsigned i = 0; i < ROWS_PER_INSERT && src->rows_left; i++) {
			next_row(src, "(%" PRIu32 ",'%s','%s')");
			len += (size_t)sprintf(sql + len, "%s%s", i ? "," : "", src->line);
		}
		r = query(m, ret_msg, "%s", sql);
	}
	return r;
}

static bool local_infile_refused(unsigned err)
{
	/* ER_NOT_ALLOWED_COMMAND, MySQL 8's ER_CLIENT_LOCAL_FILES_DISABLED, and
	 * the client's own CR_LOAD_DATA_LOCAL_INFILE_REJECTED. */
	return err == 1148 || err == 3948 || err == 2068;
}

static int load_table(MYSQL *m, const struct oltp_options *o, unsigned t, char **ret_msg)
{
	struct row_source src = { .o = o, .rows_left = o->table_size };
	int r;

	sbrand_init(&src.rand, &o->rand, (o->seed ? o->seed : now_ns()) ^ ((uint64_t)t << 32));
	r = query(m, ret_msg,
		  "CREATE TABLE sbtest%u(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
		  "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))",
		  t);
	/* One transaction into an empty table without unique and foreign key
	 * checks is InnoDB's bulk load (no undo log per row); LOAD DATA spares
	 * the server the SQL parser for every row. */
	if (r >= 0)
		r = query(m, ret_msg, "SET SESSION unique_checks=0, foreign_key_checks=0");
	if (r >= 0)
		r = query(m, ret_msg, "BEGIN");
	if (r >= 0) {
		mysql_set_local_infile_handler(m, infile_init, infile_read, infile_end, infile_error, &src);
		r = query(m, NULL, "LOAD DATA LOCAL INFILE 'sbtest%u' INTO TABLE sbtest%u (k, c, pad)", t, t);
		if (r < 0 && local_infile_refused(mysql_errno(m)) && src.rows_left == o->table_size)
			r = insert_rows(m, t, &src, ret_msg);
		else if (r < 0)
			xasprintf(ret_msg, "loading sbtest%u: %s (%u)", t, mysql_error(m), mysql_errno(m));
	}
	if (r >= 0)
		r = query(m, ret_msg, "COMMIT");
	if (r >= 0)
		r = query(m, ret_msg, "CREATE INDEX k_%u ON sbtest%u(k)", t, t);
	return r < 0 ? r : 0;
}

/* Read every page of the table: the clustered index through the PK, and the
 * secondary index through the k predicate. */
static int prewarm_table(MYSQL *m, const struct oltp_options *o, unsigned t, char **ret_msg)
{
	_cleanup_free_ char *a = NULL, *b = NULL;
	int r;

	r = query_value(m, ret_msg, &a, "SELECT AVG(id) FROM (SELECT * FROM sbtest%u FORCE KEY (PRIMARY) LIMIT %u) t",
			t, o->table_size);
	if (r >= 0)
		r = query_value(m, ret_msg, &b, "SELECT COUNT(*) FROM (SELECT * FROM sbtest%u WHERE k LIKE '%%0%%' LIMIT %u) t",
				t, o->table_size);
	return r;
}

static void *load_worker(void *arg)
{
	struct load_job *j = arg;
	_cleanup_mysql_ MYSQL *m = NULL;

	j->r = oltp_connect_flags(j->o, oltp_db(j->o), j->prewarm ? 0 : OLTP_CONNECT_LOCAL_INFILE, &m, &j->msg);
	for (unsigned i = j->first; j->r >= 0 && i < j->n_tables; i += j->step)
		j->r = (j->prewarm ? prewarm_table : load_table)(m, j->o, j->tables[i], &j->msg);
	return NULL;
}

static unsigned load_threads(const struct oltp_options *o)
{
	unsigned n = o->prepare_threads ? o->prepare_threads : o->tables;

	return MAX(1u, MIN(MIN(n, o->tables), MAX_LOAD_THREADS));
}

/* Runs the per-table work on the tables listed, on as many threads as
 * there are tables, up to the --prepare-threads limit; the first failure wins. */
static int run_jobs(const struct oltp_options *o, const unsigned *tables, unsigned n_tables, bool prewarm,
		    char **ret_msg)
{
	unsigned n = MIN(load_threads(o), n_tables);
	struct load_job jobs[MAX_LOAD_THREADS] = {};
	pthread_t threads[MAX_LOAD_THREADS];
	unsigned started = 0;
	int r = 0;

	for (unsigned i = 0; i < n; i++) {
		jobs[i] = (struct load_job){
			.o = o, .tables = tables, .n_tables = n_tables, .first = i, .step = n, .prewarm = prewarm
		};
		r = -pthread_create(&threads[i], NULL, load_worker, &jobs[i]);
		if (r < 0)
			break;
		started++;
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		if (jobs[i].r < 0 && r >= 0) {
			r = jobs[i].r;
			*ret_msg = jobs[i].msg;
			jobs[i].msg = NULL;
		}
		free(jobs[i].msg);
	}
	return r;
}

int sbtest_prepare(const struct oltp_options *o, char **ret_msg)
{
	_cleanup_mysql_ MYSQL *m = NULL;
	_cleanup_free_ unsigned *todo = NULL;
	unsigned missing = 0;
	int r;

	if (!db_name_is_valid(oltp_db(o))) {
		xasprintf(ret_msg, "bad database name '%s' (want letters, digits and _)", oltp_db(o));
		return -EINVAL;
	}
	r = oltp_connect(o, NULL, &m, ret_msg);
	if (r < 0)
		return r;
	r = query(m, ret_msg, "CREATE DATABASE IF NOT EXISTS `%s`", oltp_db(o));
	if (r < 0)
		return r;
	todo = calloc(o->tables, sizeof(*todo));
	if (!todo)
		return -ENOMEM;
	for (unsigned t = 1; t <= o->tables; t++) {
		r = check_table(m, o, t, ret_msg);
		if (r < 0)
			return r;
		if (r == 0)
			todo[missing++] = t;
	}
	return missing ? run_jobs(o, todo, missing, false, ret_msg) : 0;
}

int sbtest_prewarm(const struct oltp_options *o, char **ret_msg)
{
	_cleanup_free_ unsigned *all = calloc(o->tables, sizeof(*all));
	struct oltp_options warm = *o;

	if (!all)
		return -ENOMEM;
	for (unsigned t = 1; t <= o->tables; t++)
		all[t - 1] = t;
	/* A scan of a table from disk on a loaded host outlasts a step's read
	 * timeout (10 s): "Lost connection to server during query (2013)"
	 * cut 19 of 34 warm-ups short that way. */
	warm.timeout_s = MAX(o->timeout_s, OLTP_PREWARM_TIMEOUT_S);
	return run_jobs(&warm, all, o->tables, true, ret_msg);
}

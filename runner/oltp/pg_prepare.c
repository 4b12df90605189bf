/* pgbench's dataset: its four tables with pgbench -i's schema and values at
 * a scale factor, loaded with COPY from a row generator; a dataset that is
 * there is checked (columns, keys, rows) before it is reused.
 *
 * One transaction creates the tables and their primary keys and loads them
 * with COPY ... FREEZE: the keys are filled in aid order as the rows come
 * (the rightmost leaf, never a split in the middle), which comes out page
 * for page as pgbench -i's index built after the load, without its sort and
 * second pass over the table; the frozen rows leave pgbench's vacuum only
 * its ANALYZE; and an interrupted load leaves no table behind.  One stream:
 * FREEZE needs the creating transaction's connection, and parallel streams
 * into one table wait on its extension lock more than they gain. */
#include <stdio.h>

#include "oltp/pg.h"
#include "common/interrupt.h"
#include "common/util.h"

#define NACCOUNTS 100000 /* per unit of scale, as pgbench's naccounts */
#define COPY_BUF (256 * 1024)

/* One row per table, in pgbench -i's words. */
struct pg_table {
	const char *name;
	const char *columns;  /* pgbench -i's CREATE TABLE, after the name */
	const char *expected; /* name:type:nullable of pg_attribute, in order */
	unsigned per_scale;   /* rows per unit of scale; 0: any (the history) */
	const char *key;      /* the primary key's column; NULL: none */
};

static const struct pg_table tables[] = {
	{ "pgbench_history", "(tid int,bid int,aid int,delta int,mtime timestamp,filler char(22))",
	  "tid:integer:YES,bid:integer:YES,aid:integer:YES,delta:integer:YES,mtime:timestamp without time zone:YES,"
	  "filler:character(22):YES",
	  0, NULL },
	{ "pgbench_tellers", "(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=100)",
	  "tid:integer:NO,bid:integer:YES,tbalance:integer:YES,filler:character(84):YES", 10, "tid" },
	{ "pgbench_accounts", "(aid int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)",
	  "aid:integer:NO,bid:integer:YES,abalance:integer:YES,filler:character(84):YES", NACCOUNTS, "aid" },
	{ "pgbench_branches", "(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)",
	  "bid:integer:NO,bbalance:integer:YES,filler:character(88):YES", 1, "bid" },
};

/* 1: the table matches; 0: it does not exist; -EEXIST with *ret_msg: it
 * exists and differs. */
static int check_table(PGconn *c, const struct oltp_options *o, const struct pg_table *t, char **ret_msg)
{
	_cleanup_free_ char *columns = NULL, *keys = NULL, *rows = NULL;
	uint64_t want = (uint64_t)t->per_scale * o->scale;
	int r;

	r = pg_value(c, ret_msg, &columns,
		     "SELECT string_agg(attname || ':' || format_type(atttypid, atttypmod) || ':' || "
		     "CASE WHEN attnotnull THEN 'NO' ELSE 'YES' END, ',' ORDER BY attnum) FROM pg_attribute "
		     "WHERE attrelid = to_regclass('public.%s') AND attnum > 0 AND NOT attisdropped",
		     t->name);
	if (r < 0)
		return r;
	if (!*columns)
		return 0;
	if (!streq(columns, t->expected)) {
		xasprintf(ret_msg, "table %s.%s exists with columns %s, not pgbench's %s", oltp_db(o), t->name, columns,
			  t->expected);
		return -EEXIST;
	}
	if (!t->key)
		return 1;
	r = pg_value(c, ret_msg, &keys,
		     "SELECT count(*) FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = "
		     "i.indkey[0] WHERE i.indrelid = 'public.%s'::regclass AND i.indisprimary AND i.indnatts = 1 "
		     "AND a.attname = '%s'",
		     t->name, t->key);
	if (r < 0)
		return r;
	if (!streq(keys, "1")) {
		xasprintf(ret_msg, "table %s.%s exists without its primary key on %s (an interrupted pgbench -i?)", oltp_db(o),
			  t->name, t->key);
		return -EEXIST;
	}
	r = pg_value(c, ret_msg, &rows, "SELECT count(*) FROM %s", t->name);
	if (r < 0)
		return r;
	if (strtoull(rows, NULL, 10) != want) {
		xasprintf(ret_msg, "table %s.%s exists with %s rows, not the %llu of scale %u", oltp_db(o), t->name, rows,
			  (unsigned long long)want, o->scale);
		return -EEXIST;
	}
	return 1;
}

/* Decimal digits of v at p; returns the end. */
static char *put_u32(char *p, uint32_t v)
{
	char tmp[10];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* One COPY ... FROM STDIN WITH (FREEZE) of rows first..last (1-based) of a
 * table created in this transaction, each made by row() into a buffer that
 * is sent as it fills. */
static int copy_rows(PGconn *c, const char *table, uint32_t first, uint32_t last,
		     char *(*row)(char *p, uint32_t id), char **ret_msg)
{
	_cleanup_free_ char *buf = malloc(COPY_BUF);
	_cleanup_pgresult_ PGresult *res = NULL;
	size_t len = 0;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	snprintf(buf, COPY_BUF, "COPY %s FROM STDIN WITH (FREEZE)", table);
	res = PQexec(c, buf);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		if (ret_msg && !*ret_msg)
			xasprintf(ret_msg, "%s: %.*s", buf, (int)strcspn(PQerrorMessage(c), "\n"), PQerrorMessage(c));
		return -EIO;
	}
	PQclear(res);
	for (uint32_t id = first; id <= last && r >= 0; id++) {
		len = (size_t)(row(buf + len, id) - buf);
		if (len > COPY_BUF - 128 || id == last) {
			r = PQputCopyData(c, buf, (int)len) == 1 ? 0 : -EIO;
			len = 0;
			/* A signal ends the load; the server drops what was sent. */
			if (interrupt_signal)
				r = -EINTR;
		}
	}
	if (PQputCopyEnd(c, r == -EINTR ? "interrupted" : r < 0 ? "the row generator failed" : NULL) != 1 && r >= 0)
		r = -EIO;
	res = PQgetResult(c);
	if (PQresultStatus(res) != PGRES_COMMAND_OK && r >= 0) {
		if (ret_msg && !*ret_msg)
			xasprintf(ret_msg, "loading %s: %.*s", table, (int)strcspn(PQerrorMessage(c), "\n"),
				  PQerrorMessage(c));
		r = -EIO;
	}
	while ((res = (PQclear(res), PQgetResult(c))))
		;
	return r;
}

/* pgbench -i's values: branches and tellers with a NULL filler, accounts
 * with an empty one (blank-padded by the server). */
static char *branch_row(char *p, uint32_t bid)
{
	p = put_u32(p, bid);
	memcpy(p, "\t0\t\\N\n", 6);
	return p + 6;
}

static char *teller_row(char *p, uint32_t tid)
{
	p = put_u32(p, tid);
	*p++ = '\t';
	p = put_u32(p, (tid - 1) / 10 + 1);
	memcpy(p, "\t0\t\\N\n", 6);
	return p + 6;
}

static char *account_row(char *p, uint32_t aid)
{
	p = put_u32(p, aid);
	*p++ = '\t';
	p = put_u32(p, (aid - 1) / NACCOUNTS + 1);
	memcpy(p, "\t0\t\n", 4);
	return p + 4;
}

static int load(PGconn *c, const struct oltp_options *o, char **ret_msg)
{
	int r = pg_exec(c, ret_msg, "BEGIN");

	for (size_t i = 0; i < ELEMENTSOF(tables) && r >= 0; i++) {
		r = pg_exec(c, ret_msg, "CREATE TABLE %s%s", tables[i].name, tables[i].columns);
		if (r >= 0 && tables[i].key)
			r = pg_exec(c, ret_msg, "ALTER TABLE %s ADD PRIMARY KEY (%s)", tables[i].name, tables[i].key);
	}
	if (r >= 0)
		r = copy_rows(c, "pgbench_branches", 1, o->scale, branch_row, ret_msg);
	if (r >= 0)
		r = copy_rows(c, "pgbench_tellers", 1, 10 * o->scale, teller_row, ret_msg);
	if (r >= 0)
		r = copy_rows(c, "pgbench_accounts", 1, NACCOUNTS * o->scale, account_row, ret_msg);
	/* On failure the caller's PQfinish() rolls it all back. */
	if (r >= 0)
		r = pg_exec(c, ret_msg, "COMMIT");
	/* pgbench -i's step after the data: on frozen rows, its statistics. */
	for (size_t i = 0; i < ELEMENTSOF(tables) && r >= 0; i++)
		r = pg_exec(c, ret_msg, "VACUUM ANALYZE %s", tables[i].name);
	return r;
}

static bool db_name_is_valid(const char *s)
{
	if (!*s || strlen(s) > 63)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static int ensure_database(const struct oltp_options *o, char **ret_msg)
{
	_cleanup_pg_ PGconn *c = NULL;
	_cleanup_free_ char *exists = NULL;
	int r;

	if (!db_name_is_valid(oltp_db(o))) {
		xasprintf(ret_msg, "bad database name '%s' (want lower-case letters, digits and _)", oltp_db(o));
		return -EINVAL;
	}
	r = pg_connect(o, "postgres", &c, ret_msg);
	if (r >= 0)
		r = pg_value(c, ret_msg, &exists, "SELECT 1 FROM pg_database WHERE datname = '%s'", oltp_db(o));
	if (r >= 0 && !*exists)
		r = pg_exec(c, ret_msg, "CREATE DATABASE %s", oltp_db(o));
	return r;
}

int pgbench_prepare(const struct oltp_options *o, char **ret_msg)
{
	_cleanup_pg_ PGconn *c = NULL;
	const struct pg_table *missing = NULL, *present = NULL;
	int r;

	if (o->scale == 0 || (uint64_t)o->scale * NACCOUNTS > INT32_MAX) {
		xasprintf(ret_msg, "scale %u is out of range (1 to %d)", o->scale, INT32_MAX / NACCOUNTS);
		return -EINVAL;
	}
	r = ensure_database(o, ret_msg);
	if (r >= 0)
		r = pg_connect(o, NULL, &c, ret_msg);
	if (r >= 0)
		/* pgbench's statements name the tables unqualified. */
		r = pg_exec(c, ret_msg, "SET search_path = public");
	for (size_t i = 0; i < ELEMENTSOF(tables) && r >= 0; i++) {
		r = check_table(c, o, &tables[i], ret_msg);
		if (r == 0)
			missing = &tables[i];
		else if (r > 0)
			present = &tables[i];
	}
	if (r < 0)
		return r;
	if (missing && present) {
		xasprintf(ret_msg, "table %s.%s is missing beside %s (an interrupted pgbench -i?)", oltp_db(o), missing->name,
			  present->name);
		return -EEXIST;
	}
	return missing ? load(c, o, ret_msg) : 0;
}

/* Shared buffers filled with the tables and keys the scripts read, by
 * pg_prewarm where the server has it; else a scan warms the OS cache. */
int pgbench_prewarm(const struct oltp_options *o, char **ret_msg)
{
	static const char *const relations[] = { "pgbench_accounts", "pgbench_accounts_pkey", "pgbench_branches",
						  "pgbench_branches_pkey", "pgbench_tellers", "pgbench_tellers_pkey" };
	_cleanup_pg_ PGconn *c = NULL;
	int r;

	r = pg_connect(o, NULL, &c, ret_msg);
	if (r < 0)
		return r;
	if (pg_exec(c, NULL, "CREATE EXTENSION IF NOT EXISTS pg_prewarm") < 0) {
		for (size_t i = 0; i < ELEMENTSOF(tables) && r >= 0; i++)
			if (tables[i].key)
				r = pg_exec(c, ret_msg, "SELECT count(*) FROM %s", tables[i].name);
		return r;
	}
	for (size_t i = 0; i < ELEMENTSOF(relations) && r >= 0; i++)
		r = pg_exec(c, ret_msg, "SELECT pg_prewarm('%s')", relations[i]);
	return r;
}


int pgbench_scale_of(PGconn *c, unsigned *ret)
{
	_cleanup_free_ char *v = NULL;
	long n;
	int r = pg_value(c, NULL, &v, "SELECT count(*) FROM pgbench_branches");

	if (r < 0)
		return r;
	if (parse_int_range(v, 0, INT32_MAX, &n) < 0)
		return -EBADMSG;
	*ret = (unsigned)n;
	return 0;
}

/* The workloads, one row each (struct oltp_workload_def), and the calls
 * that hand a step, a prepare or a warm-up to the row of o->workload. */
#include <stdio.h>

#include "oltp/options.h"
#include "oltp/pg.h"
#include "common/util.h"

/* The dataset's size as each tool says it: pgbench's scale (100,000
 * accounts each), sysbench's tables of rows. */
static void pgbench_data_size(const struct oltp_options *o, char *buf, size_t len)
{
	snprintf(buf, len, "pgbench's scale %u (%llu accounts)", o->scale, 100000ULL * o->scale);
}

static void sbtest_data_size(const struct oltp_options *o, char *buf, size_t len)
{
	snprintf(buf, len, "%u x %u rows", o->tables, o->table_size);
}

/* pgbench's built-in scripts differ only in their statements (oltp/pg_step.c). */
#define PGBENCH_DATASET                                                     \
	.protocol = "postgresql", .db = "pgbench", .unit = "clients", .unit_one = "client", \
	.data_size = pgbench_data_size, \
	.tool = OLTP_DRIVER_PGBENCH, .prepare = pgbench_prepare, .prewarm = pgbench_prewarm, \
	.run_tool = pgbench_tool_step
#define PGBENCH_WORKLOAD_ROW PGBENCH_DATASET, .run_native = pgbench_run_step

/* sysbench's OLTP scripts differ only in what an event runs (oltp/step.c). */
#define SYSBENCH_DATASET                                                        \
	.protocol = "mysql", .db = "sbtest", .unit = "threads", .unit_one = "thread", .tool = OLTP_DRIVER_SYSBENCH, \
	.data_size = sbtest_data_size, \
	.prepare = sbtest_prepare, .prewarm = sbtest_prewarm, \
	.run_tool = sysbench_run_step
#define SYSBENCH_WORKLOAD SYSBENCH_DATASET, .run_native = oltp_run_step

static const struct oltp_workload_def workloads[_OLTP_WORKLOAD_MAX] = {
	/* --point-selects=10 and one of each range, in a transaction */
	[OLTP_WORKLOAD_READ_ONLY] = { SYSBENCH_WORKLOAD, .script = "oltp_read_only", .transaction = true,
				      .point_selects = 10, .ranges = true },
	[OLTP_WORKLOAD_SELECT_ONLY] = { PGBENCH_WORKLOAD_ROW },
	/* one point select an event, no transaction: the proxy study's workload */
	[OLTP_WORKLOAD_POINT_SELECT] = { SYSBENCH_WORKLOAD, .script = "oltp_point_select", .point_selects = 1 },
	/* oltp_read_only's event, then one index update, one non-index update
	 * and one delete/insert pair, in one transaction */
	[OLTP_WORKLOAD_READ_WRITE] = { SYSBENCH_WORKLOAD, .script = "oltp_read_write", .transaction = true,
				       .point_selects = 10, .ranges = true, .index_updates = 1, .non_index_updates = 1,
				       .delete_inserts = 1 },
	/* the writes of oltp_read_write alone, in one transaction */
	[OLTP_WORKLOAD_WRITE_ONLY] = { SYSBENCH_WORKLOAD, .script = "oltp_write_only", .transaction = true,
				       .index_updates = 1, .non_index_updates = 1, .delete_inserts = 1 },
	/* one UPDATE of k an event, autocommitted */
	[OLTP_WORKLOAD_UPDATE_INDEX] = { SYSBENCH_WORKLOAD, .script = "oltp_update_index", .index_updates = 1 },
	/* one INSERT of a new row an event (id 0: the AUTO_INCREMENT's), autocommitted */
	[OLTP_WORKLOAD_INSERT] = { SYSBENCH_WORKLOAD, .script = "oltp_insert", .insert = true },
	[OLTP_WORKLOAD_TPCB_LIKE] = { PGBENCH_WORKLOAD_ROW },
	/* the user's own: sysbench's dataset, the script run by sysbench */
	[OLTP_WORKLOAD_LUA_SCRIPT] = { SYSBENCH_DATASET, .user_script = true },
	/* the user's own: pgbench's dataset, the scripts run by pgbench -f */
	[OLTP_WORKLOAD_PGBENCH_SCRIPT] = { PGBENCH_DATASET, .user_script = true },
};

const struct word oltp_workload_words[] = {
	{ "oltp_read_only", OLTP_WORKLOAD_READ_ONLY },
	{ "select-only", OLTP_WORKLOAD_SELECT_ONLY },
	{ "tpcb-like", OLTP_WORKLOAD_TPCB_LIKE },
	{ "oltp_point_select", OLTP_WORKLOAD_POINT_SELECT },
	{ "oltp_read_write", OLTP_WORKLOAD_READ_WRITE },
	{ "oltp_write_only", OLTP_WORKLOAD_WRITE_ONLY },
	{ "oltp_update_index", OLTP_WORKLOAD_UPDATE_INDEX },
	{ "oltp_insert", OLTP_WORKLOAD_INSERT },
	{ "lua-script", OLTP_WORKLOAD_LUA_SCRIPT },
	{ "pgbench-script", OLTP_WORKLOAD_PGBENCH_SCRIPT },
	{},
};


const struct word oltp_figure_words[] = {
	{ "latency", OLTP_FIGURE_LATENCY },
	{ "per-second", OLTP_FIGURE_SECONDS },
	{ "telemetry", OLTP_FIGURE_SAMPLES },
	{ "thread-counters", OLTP_FIGURE_THREADS },
	{},
};

const struct oltp_workload_def *oltp_workload_def(enum oltp_workload w)
{
	return (unsigned)w < _OLTP_WORKLOAD_MAX ? &workloads[w] : &workloads[OLTP_WORKLOAD_READ_ONLY];
}

const char *oltp_workload_name(enum oltp_workload w)
{
	return word_name(oltp_workload_words, w) ?: "unknown";
}

const char *oltp_workload_list(const char *protocol)
{
	static char lists[3][256];
	char *buf = lists[!protocol ? 0 : streq(protocol, "mysql") ? 1 : 2];
	size_t n = 0, off = 0, i = 0;

	if (*buf)
		return buf;
	for (size_t w = 0; w < ELEMENTSOF(workloads); w++)
		n += (!protocol || streq(workloads[w].protocol, protocol)) && !workloads[w].user_script;
	for (size_t w = 0; w < ELEMENTSOF(workloads) && off < sizeof(lists[0]); w++) {
		if ((protocol && !streq(workloads[w].protocol, protocol)) || workloads[w].user_script)
			continue;
		i++;
		off += (size_t)snprintf(buf + off, sizeof(lists[0]) - off, "%s%s", i == 1 ? "" : i == n ? " or " : ", ",
					oltp_workload_name((enum oltp_workload)w));
	}
	return buf;
}

int oltp_driver_check(enum oltp_workload w, enum oltp_driver d, char **ret_why)
{
	const struct oltp_workload_def *def = oltp_workload_def(w);

	*ret_why = NULL;
	if (d == def->tool || (d == OLTP_DRIVER_NATIVE && def->run_native))
		return 0;
	if (!def->run_native) {
		if (xasprintf(ret_why, "the user's script runs with the %s driver", word_name(oltp_driver_words, def->tool)) < 0)
			return -ENOMEM;
		return -EINVAL;
	}
	if (xasprintf(ret_why, "%s runs with the slicebench or the %s driver", oltp_workload_name(w),
		      word_name(oltp_driver_words, def->tool)) < 0)
		return -ENOMEM;
	return -EINVAL;
}

const char *oltp_size_unit(enum oltp_workload w, long long n)
{
	const struct oltp_workload_def *d = oltp_workload_def(w);

	return n == 1 ? d->unit_one : d->unit;
}

const char *oltp_db(const struct oltp_options *o)
{
	return o->db ? o->db : oltp_workload_def(o->workload)->db;
}

int oltp_step(const struct oltp_options *o, unsigned threads, struct step_result *ret)
{
	const struct oltp_workload_def *def = oltp_workload_def(o->workload);
	int r = (o->driver == OLTP_DRIVER_NATIVE ? def->run_native : def->run_tool)(o, threads, ret);

	/* Whatever the driver, a server that answered nothing for seconds
	 * did not give a good step. */
	if (r >= 0)
		step_result_judge(o, ret);
	return r;
}

/* The message is built in any case and handed over only if asked for. */
static int with_message(int (*f)(const struct oltp_options *, char **), const struct oltp_options *o,
			char **ret_msg)
{
	_cleanup_free_ char *msg = NULL;
	int r = f(o, &msg);

	if (ret_msg) {
		*ret_msg = msg;
		msg = NULL;
	}
	return r;
}

int oltp_prepare(const struct oltp_options *o, char **ret_msg)
{
	return with_message(oltp_workload_def(o->workload)->prepare, o, ret_msg);
}

int oltp_prewarm(const struct oltp_options *o, char **ret_msg)
{
	return with_message(oltp_workload_def(o->workload)->prewarm, o, ret_msg);
}

/* The native driver: one measured step of sysbench's oltp_read_only at a
 * given thread count, with one connection and one set of server-side
 * prepared statements per thread. */
#include <mysqld_error.h>
#include <errmsg.h>

#include "oltp.h"
#include "util.h"

void oltp_options_default(struct oltp_options *o)
{
	*o = (struct oltp_options){
		.user = "root",
		.db = "sbtest",
		.tables = 1,
		.table_size = 10000,
		.range_size = 100,
		.duration_ns = 10 * NSEC_PER_SEC,
		.max_reconnects = 3,
		.timeout_s = 10,
		.sysbench_path = "sysbench",
	};
	sbrand_params_default(&o->rand);
}

/* sysbench's defaults for --mysql-ignore-errors, and the codes after which
 * its before_restart_event hook reconnects and prepares again. */
enum oltp_err_class oltp_classify_error(unsigned mysql_errno)
{
	switch (mysql_errno) {
	case ER_LOCK_DEADLOCK:
	case ER_CHECKREAD:
	case ER_LOCK_WAIT_TIMEOUT:
		return OLTP_ERR_IGNORABLE;
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_SERVER_LOST_EXTENDED:
	case CR_TCP_CONNECTION:
		return OLTP_ERR_RECONNECT;
	default:
		return OLTP_ERR_FATAL;
	}
}

/* The one place that opens a connection to the server under test. */
#include <errmsg.h>

#include "oltp/oltp.h"
#include "slices/snapshot.h"
#include "common/util.h"

int oltp_connect_flags(const struct oltp_options *o, const char *db, unsigned flags, MYSQL **ret, char **ret_msg)
{
	unsigned timeout = o->timeout_s, local_infile = !!(flags & OLTP_CONNECT_LOCAL_INFILE);
	MYSQL *m = mysql_init(NULL);

	if (!m)
		return -ENOMEM;
	mysql_options(m, MYSQL_OPT_LOCAL_INFILE, &local_infile);
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &timeout);
	mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
	if (!mysql_real_connect(m, NULL, o->user, NULL, db, 0, o->socket, 0)) {
		if (ret_msg)
			xasprintf(ret_msg, "cannot connect to %s as %s: %s (%u)", o->socket, o->user, mysql_error(m),
				  mysql_errno(m));
		mysql_close(m);
		return -ECONNREFUSED;
	}
	*ret = m;
	return 0;
}

int mysql_server_facts(const struct oltp_options *o, struct placement *p)
{
	/* What the server made of its placement: with 1024 descriptors mysqld
	 * quietly lowers max_connections and table_open_cache. */
	static const char sql[] = "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('open_files_limit', 'max_connections', "
				  "'table_open_cache', 'table_open_cache_instances', 'innodb_numa_interleave', "
				  "'innodb_buffer_pool_size', 'thread_handling', 'version')";
	_cleanup_mysql_ MYSQL *m = NULL;
	MYSQL_RES *res;
	MYSQL_ROW row;
	int r;

	r = oltp_connect(o, NULL, &m, NULL);
	if (r < 0)
		return r;
	if (mysql_real_query(m, sql, sizeof(sql) - 1) != 0 || !(res = mysql_store_result(m)))
		return -EIO;
	while (r >= 0 && (row = mysql_fetch_row(res))) {
		_cleanup_free_ char *key = NULL;

		r = xasprintf(&key, "server.%s", row[0]);
		if (r >= 0)
			r = placement_set(p, key, row[1] ? row[1] : "");
	}
	mysql_free_result(res);
	return r < 0 ? r : 0;
}

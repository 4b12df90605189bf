/* The one place that opens a connection to the server under test. */
#include <errmsg.h>

#include "oltp/oltp.h"
#include "common/util.h"

int oltp_connect_flags(const struct oltp_options *o, const char *db, unsigned flags, MYSQL **ret, char **ret_msg)
{
	unsigned timeout = o->timeout_s, local_infile = !!(flags & OLTP_CONNECT_LOCAL_INFILE);
	MYSQL *m = mysql_init(NULL);

	if (!m)
		return -ENOMEM;
	mysql_options(m, MYSQL_OPT_LOCAL_INFILE, &local_infile);
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	/* libmariadb with a read timeout reads without blocking and polls: an
	 * EAGAIN and a poll() for nearly every query. */
	if (!(flags & OLTP_CONNECT_WATCHED)) {
		mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &timeout);
		mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
	}
	if (!mysql_real_connect(m, NULL, o->user, o->password, db, 0, o->socket, 0)) {
		if (ret_msg)
			xasprintf(ret_msg, "cannot connect to %s as %s: %s (%u)", o->socket, o->user, mysql_error(m),
				  mysql_errno(m));
		mysql_close(m);
		return -ECONNREFUSED;
	}
	*ret = m;
	return 0;
}

/* The cross-check: the same step run by the real pgbench, with its report
 * parsed into the same record. */
#include <stdio.h>

#include "oltp/pg.h"
#include "common/util.h"

int pgbench_tool_step(const struct oltp_options *o _unused_, unsigned clients, struct step_result *ret)
{
	step_result_start(ret, OLTP_DRIVER_PGBENCH, clients);
	ret->failed = true;
	snprintf(ret->reason, sizeof(ret->reason), "not yet");
	return 0;
}

/* Other processes busy on the CPUs: a measurement beside them measures
 * them too.  Sampled from /proc over a short interval. */
#pragma once

#include <stdint.h>

/* "mariadbd (PID 36, 42% of a CPU), postgres (PID 80, 11%)": the processes
 * other than ours (this process, its ancestors and descendants) that used
 * at least min_percent of a CPU over interval_ms; *ret is NULL if none. */
int host_busy_processes(unsigned interval_ms, unsigned min_percent, char **ret);

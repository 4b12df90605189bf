/* Other processes busy on the CPUs: a measurement beside them measures
 * them too.  Sampled from /proc over a short interval. */
#pragma once

#include <stdint.h>

/* The host over interval_ms: its load average and CPUs, the CPUs busy
 * (/proc/stat's, the host's also in a container), those of our processes
 * (this one, its ancestors and descendants) and the rest; and the other
 * processes this PID namespace sees that used at least min_percent of a
 * CPU: "mariadbd (PID 36, 42% of a CPU), postgres (PID 80, 11% of a
 * CPU)", NULL if none.  Whether that is busy: host_is_busy(other_cpus)
 * (common/load.h). */
struct host_busy {
	double load1;
	unsigned n_cpus;
	double busy_cpus, ours_cpus, other_cpus;
	char *processes;
};
int host_busy_sample(unsigned interval_ms, unsigned min_percent, struct host_busy *ret);
void host_busy_done(struct host_busy *b);
/* "load 5.21 on 2 CPUs, 1.63 CPUs in use outside slicebench's processes
 * (cc1 (PID 80, 95% of a CPU))". */
int host_busy_describe(const struct host_busy *b, char **ret);
/* A warning, "VERB: the host is busy, and CONSEQUENCE: ...", if it is. */
void host_warn_if_busy(const char *verb, const char *consequence);

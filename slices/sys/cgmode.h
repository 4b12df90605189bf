/* Which cgroup layout the machine (or sandbox) runs, and where a process
 * sits in it: the one reader of the mounts' types and of /proc/PID/cgroup. */
#pragma once

#include <sys/types.h>

enum cgroup_mode {
	CGROUP_LEGACY = 1,
	CGROUP_HYBRID = 2,
	CGROUP_UNIFIED = 4,
};
#define CGROUP_V1 (CGROUP_LEGACY | CGROUP_HYBRID)
#define CGROUP_ANY (CGROUP_V1 | CGROUP_UNIFIED)

/* The same test systemd makes: what is mounted, not what is compiled in.
 * *ret_v2_path (if not NULL) is the v2 hierarchy's mount point, NULL on
 * legacy.  -ENOENT when nothing is mounted at /sys/fs/cgroup. */
int cgroup_mode_probe(enum cgroup_mode *ret_mode, const char **ret_v2_path);
/* cgroup_mode_probe(), taken as legacy when nothing is mounted. */
enum cgroup_mode cgroup_mode_detect(void);
const char *cgroup_mode_to_string(enum cgroup_mode m);

/* Calls f for each line of /proc/PID/cgroup, with the hierarchy's
 * controllers ("" for v2, "cpu,cpuacct", "name=systemd"; f may write into
 * it) and the cgroup's path.  f returns 0 to go on, >0 to stop there, <0 to
 * stop with that error.  Returns f's last value, or -errno. */
int cgroup_foreach_of_pid(pid_t pid, int (*f)(char *controllers, const char *path, void *userdata), void *userdata);

/* The directory of pid's cpu cgroup in cgroupfs, as /sys/fs/cgroup/cpu/PATH. */
int cgroup_cpu_dir(pid_t pid, enum cgroup_mode mode, char **ret);
/* The directory counting pid's cgroup's CPU time: v2's (cpu.stat's
 * usage_usec), or v1's cpuacct hierarchy (cpuacct.usage). */
int cgroup_usage_dir(pid_t pid, enum cgroup_mode mode, char **ret);
/* That directory, if it counts pid and its descendants alone: -EBUSY if
 * it is a hierarchy's root or holds another process. */
int cgroup_own_usage_dir(pid_t pid, enum cgroup_mode mode, char **ret);

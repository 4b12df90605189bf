/* Which cgroup layout the machine (or sandbox) runs. */
#pragma once

enum cgroup_mode {
	CGROUP_LEGACY = 1,
	CGROUP_HYBRID = 2,
	CGROUP_UNIFIED = 4,
};
#define CGROUP_V1 (CGROUP_LEGACY | CGROUP_HYBRID)
#define CGROUP_ANY (CGROUP_V1 | CGROUP_UNIFIED)

enum cgroup_mode cgroup_mode_detect(void);
const char *cgroup_mode_to_string(enum cgroup_mode m);

#include <sys/types.h>
/* The directory of pid's cpu cgroup in cgroupfs, as /sys/fs/cgroup/cpu/PATH. */
int cgroup_cpu_dir(pid_t pid, enum cgroup_mode mode, char **ret);

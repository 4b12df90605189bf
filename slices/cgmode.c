#include "cgmode.h"

#include <stdbool.h>
#include <linux/magic.h>
#include <sys/vfs.h>

static bool is_cgroup2(const char *path)
{
	struct statfs fs;
	return statfs(path, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

enum cgroup_mode cgroup_mode_detect(void)
{
	if (is_cgroup2("/sys/fs/cgroup"))
		return CGROUP_UNIFIED;
	if (is_cgroup2("/sys/fs/cgroup/unified"))
		return CGROUP_HYBRID;
	return CGROUP_LEGACY;
}

const char *cgroup_mode_to_string(enum cgroup_mode m)
{
	switch (m) {
	case CGROUP_LEGACY:
		return "legacy";
	case CGROUP_HYBRID:
		return "hybrid";
	case CGROUP_UNIFIED:
		return "unified";
	}
	return "unknown";
}

#include "slices/cgmode.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include "common/util.h"

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

/* The cpu controller's directory of pid: v1 is mounted at /sys/fs/cgroup/cpu
 * (a link to cpu,cpuacct on Debian), v2 at /sys/fs/cgroup itself. */
int cgroup_cpu_dir(pid_t pid, enum cgroup_mode mode, char **ret)
{
	char path[64], line[4096];
	FILE *f;
	int r = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *controllers = strchr(line, ':'), *cg;
		bool match = false;

		if (!controllers || !(cg = strchr(controllers + 1, ':')))
			continue;
		*cg++ = 0;
		controllers++;
		cg[strcspn(cg, "\n")] = 0;
		if (mode == CGROUP_UNIFIED)
			match = *controllers == 0;
		else
			for (char *save = NULL, *tok = strtok_r(controllers, ",", &save); tok && !match;
			     tok = strtok_r(NULL, ",", &save))
				match = strcmp(tok, "cpu") == 0;
		if (match) {
			r = asprintf(ret, "/sys/fs/cgroup%s%s", mode == CGROUP_UNIFIED ? "" : "/cpu",
				     streq(cg, "/") ? "" : cg) < 0 ? -ENOMEM : 0;
			break;
		}
	}
	fclose(f);
	return r;
}

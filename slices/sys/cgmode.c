#include "slices/sys/cgmode.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include "common/util.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

static bool is_cgroup2(const char *path)
{
	struct statfs fs;
	return statfs(path, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

int cgroup_mode_probe(enum cgroup_mode *ret_mode, const char **ret_v2_path)
{
	struct statfs fs;
	const char *v2 = NULL;

	if (is_cgroup2(CGROUP_ROOT)) {
		*ret_mode = CGROUP_UNIFIED;
		v2 = CGROUP_ROOT;
	} else if (is_cgroup2(CGROUP_ROOT "/unified")) {
		*ret_mode = CGROUP_HYBRID;
		v2 = CGROUP_ROOT "/unified";
	} else if (statfs(CGROUP_ROOT, &fs) == 0)
		*ret_mode = CGROUP_LEGACY;
	else
		return -ENOENT;
	if (ret_v2_path)
		*ret_v2_path = v2;
	return 0;
}

enum cgroup_mode cgroup_mode_detect(void)
{
	enum cgroup_mode mode;

	return cgroup_mode_probe(&mode, NULL) < 0 ? CGROUP_LEGACY : mode;
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

int cgroup_foreach_of_pid(pid_t pid, int (*f)(char *controllers, const char *path, void *userdata), void *userdata)
{
	char path[64], line[4096];
	_cleanup_fclose_ FILE *file = NULL;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	file = fopen(path, "re");
	if (!file)
		return -errno;
	/* "ID:CONTROLLERS:PATH", CONTROLLERS empty for the v2 hierarchy. */
	while (r == 0 && fgets(line, sizeof(line), file)) {
		char *controllers = strchr(line, ':'), *cg;

		if (!controllers || !(cg = strchr(controllers + 1, ':')))
			continue;
		*cg++ = 0;
		controllers++;
		cg[strcspn(cg, "\n")] = 0;
		r = f(controllers, cg, userdata);
	}
	return r;
}

struct cpu_dir {
	enum cgroup_mode mode;
	const char *controller; /* v1's hierarchy: "cpu", "cpuacct" */
	char **ret;
};

static int match_cpu(char *controllers, const char *cg, void *userdata)
{
	struct cpu_dir *d = userdata;
	bool match = false;

	if (d->mode == CGROUP_UNIFIED)
		match = *controllers == 0;
	else
		for (char *save = NULL, *tok = strtok_r(controllers, ",", &save); tok && !match;
		     tok = strtok_r(NULL, ",", &save))
			match = streq(tok, d->controller);
	if (!match)
		return 0;
	return xasprintf(d->ret, CGROUP_ROOT "%s%s%s", d->mode == CGROUP_UNIFIED ? "" : "/",
			 d->mode == CGROUP_UNIFIED ? "" : d->controller, streq(cg, "/") ? "" : cg) < 0
		       ? -ENOMEM
		       : 1;
}

/* The cpu controller's directory of pid: v1 is mounted at /sys/fs/cgroup/cpu
 * (a link to cpu,cpuacct on Debian), v2 at /sys/fs/cgroup itself. */
int cgroup_cpu_dir(pid_t pid, enum cgroup_mode mode, char **ret)
{
	struct cpu_dir d = { .mode = mode, .controller = "cpu", .ret = ret };
	int r = cgroup_foreach_of_pid(pid, match_cpu, &d);

	return r > 0 ? 0 : r == 0 ? -ENOENT : r;
}

/* cpuacct is a hierarchy of its own on some v1 hosts, beside cpu's. */
int cgroup_usage_dir(pid_t pid, enum cgroup_mode mode, char **ret)
{
	struct cpu_dir d = { .mode = mode, .controller = "cpuacct", .ret = ret };
	int r = cgroup_foreach_of_pid(pid, match_cpu, &d);

	return r > 0 ? 0 : r == 0 ? -ENOENT : r;
}

/* The usage directory, if it is pid's own: not a hierarchy's root, and
 * every process in it pid or one of its descendants (a server forked into
 * a cpu cgroup of its own may sit in slicebench's cpuacct cgroup, with the
 * client). */
int cgroup_own_usage_dir(pid_t pid, enum cgroup_mode mode, char **ret)
{
	_cleanup_free_ char *dir = NULL, *path = NULL, *procs = NULL;
	int r;

	r = cgroup_usage_dir(pid, mode, &dir);
	if (r < 0)
		return r;
	if (streq(dir, CGROUP_ROOT) || streq(dir, CGROUP_ROOT "/cpuacct"))
		return -EBUSY;
	if (xasprintf(&path, "%s/cgroup.procs", dir) < 0)
		return -ENOMEM;
	r = read_file_str(path, &procs);
	if (r < 0)
		return r;
	for (const char *p = procs; *p; p += strcspn(p, "\n"), p += strspn(p, "\n"))
		if (!proc_descends_from((pid_t)atoi(p), pid))
			return -EBUSY;
	*ret = dir;
	dir = NULL;
	return 0;
}

/* Readers of the attribute table (slices/attr/props.c): how each attribute
 * is read from a running server (/proc, cgroupfs) into the placement.
 * Every value is a string; what cannot be read is simply absent. */
#include <dirent.h>
#include <inttypes.h>
#include <pwd.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "slices/attr/attrs.h"
#include "slices/attr/props.h"
#include "common/secret.h"
#include "common/util.h"

void attr_reader_done(struct attr_reader *r)
{
	free(r->status);
	free(r->limits);
	r->status = r->limits = NULL;
}

static int proc_file(struct attr_reader *r, const char *name, char **cache)
{
	char path[64];

	if (*cache)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)r->pid, name);
	return read_file_str(path, cache);
}

/* The rest of the line after "Field:" in /proc/PID/status, trimmed. */
static int status_field(struct attr_reader *r, const char *field, char *buf, size_t len)
{
	size_t n = strlen(field);

	if (proc_file(r, "status", &r->status) < 0)
		return -ENOENT;
	for (const char *line = r->status; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			const char *v = line + n + 1 + strspn(line + n + 1, " \t");
			size_t vlen = strcspn(v, "\n");

			snprintf(buf, len, "%.*s", (int)vlen, v);
			return 0;
		}
	return -ENOENT;
}

/* src "v2-file|v1-file": the file of the process's cpu cgroup. */
int read_cpu_file(struct attr_reader *r, const struct prop_def *d)
{
	_cleanup_free_ char *dir = NULL, *path = NULL;
	const char *bar = strchr(d->src, '|');
	char file[64];

	if (r->mode == CGROUP_UNIFIED)
		snprintf(file, sizeof(file), "%.*s", (int)(bar - d->src), d->src);
	else
		(void)text_copy(file, sizeof(file), bar + 1);
	if (cgroup_cpu_dir(r->pid, r->mode, &dir) < 0 || xasprintf(&path, "%s/%s", dir, file) < 0)
		return 0;
	return placement_set_file(r->p, file, path);
}

int read_cpuset(struct attr_reader *r, const struct prop_def *d _unused_)
{
	_cleanup_free_ char *dir = NULL;
	char path[4200];
	const char *cs = placement_get(r->p, "cgroup.cpuset");

	if (r->mode == CGROUP_UNIFIED) {
		if (cgroup_cpu_dir(r->pid, r->mode, &dir) < 0)
			return 0;
		if (snprintf_whole(path, sizeof(path), "%s/cpuset.cpus.effective", dir) < 0)
			return 0;
	} else if (snprintf_whole(path, sizeof(path), "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", cs ? cs : "/") < 0)
		return 0;
	return placement_set_file(r->p, "cpuset.cpus.effective", path);
}

/* cpu.accounting: yes when the process has a cpu cgroup other than the
 * root (on v2, one with the cpu controller enabled). */
int read_cpu_accounting(struct attr_reader *r, const struct prop_def *d _unused_)
{
	_cleanup_free_ char *dir = NULL, *weight = NULL;
	bool own;

	if (cgroup_cpu_dir(r->pid, r->mode, &dir) < 0)
		return 0;
	own = !streq(dir, "/sys/fs/cgroup") && !streq(dir, "/sys/fs/cgroup/cpu");
	if (own && r->mode == CGROUP_UNIFIED && xasprintf(&weight, "%s/cpu.weight", dir) >= 0)
		own = access(weight, F_OK) == 0;
	return placement_set(r->p, "cpu.accounting", own ? "yes" : "no");
}

/* The cpu.stat of the cgroup in dir, as cpu.stat.NAME: counters, never a
 * difference (placement_key_is_counter). */
static int read_cpu_stat(struct placement *p, const char *dir)
{
	_cleanup_free_ char *stat = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	char line[256];
	int r = 0;

	if (xasprintf(&stat, "%s/cpu.stat", dir) >= 0)
		f = fopen(stat, "re");
	while (r >= 0 && f && fgets(line, sizeof(line), f)) {
		char name[64], key[80];
		unsigned long long v;

		if (sscanf(line, "%63s %llu", name, &v) != 2)
			continue;
		snprintf(key, sizeof(key), "cpu.stat.%s", name);
		r = placement_setf(p, key, "%llu", v);
	}
	return r;
}

/* cpu.path: the weight and quota of every cgroup from the top down to the
 * process's, "system.slice=100/max x.service=100/50000 100000"; and each
 * level apart, cpu.path.N (its name), cpu.path.N.weight and .quota, so that
 * two placements compare level by level (a slice's weight, not its name). */
int read_cpu_path(struct attr_reader *r, const struct prop_def *d _unused_)
{
	_cleanup_free_ char *dir = NULL;
	char out[2048] = "", *c;
	int ret = 0;
	const char *root = r->mode == CGROUP_UNIFIED ? "/sys/fs/cgroup" : "/sys/fs/cgroup/cpu";
	size_t off = 0;
	unsigned depth = 0;

	if (cgroup_cpu_dir(r->pid, r->mode, &dir) < 0)
		return 0;
	for (c = dir + strlen(root); ret >= 0 && c && *c; c = strchr(c + 1, '/')) {
		_cleanup_free_ char *w = NULL, *q = NULL, *wp = NULL, *qp = NULL;
		char *next = strchr(c + 1, '/'), saved = 0, key[48];
		int n;

		if (next) {
			saved = *next;
			*next = 0;
		}
		if (xasprintf(&wp, "%s/%s", dir, r->mode == CGROUP_UNIFIED ? "cpu.weight" : "cpu.shares") >= 0)
			(void)read_file_str(wp, &w);
		if (xasprintf(&qp, "%s/%s", dir, r->mode == CGROUP_UNIFIED ? "cpu.max" : "cpu.cfs_quota_us") >= 0)
			(void)read_file_str(qp, &q);
		n = snprintf(out + off, sizeof(out) - off, "%s%s=%s/%s", off ? " " : "", strrchr(dir, '/') + 1,
			     w ? w : "-", q ? q : "-");
		depth++;
		snprintf(key, sizeof(key), "cpu.path.%u", depth);
		ret = placement_set(r->p, key, strrchr(dir, '/') + 1);
		snprintf(key, sizeof(key), "cpu.path.%u.weight", depth);
		if (ret >= 0)
			ret = placement_set(r->p, key, w ? w : "-");
		snprintf(key, sizeof(key), "cpu.path.%u.quota", depth);
		if (ret >= 0)
			ret = placement_set(r->p, key, q ? q : "-");
		if (next)
			*next = saved;
		if (n < 0 || (size_t)n >= sizeof(out) - off)
			break;
		off += (size_t)n;
	}
	if (ret >= 0)
		ret = placement_set(r->p, "cpu.path", out);
	if (ret >= 0)
		ret = placement_setf(r->p, "cpu.path.depth", "%u", depth);
	return ret < 0 ? ret : read_cpu_stat(r->p, dir);
}

/* unit and slice from the path systemd keeps units in (the v2 path on
 * unified and hybrid, name=systemd on legacy); the manager's own answer
 * replaces them where one is asked (runner/managed/managed.c). */
int read_slice(struct attr_reader *r, const struct prop_def *d _unused_)
{
	const char *cg = placement_get(r->p, "cgroup.unified");
	_cleanup_free_ char *copy = NULL;
	const char *unit = "", *slice = "-.slice";
	int ret;

	if (!cg)
		cg = placement_get(r->p, "cgroup.systemd");
	copy = strdup(cg ? cg : "/");
	if (!copy)
		return -ENOMEM;
	for (char *save = NULL, *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		size_t n = strlen(c);

		if (n > 6 && streq(c + n - 6, ".slice"))
			slice = c;
		else if ((n > 8 && streq(c + n - 8, ".service")) || (n > 6 && streq(c + n - 6, ".scope")))
			unit = c; /* the innermost: a user manager's service lies in user@UID.service */
	}
	ret = placement_set(r->p, "unit", unit);
	return ret < 0 ? ret : placement_set(r->p, "slice", slice);
}

/* The session and its autogroup, process group leadership and the
 * ancestry by command name (systemd, or bash < sshd < ...). */
int read_session(struct attr_reader *r, const struct prop_def *d _unused_)
{
	_cleanup_free_ char *s = NULL, *enabled = NULL;
	const char *cpu_cg = placement_get(r->p, r->mode == CGROUP_UNIFIED ? "cgroup.unified" : "cgroup.cpu");
	char path[64], group[64], chain[512] = "";
	pid_t parent = r->pid;
	int nice, ret;

	ret = placement_setf(r->p, "session.is_leader", "%s", getsid(r->pid) == r->pid ? "yes" : "no");
	if (ret >= 0)
		ret = placement_setf(r->p, "pgrp.is_leader", "%s", getpgid(r->pid) == r->pid ? "yes" : "no");
	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)r->pid);
	if (ret >= 0 && read_file_str(path, &s) >= 0 && sscanf(s, "%63s nice %d", group, &nice) == 2) {
		ret = placement_set(r->p, "autogroup", group);
		if (ret >= 0)
			ret = placement_setf(r->p, "autogroup.nice", "%d", nice);
		/* The kernel applies autogroups only to tasks in the root task group. */
		if (ret >= 0 && read_file_str("/proc/sys/kernel/sched_autogroup_enabled", &enabled) >= 0)
			ret = placement_set(r->p, "autogroup.in_force",
					    streq(enabled, "1") && cpu_cg && streq(cpu_cg, "/") ? "yes" : "no");
	}
	for (int depth = 0; ret >= 0 && depth < 8 && parent > 1; depth++) {
		_cleanup_free_ char *stat = NULL;
		char comm[64];
		int ppid;
		const char *close_paren;

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)parent);
		if (read_file_str(path, &stat) < 0 || !(close_paren = strrchr(stat, ')')) ||
		    sscanf(close_paren + 2, "%*c %d", &ppid) != 1)
			break;
		if (depth > 0) {
			snprintf(comm, sizeof(comm), "%.*s", (int)(close_paren - strchr(stat, '(') - 1), strchr(stat, '(') + 1);
			if (strlen(chain) + strlen(comm) + 4 < sizeof(chain))
				strcat(strcat(chain, *chain ? " < " : ""), comm);
		}
		parent = ppid;
	}
	return ret < 0 ? ret : placement_set(r->p, "parents", chain);
}

static int affinity_of(pid_t tid, char *buf, size_t len)
{
	uint8_t mask[CPUSET_BYTES] = {};
	cpu_set_t set;
	size_t bytes = 0;

	if (sched_getaffinity(tid, sizeof(set), &set) < 0)
		return -errno;
	for (int c = 0; c < CPUSET_BYTES * 8 && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			mask[c / 8] |= (uint8_t)(1u << (c % 8));
			bytes = (size_t)c / 8 + 1;
		}
	return cpumask_format(mask, bytes, buf, len);
}

/* The process's affinity, and whether all its threads share it: servers
 * may pin some threads themselves. */
int read_affinity_attr(struct attr_reader *r, const struct prop_def *d _unused_)
{
	char main_aff[4096], aff[4096], dir[64];
	unsigned differ = 0, threads = 0;
	DIR *dd;
	struct dirent *e;
	int ret;

	if (affinity_of(r->pid, main_aff, sizeof(main_aff)) < 0)
		return 0;
	ret = placement_set(r->p, "affinity", main_aff);
	if (ret < 0)
		return ret;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)r->pid);
	dd = opendir(dir);
	while (dd && (e = readdir(dd)))
		if (e->d_name[0] != '.' && affinity_of(atoi(e->d_name), aff, sizeof(aff)) >= 0) {
			threads++;
			differ += !streq(aff, main_aff);
		}
	if (dd)
		closedir(dd);
	return differ ? placement_setf(r->p, "affinity.threads", "%u of %u threads differ", differ, threads)
		      : placement_set(r->p, "affinity.threads", "all the same");
}

int read_nice(struct attr_reader *r, const struct prop_def *d _unused_)
{
	int n;

	errno = 0;
	n = getpriority(PRIO_PROCESS, (id_t)r->pid);
	return errno ? 0 : placement_setf(r->p, "nice", "%d", n);
}

const char *const sched_policy_names[] = { "other", "fifo", "rr", "batch", "iso", "idle", "deadline" };

int read_sched(struct attr_reader *r, const struct prop_def *d _unused_)
{
	struct sched_param sp;
	int policy = sched_getscheduler(r->pid), ret;

	if (policy < 0 || sched_getparam(r->pid, &sp) < 0)
		return 0;
	ret = placement_set(r->p, "sched.policy",
			    (size_t)(policy & ~SCHED_RESET_ON_FORK) < ELEMENTSOF(sched_policy_names)
				    ? sched_policy_names[policy & ~SCHED_RESET_ON_FORK]
				    : "?");
	if (ret >= 0)
		ret = placement_setf(r->p, "sched.priority", "%d", sp.sched_priority);
	if (ret >= 0)
		ret = placement_set(r->p, "sched.reset_on_fork", policy & SCHED_RESET_ON_FORK ? "1" : "0");
	return ret;
}

/* The NUMA policy of the first mapping, as numa_maps prints it, and the
 * nodes the process may use. */
int read_numa(struct attr_reader *r, const struct prop_def *d _unused_)
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[512], policy[64], mems[128];
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)r->pid);
	f = fopen(path, "re");
	if (f && fgets(line, sizeof(line), f) && sscanf(line, "%*s %63s", policy) == 1)
		ret = placement_set(r->p, "numa.policy", policy);
	if (ret >= 0 && status_field(r, "Mems_allowed_list", mems, sizeof(mems)) >= 0)
		ret = placement_set(r->p, "numa.mems_allowed", mems);
	return ret;
}

int read_timerslack(struct attr_reader *r, const struct prop_def *d _unused_)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/timerslack_ns", (int)r->pid);
	return placement_set_file(r->p, "timerslack_ns", path);
}

const char *const ioprio_class_names[] = { "none", "realtime", "best-effort", "idle" };

int read_ioprio(struct attr_reader *r, const struct prop_def *d _unused_)
{
	long v = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, (int)r->pid);
	int ret;

	if (v < 0)
		return 0;
	ret = placement_set(r->p, "ioprio.class", ioprio_class_names[(v >> 13) & 3]);
	return ret < 0 ? ret : placement_setf(r->p, "ioprio.priority", "%ld", v & 0x1fff);
}

/* src: the line of /proc/PID/limits ("Max processes"); the soft limit.
 * /proc rather than prlimit(), which needs CAP_SYS_RESOURCE over a
 * process of another user. */
int read_limit(struct attr_reader *r, const struct prop_def *d)
{
	size_t n = strlen(d->src);
	char soft[32];

	if (proc_file(r, "limits", &r->limits) < 0)
		return 0;
	for (const char *line = r->limits; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, d->src, n) == 0 && line[n] == ' ' && sscanf(line + n, "%31s", soft) == 1)
			return placement_set(r->p, d->keys[0], soft);
	return 0;
}

/* src: fields of /proc/PID/status separated by spaces, read into keys[]
 * in the same order. */
int read_status_field(struct attr_reader *r, const struct prop_def *d)
{
	char field[64], value[256];
	const char *s = d->src;
	int ret = 0;

	for (size_t k = 0; ret >= 0 && *s && k < ATTR_KEYS_MAX && d->keys[k]; k++) {
		size_t n = strcspn(s, " ");

		snprintf(field, sizeof(field), "%.*s", (int)n, s);
		s += n + strspn(s + n, " ");
		if (status_field(r, field, value, sizeof(value)) >= 0)
			ret = placement_set(r->p, d->keys[k], value);
	}
	return ret;
}

/* user and group by name, from the real IDs of the Uid: and Gid: lines. */
int read_user(struct attr_reader *r, const struct prop_def *d _unused_)
{
	char uid[128], gid[128];
	struct passwd *pw;
	struct group *gr;
	int ret = 0;

	if (status_field(r, "Uid", uid, sizeof(uid)) >= 0) {
		pw = getpwuid((uid_t)strtoul(uid, NULL, 10));
		ret = pw ? placement_set(r->p, "user", pw->pw_name) : placement_setf(r->p, "user", "%lu", strtoul(uid, NULL, 10));
	}
	if (ret >= 0 && status_field(r, "Gid", gid, sizeof(gid)) >= 0) {
		gr = getgrgid((gid_t)strtoul(gid, NULL, 10));
		ret = gr ? placement_set(r->p, "group", gr->gr_name) : placement_setf(r->p, "group", "%lu", strtoul(gid, NULL, 10));
	}
	return ret;
}

/* pids.max of the process's pids cgroup (the unified one on v2). */
int read_tasks_max(struct attr_reader *r, const struct prop_def *d _unused_)
{
	const char *cg = placement_get(r->p, r->mode == CGROUP_UNIFIED ? "cgroup.unified" : "cgroup.pids");
	char path[4200];

	if (!cg)
		return 0;
	if (snprintf_whole(path, sizeof(path), "/sys/fs/cgroup%s%s/pids.max", r->mode == CGROUP_UNIFIED ? "" : "/pids",
			   streq(cg, "/") ? "" : cg) < 0)
		return 0;
	return placement_set_file(r->p, "tasks.max", path);
}

int read_oom(struct attr_reader *r, const struct prop_def *d _unused_)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)r->pid);
	return placement_set_file(r->p, "oom_score_adj", path);
}

/* Seccomp mode and filter count, and the two speculation lines: a seccomp
 * filter may force the store-bypass mitigation on. */
int read_seccomp(struct attr_reader *r, const struct prop_def *d)
{
	static const char *const fields[] = { "Seccomp", "Seccomp_filters", "Speculation_Store_Bypass",
					      "SpeculationIndirectBranch" };
	char value[128];
	int ret = 0;

	for (size_t i = 0; ret >= 0 && i < ELEMENTSOF(fields) && d->keys[i]; i++)
		if (status_field(r, fields[i], value, sizeof(value)) >= 0)
			ret = placement_set(r->p, d->keys[i], value);
	return ret;
}

/* The mount containing path in a mountinfo: its options' ro/rw and type. */
static int mount_of(const char *mountinfo, const char *path, char *ret_access, size_t alen, char *ret_type, size_t tlen)
{
	_cleanup_fclose_ FILE *f = fopen(mountinfo, "re");
	char line[4096];
	size_t best = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char point[1024], opts[512], *dash, type[64];
		size_t n;

		if (sscanf(line, "%*s %*s %*s %*s %1023s %511s", point, opts) != 2 || !(dash = strstr(line, " - ")) ||
		    sscanf(dash + 3, "%63s", type) != 1)
			continue;
		n = strlen(point);
		if (strncmp(path, point, n) != 0 || (path[n] != '/' && path[n] != 0 && !streq(point, "/")))
			continue;
		if (n >= best) { /* later mounts over the same point win */
			best = n;
			(void)text_copy(ret_access, alen, strncmp(opts, "ro", 2) == 0 && (opts[2] == ',' || !opts[2]) ? "ro" : "rw");
			(void)text_copy(ret_type, tlen, type);
		}
	}
	return best ? 0 : -ENOENT;
}

/* src: the paths the setting changes; mount.PATH is "inaccessible", or
 * "ro" or "rw" with the type of the mount holding it, as the server sees
 * it.  mount.namespace: "private" when not PID 1's (or, where PID 1 cannot
 * be read, slicebench's own). */
int read_mount(struct attr_reader *r, const struct prop_def *d)
{
	char ns[64], ns1[64], path[1100], mi[64], access_[16], type[64], key[1100];
	_cleanup_free_ char *copy = strdup(d->src);
	ssize_t n, n1;
	int ret;

	if (!copy)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)r->pid);
	n = readlink(path, ns, sizeof(ns) - 1);
	n1 = readlink("/proc/1/ns/mnt", ns1, sizeof(ns1) - 1);
	/* Where PID 1 is out of reach (a container's supervisor), our own. */
	if (n1 < 0)
		n1 = readlink("/proc/self/ns/mnt", ns1, sizeof(ns1) - 1);
	if (n < 0 || n1 < 0)
		return 0;
	ns[n] = ns1[n1] = 0;
	ret = placement_set(r->p, "mount.namespace", streq(ns, ns1) ? "shared" : "private");
	snprintf(mi, sizeof(mi), "/proc/%d/mountinfo", (int)r->pid);
	for (char *save = NULL, *p = strtok_r(copy, " ", &save); ret >= 0 && p; p = strtok_r(NULL, " ", &save)) {
		struct stat st;

		if (snprintf_whole(key, sizeof(key), "mount.%s", p) < 0 ||
		    snprintf_whole(path, sizeof(path), "/proc/%d/root%s", (int)r->pid, p) < 0 || stat(path, &st) < 0)
			continue;
		if ((st.st_mode & 07777) == 0)
			ret = placement_set(r->p, key, "inaccessible");
		else if (mount_of(mi, p, access_, sizeof(access_), type, sizeof(type)) >= 0)
			ret = placement_setf(r->p, key, "%s %s", access_, type);
	}
	return ret;
}

/* The environment, with the values of anything that looks like a secret
 * replaced: results are shared, passwords must not be. */
int read_environment_attr(struct attr_reader *r, const struct prop_def *d _unused_)
{
	_cleanup_free_ char *env = NULL;
	char path[64];
	size_t len = 0;
	_cleanup_fclose_ FILE *f = NULL;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)r->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	/* All of it, whatever bytes it holds (a delimiter of EOF is 0xFF: an
	 * environment value with that byte cut the rest away). */
	for (size_t cap = 0, got = 1; got;) {
		char *more = len + 4096 + 1 > cap ? realloc(env, cap = 2 * cap + 4096 + 1) : env;

		if (!more)
			return -ENOMEM;
		env = more;
		got = fread(env + len, 1, cap - len - 1, f);
		len += got;
	}
	if (len && env[len - 1] != 0)
		env[len++] = 0; /* every entry ends in NUL, the last one too */
	/* The next entry's offset is taken before the '=' is cut: a value that
	 * holds '=' (GLIBC_TUNABLES=glibc.malloc.tcache_count=0) must not be
	 * read as an entry of its own. */
	for (size_t off = 0, next; ret >= 0 && off < len; off = next) {
		char *kv = env + off, *eq = strchr(kv, '='), key[256];
		_cleanup_free_ char *shown = NULL;

		next = off + strlen(kv) + 1;
		if (!eq || eq - kv >= 200)
			continue;
		/* glibc 2.36 parses GLIBC_TUNABLES in place, writing a NUL over
		 * each ':', so environ holds "GLIBC_TUNABLES=glibc.a=0" then
		 * "glibc.b=1": the pieces go back together. */
		if (strncmp(kv, "GLIBC_TUNABLES=", 15) == 0)
			while (next < len && strncmp(env + next, "glibc.", 6) == 0) {
				env[next - 1] = ':';
				next += strlen(env + next) + 1;
			}
		snprintf(key, sizeof(key), "env.%.*s", (int)(eq - kv), kv);
		*eq = 0;
		shown = secret_mask_value(kv, eq + 1);
		ret = shown ? placement_set(r->p, key, shown) : -ENOMEM;
	}
	return ret;
}

/* The allocator actually mapped (LD_PRELOAD of jemalloc or tcmalloc). */
int read_allocator_attr(struct attr_reader *r, const struct prop_def *d _unused_)
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[1024];
	const char *allocator = "glibc";

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)r->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "libjemalloc")) {
			allocator = "jemalloc";
			break;
		} else if (strstr(line, "libtcmalloc")) {
			allocator = "tcmalloc";
			break;
		}
	return placement_set(r->p, "allocator", allocator);
}

/* The [selected] word of a sysfs choice file. */
static int set_choice(struct placement *p, const char *key, const char *path)
{
	_cleanup_free_ char *s = NULL;
	char *open, *close;

	if (read_file_str(path, &s) < 0 || !(open = strchr(s, '[')) || !(close = strchr(open, ']')))
		return 0;
	*close = 0;
	return placement_set(p, key, open + 1);
}

/* Host-wide THP settings, recorded with every placement, and the
 * process's own THP_enabled (prctl PR_SET_THP_DISABLE). */
int read_thp(struct attr_reader *r, const struct prop_def *d _unused_)
{
	char v[32];
	int ret = set_choice(r->p, "thp.enabled", "/sys/kernel/mm/transparent_hugepage/enabled");

	if (ret >= 0)
		ret = set_choice(r->p, "thp.defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	if (ret >= 0 && status_field(r, "THP_enabled", v, sizeof(v)) >= 0)
		ret = placement_set(r->p, "thp.process", v);
	return ret;
}

/* What /proc/PID shows besides the settings: signal dispositions and
 * masks (a shell may ignore or block some), the working directory, what
 * the standard descriptors are, the audit login UID, the personality. */
int read_process_misc(struct attr_reader *r, const struct prop_def *d _unused_)
{
	char v[256], path[64], target[512];
	int ret = 0;

	if (status_field(r, "SigIgn", v, sizeof(v)) >= 0)
		ret = placement_set(r->p, "signals.ignored", v);
	if (ret >= 0 && status_field(r, "SigBlk", v, sizeof(v)) >= 0)
		ret = placement_set(r->p, "signals.blocked", v);
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)r->pid);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (ret >= 0 && n >= 0) {
		target[n] = 0;
		ret = placement_set(r->p, "cwd", target);
	}
	for (int fd = 0; ret >= 0 && fd < 3; fd++) {
		char key[16];

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)r->pid, fd);
		snprintf(key, sizeof(key), "fd.%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			ret = placement_set(r->p, key, "closed");
		else {
			target[n] = 0;
			/* socket:[123] and pipe:[456] name one object: only the kind counts. */
			if (strchr(target, ':') && strchr(target, '['))
				*strchr(target, ':') = 0;
			ret = placement_set(r->p, key, target);
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/loginuid", (int)r->pid);
	if (ret >= 0)
		ret = placement_set_file(r->p, "audit.loginuid", path);
	snprintf(path, sizeof(path), "/proc/%d/personality", (int)r->pid);
	if (ret >= 0)
		ret = placement_set_file(r->p, "personality", path);
	return ret;
}

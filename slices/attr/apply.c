/* Appliers: how the raw and scope kinds reproduce an exec setting in the
 * forked child before exec, one function per attribute (the rows in
 * slices/attr/props.c name them).  They run in the child, so they return -errno
 * and never log; the child exits with a status that says which failed. */
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <inttypes.h>

#include "slices/attr/attrs.h"
#include "slices/attr/props.h"
#include "slices/sys/syscalls.h"
#include "common/util.h"

static const struct prop_value *find_value(const struct prop_value *all, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(all[i].def->name, name))
			return &all[i];
	return NULL;
}

int apply_affinity(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (size_t c = 0; c < v->cpus_bytes * 8 && c < CPU_SETSIZE; c++)
		if (v->cpus[c / 8] & (1u << (c % 8)))
			CPU_SET(c, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

/* As systemd takes a unit's Limit*= (systemd.exec(5)'s "closest"): a hard
 * limit this process may not raise (no CAP_SYS_RESOURCE, as in a
 * container) is kept, and both limits are cut down to it, so that a raw or
 * scope context starts where a service with the same setting does, and its
 * placement says, as the service's does, that the value is not in force.
 * An unlimited hard limit refused is another refusal, and fails. */
int apply_rlimit(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	struct rlimit rl = { .rlim_cur = v->u == UINT64_MAX ? RLIM_INFINITY : v->u,
			     .rlim_max = v->u == UINT64_MAX ? RLIM_INFINITY : v->u },
		      now;

	if (setrlimit(v->def->rlimit, &rl) == 0)
		return 0;
	if (errno != EPERM || getrlimit(v->def->rlimit, &now) < 0)
		return -errno;
	if (now.rlim_max == RLIM_INFINITY)
		return -EPERM;
	rl.rlim_cur = MIN(rl.rlim_cur, now.rlim_max);
	rl.rlim_max = MIN(rl.rlim_max, now.rlim_max);
	return setrlimit(v->def->rlimit, &rl) < 0 ? -errno : 0;
}

int apply_nice(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	return setpriority(PRIO_PROCESS, 0, (int)v->i) < 0 ? -errno : 0;
}

/* CPUSchedulingPolicy=, CPUSchedulingPriority= and CPUSchedulingResetOnFork=
 * go to one sched_setscheduler() call, whichever row comes first. */
int apply_sched(const struct prop_value *v _unused_, const struct prop_value *all, size_t n)
{
	const struct prop_value *pol = find_value(all, n, "CPUSchedulingPolicy"),
				*prio = find_value(all, n, "CPUSchedulingPriority"),
				*reset = find_value(all, n, "CPUSchedulingResetOnFork");
	int policy = pol ? (int)pol->i : sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
	struct sched_param p = { .sched_priority = prio ? (int)prio->i : 0 };

	/* fifo and rr need a priority. */
	if ((policy == SCHED_FIFO || policy == SCHED_RR) && !p.sched_priority)
		p.sched_priority = 1;
	if (policy != SCHED_FIFO && policy != SCHED_RR)
		p.sched_priority = 0;
	if (reset && reset->u)
		policy |= SCHED_RESET_ON_FORK;
	return sched_setscheduler(0, policy, &p) < 0 ? -errno : 0;
}

/* environment=: the inherited environment replaced as a whole. */
int apply_whole_environment(const struct prop_value *v, const struct prop_value *all, size_t n)
{
	if (clearenv() != 0)
		return -ENOMEM;
	return apply_environment(v, all, n);
}

int apply_environment(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	for (char **s = v->strv; *s; s++)
		if (putenv(*s) < 0)
			return -errno;
	return 0;
}

int apply_unset_environment(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	for (char **s = v->strv; *s; s++)
		if (unsetenv(*s) < 0)
			return -errno;
	return 0;
}

int env_file_open(const char *spec, FILE **ret)
{
	const char *path = spec[0] == '-' ? spec + 1 : spec;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	int r;

	*ret = NULL;
	if (fd < 0)
		return spec[0] == '-' && errno == ENOENT ? 0 : -errno;
	r = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : st.st_size > ENV_FILE_MAX ? -EFBIG : 0;
	if (r >= 0 && !(*ret = fdopen(fd, "re")))
		r = -errno;
	if (r < 0)
		close(fd);
	return r;
}

/* EnvironmentFile=: KEY=VALUE lines, # and ; comments, values in quotes
 * unquoted; a leading - makes a missing file no error, as in systemd. */
int env_file_parse(const char *spec, int (*fn)(const char *key, const char *value, void *userdata), void *userdata)
{
	_cleanup_fclose_ FILE *f = NULL;
	char line[4096];
	int r = env_file_open(spec, &f);

	if (r < 0 || !f)
		return r;
	while (r >= 0 && fgets(line, sizeof(line), f)) {
		char *eq, *s = line + strspn(line, " \t"), *v;
		size_t n;

		s[strcspn(s, "\n")] = 0;
		if (!*s || *s == '#' || *s == ';' || !(eq = strchr(s, '=')))
			continue;
		*eq = 0;
		v = eq + 1;
		n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = 0;
			v++;
		}
		r = fn(s, v, userdata);
	}
	return r;
}

static int setenv_one(const char *key, const char *value, void *userdata _unused_)
{
	return setenv(key, value, 1) < 0 ? -errno : 0;
}

int apply_environment_file(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	return env_file_parse(v->text, setenv_one, NULL);
}

int apply_oom(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIi64, v->i);
	return write_file_str("/proc/self/oom_score_adj", buf);
}

/* NUMAPolicy= and NUMAMask= go to one set_mempolicy(); without a mask, the
 * nodes this process may use. */
int apply_numa(const struct prop_value *v _unused_, const struct prop_value *all, size_t n)
{
	/* The kernel's MPOL_* in the order of the parser's names. */
	static const int modes[] = { 0 /* default */, 1 /* preferred */, 2 /* bind */, 3 /* interleave */, 4 /* local */ };
	const struct prop_value *pol = find_value(all, n, "NUMAPolicy"), *mask = find_value(all, n, "NUMAMask");
	unsigned long nodes[CPUSET_BYTES / sizeof(unsigned long)] = {};
	int mode = pol ? modes[pol->i] : 0;

	if (mode == 0 || mode == 4)
		return syscall(SYS_set_mempolicy, mode, NULL, 0) < 0 ? -errno : 0;
	if (mask)
		memcpy(nodes, mask->cpus, mask->cpus_bytes);
	else
		nodes[0] = 1; /* node 0, which every machine has */
	return syscall(SYS_set_mempolicy, mode, nodes, (unsigned long)CPUSET_BYTES * 8) < 0 ? -errno : 0;
}

int apply_timerslack(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	return prctl(PR_SET_TIMERSLACK, (unsigned long)v->u, 0, 0, 0) < 0 ? -errno : 0;
}

/* IOSchedulingClass= and IOSchedulingPriority= in one ioprio_set(). */
int apply_ioprio(const struct prop_value *v _unused_, const struct prop_value *all, size_t n)
{
	const struct prop_value *cls = find_value(all, n, "IOSchedulingClass"),
				*prio = find_value(all, n, "IOSchedulingPriority");
	int c = cls ? (int)cls->i : 2 /* best-effort */, data = prio ? (int)prio->i : 4;

	return syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, (c << 13) | data) < 0 ? -errno : 0;
}

int apply_umask(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	umask((mode_t)v->u);
	return 0;
}

int apply_no_new_privs(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	return v->u && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
}

int apply_bounding_set(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	for (unsigned cap = 0; cap <= CAP_LAST_CAP; cap++)
		if (!(v->u & (UINT64_C(1) << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return -errno;
	return 0;
}

/* User= and Group=: setgid/setuid, keeping the capabilities that
 * AmbientCapabilities= then raises (it comes after in the table). */
int apply_user(const struct prop_value *v, const struct prop_value *all, size_t n)
{
	const struct prop_value *user = find_value(all, n, "User"), *group = find_value(all, n, "Group");
	struct passwd *pw = user ? getpwnam(user->text) : NULL;
	struct group *gr = group ? getgrnam(group->text) : NULL;
	gid_t gid = gr ? gr->gr_gid : pw ? pw->pw_gid : getgid();

	/* Both rows name this applier: the first (User=, in the table's order)
	 * sets both, once; a second setgroups() would fail, root dropped. */
	if (v != user && user)
		return 0;
	if ((user && !pw) || (group && !gr))
		return -ESRCH;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return -errno;
	if (pw ? initgroups(pw->pw_name, gid) < 0 : setgroups(0, NULL) < 0)
		return -errno;
	if (setresgid(gid, gid, gid) < 0)
		return -errno;
	return pw && setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0 ? -errno : 0;
}

int apply_ambient(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	/* An ambient capability must be permitted and inheritable. */
	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	for (int i = 0; i < 2; i++) {
		d[i].inheritable |= (uint32_t)(v->u >> (32 * i));
		d[i].effective = d[i].permitted;
	}
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	for (unsigned cap = 0; cap <= CAP_LAST_CAP; cap++)
		if ((v->u & (UINT64_C(1) << cap)) && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
			return -errno;
	return 0;
}

/* The mount namespace settings: a private namespace (once), then each
 * path remounted as the setting says.  ProtectSystem=strict and
 * PrivateDevices= are refused for raw in their rows. */
static int private_mounts(void)
{
	static bool done;

	if (done)
		return 0;
	if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", "none", MS_REC | MS_SLAVE, NULL) < 0)
		return -errno;
	done = true;
	return 0;
}

static int remount_ro(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (mount(path, path, "none", MS_BIND | MS_REC, NULL) < 0 ||
	    mount("none", path, "none", MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0)
		return -errno;
	return 0;
}

static int make_inaccessible(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	/* An empty read-only directory no one may enter, as systemd's
	 * /run/systemd/inaccessible/dir. */
	if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000") < 0 ||
	    mount("tmpfs", path, "tmpfs", MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000") < 0)
		return -errno;
	return 0;
}

int apply_protect_system(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	static const char *const yes[] = { "/usr", "/boot", "/efi" }, *const full[] = { "/etc" };
	int r;

	if (streq(v->text, "no") || streq(v->text, "false"))
		return 0;
	r = private_mounts();
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(yes); i++)
		r = remount_ro(yes[i]);
	if (r >= 0 && streq(v->text, "full"))
		r = remount_ro(full[0]);
	return r;
}

int apply_protect_home(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	static const char *const homes[] = { "/home", "/root", "/run/user" };
	int r;

	if (streq(v->text, "no") || streq(v->text, "false"))
		return 0;
	r = private_mounts();
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(homes); i++)
		r = streq(v->text, "read-only") ? remount_ro(homes[i]) : make_inaccessible(homes[i]);
	return r;
}

int apply_private_tmp(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	int r;

	if (!v->u)
		return 0;
	r = private_mounts();
	if (r >= 0 && mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
		r = -errno;
	if (r >= 0 && mount("tmpfs", "/var/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
		r = -errno;
	return r;
}

/* ProtectControlGroups=: /sys/fs/cgroup and every hierarchy under it
 * read-only. */
int apply_protect_cgroups(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	_cleanup_fclose_ FILE *f = NULL;
	char line[4096];
	int r;

	if (!v->u)
		return 0;
	r = private_mounts();
	if (r < 0)
		return r;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char point[1024];

		if (sscanf(line, "%*s %*s %*s %*s %1023s", point) == 1 && strncmp(point, "/sys/fs/cgroup", 14) == 0 &&
		    mount("none", point, "none", MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0)
			return -errno;
	}
	return 0;
}

static bool have_effective_cap(unsigned cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	return syscall(SYS_capget, &h, d) == 0 && (d[cap / 32].effective & (1u << (cap % 32)));
}

/* SystemCallFilter=: the allow or deny list (strv, i = 1 for allow) as one
 * libseccomp filter; what it does not allow kills the process with SIGSYS,
 * as systemd does without SystemCallErrorNumber=.  SystemCallArchitectures=
 * native adds nothing: a libseccomp filter already kills other
 * architectures' calls. */
int apply_syscall_filter(const struct prop_value *v, const struct prop_value *all _unused_, size_t n _unused_)
{
	scmp_filter_ctx ctx = seccomp_init(v->i ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ALLOW);
	int r = 0;

	if (!ctx)
		return -ENOMEM;
	/* libseccomp sets no_new_privs by default; systemd does only where the
	 * process lacks CAP_SYS_ADMIN, and so do we. */
	if (have_effective_cap(CAP_SYS_ADMIN))
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	for (char **s = v->strv; *s && r >= 0; s++) {
		int nr = seccomp_syscall_resolve_name(*s);

		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture */
		r = seccomp_rule_add(ctx, v->i ? SCMP_ACT_ALLOW : SCMP_ACT_KILL_PROCESS, nr, 0);
	}
	if (r >= 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

int apply_syscall_archs(const struct prop_value *v _unused_, const struct prop_value *all, size_t n)
{
	scmp_filter_ctx ctx;
	int r;

	/* With a SystemCallFilter= its filter does it already. */
	if (find_value(all, n, "SystemCallFilter"))
		return 0;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	r = have_effective_cap(CAP_SYS_ADMIN) ? seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) : 0;
	if (r >= 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

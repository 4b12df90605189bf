/* The values of the attribute table: one parser per value syntax, as
 * systemd accepts it (the rows of slices/attr/props.c name them), into a
 * struct prop_value; the capability names the parsers and takers share. */
#include <ctype.h>
#include <inttypes.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <strings.h>

#include "slices/attr/attrs.h"
#include "slices/attr/props.h"
#include "slices/sys/cpumask.h"
#include "slices/sys/syscalls.h"
#include "common/topology.h"
#include "common/util.h"

/* Integers whose bounds stand in the table, signed or not. */
int parse_ranged(const char *s, struct prop_value *v)
{
	long n;
	int r = parse_int_range(s, v->def->min, v->def->max, &n);
	if (r < 0)
		return r;
	v->i = n;
	v->u = n < 0 ? 0 : (uint64_t)n;
	return 0;
}

/* CPUQuota=50% means 500ms of CPU per second, systemd's CPUQuotaPerSecUSec. */
int parse_quota(const char *s, struct prop_value *v)
{
	size_t len = strlen(s);
	_cleanup_free_ char *num = NULL;
	long pct;
	int r;

	if (len < 2 || s[len - 1] != '%')
		return -EINVAL;
	num = strndup(s, len - 1);
	if (!num)
		return -ENOMEM;
	r = parse_int_range(num, 1, 100000, &pct);
	if (r < 0)
		return r;
	v->u = (uint64_t)pct * 10000;
	return 0;
}

int parse_usec(const char *s, struct prop_value *v)
{
	uint64_t ns;
	int r = parse_duration_ns(s, &ns);
	if (r < 0)
		return r;
	/* The kernel takes a CFS period between 1 ms and 1 s. */
	if (ns < NSEC_PER_MSEC || ns > NSEC_PER_SEC)
		return -ERANGE;
	v->u = ns / NSEC_PER_USEC;
	return 0;
}

/* A CPU set; one named by topology (llc:1) is recorded as the CPUs it
 * resolved to here, since another host resolves it differently. */
int parse_cpus(const char *s, struct prop_value *v)
{
	char buf[CPUSET_BYTES * 8 * 5];
	int r = cpumask_parse(s, v->cpus, &v->cpus_bytes);

	if (r < 0 || !cpu_list_is_topological(s))
		return r;
	r = cpumask_format(v->cpus, v->cpus_bytes, buf, sizeof(buf));
	if (r < 0)
		return r;
	v->text = strdup(buf);
	return v->text ? 0 : -ENOMEM;
}

/* NUMA node numbers: a plain list, never a topology name. */
int parse_nodes(const char *s, struct prop_value *v)
{
	long nodes[CPU_LIST_MAX];
	size_t n;
	int r = parse_int_list(s, 0, CPU_LIST_MAX - 1, nodes, ELEMENTSOF(nodes), &n);

	if (r >= 0)
		cpumask_from_list(nodes, n, v->cpus, &v->cpus_bytes);
	return r;
}

static const struct {
	const char *name;
	int value;
} sched_policies[] = {
	{ "other", SCHED_OTHER }, { "batch", SCHED_BATCH }, { "idle", SCHED_IDLE },
	{ "fifo", SCHED_FIFO }, { "rr", SCHED_RR },
};

int parse_sched_policy(const char *s, struct prop_value *v)
{
	for (size_t i = 0; i < ELEMENTSOF(sched_policies); i++)
		if (streq(s, sched_policies[i].name)) {
			v->i = sched_policies[i].value;
			return 0;
		}
	return -EINVAL;
}

/* Values of the kernel's MPOL_* as systemd's NUMAPolicy= names them. */
static const char *const numa_policies[] = { "default", "preferred", "bind", "interleave", "local" };

int parse_numa_policy(const char *s, struct prop_value *v)
{
	for (size_t i = 0; i < ELEMENTSOF(numa_policies); i++)
		if (streq(s, numa_policies[i])) {
			v->i = (int64_t)i;
			return 0;
		}
	return -EINVAL;
}

int parse_rlimit(const char *s, struct prop_value *v)
{
	if (streq(s, "infinity")) {
		v->u = UINT64_MAX;
		return 0;
	}
	return parse_u64(s, &v->u);
}

/* LimitNOFILE=: from 1, since a server that may open no file cannot start. */
int parse_rlimit_files(const char *s, struct prop_value *v)
{
	return parse_rlimit(s, v) < 0 || v->u == 0 ? -EINVAL : 0;
}

/* Environment=NAME=VALUE NAME2=VALUE2, split on spaces as systemd does for
 * unquoted words. */
int parse_environment(const char *s, struct prop_value *v)
{
	_cleanup_free_ char *copy = strdup(s);
	char *save = NULL, **strv = NULL;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(w, '='), **nv;
		if (!eq || eq == w)
			goto bad;
		for (char *c = w; c < eq; c++)
			if (!(isalnum((unsigned char)*c) || *c == '_'))
				goto bad;
		nv = realloc(strv, (n + 2) * sizeof(char *));
		if (!nv)
			goto nomem;
		strv = nv;
		strv[n] = strdup(w);
		if (!strv[n])
			goto nomem;
		strv[++n] = NULL;
	}
	if (n == 0)
		return -EINVAL;
	v->strv = strv;
	return 0;
bad:
	for (size_t i = 0; i < n; i++)
		free(strv[i]);
	free(strv);
	return -EINVAL;
nomem:
	for (size_t i = 0; i < n; i++)
		free(strv[i]);
	free(strv);
	return -ENOMEM;
}

/* environment=: the same words, or none at all (an empty environment). */
int parse_whole_environment(const char *s, struct prop_value *v)
{
	if (s[strspn(s, " \t")])
		return parse_environment(s, v);
	v->strv = calloc(1, sizeof(char *));
	return v->strv ? 0 : -ENOMEM;
}

static bool name_is_env(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

int parse_bool(const char *s, struct prop_value *v)
{
	if (streq(s, "yes") || streq(s, "true") || streq(s, "on") || streq(s, "1"))
		v->u = 1;
	else if (streq(s, "no") || streq(s, "false") || streq(s, "off") || streq(s, "0"))
		v->u = 0;
	else
		return -EINVAL;
	return 0;
}

/* TimerSlackNSec=: nanoseconds, or a duration such as 1ms. */
int parse_nsec(const char *s, struct prop_value *v)
{
	if (parse_u64(s, &v->u) >= 0)
		return 0;
	return parse_duration_ns(s, &v->u);
}

/* A word of a fixed list, as its index. */
static int parse_word(const char *s, const char *const *words, size_t n, struct prop_value *v)
{
	for (size_t i = 0; i < n; i++)
		if (words[i] && streq(s, words[i])) {
			v->i = (int64_t)i;
			return 0;
		}
	return -EINVAL;
}

/* The kernel's IOPRIO_CLASS_*, as systemd names them. */
int parse_io_class(const char *s, struct prop_value *v)
{
	static const char *const classes[] = { NULL, "realtime", "best-effort", "idle" };
	return parse_word(s, classes, ELEMENTSOF(classes), v);
}

int parse_umask(const char *s, struct prop_value *v)
{
	char *end;
	unsigned long m;

	errno = 0;
	m = strtoul(s, &end, 8);
	if (!*s || *end || errno || m > 0777)
		return -EINVAL;
	v->u = m;
	return 0;
}

/* User= and Group=: a name this machine knows; systemd would fail the
 * start with 217/USER otherwise.  Never root's (user_name_refusal()). */
int parse_user(const char *s, struct prop_value *v _unused_)
{
	return !getpwnam(s) ? -ESRCH : user_name_refusal(s) ? -EPERM : 0;
}

int parse_group(const char *s, struct prop_value *v _unused_)
{
	return getgrnam(s) ? 0 : -ESRCH;
}

/* Capability names, as the kernel numbers them. */
static const char *const cap_names[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID",
	"CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
	"CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO",
	"CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
};

const char *cap_name(unsigned cap)
{
	return cap < ELEMENTSOF(cap_names) ? cap_names[cap] : NULL;
}

/* "CAP_IPC_LOCK CAP_SYS_NICE" as a mask; a leading ~ inverts it. */
int parse_caps(const char *s, struct prop_value *v)
{
	_cleanup_free_ char *copy = strdup(s[0] == '~' ? s + 1 : s);
	uint64_t mask = 0;

	if (!copy)
		return -ENOMEM;
	for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		struct prop_value c = {};

		if (parse_word(w, cap_names, ELEMENTSOF(cap_names), &c) < 0)
			return -EINVAL;
		mask |= UINT64_C(1) << c.i;
	}
	v->u = s[0] == '~' ? ~mask & ((UINT64_C(1) << ELEMENTSOF(cap_names)) - 1) : mask;
	return 0;
}

/* TasksMax=: a number, infinity, or a percentage of the system's limit
 * (the smaller of kernel.pid_max and kernel.threads-max, as systemd). */
int parse_tasks_max(const char *s, struct prop_value *v)
{
	size_t len = strlen(s);
	_cleanup_free_ char *pid_max = NULL, *threads_max = NULL, *num = NULL;
	uint64_t a, b;
	long pct;

	/* systemd refuses 0 (a unit of no tasks could not even start). */
	if (len < 2 || s[len - 1] != '%')
		return parse_rlimit(s, v) < 0 || v->u == 0 ? -EINVAL : 0;
	num = strndup(s, len - 1);
	if (!num || parse_int_range(num, 1, 100, &pct) < 0)
		return num ? -EINVAL : -ENOMEM;
	if (read_file_str("/proc/sys/kernel/pid_max", &pid_max) < 0 ||
	    read_file_str("/proc/sys/kernel/threads-max", &threads_max) < 0 || parse_u64(pid_max, &a) < 0 ||
	    parse_u64(threads_max, &b) < 0)
		return -EINVAL;
	v->u = MIN(a - 1, b) * (uint64_t)pct / 100;
	return 0;
}

/* Words into a NULL-terminated strv. */
int attr_split_words(const char *s, char ***ret)
{
	_cleanup_free_ char *copy = strdup(s);
	char **l = NULL;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		char **nl = realloc(l, (n + 2) * sizeof(char *));

		if (!nl || !(nl[n] = strdup(w))) {
			strv_free(nl ? nl : l);
			return -ENOMEM;
		}
		l = nl;
		l[++n] = NULL;
	}
	if (!n)
		return -EINVAL;
	*ret = l;
	return 0;
}

int parse_names(const char *s, struct prop_value *v)
{
	int r = attr_split_words(s, &v->strv);

	for (char **w = r >= 0 ? v->strv : NULL; w && *w; w++)
		if (!name_is_env(*w))
			return -EINVAL;
	return r;
}

/* SystemCallFilter=: "@system-service", "~@mount", or syscall names;
 * strv holds the names with groups expanded, i is 1 for an allow list.
 * The D-Bus value keeps the words, so that systemd expands its groups. */
int parse_syscall_filter(const char *s, struct prop_value *v)
{
	_cleanup_(strv_freep) char **words = NULL;
	size_t n = 0;
	int r;

	v->i = s[0] != '~';
	r = attr_split_words(s[0] == '~' ? s + 1 : s, &words);
	if (r < 0)
		return r;
	for (char **w = words; *w; w++) {
		const struct syscall_group *g = (*w)[0] == '@' ? syscall_group_lookup(*w) : NULL;
		const char *const *names = g ? g->syscalls : (const char *const[]){ *w, NULL };

		if ((*w)[0] == '@' && !g)
			return -EINVAL; /* a group slicebench does not carry */
		for (; *names; names++) {
			char **nl = realloc(v->strv, (n + 2) * sizeof(char *));

			if (!nl)
				return -ENOMEM;
			v->strv = nl;
			v->strv[n] = strdup(*names);
			v->strv[n + 1] = NULL;
			if (!v->strv[n++])
				return -ENOMEM;
		}
	}
	return 0;
}

int parse_archs(const char *s, struct prop_value *v)
{
	int r = attr_split_words(s, &v->strv);

	/* Only the native architecture is reproduced. */
	return r < 0 ? r : v->strv[1] || !streq(v->strv[0], "native") ? -EINVAL : 0;
}

int parse_protect_system(const char *s, struct prop_value *v)
{
	static const char *const words[] = { "no", "yes", "full", "strict", "false", "true" };
	return parse_word(s, words, ELEMENTSOF(words), v);
}

int parse_protect_home(const char *s, struct prop_value *v)
{
	static const char *const words[] = { "no", "yes", "read-only", "tmpfs", "false", "true" };
	return parse_word(s, words, ELEMENTSOF(words), v);
}

/* EnvironmentFile=: an absolute path to a regular file that is there (or
 * -PATH, which may be missing), checked now rather than when a start
 * reads it forever (/dev/zero) or blocks (a FIFO). */
int parse_environment_file(const char *s, struct prop_value *v _unused_)
{
	_cleanup_fclose_ FILE *f = NULL;

	return s[s[0] == '-'] != '/' ? -EINVAL : env_file_open(s, &f);
}

/* The server's own variables (PROP_SERVER rows): each value as the server
 * reads it back over SQL, so that a capture's value parses as written, and
 * the text passed on the server's command line is the canonical one.
 * ON or OFF, as MariaDB shows performance_schema; systemd's words too. */
int parse_server_switch(const char *s, struct prop_value *v)
{
	static const char *const on[] = { "ON", "1", "YES", "TRUE" }, *const off[] = { "OFF", "0", "NO", "FALSE" };

	for (size_t i = 0; i < ELEMENTSOF(on); i++)
		if (strcasecmp(s, on[i]) == 0 || strcasecmp(s, off[i]) == 0) {
			v->u = strcasecmp(s, on[i]) == 0;
			return (v->text = strdup(v->u ? "ON" : "OFF")) ? 0 : -ENOMEM;
		}
	return -EINVAL;
}

/* Bytes, or with K, M, G, T (innodb_buffer_pool_size), within the row's
 * bounds; passed as bytes. */
int parse_server_bytes(const char *s, struct prop_value *v)
{
	int r = parse_size_bytes(s, &v->u);

	if (r < 0)
		return r;
	if (v->u < (uint64_t)v->def->min || v->u > (uint64_t)v->def->max)
		return -ERANGE;
	return xasprintf(&v->text, "%" PRIu64, v->u) < 0 ? -ENOMEM : 0;
}

/* PostgreSQL's memory units (shared_buffers reads back as 128MB); a bare
 * number would be in 8 kB pages, so a unit is required; passed in kB. */
int parse_server_kb(const char *s, struct prop_value *v)
{
	static const char *const units[] = { "kB", "MB", "GB", "TB" };
	size_t digits = strspn(s, "0123456789");
	uint64_t n;

	if (digits == 0 || digits > 12 || parse_u64(strndupa(s, digits), &n) < 0)
		return -EINVAL;
	for (size_t i = 0; i < ELEMENTSOF(units); i++)
		if (streq(s + digits, units[i])) {
			v->u = n << (10 * (i + 1));
			if (v->u < (uint64_t)v->def->min || v->u > (uint64_t)v->def->max)
				return -ERANGE;
			return xasprintf(&v->text, "%" PRIu64 "kB", v->u >> 10) < 0 ? -ENOMEM : 0;
		}
	return -EINVAL;
}

/* thread_handling: no-threads, a debugging mode, is not offered. */
int parse_thread_handling(const char *s, struct prop_value *v)
{
	static const char *const words[] = { "one-thread-per-connection", "pool-of-threads" };
	int r = parse_word(s, words, ELEMENTSOF(words), v);

	v->u = (uint64_t)v->i;
	return r;
}

int parse_huge_pages(const char *s, struct prop_value *v)
{
	static const char *const words[] = { "off", "on", "try" };
	int r = parse_word(s, words, ELEMENTSOF(words), v);

	v->u = (uint64_t)v->i;
	return r;
}

void prop_value_done(struct prop_value *v)
{
	if (!v)
		return;
	strv_free(v->strv);
	free(v->text);
	free(v->given);
	v->strv = NULL;
	v->text = NULL;
	v->given = NULL;
}

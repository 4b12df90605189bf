/* Placement snapshots from /proc/PID and cgroupfs.  Every attribute is a
 * string, so that a diff is a string comparison and a record needs no
 * schema; what cannot be read is simply absent. */
#include <dirent.h>
#include <fnmatch.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>

#include "slices/context.h"
#include "slices/props.h"
#include "slices/snapshot.h"
#include "common/util.h"

int placement_set(struct placement *p, const char *key, const char *value)
{
	struct placement_attr *a;

	for (size_t i = 0; i < p->n; i++)
		if (streq(p->attrs[i].key, key)) {
			char *v = strdup(value);

			if (!v)
				return -ENOMEM;
			free(p->attrs[i].value);
			p->attrs[i].value = v;
			return 0;
		}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;

		a = realloc(p->attrs, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		p->attrs = a;
		p->cap = cap;
	}
	a = &p->attrs[p->n];
	a->key = strdup(key);
	a->value = strdup(value);
	if (!a->key || !a->value) {
		free(a->key);
		free(a->value);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

static int setf(struct placement *p, const char *key, const char *fmt, ...) _printf_(3, 4);
static int setf(struct placement *p, const char *key, const char *fmt, ...)
{
	_cleanup_free_ char *v = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	return n < 0 ? -ENOMEM : placement_set(p, key, v);
}

const char *placement_get(const struct placement *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (streq(p->attrs[i].key, key))
			return p->attrs[i].value;
	return NULL;
}

void placement_done(struct placement *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->attrs[i].key);
		free(p->attrs[i].value);
	}
	free(p->attrs);
	*p = (struct placement){};
}

bool placement_key_is_counter(const char *key)
{
	return strncmp(key, "cpu.stat.", 9) == 0;
}

/* A cgroupfs or /proc file as one attribute, if it can be read. */
static int set_from_file(struct placement *p, const char *key, const char *path)
{
	_cleanup_free_ char *v = NULL;

	if (read_file_str(path, &v) < 0)
		return 0;
	for (char *c = v; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return placement_set(p, key, v);
}

struct cgroups {
	struct placement *p;
	char **systemd_path;
};

static int add_cgroup(char *controllers, const char *cg, void *userdata)
{
	struct cgroups *x = userdata;
	char key[128];
	int r = 0;

	if (!*controllers)
		r = placement_set(x->p, "cgroup.unified", cg);
	/* One key per controller, whether or not a hierarchy co-mounts
	 * them (cpu,cpuacct here, cpu and cpuacct there). */
	for (char *c = *controllers ? controllers : NULL, *save = NULL, *tok; c && r >= 0; c = NULL)
		for (tok = strtok_r(c, ",", &save); tok && r >= 0; tok = strtok_r(NULL, ",", &save)) {
			snprintf(key, sizeof(key), "cgroup.%s", strncmp(tok, "name=", 5) ? tok : tok + 5);
			r = placement_set(x->p, key, cg);
		}
	/* The v2 path on unified and hybrid, name=systemd on legacy. */
	if (r >= 0 && (!*controllers || streq(controllers, "name=systemd")) && !*x->systemd_path)
		*x->systemd_path = strdup(cg);
	return r;
}

/* /proc/PID/cgroup: "cgroup.<controllers>" for each hierarchy, and the
 * unit and slice systemd's path names. */
static int read_cgroups(struct placement *p, pid_t pid, char **ret_systemd_path)
{
	struct cgroups x = { .p = p, .systemd_path = ret_systemd_path };

	return cgroup_foreach_of_pid(pid, add_cgroup, &x);
}

static int set_unit_and_slice(struct placement *p, const char *cg)
{
	_cleanup_free_ char *copy = strdup(cg);
	const char *unit = "", *slice = "-.slice";
	int r;

	if (!copy)
		return -ENOMEM;
	for (char *c = strtok(copy, "/"); c; c = strtok(NULL, "/")) {
		size_t n = strlen(c);

		if (n > 6 && streq(c + n - 6, ".slice"))
			slice = c;
		else if ((n > 8 && streq(c + n - 8, ".service")) || (n > 6 && streq(c + n - 6, ".scope"))) {
			/* The innermost unit: a service of a user manager lies in user@UID.service. */
			unit = c;
		}
	}
	r = placement_set(p, "unit", unit);
	return r < 0 ? r : placement_set(p, "slice", slice);
}

static int read_cpu_cgroup(struct placement *p, pid_t pid, enum cgroup_mode mode)
{
	static const char *const v1_files[] = { "cpu.shares", "cpu.cfs_quota_us", "cpu.cfs_period_us" };
	static const char *const v2_files[] = { "cpu.weight", "cpu.max", "cpuset.cpus.effective" };
	_cleanup_free_ char *dir = NULL;
	char path[4200], line[256];
	const char *const *files = mode == CGROUP_UNIFIED ? v2_files : v1_files;
	_cleanup_fclose_ FILE *f = NULL;
	int r;

	if (cgroup_cpu_dir(pid, mode, &dir) < 0)
		return 0;
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		r = set_from_file(p, files[i], path);
		if (r < 0)
			return r;
	}
	if (mode != CGROUP_UNIFIED) {
		const char *cs = placement_get(p, "cgroup.cpuset");

		snprintf(path, sizeof(path), "/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus", cs ? cs : "/");
		r = set_from_file(p, "cpuset.cpus.effective", path);
		if (r < 0)
			return r;
	}
	snprintf(path, sizeof(path), "%s/cpu.stat", dir);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char name[64], key[80];
		unsigned long long v;

		if (sscanf(line, "%63s %llu", name, &v) != 2)
			continue;
		snprintf(key, sizeof(key), "cpu.stat.%s", name);
		r = setf(p, key, "%llu", v);
		if (r < 0)
			return r;
	}
	return 0;
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
static int read_affinity(struct placement *p, pid_t pid)
{
	char main_aff[4096], aff[4096], dir[64];
	unsigned differ = 0, threads = 0;
	DIR *d;
	struct dirent *e;
	int r;

	if (affinity_of(pid, main_aff, sizeof(main_aff)) < 0)
		return 0;
	r = placement_set(p, "affinity", main_aff);
	if (r < 0)
		return r;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && affinity_of(atoi(e->d_name), aff, sizeof(aff)) >= 0) {
			threads++;
			differ += !streq(aff, main_aff);
		}
	if (d)
		closedir(d);
	return differ ? setf(p, "affinity.threads", "%u of %u threads differ", differ, threads)
		      : placement_set(p, "affinity.threads", "all the same");
}

static int read_autogroup(struct placement *p, pid_t pid, enum cgroup_mode mode)
{
	_cleanup_free_ char *s = NULL, *enabled = NULL;
	char path[64], group[64];
	const char *cpu_cg = placement_get(p, mode == CGROUP_UNIFIED ? "cgroup.unified" : "cgroup.cpu");
	int nice, r;

	snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)pid);
	if (read_file_str(path, &s) < 0 || sscanf(s, "%63s nice %d", group, &nice) != 2)
		return 0;
	r = placement_set(p, "autogroup", group);
	if (r >= 0)
		r = setf(p, "autogroup.nice", "%d", nice);
	/* The kernel applies autogroups only to tasks in the root task group. */
	if (r >= 0 && read_file_str("/proc/sys/kernel/sched_autogroup_enabled", &enabled) >= 0)
		r = placement_set(p, "autogroup.in_force",
				  streq(enabled, "1") && cpu_cg && streq(cpu_cg, "/") ? "yes" : "no");
	return r;
}

static int read_process(struct placement *p, pid_t pid)
{
	static const char *const policies[] = { "other", "fifo", "rr", "batch", "iso", "idle", "deadline" };
	struct sched_param sp;
	int policy, r;
	pid_t parent = pid;
	char chain[512] = "";

	errno = 0;
	r = getpriority(PRIO_PROCESS, (id_t)pid);
	if (errno == 0 && (r = setf(p, "nice", "%d", r)) < 0)
		return r;
	policy = sched_getscheduler(pid);
	if (policy >= 0 && sched_getparam(pid, &sp) == 0) {
		policy &= ~SCHED_RESET_ON_FORK;
		r = placement_set(p, "sched.policy", (size_t)policy < ELEMENTSOF(policies) ? policies[policy] : "?");
		if (r >= 0)
			r = setf(p, "sched.priority", "%d", sp.sched_priority);
		if (r < 0)
			return r;
	}
	r = setf(p, "session.is_leader", "%s", getsid(pid) == pid ? "yes" : "no");
	if (r >= 0)
		r = setf(p, "pgrp.is_leader", "%s", getpgid(pid) == pid ? "yes" : "no");
	/* The ancestry by command name: systemd, or bash < sshd < ... */
	for (int depth = 0; r >= 0 && depth < 8 && parent > 1; depth++) {
		_cleanup_free_ char *stat = NULL;
		char path[64], comm[64];
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
	return r < 0 ? r : placement_set(p, "parents", chain);
}

static int read_status_and_limits(struct placement *p, pid_t pid)
{
	/* /proc/PID/limits rather than prlimit(), which needs CAP_SYS_RESOURCE
	 * over a process of another user. */
	static const struct {
		const char *name, *key;
	} limits[] = {
		{ "Max open files", "limit.nofile" }, { "Max locked memory", "limit.memlock" },
		{ "Max processes", "limit.nproc" },   { "Max stack size", "limit.stack" },
		{ "Max core file size", "limit.core" }, { "Max address space", "limit.as" },
	};
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[256];
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "re");
	while (r >= 0 && f && fgets(line, sizeof(line), f))
		for (size_t i = 0; i < ELEMENTSOF(limits); i++) {
			size_t n = strlen(limits[i].name);
			char soft[32];

			/* "Max open files            1024      524288    files": the soft limit. */
			if (strncmp(line, limits[i].name, n) == 0 && line[n] == ' ' && sscanf(line + n, "%31s", soft) == 1)
				r = placement_set(p, limits[i].key, soft);
		}
	if (r < 0)
		return r;
	if (f)
		fclose(f);
	f = NULL;
	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
	r = set_from_file(p, "oom_score_adj", path);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (r >= 0 && f && fgets(line, sizeof(line), f)) {
		char value[128];

		if (sscanf(line, "CapEff: %127s", value) == 1)
			r = placement_set(p, "cap.effective", value);
		else if (sscanf(line, "NoNewPrivs: %127s", value) == 1)
			r = placement_set(p, "no_new_privs", value);
		else if (sscanf(line, "Mems_allowed_list: %127s", value) == 1)
			r = placement_set(p, "numa.mems_allowed", value);
	}
	return r;
}

/* The NUMA policy of the first mapping, as numa_maps prints it. */
static int read_numa_policy(struct placement *p, pid_t pid)
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[512], policy[64];

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(line, sizeof(line), f) || sscanf(line, "%*s %63s", policy) != 1)
		return 0;
	return placement_set(p, "numa.policy", policy);
}

static int read_allocator(struct placement *p, pid_t pid)
{
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[1024];
	const char *allocator = "glibc";

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
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
	return placement_set(p, "allocator", allocator);
}

/* The environment, with the values of anything that looks like a secret
 * replaced: results are shared, passwords must not be. */
static int read_environment(struct placement *p, pid_t pid)
{
	static const char *const secret[] = { "*PASS*", "*PWD*", "*SECRET*", "*TOKEN*", "*KEY*", "*CRED*" };
	_cleanup_free_ char *env = NULL;
	char path[64];
	size_t len = 0, cap = 0;
	_cleanup_fclose_ FILE *f = NULL;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	len = getdelim(&env, &cap, EOF, f) > 0 ? (size_t)ftell(f) : 0;
	/* The next entry's offset is taken before the '=' is cut: a value that
	 * holds '=' (GLIBC_TUNABLES=glibc.malloc.tcache_count=0) must not be
	 * read as an entry of its own. */
	for (size_t off = 0, next; r >= 0 && off < len; off = next) {
		char *kv = env + off, *eq = strchr(kv, '='), key[256];
		bool hide = false;

		next = off + strlen(kv) + 1;
		if (!eq || eq - kv >= 200)
			continue;
		snprintf(key, sizeof(key), "env.%.*s", (int)(eq - kv), kv);
		*eq = 0;
		for (size_t i = 0; i < ELEMENTSOF(secret) && !streq(kv, "PWD") && !streq(kv, "OLDPWD"); i++)
			hide |= fnmatch(secret[i], kv, 0) == 0;
		r = placement_set(p, key, hide ? "(set, value withheld)" : eq + 1);
	}
	return r;
}

static const char *same(const char *a, const char *b)
{
	return a && b && streq(a, b) ? "yes" : "no";
}

/* What the load generator shares with the server. */
static int read_client(struct placement *p, pid_t pid, pid_t client, enum cgroup_mode mode)
{
	_cleanup_(placement_done) struct placement c = {};
	_cleanup_free_ char *systemd_path = NULL;
	const char *cpu_key = mode == CGROUP_UNIFIED ? "cgroup.unified" : "cgroup.cpu";
	int r;

	r = read_cgroups(&c, client, &systemd_path);
	if (r >= 0)
		r = read_affinity(&c, client);
	if (r >= 0)
		r = read_autogroup(&c, client, mode);
	if (r >= 0)
		r = placement_set(p, "client.same_cpu_cgroup", same(placement_get(p, cpu_key), placement_get(&c, cpu_key)));
	if (r >= 0)
		r = placement_set(p, "client.same_session", getsid(client) == getsid(pid) ? "yes" : "no");
	if (r >= 0)
		r = placement_set(p, "client.same_autogroup", same(placement_get(p, "autogroup"), placement_get(&c, "autogroup")));
	if (r >= 0)
		r = placement_set(p, "client.affinity", strempty(placement_get(&c, "affinity")));
	/* The path systemd keeps units in: the client's own scope shows here
	 * even where v1 gives it no cpu cgroup of its own. */
	if (r >= 0)
		r = placement_set(p, "client.cgroup", strempty(systemd_path));
	return r;
}

int placement_snapshot(pid_t pid, pid_t client, enum cgroup_mode mode, struct placement *ret)
{
	_cleanup_free_ char *systemd_path = NULL;
	struct placement p = {};
	int r;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	r = read_cgroups(&p, pid, &systemd_path);
	if (r >= 0)
		r = set_unit_and_slice(&p, systemd_path ? systemd_path : "/");
	if (r >= 0)
		r = read_cpu_cgroup(&p, pid, mode);
	if (r >= 0)
		r = read_affinity(&p, pid);
	if (r >= 0)
		r = read_autogroup(&p, pid, mode);
	if (r >= 0)
		r = read_process(&p, pid);
	if (r >= 0)
		r = read_status_and_limits(&p, pid);
	if (r >= 0)
		r = read_numa_policy(&p, pid);
	if (r >= 0)
		r = read_allocator(&p, pid);
	if (r >= 0)
		r = read_environment(&p, pid);
	if (r >= 0 && client > 0)
		r = read_client(&p, pid, client, mode);
	if (r < 0) {
		placement_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}

int placement_diff(const struct placement *a, const struct placement *b, const char ***ret_keys, size_t *ret_n)
{
	const char **keys = calloc(a->n + b->n + 1, sizeof(*keys));
	size_t n = 0;

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		const char *other = placement_get(b, a->attrs[i].key);

		if (!placement_key_is_counter(a->attrs[i].key) && !streq_ptr(other, a->attrs[i].value))
			keys[n++] = a->attrs[i].key;
	}
	for (size_t i = 0; i < b->n; i++)
		if (!placement_key_is_counter(b->attrs[i].key) && !placement_get(a, b->attrs[i].key))
			keys[n++] = b->attrs[i].key;
	*ret_keys = keys;
	*ret_n = n;
	return 0;
}

json_t *placement_to_json(const struct placement *p)
{
	json_t *j = json_object();

	for (size_t i = 0; j && i < p->n; i++)
		if (json_object_set_new(j, p->attrs[i].key, json_string(p->attrs[i].value)) < 0) {
			json_decref(j);
			return NULL;
		}
	return j;
}

int placement_from_json(const json_t *j, struct placement *ret)
{
	struct placement p = {};
	const char *key;
	json_t *v;
	int r = 0;

	if (!json_is_object(j))
		return -EINVAL;
	json_object_foreach((json_t *)j, key, v)
	{
		if (!json_is_string(v)) {
			r = -EINVAL;
			break;
		}
		r = placement_set(&p, key, json_string_value(v));
		if (r < 0)
			break;
	}
	if (r < 0) {
		placement_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}

/* Compares one requested value with what the snapshot read back. */
static int verify_one(struct placement *p, const char *prop, const char *key, const char *want, unsigned *bad)
{
	const char *got = placement_get(p, key);
	char name[64];

	snprintf(name, sizeof(name), "in_force.%s", prop);
	if (got && streq(got, want))
		return placement_set(p, name, "yes");
	(*bad)++;
	return setf(p, name, "no: %s is %s, not %s", key, got ? got : "unreadable", want);
}

int placement_verify(struct placement *p, const struct context_spec *spec, enum cgroup_mode mode, unsigned *ret_bad)
{
	struct cgroup_limits l = {};
	char want[4200];
	unsigned bad = 0;
	int r = 0;

	prop_collect_cgroup_limits(spec->props, spec->n_props, &l);
	if (l.weight || l.shares) {
		if (mode == CGROUP_UNIFIED)
			snprintf(want, sizeof(want), "%llu", (unsigned long long)l.weight);
		else
			snprintf(want, sizeof(want), "%llu", (unsigned long long)l.shares);
		r = verify_one(p, l.weight ? "CPUWeight" : "CPUShares", mode == CGROUP_UNIFIED ? "cpu.weight" : "cpu.shares",
			       want, &bad);
	}
	if (r >= 0 && l.quota_per_sec) {
		uint64_t period = l.period_usec ? l.period_usec : 100000;
		unsigned long long quota = (unsigned long long)(l.quota_per_sec * period / USEC_PER_SEC);

		if (mode == CGROUP_UNIFIED)
			snprintf(want, sizeof(want), "%llu %llu", quota, (unsigned long long)period);
		else
			snprintf(want, sizeof(want), "%llu", quota);
		r = verify_one(p, "CPUQuota", mode == CGROUP_UNIFIED ? "cpu.max" : "cpu.cfs_quota_us", want, &bad);
	}
	if (r >= 0 && l.cpus && cpumask_format(l.cpus, l.cpus_bytes, want, sizeof(want)) >= 0)
		r = verify_one(p, "AllowedCPUs", "cpuset.cpus.effective", want, &bad);
	for (size_t i = 0; r >= 0 && i < spec->n_props; i++) {
		const struct prop_value *v = &spec->props[i];

		if (streq(v->def->name, "CPUAffinity") && cpumask_format(v->cpus, v->cpus_bytes, want, sizeof(want)) >= 0)
			r = verify_one(p, "CPUAffinity", "affinity", want, &bad);
		else if (streq(v->def->name, "Nice")) {
			snprintf(want, sizeof(want), "%lld", (long long)v->i);
			r = verify_one(p, "Nice", "nice", want, &bad);
		}
	}
	*ret_bad = bad;
	return r;
}

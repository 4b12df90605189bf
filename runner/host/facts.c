/* The host facts that decide how a placement behaves, collected into one
 * JSON tree.  Collection knows nothing of output formats and does not log;
 * host/text.c renders the tree, cli/host.c is the verb. */
#include <dirent.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <systemd/sd-bus.h>

#include "host/facts.h"
#include "slices/sys/cgmode.h"
#include "common/topology.h"
#include "common/util.h"

#define SYS_CPU "/sys/devices/system/cpu"
#define SYS_NODE "/sys/devices/system/node"
/* The D-Bus query must never hang the verb, nor an experiment run. */
#define SYSTEMD_BUS_TIMEOUT_USEC (2 * USEC_PER_SEC)

/* A JSON string, or null for NULL.  Kernel text can hold bytes that are not
 * UTF-8, which jansson refuses: those become '?'.  NULL only on ENOMEM. */
static json_t *jstr(const char *s)
{
	_cleanup_free_ char *copy = NULL;
	json_t *v;

	if (!s)
		return json_null();
	v = json_string(s);
	if (v)
		return v;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80 || (unsigned char)*p < 0x20)
			*p = '?';
	return json_string(copy);
}

/* Set o[key] = v, taking v.  Returns 0 or -ENOMEM (v NULL or set failed). */
static int jset(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_set_new(o, key, v) < 0 ? -ENOMEM : 0;
}

static int jappend(json_t *a, json_t *v)
{
	if (!v)
		return -ENOMEM;
	return json_array_append_new(a, v) < 0 ? -ENOMEM : 0;
}

/* Read a small file; a missing or unreadable file gives *ret = NULL and 0,
 * only ENOMEM is an error. */
static int read_optional(const char *path, char **ret)
{
	int r;

	*ret = NULL;
	r = read_file_str(path, ret);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		*ret = NULL;
	return 0;
}

/* o[key] = the file's text, or null. */
static int set_file_str(json_t *o, const char *key, const char *path)
{
	_cleanup_free_ char *s = NULL;
	int r;

	r = read_optional(path, &s);
	if (r < 0)
		return r;
	return jset(o, key, jstr(s));
}

/* o[key] = the file's integer; its text if it is not one; null if missing. */
static int set_file_int(json_t *o, const char *key, const char *path)
{
	_cleanup_free_ char *s = NULL;
	long v;
	int r;

	r = read_optional(path, &s);
	if (r < 0)
		return r;
	if (s && parse_int_range(s, LONG_MIN, LONG_MAX, &v) == 0)
		return jset(o, key, json_integer(v));
	return jset(o, key, jstr(s));
}

/* o[key] = the bracketed choice of a sysfs selector ("always [madvise] never"
 * gives "madvise"); the whole text if there is no bracket; null if missing. */
static int set_file_choice(json_t *o, const char *key, const char *path)
{
	_cleanup_free_ char *s = NULL;
	char *open, *close;
	int r;

	r = read_optional(path, &s);
	if (r < 0)
		return r;
	if (s) {
		open = strchr(s, '[');
		close = open ? strchr(open, ']') : NULL;
		if (open && close) {
			*close = 0;
			return jset(o, key, jstr(open + 1));
		}
	}
	return jset(o, key, jstr(s));
}

/* ---- cpu ---------------------------------------------------------------- */

int cpuinfo_read(char **ret_vendor, char **ret_model)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL, *vendor = NULL, *model = NULL;
	size_t cap = 0;

	*ret_vendor = *ret_model = NULL;
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return 0;
	while ((!vendor || !model) && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *k_end, *v;
		char **dst = NULL;

		if (!colon)
			continue;
		for (k_end = colon; k_end > line && (k_end[-1] == ' ' || k_end[-1] == '\t'); k_end--)
			;
		if ((size_t)(k_end - line) == strlen("vendor_id") && strncmp(line, "vendor_id", k_end - line) == 0)
			dst = &vendor;
		else if ((size_t)(k_end - line) == strlen("model name") && strncmp(line, "model name", k_end - line) == 0)
			dst = &model;
		if (!dst || *dst)
			continue;
		v = colon + 1;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = 0;
		*dst = strdup(v);
		if (!*dst)
			return -ENOMEM;
	}
	*ret_vendor = vendor;
	*ret_model = model;
	vendor = model = NULL;
	return 0;
}

/* The online CPUs, from the kernel's list.  0 with *ret_n = 0 if unknown. */
static int cpus_online(long *cpus, size_t cap, size_t *ret_n)
{
	_cleanup_free_ char *s = NULL;
	int r;

	*ret_n = 0;
	r = read_optional(SYS_CPU "/online", &s);
	if (r < 0)
		return r;
	if (!s || parse_int_list(s, 0, CPU_LIST_MAX - 1, cpus, cap, ret_n) < 0)
		*ret_n = 0;
	return 0;
}

static int read_cpu_long(long cpu, const char *rel, long *ret)
{
	_cleanup_free_ char *path = NULL, *s = NULL;
	int r;

	r = xasprintf(&path, SYS_CPU "/cpu%ld/%s", cpu, rel);
	if (r < 0)
		return r;
	r = read_file_str(path, &s);
	if (r < 0)
		return r;
	return parse_int_range(s, LONG_MIN, LONG_MAX, ret);
}

/* sockets = distinct packages, cores = distinct (package, die, core) triples,
 * threads = online CPUs.  A CPU without topology counts only as a thread. */
static int cpu_topology(json_t *cpu, const long *cpus, size_t n)
{
	_cleanup_free_ long *pkgs = NULL, *cores = NULL;
	size_t n_pkgs = 0, n_cores = 0;
	bool have_topology = false;

	pkgs = calloc(n ? n : 1, sizeof(long));
	cores = calloc(n ? n : 1, 3 * sizeof(long));
	if (!pkgs || !cores)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		long pkg, core, die = 0;
		size_t j;

		int r1, r2, r3;

		r1 = read_cpu_long(cpus[i], "topology/physical_package_id", &pkg);
		r2 = read_cpu_long(cpus[i], "topology/core_id", &core);
		r3 = read_cpu_long(cpus[i], "topology/die_id", &die); /* absent before 5.x: one die */
		if (r1 == -ENOMEM || r2 == -ENOMEM || r3 == -ENOMEM)
			return -ENOMEM;
		if (r1 < 0 || r2 < 0)
			continue;
		if (r3 < 0)
			die = 0;
		have_topology = true;
		for (j = 0; j < n_pkgs && pkgs[j] != pkg; j++)
			;
		if (j == n_pkgs)
			pkgs[n_pkgs++] = pkg;
		for (j = 0; j < n_cores; j++)
			if (cores[3 * j] == pkg && cores[3 * j + 1] == die && cores[3 * j + 2] == core)
				break;
		if (j == n_cores) {
			cores[3 * n_cores] = pkg;
			cores[3 * n_cores + 1] = die;
			cores[3 * n_cores + 2] = core;
			n_cores++;
		}
	}
	if (jset(cpu, "sockets", have_topology ? json_integer((json_int_t)n_pkgs) : json_null()) < 0 ||
	    jset(cpu, "cores", have_topology ? json_integer((json_int_t)n_cores) : json_null()) < 0 ||
	    jset(cpu, "threads", n ? json_integer((json_int_t)n) : json_null()) < 0)
		return -ENOMEM;
	return 0;
}

/* The distinct shared_cpu_list values of the level-3 caches, in CPU order:
 * the groups that llc:N names (common/topology.h).  An empty array means no
 * L3 is exposed (common in VMs). */
static int cpu_l3_groups(json_t *cpu)
{
	char **groups = NULL;
	size_t n = 0;
	json_t *a;
	int r;

	a = json_array();
	r = jset(cpu, "l3_groups", a);
	if (r >= 0)
		r = topology_groups("llc", &groups, &n);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = jappend(a, jstr(groups[i]));
	topology_groups_free(groups, n);
	return r;
}

static int dirent_sort(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int dirent_no_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* name -> text for each file in the vulnerabilities directory, or null. */
static int cpu_vulnerabilities(json_t *cpu)
{
	struct dirent **names = NULL;
	json_t *vulns;
	int n, r = 0;

	n = scandir(SYS_CPU "/vulnerabilities", &names, dirent_no_dots, dirent_sort);
	if (n < 0)
		return errno == ENOMEM ? -ENOMEM : jset(cpu, "vulnerabilities", json_null());
	vulns = json_object();
	r = jset(cpu, "vulnerabilities", vulns);
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL;

		if (r >= 0)
			r = xasprintf(&path, SYS_CPU "/vulnerabilities/%s", names[i]->d_name);
		if (r >= 0)
			r = set_file_str(vulns, names[i]->d_name, path);
		free(names[i]);
	}
	free(names);
	return r;
}

static int collect_cpu(json_t *facts)
{
	_cleanup_free_ char *vendor = NULL, *model = NULL, *governor = NULL;
	_cleanup_free_ long *cpus = NULL;
	size_t n;
	json_t *cpu;
	int r;

	cpu = json_object();
	r = jset(facts, "cpu", cpu);
	if (r < 0)
		return r;
	r = cpuinfo_read(&vendor, &model);
	if (r < 0)
		return r;
	r = jset(cpu, "vendor", jstr(vendor));
	if (r < 0)
		return r;
	r = jset(cpu, "model", jstr(model));
	if (r < 0)
		return r;

	cpus = calloc(CPU_LIST_MAX, sizeof(long));
	if (!cpus)
		return -ENOMEM;
	r = cpus_online(cpus, CPU_LIST_MAX, &n);
	if (r < 0)
		return r;
	r = cpu_topology(cpu, cpus, n);
	if (r < 0)
		return r;
	r = cpu_l3_groups(cpu);
	if (r < 0)
		return r;

	/* cpu0 stands for all: a mixed-governor host is not one we benchmark on. */
	r = read_optional(SYS_CPU "/cpu0/cpufreq/scaling_governor", &governor);
	if (r < 0)
		return r;
	r = jset(cpu, "governor", jstr(governor));
	if (r < 0)
		return r;
	r = jset(cpu, "governor_reason", governor ? json_null() : jstr("no cpufreq"));
	if (r < 0)
		return r;
	return cpu_vulnerabilities(cpu);
}

/* ---- numa --------------------------------------------------------------- */

static int dirent_is_node(const struct dirent *d)
{
	return strncmp(d->d_name, "node", 4) == 0 && d->d_name[4] >= '0' && d->d_name[4] <= '9';
}

/* Sort node2 before node10. */
static int dirent_node_sort(const struct dirent **a, const struct dirent **b)
{
	long x = strtol((*a)->d_name + 4, NULL, 10), y = strtol((*b)->d_name + 4, NULL, 10);
	return x < y ? -1 : x > y;
}

static int collect_numa(json_t *facts)
{
	struct dirent **names = NULL;
	json_t *numa, *nodes;
	int n, r;

	numa = json_object();
	r = jset(facts, "numa", numa);
	if (r < 0)
		return r;
	n = scandir(SYS_NODE, &names, dirent_is_node, dirent_node_sort);
	if (n < 0) {
		if (errno == ENOMEM)
			return -ENOMEM;
		r = jset(numa, "nodes", json_null());
	} else {
		/* node number (as a string key) -> cpulist */
		nodes = json_object();
		r = jset(numa, "nodes", nodes);
		for (int i = 0; i < n; i++) {
			_cleanup_free_ char *path = NULL;

			if (r >= 0)
				r = xasprintf(&path, SYS_NODE "/%s/cpulist", names[i]->d_name);
			if (r >= 0)
				r = set_file_str(nodes, names[i]->d_name + 4, path);
			free(names[i]);
		}
		free(names);
	}
	if (r < 0)
		return r;
	return set_file_int(numa, "balancing", "/proc/sys/kernel/numa_balancing");
}

/* ---- kernel ------------------------------------------------------------- */

/* The flags that change scheduling, from the kernel's part of the command
 * line (what follows "--" belongs to init). */
static int kernel_cmdline_flags(json_t *kernel, const char *cmdline)
{
	_cleanup_free_ char *copy = NULL;
	const char *isolcpus = NULL, *nohz_full = NULL;
	bool noautogroup = false;
	char *save = NULL;

	if (cmdline) {
		copy = strdup(cmdline);
		if (!copy)
			return -ENOMEM;
		for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
			if (streq(w, "--"))
				break;
			if (streq(w, "noautogroup"))
				noautogroup = true;
			else if (strncmp(w, "isolcpus=", 9) == 0)
				isolcpus = w + 9; /* the last one wins, as in the kernel */
			else if (strncmp(w, "nohz_full=", 10) == 0)
				nohz_full = w + 10;
		}
	}
	if (jset(kernel, "noautogroup", cmdline ? json_boolean(noautogroup) : json_null()) < 0 ||
	    jset(kernel, "isolcpus", jstr(isolcpus)) < 0 ||
	    jset(kernel, "nohz_full", jstr(nohz_full)) < 0)
		return -ENOMEM;
	return 0;
}

static int collect_kernel(json_t *facts)
{
	_cleanup_free_ char *cmdline = NULL;
	struct utsname u;
	json_t *kernel;
	int r;

	kernel = json_object();
	r = jset(facts, "kernel", kernel);
	if (r < 0)
		return r;
	r = jset(kernel, "release", jstr(uname(&u) == 0 ? u.release : NULL));
	if (r < 0)
		return r;
	r = read_optional("/proc/cmdline", &cmdline);
	if (r < 0)
		return r;
	r = jset(kernel, "cmdline", jstr(cmdline));
	if (r < 0)
		return r;
	return kernel_cmdline_flags(kernel, cmdline);
}

/* ---- systemd ------------------------------------------------------------ */

/* The manager's Version property on the system bus.  Returns 0 with either
 * *ret_version or *ret_reason set, or -ENOMEM. */
static int systemd_version(char **ret_version, char **ret_reason)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	char *version = NULL;
	int r;

	*ret_version = *ret_reason = NULL;
	r = sd_bus_open_system(&bus);
	if (r < 0)
		return xasprintf(ret_reason, "cannot connect to the system bus: %s", strerror(-r));
	r = sd_bus_set_method_call_timeout(bus, SYSTEMD_BUS_TIMEOUT_USEC);
	if (r < 0)
		return xasprintf(ret_reason, "cannot set a bus timeout: %s", strerror(-r));
	r = sd_bus_get_property_string(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
				       "org.freedesktop.systemd1.Manager", "Version", &error, &version);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return xasprintf(ret_reason, "cannot get the systemd manager version: %s",
				 error.message ? error.message : strerror(-r));
	*ret_version = version;
	return 0;
}

static int collect_systemd(json_t *facts)
{
	_cleanup_free_ char *version = NULL, *reason = NULL;
	json_t *systemd;
	int r;

	systemd = json_object();
	r = jset(facts, "systemd", systemd);
	if (r < 0)
		return r;
	r = systemd_version(&version, &reason);
	if (r < 0)
		return r;
	r = jset(systemd, "version", jstr(version));
	if (r < 0)
		return r;
	return jset(systemd, "reason", jstr(reason));
}

/* ---- cgroup ------------------------------------------------------------- */

/* Mount options of a v1 cgroup mount that are not controllers. */
static bool cgroup_opt_is_generic(const char *o)
{
	static const char *const generic[] = {
		"rw", "ro", "nosuid", "nodev", "noexec", "relatime", "noatime", "nodiratime", "strictatime",
		"lazytime", "sync", "dirsync", "mand", "silent", "clone_children", "noprefix", "xattr",
		"cpuset_v2_mode", "favordynmods", "none",
	};

	if (strchr(o, '='))
		return true;
	for (size_t i = 0; i < ELEMENTSOF(generic); i++)
		if (streq(o, generic[i]))
			return true;
	return false;
}

static void endmntentp_(FILE **f)
{
	if (*f)
		endmntent(*f);
}

/* v1_controllers: controller -> mount point; v1_named: name= -> mount point. */
static int cgroup_v1(json_t *cgroup)
{
	_cleanup_(endmntentp_) FILE *f = NULL;
	json_t *ctl, *named;
	struct mntent m;
	char buf[4096];
	int r;

	ctl = json_object();
	r = jset(cgroup, "v1_controllers", ctl);
	if (r < 0)
		return r;
	named = json_object();
	r = jset(cgroup, "v1_named", named);
	if (r < 0)
		return r;
	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return 0;
	while (getmntent_r(f, &m, buf, sizeof(buf))) {
		_cleanup_free_ char *opts = NULL;
		char *save = NULL;

		if (!streq(m.mnt_type, "cgroup"))
			continue;
		opts = strdup(m.mnt_opts);
		if (!opts)
			return -ENOMEM;
		for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
			if (strncmp(o, "name=", 5) == 0)
				r = jset(named, o + 5, jstr(m.mnt_dir));
			else if (!cgroup_opt_is_generic(o))
				r = jset(ctl, o, jstr(m.mnt_dir));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int collect_cgroup(json_t *facts)
{
	_cleanup_free_ char *controllers = NULL, *path = NULL;
	const char *v2 = NULL;
	enum cgroup_mode mode;
	json_t *cgroup, *list;
	int r;

	cgroup = json_object();
	r = jset(facts, "cgroup", cgroup);
	if (r < 0)
		return r;
	r = cgroup_mode_probe(&mode, &v2);
	r = jset(cgroup, "mode", jstr(r < 0 ? NULL : cgroup_mode_to_string(mode)));
	if (r < 0)
		return r;
	r = jset(cgroup, "v2_path", jstr(v2));
	if (r < 0)
		return r;

	/* The controllers the v2 root offers; in hybrid mode usually none. */
	if (v2) {
		r = xasprintf(&path, "%s/cgroup.controllers", v2);
		if (r < 0)
			return r;
		r = read_optional(path, &controllers);
		if (r < 0)
			return r;
	}
	if (controllers) {
		char *save = NULL;

		list = json_array();
		r = jset(cgroup, "v2_controllers", list);
		if (r < 0)
			return r;
		for (char *w = strtok_r(controllers, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
			r = jappend(list, jstr(w));
			if (r < 0)
				return r;
		}
	} else {
		r = jset(cgroup, "v2_controllers", json_null());
		if (r < 0)
			return r;
	}
	return cgroup_v1(cgroup);
}

/* ---- the rest ----------------------------------------------------------- */

static int collect_misc(json_t *facts)
{
	char host[HOST_NAME_MAX + 1];
	json_t *sched, *thp, *glibc;
	long nproc;
	int r;

	r = jset(facts, "format_version", json_integer(HOST_FACTS_FORMAT_VERSION));
	if (r < 0)
		return r;
	if (gethostname(host, sizeof(host)) < 0)
		r = jset(facts, "hostname", json_null());
	else {
		host[sizeof(host) - 1] = 0;
		r = jset(facts, "hostname", jstr(host));
	}
	if (r < 0)
		return r;
	nproc = sysconf(_SC_NPROCESSORS_ONLN);
	r = jset(facts, "nproc_online", nproc > 0 ? json_integer(nproc) : json_null());
	if (r < 0)
		return r;

	sched = json_object();
	r = jset(facts, "sched", sched);
	if (r < 0)
		return r;
	r = set_file_int(sched, "autogroup_enabled", "/proc/sys/kernel/sched_autogroup_enabled");
	if (r < 0)
		return r;

	thp = json_object();
	r = jset(facts, "thp", thp);
	if (r < 0)
		return r;
	r = set_file_choice(thp, "enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
	if (r < 0)
		return r;
	r = set_file_choice(thp, "defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
	if (r < 0)
		return r;

	glibc = json_object();
	r = jset(facts, "glibc", glibc);
	if (r < 0)
		return r;
	return jset(glibc, "version", jstr(gnu_get_libc_version()));
}

int host_facts_collect(json_t **ret)
{
	static int (*const collectors[])(json_t *) = {
		collect_misc, collect_cpu, collect_numa, collect_kernel, collect_systemd, collect_cgroup,
	};
	_cleanup_(json_decrefp) json_t *facts = NULL;
	int r;

	facts = json_object();
	if (!facts)
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(collectors); i++) {
		r = collectors[i](facts);
		if (r < 0)
			return r;
	}
	*ret = facts;
	facts = NULL;
	return 0;
}

#include "slices/props.h"

#include <ctype.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <inttypes.h>
#include <sys/syscall.h>

#include "common/topology.h"
#include "common/util.h"

static void mask_from_list(const long *cpus, size_t n, uint8_t *mask, size_t *ret_bytes)
{
	size_t bytes = 0;

	memset(mask, 0, CPUSET_BYTES);
	for (size_t i = 0; i < n; i++) {
		mask[cpus[i] / 8] |= (uint8_t)(1u << (cpus[i] % 8));
		if ((size_t)cpus[i] / 8 + 1 > bytes)
			bytes = (size_t)cpus[i] / 8 + 1;
	}
	*ret_bytes = bytes;
}

int cpumask_parse(const char *s, uint8_t *mask, size_t *ret_bytes)
{
	long cpus[CPU_LIST_MAX];
	size_t n;
	int r;

	/* llc:N, node:N and core:N name this host's groups (common/topology.h). */
	r = cpu_list_parse(s, CPU_LIST_MAX - 1, cpus, ELEMENTSOF(cpus), &n, NULL, 0);
	if (r < 0)
		return r;
	mask_from_list(cpus, n, mask, ret_bytes);
	return 0;
}

int cpumask_format(const uint8_t *mask, size_t bytes, char *buf, size_t len)
{
	size_t off = 0;
	int cpu = 0, max = (int)bytes * 8;

	buf[0] = 0;
	while (cpu < max) {
		int lo, hi, n;
		if (!(mask[cpu / 8] & (1u << (cpu % 8)))) {
			cpu++;
			continue;
		}
		lo = cpu;
		while (cpu + 1 < max && (mask[(cpu + 1) / 8] & (1u << ((cpu + 1) % 8))))
			cpu++;
		hi = cpu++;
		n = lo == hi ? snprintf(buf + off, len - off, "%s%d", off ? "," : "", lo)
			     : snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", lo, hi);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOBUFS;
		off += (size_t)n;
	}
	return 0;
}

/* Parsers: one per value syntax, as systemd accepts it. */



/* Integers whose bounds stand in the table, signed or not. */
static int parse_ranged(const char *s, struct prop_value *v)
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
static int parse_quota(const char *s, struct prop_value *v)
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

static int parse_usec(const char *s, struct prop_value *v)
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
static int parse_cpus(const char *s, struct prop_value *v)
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
static int parse_nodes(const char *s, struct prop_value *v)
{
	long nodes[CPU_LIST_MAX];
	size_t n;
	int r = parse_int_list(s, 0, CPU_LIST_MAX - 1, nodes, ELEMENTSOF(nodes), &n);

	if (r >= 0)
		mask_from_list(nodes, n, v->cpus, &v->cpus_bytes);
	return r;
}




static const struct {
	const char *name;
	int value;
} sched_policies[] = {
	{ "other", SCHED_OTHER }, { "batch", SCHED_BATCH }, { "idle", SCHED_IDLE },
	{ "fifo", SCHED_FIFO }, { "rr", SCHED_RR },
};

static int parse_sched_policy(const char *s, struct prop_value *v)
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

static int parse_numa_policy(const char *s, struct prop_value *v)
{
	for (size_t i = 0; i < ELEMENTSOF(numa_policies); i++)
		if (streq(s, numa_policies[i])) {
			v->i = (int64_t)i;
			return 0;
		}
	return -EINVAL;
}

static int parse_rlimit(const char *s, struct prop_value *v)
{
	if (streq(s, "infinity")) {
		v->u = UINT64_MAX;
		return 0;
	}
	return parse_u64(s, &v->u);
}

/* Environment=NAME=VALUE NAME2=VALUE2, split on spaces as systemd does for
 * unquoted words. */
static int parse_environment(const char *s, struct prop_value *v)
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

int prop_parse(const char *name, const char *value, struct prop_value *v)
{
	const struct prop_def *def = prop_lookup(name);
	int r;

	memset(v, 0, sizeof(*v));
	if (!def)
		return -ENOENT;
	v->def = def;
	r = def->parse(value, v);
	if (r < 0) {
		prop_value_done(v);
		return r;
	}
	/* A parser may record the value as resolved (parse_cpus). */
	if (!v->text)
		v->text = strdup(value);
	if (!v->text) {
		prop_value_done(v);
		return -ENOMEM;
	}
	return 0;
}

void prop_value_done(struct prop_value *v)
{
	if (!v)
		return;
	if (v->strv)
		for (char **s = v->strv; *s; s++)
			free(*s);
	free(v->strv);
	free(v->text);
	v->strv = NULL;
	v->text = NULL;
}

/* ("Name", <as>) or ("Name", <ay>): an array in a variant in a struct. */
static int append_array(sd_bus_message *m, const char *name, const char *signature, const struct prop_value *v)
{
	int r = sd_bus_message_open_container(m, 'r', "sv");

	if (r >= 0)
		r = sd_bus_message_append(m, "s", name);
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'v', signature);
	if (r >= 0)
		r = streq(signature, "as") ? sd_bus_message_append_strv(m, v->strv)
					   : sd_bus_message_append_array(m, 'y', v->cpus, v->cpus_bytes);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r < 0 ? r : sd_bus_message_close_container(m);
}

int prop_append_dbus(sd_bus_message *m, const struct prop_value *v)
{
	const struct prop_def *d = v->def;
	int r;

	/* LimitNOFILE= sets soft and hard; systemd's bus API takes them apart. */
	if (streq(d->signature, "t") && strncmp(d->name, "Limit", 5) == 0) {
		_cleanup_free_ char *soft = NULL;
		r = xasprintf(&soft, "%sSoft", d->dbus_name);
		if (r < 0)
			return r;
		r = sd_bus_message_append(m, "(sv)", d->dbus_name, "t", v->u); /* (sv) hard */
		if (r < 0)
			return r;
		return sd_bus_message_append(m, "(sv)", soft, "t", v->u); /* (sv) soft */
	}
	if (streq(d->signature, "t"))
		return sd_bus_message_append(m, "(sv)", d->dbus_name, "t", v->u);
	if (streq(d->signature, "i"))
		return sd_bus_message_append(m, "(sv)", d->dbus_name, "i", (int32_t)v->i);
	if (streq(d->signature, "as") || streq(d->signature, "ay"))
		return append_array(m, d->dbus_name, d->signature, v);
	return -EINVAL;
}

static int apply_affinity(const struct prop_value *v)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (size_t c = 0; c < v->cpus_bytes * 8 && c < CPU_SETSIZE; c++)
		if (v->cpus[c / 8] & (1u << (c % 8)))
			CPU_SET(c, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

static int apply_rlimit(int resource, uint64_t value)
{
	struct rlimit rl = { .rlim_cur = value == UINT64_MAX ? RLIM_INFINITY : value,
			     .rlim_max = value == UINT64_MAX ? RLIM_INFINITY : value };
	return setrlimit(resource, &rl) < 0 ? -errno : 0;
}

static int apply_nice(const struct prop_value *v)
{
	return setpriority(PRIO_PROCESS, 0, (int)v->i) < 0 ? -errno : 0;
}

static int apply_sched_policy(const struct prop_value *v)
{
	/* fifo and rr need a priority; CPUSchedulingPriority= may raise it later. */
	struct sched_param p = { .sched_priority = (v->i == SCHED_FIFO || v->i == SCHED_RR) ? 1 : 0 };
	return sched_setscheduler(0, (int)v->i, &p) < 0 ? -errno : 0;
}

static int apply_sched_prio(const struct prop_value *v)
{
	struct sched_param p = { .sched_priority = (int)v->i };
	return sched_setscheduler(0, sched_getscheduler(0), &p) < 0 ? -errno : 0;
}

static int apply_nofile(const struct prop_value *v) { return apply_rlimit(RLIMIT_NOFILE, v->u); }
static int apply_memlock(const struct prop_value *v) { return apply_rlimit(RLIMIT_MEMLOCK, v->u); }

static int apply_environment(const struct prop_value *v)
{
	for (char **s = v->strv; *s; s++)
		if (putenv(*s) < 0)
			return -errno;
	return 0;
}

static int apply_oom(const struct prop_value *v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIi64, v->i);
	return write_file_str("/proc/self/oom_score_adj", buf);
}

/* NUMAPolicy= and NUMAMask= go to set_mempolicy() together. */
static int apply_numa(const struct prop_value *v)
{
	(void)v;
	return 0;
}

int prop_apply_exec(const struct prop_value *v)
{
	return v->def->apply ? v->def->apply(v) : -EINVAL;
}

static void collect_weight(const struct prop_value *v, struct cgroup_limits *l) { l->weight = v->u; }
static void collect_shares(const struct prop_value *v, struct cgroup_limits *l) { l->shares = v->u; }
static void collect_quota(const struct prop_value *v, struct cgroup_limits *l) { l->quota_per_sec = v->u; }
static void collect_period(const struct prop_value *v, struct cgroup_limits *l) { l->period_usec = v->u; }
static void collect_cpus(const struct prop_value *v, struct cgroup_limits *l)
{
	l->cpus = v->cpus;
	l->cpus_bytes = v->cpus_bytes;
}

void prop_collect_cgroup_limits(const struct prop_value *v, size_t n, struct cgroup_limits *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < n; i++)
		if (v[i].def->collect)
			v[i].def->collect(&v[i], ret);
	/* systemd's own conversions, so that raw and service agree. */
	if (ret->weight && !ret->shares)
		ret->shares = ret->weight * 1024 / 100;
	if (ret->shares && !ret->weight)
		ret->weight = ret->shares * 100 / 1024 ? ret->shares * 100 / 1024 : 1;
}

static const struct prop_def props[] = {
	{ "CPUWeight", "CPUWeight", "t", PROP_CGROUP, CGROUP_ANY, CGROUP_ANY, parse_ranged, NULL, collect_weight,
	  "relative CPU weight 1-10000 (v2 cpu.weight, v1 cpu.shares = weight*1024/100)", 1, 10000 },
	{ "CPUShares", "CPUShares", "t", PROP_CGROUP, CGROUP_V1, CGROUP_ANY, parse_ranged, NULL, collect_shares,
	  "v1 cpu.shares 2-262144 (deprecated in systemd; use CPUWeight)", 2, 262144 },
	{ "CPUQuota", "CPUQuotaPerSecUSec", "t", PROP_CGROUP, CGROUP_ANY, CGROUP_ANY, parse_quota, NULL, collect_quota,
	  "CPU time limit as a percentage of one CPU, e.g. 50% or 200%" },
	{ "CPUQuotaPeriodSec", "CPUQuotaPeriodUSec", "t", PROP_CGROUP, CGROUP_ANY, CGROUP_ANY, parse_usec, NULL, collect_period,
	  "CFS period for CPUQuota, 1ms-1s" },
	{ "AllowedCPUs", "AllowedCPUs", "ay", PROP_CGROUP, CGROUP_UNIFIED, CGROUP_ANY, parse_cpus, NULL, collect_cpus,
	  "cpuset of the cgroup (systemd: cgroup v2 only): CPUs such as 0-3, or llc:N, node:N, core:N" },
	{ "CPUAffinity", "CPUAffinity", "ay", PROP_EXEC, CGROUP_ANY, CGROUP_ANY, parse_cpus, apply_affinity, NULL,
	  "sched_setaffinity() CPU list of the process: CPUs such as 0-3, or llc:N, node:N, core:N" },
	{ "NUMAPolicy", "NUMAPolicy", "i", PROP_EXEC, CGROUP_ANY, CGROUP_ANY, parse_numa_policy, apply_numa, NULL,
	  "set_mempolicy(): default, preferred, bind, interleave, local" },
	{ "NUMAMask", "NUMAMask", "ay", PROP_EXEC, CGROUP_ANY, CGROUP_ANY, parse_nodes, apply_numa, NULL,
	  "NUMA node list for NUMAPolicy" },
	{ "Nice", "Nice", "i", PROP_EXEC, CGROUP_ANY, CGROUP_ANY, parse_ranged, apply_nice, NULL, "nice level -20..19", -20, 19 },
	{ "CPUSchedulingPolicy", "CPUSchedulingPolicy", "i", PROP_EXEC, CGROUP_ANY, CGROUP_ANY,
	  parse_sched_policy, apply_sched_policy, NULL, "other, batch, idle, fifo or rr" },
	{ "CPUSchedulingPriority", "CPUSchedulingPriority", "i", PROP_EXEC, CGROUP_ANY, CGROUP_ANY,
	  parse_ranged, apply_sched_prio, NULL, "priority for fifo and rr, 1-99", 0, 99 },
	{ "LimitNOFILE", "LimitNOFILE", "t", PROP_EXEC, CGROUP_ANY, CGROUP_ANY, parse_rlimit, apply_nofile, NULL,
	  "RLIMIT_NOFILE, soft and hard" },
	{ "LimitMEMLOCK", "LimitMEMLOCK", "t", PROP_EXEC, CGROUP_ANY, CGROUP_ANY, parse_rlimit, apply_memlock, NULL,
	  "RLIMIT_MEMLOCK in bytes, soft and hard" },
	{ "Environment", "Environment", "as", PROP_EXEC, CGROUP_ANY, CGROUP_ANY,
	  parse_environment, apply_environment, NULL, "NAME=VALUE words added to the server's environment" },
	{ "OOMScoreAdjust", "OOMScoreAdjust", "i", PROP_EXEC, CGROUP_ANY, CGROUP_ANY, parse_ranged, apply_oom, NULL,
	  "/proc/PID/oom_score_adj, -1000..1000", -1000, 1000 },
};

const struct prop_def *prop_table(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(props);
	return props;
}

const struct prop_def *prop_lookup(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(props); i++)
		if (streq(props[i].name, name))
			return &props[i];
	return NULL;
}

/* The attribute table: its rows, one per way a service and a
 * shell-started server can differ, and the lookups over them.  What a row
 * names lives beside it: the parsers (values.c), the D-Bus appenders
 * (dbus.c), the appliers (apply.c), the readers (readers.c), the in-force
 * checks (in_force.c), the unit mirror's formats (mirror.c). */
#include "slices/attr/props.h"

#include <stdio.h>
#include <sys/resource.h>

#include "slices/attr/attrs.h"
#include "common/trust.h"
#include "slices/sys/cgfs.h"
#include "common/util.h"

int prop_parse(const char *name, const char *value, struct prop_value *v)
{
	const struct prop_def *def = prop_lookup(name);
	int r;

	memset(v, 0, sizeof(*v));
	if (!def || !prop_settable(def))
		return -ENOENT;
	v->def = def;
	v->given = strdup(value);
	if (!v->given)
		return -ENOMEM;
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

int prop_apply_exec(const struct prop_value *v, const struct prop_value *all, size_t n_all)
{
	return v->def->apply ? v->def->apply(v, all, n_all) : -EOPNOTSUPP;
}

static void collect_weight(const struct prop_value *v, struct cgroup_limits *l) { l->weight = v->u; }
static void collect_shares(const struct prop_value *v, struct cgroup_limits *l) { l->shares = v->u; }
static void collect_quota(const struct prop_value *v, struct cgroup_limits *l) { l->quota_per_sec = v->u; }
static void collect_period(const struct prop_value *v, struct cgroup_limits *l) { l->period_usec = v->u; }
static void collect_accounting(const struct prop_value *v, struct cgroup_limits *l) { l->accounting = v->u; }
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

/* The rows.  Exec rows are applied in the forked child in this order:
 * scheduling and limits first, the mount namespace while still root, then
 * User=/Group=, the capabilities, no_new_privs, and the seccomp filters
 * last (they could forbid what comes after). */
#define SYSTEMD_ONLY "slicebench reproduces SystemCallFilter= alone in a raw fork, not the filters systemd derives from this option"
/* Why systemd does not set a server variable's row (PROP_SERVER). */
#define SERVER_VARIABLE "a variable of the server's own, passed on its command line in every kind, not a unit property"

static const struct prop_def props[] = {
	/* The cpu cgroup and its settings. */
	{ .name = "CPUAccounting", .power = POWER_NOTHING, .dbus_name = "CPUAccounting", .signature = "b", .class = PROP_CGROUP,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_bool, .collect = collect_accounting,
	  .read = read_cpu_accounting, .keys = { "cpu.accounting", "cgroup.cpu", "cgroup.cpuacct", "autogroup.in_force",
						 "client.same_cpu_cgroup", "cpu.path*" },
	  .in_force = force_accounting, .help = "yes: a cpu cgroup of its own (v1 cpu,cpuacct; v2 the cpu controller)", .take = take_value },
	{ .name = "CPUWeight", .power = POWER_NOTHING, .dbus_name = "CPUWeight", .signature = "t", .class = PROP_CGROUP,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_ranged, .collect = collect_weight,
	  .read = read_cpu_file, .src = "cpu.weight|cpu.shares", .keys = { "cpu.weight", "cpu.shares", "cgroup.cpu",
									 "autogroup.in_force", "client.same_cpu_cgroup",
									 "cpu.accounting", "cpu.path*" },
	  .in_force = force_weight, .help = "relative CPU weight 1-10000 (v2 cpu.weight, v1 cpu.shares = weight*1024/100)",
	  .min = 1, .max = 10000 },
	{ .name = "CPUShares", .power = POWER_NOTHING, .dbus_name = "CPUShares", .signature = "t", .class = PROP_CGROUP,
	  .systemd_modes = CGROUP_V1, .raw_modes = CGROUP_ANY, .parse = parse_ranged, .collect = collect_shares,
	  .read = read_cpu_file, .src = "cpu.weight|cpu.shares", .keys = { "cpu.shares", "cgroup.cpu", "autogroup.in_force",
									 "client.same_cpu_cgroup", "cpu.accounting",
									 "cpu.path*" },
	  .in_force = force_weight, .help = "v1 cpu.shares 2-262144 (deprecated in systemd; use CPUWeight)", .min = 2,
	  .max = 262144 },
	{ .name = "CPUQuota", .power = POWER_NOTHING, .dbus_name = "CPUQuotaPerSecUSec", .signature = "t", .class = PROP_CGROUP,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_quota, .collect = collect_quota,
	  .read = read_cpu_file, .src = "cpu.max|cpu.cfs_quota_us", .keys = { "cpu.cfs_quota_us", "cpu.max", "cgroup.cpu",
									    "autogroup.in_force", "client.same_cpu_cgroup",
									    "cpu.accounting", "cpu.path*" },
	  .in_force = force_quota, .help = "CPU time limit as a percentage of one CPU, e.g. 50% or 200%" },
	{ .name = "CPUQuotaPeriodSec", .power = POWER_NOTHING, .dbus_name = "CPUQuotaPeriodUSec", .signature = "t", .class = PROP_CGROUP,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_usec, .collect = collect_period,
	  .read = read_cpu_file, .src = "cpu.max|cpu.cfs_period_us", .keys = { "cpu.cfs_period_us", "cpu.max", "cgroup.cpu",
									     "cpu.accounting", "cpu.path*" },
	  .in_force = force_period, .help = "CFS period for CPUQuota, 1ms-1s" },
	{ .name = "AllowedCPUs", .power = POWER_NOTHING, .dbus_name = "AllowedCPUs", .signature = "ay", .class = PROP_CGROUP,
	  .systemd_modes = CGROUP_UNIFIED, .raw_modes = CGROUP_ANY, .parse = parse_cpus, .collect = collect_cpus,
	  .read = read_cpuset, .keys = { "cpuset.cpus.effective", "cgroup.cpuset" }, .in_force = force_allowed_cpus,
	  .help = "cpuset of the cgroup (systemd: cgroup v2 only): CPUs such as 0-3, or llc:N, node:N, core:N" },
	{ .name = "TasksMax", .power = POWER_NOTHING, .dbus_name = "TasksMax", .signature = "t", .class = PROP_CGROUP, .systemd_modes = CGROUP_ANY,
	  .parse = parse_tasks_max, .no_raw = "raw makes no pids cgroup", .read = read_tasks_max, .keys = { "tasks.max" },
	  .in_force = force_tasks_max, .help = "pids.max of the unit: a number from 1 (systemd: 0 is out of range), N% of the system's limit, or infinity" },
	/* Recorded: where the process sits and what that gives it. */
	{ .name = "cpu-path", .power = POWER_NOTHING, .class = PROP_RECORD, .read = read_cpu_path, .keys = { "cpu.path*" },
	  .help = "the weight and quota of every cpu cgroup from the top down to the server's" },
	{ .name = "slice", .power = POWER_NOTHING, .class = PROP_RECORD, .read = read_slice, .keys = { "slice", "unit" },
	  .help = "the slice and unit holding the server (recorded; the kind, or Slice=, decides it)" },
	{ .name = "session", .power = POWER_NOTHING, .class = PROP_RECORD, .read = read_session,
	  .keys = { "session.is_leader", "pgrp.is_leader", "autogroup", "autogroup.nice", "autogroup.in_force", "parents",
		    "client.same_session", "client.same_autogroup" },
	  .help = "the session, its autogroup and the autogroup's nice, and the ancestry (the kind's session = decides it)", .take = take_session },
	/* Scheduling of the process. */
	{ .name = "CPUAffinity", .power = POWER_NOTHING, .dbus_name = "CPUAffinity", .signature = "ay", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_cpus, .apply = apply_affinity,
	  .read = read_affinity_attr, .keys = { "affinity", "affinity.threads" }, .in_force = force_cpus, .example = "0",
	  .help = "sched_setaffinity() CPU list of the process: CPUs such as 0-3, or llc:N, node:N, core:N", .take = take_value },
	{ .name = "NUMAPolicy", .power = POWER_NOTHING, .dbus_name = "NUMAPolicy", .signature = "i", .class = PROP_EXEC, .systemd_modes = CGROUP_ANY,
	  .raw_modes = CGROUP_ANY, .parse = parse_numa_policy, .apply = apply_numa, .read = read_numa,
	  .keys = { "numa.policy", "numa.mems_allowed" }, .in_force = force_numa, .example = "interleave",
	  .help = "set_mempolicy(): default, preferred, bind, interleave, local" },
	{ .name = "NUMAMask", .power = POWER_NOTHING, .dbus_name = "NUMAMask", .signature = "ay", .class = PROP_EXEC, .systemd_modes = CGROUP_ANY,
	  .raw_modes = CGROUP_ANY, .parse = parse_nodes, .apply = apply_numa, .read = read_numa,
	  .keys = { "numa.policy" }, .in_force = force_numa_mask, .example = "0", .help = "NUMA node list for NUMAPolicy" },
	{ .name = "Nice", .power = POWER_NOTHING, .dbus_name = "Nice", .signature = "i", .class = PROP_EXEC, .systemd_modes = CGROUP_ANY,
	  .raw_modes = CGROUP_ANY, .parse = parse_ranged, .apply = apply_nice, .read = read_nice, .keys = { "nice" },
	  .in_force = force_i, .example = "5", .help = "nice level -20..19", .min = -20, .max = 19, .take = take_value },
	{ .name = "CPUSchedulingPolicy", .power = POWER_NOTHING, .dbus_name = "CPUSchedulingPolicy", .signature = "i", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_sched_policy, .apply = apply_sched,
	  .read = read_sched, .keys = { "sched.policy", "sched.priority" }, .in_force = force_sched_policy,
	  .example = "batch", .help = "other, batch, idle, fifo or rr", .take = take_value },
	{ .name = "CPUSchedulingPriority", .power = POWER_NOTHING, .dbus_name = "CPUSchedulingPriority", .signature = "i", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_ranged, .apply = apply_sched,
	  .read = read_sched, .keys = { "sched.priority" }, .in_force = force_i, .example = "0",
	  .help = "priority for fifo and rr, 1-99", .min = 0, .max = 99 },
	{ .name = "CPUSchedulingResetOnFork", .power = POWER_NOTHING, .dbus_name = "CPUSchedulingResetOnFork", .signature = "b",
	  .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_bool,
	  .apply = apply_sched, .read = read_sched, .keys = { "sched.reset_on_fork" }, .in_force = force_bool,
	  .example = "yes", .help = "SCHED_RESET_ON_FORK: threads the server starts do not inherit the policy" },
	{ .name = "TimerSlackNSec", .power = POWER_NOTHING, .dbus_name = "TimerSlackNSec", .signature = "t", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_nsec, .apply = apply_timerslack,
	  .read = read_timerslack, .keys = { "timerslack_ns" }, .in_force = force_u, .example = "1ms",
	  .help = "prctl(PR_SET_TIMERSLACK): nanoseconds or a duration such as 1ms", .take = take_value },
	{ .name = "IOSchedulingClass", .power = POWER_NOTHING, .dbus_name = "IOSchedulingClass", .signature = "i", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_io_class, .apply = apply_ioprio,
	  .read = read_ioprio, .keys = { "ioprio.class", "ioprio.priority" }, .in_force = force_ioprio_class,
	  .example = "idle", .help = "ioprio_set(): realtime, best-effort or idle" },
	{ .name = "IOSchedulingPriority", .power = POWER_NOTHING, .dbus_name = "IOSchedulingPriority", .signature = "i", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_ranged, .apply = apply_ioprio,
	  .read = read_ioprio, .keys = { "ioprio.priority" }, .in_force = force_i, .example = "6",
	  .help = "ioprio_set() level within the class, 0 (highest) to 7", .min = 0, .max = 7 },
	{ .name = "OOMScoreAdjust", .power = POWER_NOTHING, .dbus_name = "OOMScoreAdjust", .signature = "i", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_ranged, .apply = apply_oom,
	  .read = read_oom, .keys = { "oom_score_adj" }, .in_force = force_i, .example = "100",
	  .help = "/proc/PID/oom_score_adj, -1000..1000", .min = -1000, .max = 1000, .take = take_value },
	/* Limits. */
	{ .name = "LimitNOFILE", .power = POWER_NOTHING, .dbus_name = "LimitNOFILE", .signature = "t", .append = append_rlimit,
	  .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_rlimit_files,
	  .apply = apply_rlimit, .rlimit = RLIMIT_NOFILE, .read = read_limit, .src = "Max open files",
	  .keys = { "limit.nofile", "server.open_files_limit", "server.table_open_cache", "server.max_connections",
		    "server.table_open_cache_instances" },
	  .in_force = force_rlimit, .example = "4096", .help = "RLIMIT_NOFILE, soft and hard: from 1 (a server that may open no file cannot start)", .take = take_limit },
	{ .name = "LimitMEMLOCK", .power = POWER_NOTHING, .dbus_name = "LimitMEMLOCK", .signature = "t", .append = append_rlimit,
	  .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_rlimit,
	  .apply = apply_rlimit, .rlimit = RLIMIT_MEMLOCK, .read = read_limit, .src = "Max locked memory", .keys = { "limit.memlock" },
	  .in_force = force_rlimit, .example = "524288", .help = "RLIMIT_MEMLOCK in bytes, soft and hard", .take = take_limit },
	{ .name = "LimitNPROC", .power = POWER_NOTHING, .dbus_name = "LimitNPROC", .signature = "t", .append = append_rlimit,
	  .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_rlimit,
	  .apply = apply_rlimit, .rlimit = RLIMIT_NPROC, .read = read_limit, .src = "Max processes", .keys = { "limit.nproc" },
	  .in_force = force_rlimit, .example = "4096", .help = "RLIMIT_NPROC, soft and hard", .take = take_limit },
	{ .name = "LimitSTACK", .power = POWER_NOTHING, .dbus_name = "LimitSTACK", .signature = "t", .append = append_rlimit,
	  .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_rlimit,
	  .apply = apply_rlimit, .rlimit = RLIMIT_STACK, .read = read_limit, .src = "Max stack size", .keys = { "limit.stack" },
	  .in_force = force_rlimit, .example = "4194304", .help = "RLIMIT_STACK in bytes, soft and hard", .take = take_limit },
	{ .name = "LimitCORE", .power = POWER_NOTHING, .dbus_name = "LimitCORE", .signature = "t", .append = append_rlimit,
	  .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_rlimit,
	  .apply = apply_rlimit, .rlimit = RLIMIT_CORE, .read = read_limit, .src = "Max core file size", .keys = { "limit.core" },
	  .in_force = force_rlimit, .example = "0", .help = "RLIMIT_CORE in bytes, soft and hard", .take = take_limit },
	/* Environment: the whole of it first, so that the rows after add to it. */
	{ .name = "environment", .power = POWER_CODE, .allow = allow_env_words, .class = PROP_EXEC, .raw_modes = CGROUP_ANY, .parse = parse_whole_environment,
	  .apply = apply_whole_environment,
	  .no_systemd = "systemd builds every service's environment itself; Environment= and UnsetEnvironment= change it",
	  .read = read_environment_attr, .keys = { "env.*" }, .in_force = force_whole_environment,
	  .take = take_environment, .example = "SLICEBENCH_T035=1 PATH=/usr/bin:/bin",
	  .help = "the whole environment, NAME=VALUE words replacing the inherited one (raw and scope; what a shell's "
		  "server inherits against the clean one a service gets)" },
	{ .name = "Environment", .power = POWER_CODE, .allow = allow_env_words, .dbus_name = "Environment", .signature = "as", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_environment, .apply = apply_environment,
	  .read = read_environment_attr, .keys = { "env.*" }, .in_force = force_environment,
	  .example = "SLICEBENCH_T035=1", .help = "NAME=VALUE words added to the server's environment" },
	{ .name = "UnsetEnvironment", .power = POWER_NOTHING, .dbus_name = "UnsetEnvironment", .signature = "as", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_names, .apply = apply_unset_environment,
	  .read = read_environment_attr, .keys = { "env.*" }, .in_force = force_unset_environment, .example = "HOME",
	  .help = "names removed from the server's environment" },
	{ .name = "EnvironmentFile", .power = POWER_CODE | POWER_PATH, .allow = allow_env_file, .dbus_name = "EnvironmentFiles", .signature = "a(sb)",
	  .append = append_environment_file, .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY,
	  .parse = parse_environment_file, .apply = apply_environment_file, .read = read_environment_attr, .keys = { "env.*" },
	  .in_force = force_environment_file, .format = format_env_files, .example = "/etc/os-release", .help = "a regular file (at most 1 MiB) of NAME=VALUE lines added to the environment (-PATH: may be missing)" },
	{ .name = "allocator", .power = POWER_NOTHING, .class = PROP_RECORD, .read = read_allocator_attr, .keys = { "allocator", "env.LD_PRELOAD" },
	  .help = "the malloc mapped into the server (LD_PRELOAD of jemalloc or tcmalloc shows here)" },
	{ .name = "thp", .power = POWER_NOTHING, .class = PROP_RECORD, .read = read_thp, .keys = { "thp.enabled", "thp.defrag", "thp.process" },
	  .help = "transparent huge pages: the host's enabled and defrag, the process's THP_enabled" },
	{ .name = "process", .power = POWER_NOTHING, .class = PROP_RECORD, .read = read_process_misc,
	  .keys = { "signals.ignored", "signals.blocked", "cwd", "fd.0", "audit.loginuid", "personality" },
	  .help = "signal dispositions and masks, working directory, standard descriptors, audit login UID" },
	/* The mount namespace, while still root. */
	{ .name = "ProtectSystem", .power = POWER_NOTHING, .dbus_name = "ProtectSystem", .signature = "s", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_protect_system,
	  .apply = apply_protect_system, .read = read_mount, .src = "/usr /boot /etc",
	  .keys = { "mount.namespace", "mount./usr", "mount./boot", "mount./etc" }, .in_force = force_protect_system,
	  .example = "full", .help = "no, yes (/usr, /boot read-only), full (and /etc) or strict" },
	{ .name = "ProtectHome", .power = POWER_NOTHING, .dbus_name = "ProtectHome", .signature = "s", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_protect_home, .apply = apply_protect_home,
	  .read = read_mount, .src = "/home /root /run/user",
	  .keys = { "mount.namespace", "mount./home", "mount./root", "mount./run/user" }, .in_force = force_protect_home,
	  .example = "yes", .help = "no, yes (inaccessible), read-only or tmpfs" },
	{ .name = "PrivateTmp", .power = POWER_NOTHING, .dbus_name = "PrivateTmp", .signature = "b", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_bool, .apply = apply_private_tmp,
	  .read = read_mount, .src = "/tmp /var/tmp", .keys = { "mount.namespace", "mount./tmp", "mount./var/tmp" },
	  .in_force = force_private_tmp, .example = "yes", .help = "yes: /tmp and /var/tmp of its own" },
	{ .name = "PrivateDevices", .power = POWER_NOTHING, .dbus_name = "PrivateDevices", .signature = "b", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .parse = parse_bool,
	  .no_raw = "a private /dev needs device nodes made as systemd makes them; raw does not", .read = read_mount,
	  .src = "/dev", .keys = { "mount.namespace", "mount./dev" }, .in_force = force_private_tmp,
	  .help = "yes: a /dev of its own with the pseudo devices only" },
	{ .name = "ProtectControlGroups", .power = POWER_NOTHING, .dbus_name = "ProtectControlGroups", .signature = "b", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_bool, .apply = apply_protect_cgroups,
	  .read = read_mount, .src = "/sys/fs/cgroup", .keys = { "mount.namespace", "mount./sys/fs/cgroup" },
	  .in_force = force_read_only, .example = "yes", .help = "yes: /sys/fs/cgroup read-only" },
	/* Identity and privileges. */
	{ .name = "CapabilityBoundingSet", .power = POWER_NOTHING, .dbus_name = "CapabilityBoundingSet", .signature = "t", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_caps, .apply = apply_bounding_set,
	  .read = read_status_field, .src = "CapBnd", .keys = { "cap.bounding" }, .in_force = force_caps_equal, .format = format_caps,
	  .example = "CAP_IPC_LOCK CAP_SETUID CAP_SETGID", .help = "capability names (~: all but these)", .take = take_caps },
	{ .name = "User", .power = POWER_ACCOUNT, .allow = allow_user, .dbus_name = "User", .signature = "s", .class = PROP_EXEC, .systemd_modes = CGROUP_ANY,
	  .raw_modes = CGROUP_ANY, .parse = parse_user, .apply = apply_user, .read = read_user, .keys = { "user", "group" },
	  .in_force = force_text, .example = "nobody", .help = "the user the server is started as", .take = take_value },
	{ .name = "Group", .power = POWER_ACCOUNT, .allow = allow_group, .dbus_name = "Group", .signature = "s", .class = PROP_EXEC, .systemd_modes = CGROUP_ANY,
	  .raw_modes = CGROUP_ANY, .parse = parse_group, .apply = apply_user, .read = read_user, .keys = { "group" },
	  .in_force = force_text, .example = "nogroup", .help = "the group the server is started as", .take = take_value },
	{ .name = "UMask", .power = POWER_NOTHING, .dbus_name = "UMask", .signature = "u", .class = PROP_EXEC, .systemd_modes = CGROUP_ANY,
	  .raw_modes = CGROUP_ANY, .parse = parse_umask, .apply = apply_umask, .read = read_status_field, .src = "Umask",
	  .keys = { "umask" }, .in_force = force_umask, .format = format_umask, .example = "0077", .help = "the file mode creation mask, octal", .take = take_value },
	{ .name = "AmbientCapabilities", .power = POWER_PRIVILEGE, .allow = allow_caps, .dbus_name = "AmbientCapabilities", .signature = "t", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_caps, .apply = apply_ambient,
	  .read = read_status_field, .src = "CapAmb CapEff CapPrm CapInh",
	  .keys = { "cap.ambient", "cap.effective", "cap.permitted", "cap.inheritable" }, .in_force = force_caps_include, .format = format_caps,
	  .example = "CAP_IPC_LOCK", .help = "capability names kept across exec by a non-root server" },
	{ .name = "NoNewPrivileges", .power = POWER_NOTHING, .dbus_name = "NoNewPrivileges", .signature = "b", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_bool, .apply = apply_no_new_privs,
	  .read = read_status_field, .src = "NoNewPrivs", .keys = { "no_new_privs" }, .in_force = force_bool,
	  .example = "yes", .help = "prctl(PR_SET_NO_NEW_PRIVS)", .take = take_value },
	/* seccomp, last. */
	{ .name = "SystemCallArchitectures", .power = POWER_NOTHING, .dbus_name = "SystemCallArchitectures", .signature = "as",
	  .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY, .parse = parse_archs,
	  .apply = apply_syscall_archs, .read = read_seccomp,
	  .keys = { "seccomp.mode", "seccomp.filters", "speculation.store_bypass", "speculation.indirect_branch" },
	  .in_force = force_seccomp, .example = "native", .help = "native: calls of other architectures are refused" },
	{ .name = "RestrictRealtime", .power = POWER_NOTHING, .dbus_name = "RestrictRealtime", .signature = "b", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .parse = parse_bool, .no_raw = SYSTEMD_ONLY, .read = read_seccomp,
	  .keys = { "seccomp.mode", "seccomp.filters", "speculation.store_bypass", "speculation.indirect_branch" },
	  .in_force = force_seccomp, .help = "yes: a seccomp filter refusing realtime scheduling" },
	{ .name = "LockPersonality", .power = POWER_NOTHING, .dbus_name = "LockPersonality", .signature = "b", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .parse = parse_bool, .no_raw = SYSTEMD_ONLY, .read = read_seccomp,
	  .keys = { "seccomp.mode", "seccomp.filters", "speculation.store_bypass", "speculation.indirect_branch" },
	  .in_force = force_seccomp, .help = "yes: a seccomp filter locking personality(2)" },
	{ .name = "MemoryDenyWriteExecute", .power = POWER_NOTHING, .dbus_name = "MemoryDenyWriteExecute", .signature = "b", .class = PROP_EXEC,
	  .systemd_modes = CGROUP_ANY, .parse = parse_bool, .no_raw = SYSTEMD_ONLY, .read = read_seccomp,
	  .keys = { "seccomp.mode", "seccomp.filters", "speculation.store_bypass", "speculation.indirect_branch" },
	  .in_force = force_seccomp, .help = "yes: a seccomp filter refusing writable executable memory" },
	{ .name = "SystemCallFilter", .power = POWER_NOTHING, .dbus_name = "SystemCallFilter", .signature = "(bas)",
	  .append = append_syscall_filter, .class = PROP_EXEC, .systemd_modes = CGROUP_ANY, .raw_modes = CGROUP_ANY,
	  .parse = parse_syscall_filter, .apply = apply_syscall_filter, .read = read_seccomp,
	  .keys = { "seccomp.mode", "seccomp.filters", "speculation.store_bypass", "speculation.indirect_branch" },
	  .in_force = force_seccomp, .example = "@system-service",
	  .help = "@system-service, ~@group or syscall names: a seccomp filter (libseccomp in raw and scope)" },
	/* The server's own variables a context may set apart from [server] (a
	 * replay of a capture, explain's hybrids), passed after the option file
	 * as its engine says (server_engine.set_variable) and read back over
	 * SQL as server.NAME: typed and bounded, never a path, a plugin or
	 * code.  max_connections stays [server]'s: every context needs room for
	 * the workload's connections. */
	{ .name = "open_files_limit", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mariadb mysql", .parse = parse_ranged,
	  .min = 1, .max = 1048576, .no_systemd = SERVER_VARIABLE, .keys = { "server.open_files_limit" },
	  .in_force = force_server_variable, .take = take_value, .example = "4096",
	  .help = "descriptors the server asks for (it raises RLIMIT_NOFILE up to the hard limit)" },
	{ .name = "table_open_cache", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mariadb mysql", .parse = parse_ranged,
	  .min = 1, .max = 1048576, .no_systemd = SERVER_VARIABLE,
	  .keys = { "server.table_open_cache", "server.open_files_limit", "server.table_open_cache_instances" },
	  .in_force = force_server_variable,
	  .take = take_value, .example = "64",
	  .help = "open tables cached for all sessions (the server asks for descriptors by it, open_files_limit, "
		  "lowers it to fit those it gets, and fewer instances for a small one)" },
	{ .name = "table_open_cache_instances", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mariadb mysql",
	  .parse = parse_ranged, .min = 1, .max = 64, .no_systemd = SERVER_VARIABLE,
	  .keys = { "server.table_open_cache_instances" }, .in_force = force_server_variable, .take = take_value,
	  .example = "1", .help = "partitions of the table cache, each with its own lock" },
	{ .name = "innodb_buffer_pool_size", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mariadb mysql",
	  .parse = parse_server_bytes, .min = 5 << 20, .max = 1L << 40, .no_systemd = SERVER_VARIABLE,
	  .keys = { "server.innodb_buffer_pool_size" }, .in_force = force_server_variable, .take = take_value,
	  .example = "256M",
	  .help = "InnoDB's buffer pool: bytes, or with K, M, G (what [server] buffer-pool sets for every context)",
	  .buffer_pool = true },
	{ .name = "innodb_buffer_pool_instances", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mysql", .parse = parse_ranged,
	  .min = 1, .max = 64, .no_systemd = SERVER_VARIABLE, .keys = { "server.innodb_buffer_pool_instances" },
	  .in_force = force_server_variable, .take = take_value, .example = "2",
	  .help = "partitions of the buffer pool (MySQL 8; MariaDB 10.11 has one)" },
	{ .name = "innodb_numa_interleave", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mariadb mysql",
	  .parse = parse_server_switch, .no_systemd = SERVER_VARIABLE, .keys = { "server.innodb_numa_interleave" },
	  .in_force = force_server_variable, .take = take_value, .example = "ON",
	  .help = "ON: the buffer pool interleaved across NUMA nodes" },
	{ .name = "thread_handling", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mariadb", .parse = parse_thread_handling,
	  .no_systemd = SERVER_VARIABLE, .keys = { "server.thread_handling" }, .in_force = force_server_variable,
	  .take = take_value, .example = "pool-of-threads",
	  .help = "one-thread-per-connection or pool-of-threads (MariaDB's thread pool)" },
	{ .name = "thread_cache_size", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mariadb mysql", .parse = parse_ranged,
	  .min = 0, .max = 16384, .no_systemd = SERVER_VARIABLE, .keys = { "server.thread_cache_size" },
	  .in_force = force_server_variable, .take = take_value, .example = "8",
	  .help = "threads kept for reuse after their connection closes" },
	{ .name = "performance_schema", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "mariadb mysql",
	  .parse = parse_server_switch, .no_systemd = SERVER_VARIABLE, .keys = { "server.performance_schema" },
	  .in_force = force_server_variable, .take = take_value, .example = "ON",
	  .help = "ON or OFF: the Performance Schema's instrumentation (read at start only)" },
	{ .name = "shared_buffers", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "postgresql", .parse = parse_server_kb,
	  .min = 128 << 10, .max = 1L << 40, .no_systemd = SERVER_VARIABLE, .keys = { "server.shared_buffers" },
	  .in_force = force_server_variable, .take = take_value, .example = "256MB",
	  .help = "PostgreSQL's shared buffers, with kB, MB, GB or TB (what [server] buffer-pool sets)",
	  .buffer_pool = true },
	{ .name = "max_files_per_process", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "postgresql", .parse = parse_ranged,
	  .min = 64, .max = 1048576, .no_systemd = SERVER_VARIABLE, .keys = { "server.max_files_per_process" },
	  .in_force = force_server_variable, .take = take_value, .example = "256",
	  .help = "descriptors each PostgreSQL backend may keep open" },
	{ .name = "huge_pages", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "postgresql", .parse = parse_huge_pages,
	  .no_systemd = SERVER_VARIABLE, .keys = { "server.huge_pages" }, .in_force = force_server_variable,
	  .take = take_value, .example = "off", .help = "off, on or try: shared memory in huge pages" },
	{ .name = "max_worker_processes", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "postgresql", .parse = parse_ranged,
	  .min = 0, .max = 1024, .no_systemd = SERVER_VARIABLE, .keys = { "server.max_worker_processes" },
	  .in_force = force_server_variable, .take = take_value, .example = "4",
	  .help = "PostgreSQL's background worker processes" },
	{ .name = "max_parallel_workers_per_gather", .power = POWER_NOTHING, .class = PROP_SERVER, .engines = "postgresql",
	  .parse = parse_ranged, .min = 0, .max = 1024, .no_systemd = SERVER_VARIABLE,
	  .keys = { "server.max_parallel_workers_per_gather" }, .in_force = force_server_variable, .take = take_value,
	  .example = "0", .help = "parallel workers one query's gather may start" },
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

const struct prop_def *prop_taking_key(const char *key)
{
	for (size_t i = 0; i < ELEMENTSOF(props); i++)
		if (props[i].take && prop_moves_key(&props[i], key))
			return &props[i];
	return NULL;
}

int prop_take(const struct prop_def *d, const struct placement *from, struct context_spec *to)
{
	return d->take ? d->take(from, d, to) : -EOPNOTSUPP;
}

bool prop_moves_key(const struct prop_def *d, const char *key)
{
	for (size_t i = 0; i < ATTR_KEYS_MAX && d->keys[i]; i++) {
		size_t n = strlen(d->keys[i]);

		if (d->keys[i][n - 1] == '*' ? strncmp(key, d->keys[i], n - 1) == 0 : streq(key, d->keys[i]))
			return true;
	}
	return false;
}

bool prop_server_has(const struct prop_def *d, const char *engine)
{
	size_t n = strlen(engine);

	for (const char *w = d->engines; w && (w = strstr(w, engine)); w += n)
		if ((w == d->engines || w[-1] == ' ') && (w[n] == ' ' || !w[n]))
			return true;
	return false;
}

const char *prop_class_list(enum prop_class class)
{
	static char lists[PROP_RECORD + 1][512];
	char *buf = lists[class];
	size_t off = 0;

	if (*buf)
		return buf;
	for (size_t i = 0; i < ELEMENTSOF(props) && off < sizeof(lists[0]); i++)
		if (props[i].class == class)
			off += (size_t)snprintf(buf + off, sizeof(lists[0]) - off, "%s%s", off ? ", " : "", props[i].name);
	return buf;
}

/* The functions the attribute table's rows name (slices/attr/props.c): the
 * parsers (slices/attr/values.c), the D-Bus appenders (slices/attr/dbus.c),
 * the appliers (slices/attr/apply.c), the readers (slices/attr/readers.c),
 * the in-force checks (slices/attr/in_force.c), the unit mirror's formats
 * (slices/attr/mirror.c), and the takers, which build a context's spec and
 * so live with the kinds (slices/kinds/take.c).  Internal to slices/. */
#pragma once

#include <sys/types.h>

#include <systemd/sd-bus.h>

#include "slices/attr/placement.h"
#include "slices/sys/cgmode.h"

/* The table's types (slices/attr/props.h), which includes none of this:
 * the table's rows name these functions, so props.c includes this header
 * and this header does not include props.h back. */
struct prop_def;
struct prop_value;
struct attr_verify;
struct context_spec;
struct gate_policy;

/* What a reader reads from: the process, and files read once per snapshot. */
struct attr_reader {
	pid_t pid;
	enum cgroup_mode mode;
	struct placement *p;
	char *status, *limits; /* /proc/PID/status and limits, NULL until read */
};
void attr_reader_done(struct attr_reader *r);

/* The words a placement gives the kernel's numbers, as the readers write
 * them and the in-force checks compare: sched.policy by SCHED_*,
 * ioprio.class by IOPRIO_CLASS_*. */
extern const char *const sched_policy_names[];
extern const char *const ioprio_class_names[];

/* Calls fn for each KEY=VALUE of an EnvironmentFile= (-PATH: may be missing). */
/* The file of EnvironmentFile=SPEC opened: a regular file of at most
 * ENV_FILE_MAX bytes (/dev/zero or a FIFO would never end), never a
 * device; *ret NULL (and 0) for a missing -PATH. */
#define ENV_FILE_MAX (1 << 20)
int env_file_open(const char *spec, FILE **ret);
int env_file_parse(const char *spec, int (*fn)(const char *key, const char *value, void *userdata), void *userdata);

#define PARSER(name) int name(const char *s, struct prop_value *v)
PARSER(parse_ranged);
PARSER(parse_quota);
PARSER(parse_usec);
PARSER(parse_cpus);
PARSER(parse_nodes);
PARSER(parse_sched_policy);
PARSER(parse_numa_policy);
PARSER(parse_rlimit);
PARSER(parse_rlimit_files);
PARSER(parse_environment);
PARSER(parse_whole_environment);
PARSER(parse_bool);
PARSER(parse_nsec);
PARSER(parse_io_class);
PARSER(parse_umask);
PARSER(parse_user);
PARSER(parse_group);
PARSER(parse_caps);
PARSER(parse_tasks_max);
PARSER(parse_names);
PARSER(parse_syscall_filter);
PARSER(parse_archs);
PARSER(parse_protect_system);
PARSER(parse_protect_home);
PARSER(parse_environment_file);
PARSER(parse_server_switch);
PARSER(parse_server_bytes);
PARSER(parse_server_kb);
PARSER(parse_thread_handling);
PARSER(parse_huge_pages);
#undef PARSER
/* Words split on blanks into a NULL-terminated strv; -EINVAL for none. */
int attr_split_words(const char *s, char ***ret);

/* Signatures the generic appender does not know (prop_def.append). */
#define APPENDER(name) int name(sd_bus_message *m, const struct prop_value *v)
APPENDER(append_rlimit);
APPENDER(append_syscall_filter);
APPENDER(append_environment_file);
#undef APPENDER

#define APPLIER(name) int name(const struct prop_value *v, const struct prop_value *all, size_t n)
APPLIER(apply_affinity);
APPLIER(apply_rlimit);
APPLIER(apply_nice);
APPLIER(apply_sched);
APPLIER(apply_whole_environment);
APPLIER(apply_environment);
APPLIER(apply_unset_environment);
APPLIER(apply_environment_file);
APPLIER(apply_oom);
APPLIER(apply_numa);
APPLIER(apply_timerslack);
APPLIER(apply_ioprio);
APPLIER(apply_umask);
APPLIER(apply_no_new_privs);
APPLIER(apply_bounding_set);
APPLIER(apply_user);
APPLIER(apply_ambient);
APPLIER(apply_protect_system);
APPLIER(apply_protect_home);
APPLIER(apply_private_tmp);
APPLIER(apply_protect_cgroups);
APPLIER(apply_syscall_filter);
APPLIER(apply_syscall_archs);
#undef APPLIER

int format_umask(sd_bus *bus, const char *path, const struct prop_def *d, char **ret);
int format_caps(sd_bus *bus, const char *path, const struct prop_def *d, char **ret);
int format_env_files(sd_bus *bus, const char *path, const struct prop_def *d, char **ret);

#define READER(name) int name(struct attr_reader *r, const struct prop_def *d)
READER(read_cpu_file);
READER(read_cpu_accounting);
READER(read_cpu_path);
READER(read_cpuset);
READER(read_slice);
READER(read_session);
READER(read_affinity_attr);
READER(read_nice);
READER(read_sched);
READER(read_numa);
READER(read_timerslack);
READER(read_ioprio);
READER(read_limit);
READER(read_status_field);
READER(read_user);
READER(read_tasks_max);
READER(read_oom);
READER(read_seccomp);
READER(read_mount);
READER(read_environment_attr);
READER(read_allocator_attr);
READER(read_thp);
READER(read_process_misc);
#undef READER

#define CHECK(name) int name(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
CHECK(force_weight);
CHECK(force_quota);
CHECK(force_period);
CHECK(force_allowed_cpus);
CHECK(force_accounting);
CHECK(force_tasks_max);
CHECK(force_cpus);
CHECK(force_i);
CHECK(force_rlimit);
CHECK(force_sched_policy);
CHECK(force_bool);
CHECK(force_numa);
CHECK(force_numa_mask);
CHECK(force_u);
CHECK(force_ioprio_class);
CHECK(force_umask);
CHECK(force_text);
CHECK(force_caps_include);
CHECK(force_caps_equal);
CHECK(force_seccomp);
CHECK(force_protect_system);
CHECK(force_protect_home);
CHECK(force_read_only);
CHECK(force_private_tmp);
CHECK(force_environment);
CHECK(force_whole_environment);
CHECK(force_unset_environment);
CHECK(force_environment_file);
CHECK(force_server_variable);
#undef CHECK

/* The allow-lists of the rows that can do anything (slices/attr/gate.c). */
#define ALLOW(name) int name(const struct prop_value *v, const struct gate_policy *pol, char **ret_why)
ALLOW(allow_env_words);
ALLOW(allow_env_file);
ALLOW(allow_caps);
ALLOW(allow_user);
ALLOW(allow_group);
#undef ALLOW

#define TAKER(name) int name(const struct placement *from, const struct prop_def *d, struct context_spec *to)
TAKER(take_value);
TAKER(take_limit);
TAKER(take_caps);
TAKER(take_session);
TAKER(take_environment);
#undef TAKER

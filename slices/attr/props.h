/* The attribute table: one row per way a service and a shell-started
 * server can differ, with systemd's own names.  A row carries every fact
 * about its attribute: how a value is parsed (experiment files, -p
 * NAME=VALUE, the mirror of an installed unit), how systemd sets it (D-Bus
 * name and signature), how the raw and scope kinds reproduce it in the
 * forked child or why they cannot, how it is read back from a running
 * server into the placement (the keys it moves), and how "in force" is
 * decided.  Rows without a D-Bus name are recorded only (the session, THP,
 * the allocator, ...).  The server's own variables that a context may set
 * apart from [server] (PROP_SERVER: table_open_cache, performance_schema,
 * ...) are rows too, so that a replay sets them and explain moves them as
 * it moves the rest: typed and bounded, passed as --NAME=VALUE after the
 * option file, read back over SQL by the engine's facts, never a path, a
 * plugin or code.  Adding an attribute is its row (slices/attr/props.c),
 * its parser (values.c), its reader (readers.c), its in-force check
 * (in_force.c) and its applier (apply.c), all in slices/attr/. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "slices/sys/cgmode.h"
#include "slices/sys/cpumask.h"

/* Where a property takes effect: in the unit's cgroup, or in the process
 * (the exec context in systemd's terms, a syscall before exec for us), or
 * nowhere: an attribute that is only recorded.  Which kinds can apply a
 * class is said by each kind's row (slices/kinds/context.h). */
enum prop_class {
	PROP_CGROUP,
	PROP_EXEC,
	PROP_SERVER, /* a variable of the server's own, on its command line */
	PROP_RECORD,
};

struct prop_value {
	const struct prop_def *def;
	uint64_t u;		      /* weights, shares, usec, rlimits, masks, booleans */
	int64_t i;		      /* nice, policies, priorities, oom score */
	uint8_t cpus[CPUSET_BYTES];   /* CPU and NUMA masks, bit n of byte n/8 */
	size_t cpus_bytes;	      /* bytes up to the highest set bit */
	char **strv;		      /* Environment, syscall names, ... */
	char *text;		      /* the value resolved on this host (llc:1 as 1), for messages and records */
	char *given;		      /* the value as written (llc:1): what a placement records beside text */
};

struct cgroup_limits; /* slices/sys/cgfs.h */
struct gate_policy;   /* slices/attr/gate.h */
struct placement;
struct attr_reader;
struct context_spec;
/* What an in-force check sees: the placement read back, the cgroup limits
 * the settings add up to, and the cgroup mode. */
struct attr_verify {
	const struct placement *p;
	const struct cgroup_limits *limits;
	enum cgroup_mode mode;
	/* What the check read, "KEY=VALUE; KEY=VALUE", for the placement's
	 * setting.NAME.read (a buffer of read_len bytes, or NULL). */
	char *read;
	size_t read_len;
	/* Every setting of the context, for a check that depends on another. */
	const struct prop_value *props;
	size_t n_props;
};

#define ATTR_KEYS_MAX 8
struct prop_def {
	const char *name;      /* as users and systemd spell it: CPUQuota */
	/* How systemd sets it: the unit property and its D-Bus signature;
	 * NULL for an attribute that is only recorded. */
	const char *dbus_name; /* CPUQuotaPerSecUSec */
	const char *signature;
	/* A signature the generic appender does not know ((bas), a soft and
	 * hard pair): this appends the (sv)s itself. */
	int (*append)(sd_bus_message *m, const struct prop_value *v);
	enum prop_class class;
	/* cgroup modes in which systemd applies it; raw applies what its
	 * cgroup files allow, see raw_modes. */
	unsigned systemd_modes;
	unsigned raw_modes;
	int (*parse)(const char *s, struct prop_value *v);
	/* How raw and scope reproduce it.  PROP_EXEC: apply() in the forked
	 * child before exec, in table order (so that User= and the seccomp
	 * filter, near the end, come after what needs privileges).
	 * PROP_CGROUP: collect() for raw's own cgroupfs writes (scope has
	 * systemd set it).  no_raw: why they cannot, shown to the user. */
	int (*apply)(const struct prop_value *v, const struct prop_value *all, size_t n_all);
	void (*collect)(const struct prop_value *v, struct cgroup_limits *l);
	const char *no_raw;
	/* A settable row without a D-Bus name: why systemd cannot set it. */
	const char *no_systemd;
	int rlimit; /* Limit*=: the RLIMIT_* that apply_rlimit() sets */
	/* How it is read from a running server: read() sets keys into the
	 * placement (src is its argument: a /proc/PID/status field, a line of
	 * /proc/PID/limits, ...); in_force() returns 0 when the value is in
	 * force, >0 with why filled when not. */
	int (*read)(struct attr_reader *r, const struct prop_def *d);
	const char *src;
	const char *keys[ATTR_KEYS_MAX]; /* the placement keys it moves ("env.*": a prefix) */
	int (*in_force)(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len);
	/* How a context that forks the server itself takes the attribute as
	 * another placement shows it (explain's hybrids, slices/kinds/take.c):
	 * the setting that reproduces it is added to the spec (or the spec's
	 * session set).  -EOPNOTSUPP when that value cannot be reproduced (a
	 * withheld secret).  NULL: no way; a difference in its keys stays
	 * part of what explain cannot move. */
	int (*take)(const struct placement *from, const struct prop_def *d, struct context_spec *to);
	/* The mirror of an installed unit (slices/attr/mirror.c): the unit's
	 * value over D-Bus as text the parser takes; NULL: by the signature. */
	int (*format)(sd_bus *bus, const char *path, const struct prop_def *d, char **ret);
	/* PROP_SERVER: the engines whose server has the variable, the row's
	 * name ("mariadb mysql"); its value is read back as server.NAME. */
	const char *engines;
	bool buffer_pool; /* what [server] buffer-pool sets for every context */
	/* The trust gate's column (slices/attr/gate.h): what the setting can
	 * do (POWER_* of common/trust.h; every row says, POWER_NOTHING
	 * too), and for a row that can do anything, its allow-list: 0 if an
	 * input may ask v of it, else -EPERM with why in *ret_why. */
	unsigned power;
	int (*allow)(const struct prop_value *v, const struct gate_policy *pol, char **ret_why);
	/* A value the table test applies in a forked child and reads back. */
	const char *example;
	const char *help;
	long min, max; /* bounds for parse_ranged() */
};

const struct prop_def *prop_lookup(const char *name);
/* "CPUWeight, CPUShares, ..." : the names of the class's rows, for messages. */
const char *prop_class_list(enum prop_class class);
const struct prop_def *prop_table(size_t *ret_n);
/* Can this row be set (through systemd or slicebench), not only recorded? */
static inline bool prop_settable(const struct prop_def *d) { return d->class != PROP_RECORD; }
/* Does key (a placement key) belong to the row's keys? */
bool prop_moves_key(const struct prop_def *d, const char *key);
/* The first row that moves key and can take it from a placement, NULL if
 * none (prop_def.take). */
const struct prop_def *prop_taking_key(const char *key);
/* Adds to spec what reproduces d's attribute as placement from shows it
 * (d->take); -EOPNOTSUPP if the row has no way or that value cannot be. */
int prop_take(const struct prop_def *d, const struct placement *from, struct context_spec *to);

/* Does the server of engine (its name: mariadb) have d's variable? */
bool prop_server_has(const struct prop_def *d, const char *engine);

/* Parses "NAME=VALUE" or name and value into v; -ENOENT for an unknown
 * name (or a recorded-only attribute), -EINVAL/-ERANGE for a bad value. */
int prop_parse(const char *name, const char *value, struct prop_value *v);
void prop_value_done(struct prop_value *v);

/* Appends one (sv) (or a pair) to an open a(sv) container. */
int prop_append_dbus(sd_bus_message *m, const struct prop_value *v);

/* Applies an exec-class property to the calling process (after fork,
 * before exec, by the scope and raw contexts); all holds the context's
 * other settings (NUMAPolicy= needs NUMAMask=). */
int prop_apply_exec(const struct prop_value *v, const struct prop_value *all, size_t n_all);

void prop_collect_cgroup_limits(const struct prop_value *v, size_t n, struct cgroup_limits *ret);

/* CAP_IPC_LOCK for 14; NULL past the names the table knows. */
const char *cap_name(unsigned cap);

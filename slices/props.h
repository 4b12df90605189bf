/* The one vocabulary for placement settings, with systemd's own names.
 * One table serves experiment files, -p NAME=VALUE, validation, D-Bus
 * properties and the raw translation into cgroup files and syscalls. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "slices/cgmode.h"

/* Where a property takes effect: in the unit's cgroup, or in the process
 * (the exec context in systemd's terms, a syscall before exec for us).
 * Which kinds can apply a class is said by each kind's row (context.h). */
enum prop_class {
	PROP_CGROUP,
	PROP_EXEC,
};

#define CPUSET_BYTES 128 /* 1024 CPUs */
struct prop_value {
	const struct prop_def *def;
	uint64_t u;		      /* weights, shares, usec, rlimits */
	int64_t i;		      /* nice, policies, priorities, oom score */
	uint8_t cpus[CPUSET_BYTES];   /* CPU and NUMA masks, bit n of byte n/8 */
	size_t cpus_bytes;	      /* bytes up to the highest set bit */
	char **strv;		      /* Environment */
	char *text;		      /* the value as given, for messages and records */
};

/* The cgroup limits a raw context writes into cgroupfs itself. */
struct cgroup_limits {
	uint64_t weight;       /* 0 = unset; CPUWeight or converted CPUShares */
	uint64_t shares;       /* v1 value, derived when only a weight is given */
	uint64_t quota_per_sec; /* usec per second, 0 = unset */
	uint64_t period_usec;  /* 0 = kernel default */
	const uint8_t *cpus;   /* AllowedCPUs, NULL = unset */
	size_t cpus_bytes;
};
struct prop_def {
	const char *name;      /* as users and systemd spell it: CPUQuota */
	const char *dbus_name; /* the unit property: CPUQuotaPerSecUSec */
	const char *signature; /* its D-Bus signature */
	enum prop_class class;
	/* cgroup modes in which systemd applies it; raw applies what its
	 * cgroup files allow, see raw_modes. */
	unsigned systemd_modes;
	unsigned raw_modes;
	int (*parse)(const char *s, struct prop_value *v);
	/* PROP_EXEC: applies the value to the calling process. */
	int (*apply)(const struct prop_value *v);
	/* PROP_CGROUP: records the value for the raw context's cgroupfs writes. */
	void (*collect)(const struct prop_value *v, struct cgroup_limits *l);
	const char *help;
	long min, max; /* bounds for parse_ranged() */
};

const struct prop_def *prop_lookup(const char *name);
const struct prop_def *prop_table(size_t *ret_n);

/* Parses "NAME=VALUE" or name and value into v; -ENOENT for an unknown
 * name, -EINVAL/-ERANGE for a bad value. */
int prop_parse(const char *name, const char *value, struct prop_value *v);
void prop_value_done(struct prop_value *v);

/* Appends one (sv) to an open a(sv) container. */
int prop_append_dbus(sd_bus_message *m, const struct prop_value *v);

/* Applies an exec-class property to the calling process (used after fork,
 * before exec, by the scope and raw contexts and for client threads). */
int prop_apply_exec(const struct prop_value *v);

void prop_collect_cgroup_limits(const struct prop_value *v, size_t n, struct cgroup_limits *ret);

/* "0-2,5" from a mask, into buf. */
int cpumask_format(const uint8_t *mask, size_t bytes, char *buf, size_t len);
int cpumask_parse(const char *s, uint8_t *mask, size_t *ret_bytes);

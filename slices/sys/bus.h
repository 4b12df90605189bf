/* sd-bus helpers for talking to systemd: transient units, jobs, lookups.
 * Nothing here logs; errors come back as -errno with systemd's own error
 * name in the sd_bus_error, for the caller to say once. */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "common/util.h"

/* Appends the unit's properties inside the open a(sv) container. */
typedef int (*bus_append_fn)(sd_bus_message *m, void *userdata);

int bus_open_system(sd_bus **ret);
/* The user manager of uid, over its private socket in /run/user/UID. */
int bus_open_user_manager(uid_t uid, sd_bus **ret);

/* StartTransientUnit(name, "fail", props, []) and wait for its job to be
 * removed; a job that ends other than "done" gives -EIO with the result
 * in error (org.slicebench.JobFailed). */
int bus_start_transient_unit(sd_bus *bus, const char *unit, bus_append_fn append, void *userdata,
			     uint64_t timeout_usec, sd_bus_error *error);
/* SetUnitProperties(name, runtime=true, props): a running unit's cgroup
 * settings changed in place, as systemctl set-property --runtime does. */
int bus_set_unit_properties(sd_bus *bus, const char *unit, bus_append_fn append, void *userdata, sd_bus_error *error);
/* StopUnit(name, "fail") and wait for the job; -ENOENT if no such unit. */
int bus_stop_unit(sd_bus *bus, const char *unit, uint64_t timeout_usec, sd_bus_error *error);
/* KillUnit(name, "all", SIGKILL), for teardown after a failed stop. */
int bus_kill_unit(sd_bus *bus, const char *unit, int sig, sd_bus_error *error);
/* ResetFailedUnit, so that a failed transient unit does not linger. */
int bus_reset_failed_unit(sd_bus *bus, const char *unit);

/* *failure, unless it is set already: the subject (fmt) and why it failed:
 * error's name and message if it is set, "already exists and was not
 * EXISTS" for -EEXIST (the unit or cgroup is not this run's), or r's text.
 * The first failure is the one said. */
void bus_note_failure(char **failure, int r, const sd_bus_error *error, const char *exists, const char *fmt, ...)
	_printf_(5, 6);

/* 1 if the manager has the unit loaded, 0 if not. */
int bus_unit_exists(sd_bus *bus, const char *unit, sd_bus_error *error);
/* Waits until the unit is gone (garbage-collected), up to timeout. */
int bus_wait_unit_gone(sd_bus *bus, const char *unit, uint64_t timeout_usec);
int bus_unit_get_string(sd_bus *bus, const char *unit, const char *iface, const char *property, char **ret,
			sd_bus_error *error);
int bus_unit_get_u32(sd_bus *bus, const char *unit, const char *iface, const char *property, uint32_t *ret,
		     sd_bus_error *error);
/* The unit's InvocationID, 32 hex digits: it names this run of the unit
 * and no other, even when a unit of the same name comes back. -ENOENT: no
 * such unit. */
int bus_unit_get_invocation_id(sd_bus *bus, const char *unit, char ret[static 33], sd_bus_error *error);
int bus_get_unit_by_pid(sd_bus *bus, pid_t pid, char **ret_unit, sd_bus_error *error);
/* logind's SetUserLinger(uid, enable, interactive=false). */
int bus_set_user_linger(sd_bus *bus, uid_t uid, int enable, sd_bus_error *error);

/* LoadUnit(name): the unit's object path; -ENOENT unless its LoadState is
 * "loaded" (not found, masked, broken). */
int bus_load_unit(sd_bus *bus, const char *unit, char **ret_path, sd_bus_error *error);


/* A capture: the placement of a running process that slicebench did not
 * start (place --pid, place --unit), read by the same table of readers as
 * any placement, and the facts that say where it came from: its PID, its
 * binary and command line (secrets masked), the socket it listens on, and
 * the kind of context that stands where it ran.  Reading it changes
 * nothing: /proc, cgroupfs and (the caller's) systemd's answers only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "slices/attr/placement.h"

/* Every key a capture adds beside the placement's own starts with this:
 * they name the captured start, never describe a process (identity). */
#define CAPTURE_PREFIX "capture."

/* capture.pid, capture.exe, capture.cmdline (secrets masked),
 * capture.socket (the unix socket it listens on, if any) into p, which
 * holds pid's placement. */
int capture_describe(pid_t pid, struct placement *p);

/* capture.kind: the kind of context that runs a server where p's process
 * ran, from its unit and cgroup (placement keys unit, cgroup.*): a
 * session scope is login, a user manager's unit user, another service
 * service, another scope scope, no unit raw. */
int capture_set_kind(struct placement *p);

/* The path of the unix socket pid listens on (in its own network
 * namespace, as its mount namespace names it); -ENOENT: none. */
int capture_listening_socket(pid_t pid, char **ret);

/* Does the key say where a capture or its replay came from (capture.*,
 * replay.*), rather than describe a process? */
bool capture_key_is_own(const char *key);

/* The placement p of a start that replays the snapshot snap, compared
 * attribute by attribute (every key of snap that describes the process:
 * not identity, counters, settings, the client's, the capture's own):
 * replay.reproduced "N of M" and replay.differs "KEY captured X, here Y
 * (why); ..." into p, and N and M. */
int capture_compare(const struct placement *snap, struct placement *p, size_t *ret_same, size_t *ret_total);

/* The environment p records (env.*) as Environment= words, for a unit that
 * takes a captured or running server's: systemd's per-invocation variables
 * left out, and a withheld secret or a value with blanks (named in
 * *ret_left, "NAME (why), ..."; NULL: none).  A variable that chooses code
 * is checked (trust_env_value()): taken and named in *ret_code
 * ("NAME=VALUE, ..."), or -EPERM with "NAME=VALUE: why" in *ret_refused.
 * *ret_words is NULL when nothing is left. */
int capture_environment_words(const struct placement *p, char **ret_words, char **ret_left, char **ret_code,
			      char **ret_refused);

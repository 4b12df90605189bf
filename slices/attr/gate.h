/* The trust gate: what a setting can do, and what an input may ask of it.
 * slicebench runs as root, and every setting it reads (an experiment
 * file, a snapshot's capture, experiment.json and the placements of a
 * results directory, -p NAME=VALUE, a mirrored unit) is input.  Each row
 * of the attribute table (slices/attr/props.c) and of the experiment key
 * table says, in its .power column, what its setting can do; a row that
 * can do anything has an allow-list (.allow) of what an input may ask of
 * it, and every source of a setting passes gate_prop() (a value) or
 * gate_placement() (a placement a replay or explain's hybrids take from)
 * before anything starts.  An allow-list, never a deny-list: what it does
 * not name is refused. */
#pragma once

#include <stdbool.h>

#include "slices/attr/placement.h"
#include "slices/attr/props.h"

/* The server's account may get these capabilities and no other (Debian's
 * mariadb.service gives CAP_IPC_LOCK, for a locked buffer pool; MySQL 8's
 * resource groups want CAP_SYS_NICE): none of them reaches root. */
#define GATE_SAFE_CAPS "CAP_IPC_LOCK CAP_SYS_NICE CAP_NET_BIND_SERVICE"

/* What an input may ask: the server's account and the groups beside its
 * own that [server] names, and whether code that is not root's is taken
 * (explain --trust-results-code). */
struct gate_policy {
	const char *user;
	char *const *groups;
	bool trust_code;
};

/* What a gate returns for a value that names code not root's when the
 * policy trusts code: taken, with why (to be said) in *ret_why. */
#define GATE_TRUSTED 1

/* 0 if v asks of its row only what the row's allow-list lets an input
 * ask (a row of power POWER_NOTHING asks nothing); -EPERM with why in
 * *ret_why (allocated, escaped for a terminal) if not; GATE_TRUSTED;
 * -ENOMEM. */
int gate_prop(const struct prop_value *v, const struct gate_policy *pol, char **ret_why);

/* An environment variable, wherever it comes from: its name
 * [A-Za-z_][A-Za-z0-9_]*, and one that chooses code (common/trust.h) only
 * naming root's code.  0, -EPERM with *ret_why, GATE_TRUSTED, -ENOMEM. */
int gate_env(const char *name, const char *value, const struct gate_policy *pol, char **ret_why);

/* Each key of p that a row of the table would take from it (env.*, user,
 * group, the capture's unit settings capture.setting.NAME, ...), through
 * gate_prop() as that row would set it.  For each refusal, and each value
 * taken only because the policy trusts code, said(key, why, refused,
 * userdata) is called; the count of refusals is returned (0: all pass),
 * or -ENOMEM. */
int gate_placement(const struct placement *p, const struct gate_policy *pol,
		   void (*said)(const char *key, const char *why, bool refused, void *userdata), void *userdata);

/* Why group name may be listed in [server] groups, or NULL if it may: a
 * group that is some account's own (the primary group of an account other
 * than root), never gid 0 nor a group that only gives access (shadow,
 * disk). */
const char *gate_group_refusal(const char *name);

/* The words of a power mask ("chooses code, names a path"), for
 * messages, help and the man page. */
const char *gate_power_text(unsigned power, char *buf, size_t len);

/* Where a context put a process: a flat, ordered list of attributes
 * (cgroups and their CPU settings, affinity, autogroup, session, nice and
 * scheduling, NUMA policy, limits, environment, allocator, ...).  Flat
 * keys make diffs trivial and let explain copy one attribute at a time
 * from one context to another.  The snapshot (slices/attr/snapshot.h)
 * reads one from /proc and cgroupfs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct placement_attr {
	char *key, *value;
};

struct placement {
	struct placement_attr *attrs;
	size_t n, cap;
	/* Each key's index in attrs + 1 (0: a free slot), by the key's hash,
	 * of n_slots a power of two: a capture of 100k variables found each
	 * key by a walk of all the others (37 s). */
	size_t *slots, n_slots;
};

void placement_done(struct placement *p);
const char *placement_get(const struct placement *p, const char *key);
/* Sets key to value (added at the end, or replaced in place).  Both are
 * kept as valid UTF-8, as JSON needs them: a byte that is not (an
 * environment value's 0xFF) is kept as text_escape() writes it. */
int placement_set(struct placement *p, const char *key, const char *value);
int placement_setf(struct placement *p, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A cgroupfs or /proc file's content as key's value, its newlines made
 * spaces; a file that cannot be read sets nothing and is no error. */
int placement_set_file(struct placement *p, const char *key, const char *path);

/* A proxy's placement is recorded in its server's, each key under this
 * prefix (proxy.cpu.affinity); the predicates below judge a proxy's key
 * as the same key of the server's. */
#define PLACEMENT_PROXY_PREFIX "proxy."
/* key without the proxy's prefix. */
const char *placement_key_own(const char *key);

/* The proxy's own placement out of its server's: every key under the
 * prefix, without it.  Nothing (and no error) when p records no proxy. */
int placement_of_proxy(const struct placement *p, struct placement *ret);

/* Counters (cpu.stat.*) change by themselves and are never a difference. */
bool placement_key_is_counter(const char *key);
/* Keys that name a start rather than describe it (the unit, its slice and
 * cgroup paths, the autogroup's number, systemd's per-invocation
 * variables): they differ between any two starts and are never a cause. */
bool placement_key_is_identity(const char *key);

/* Keys that say what was asked for and whether it holds (setting.NAME.*,
 * in_force.NAME), not what the process has. */
bool placement_key_is_setting(const char *key);

/* Sets setting.NAME.FIELD (written, resolved, read), or in_force.NAME for
 * a NULL field. */
int placement_set_setting(struct placement *p, const char *name, const char *field, const char *value);

#define PLACEMENT_SETTINGS_MAX 128
/* The names of the settings p records, in its order, added to names at *n
 * (each once, up to PLACEMENT_SETTINGS_MAX); they borrow from p. */
void placement_setting_names(const struct placement *p, const char **names, size_t *n);
/* One setting as "written -> resolved -> read back: in force" (or "not in
 * force: why", or "not set"), into *ret (to free()). */
int placement_setting_text(const struct placement *p, const char *name, char **ret);
/* Do a and b record setting name differently, or is it not in force in
 * either? */
bool placement_setting_differs(const struct placement *a, const struct placement *b, const char *name);

/* The keys whose values differ (or that only one side has), in a's order
 * and then b's; *ret_keys borrows from a and b. */
int placement_diff(const struct placement *a, const struct placement *b, const char ***ret_keys, size_t *ret_n);

json_t *placement_to_json(const struct placement *p);
int placement_from_json(const json_t *j, struct placement *ret);

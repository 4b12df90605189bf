/* In-force checks of the attribute table (slices/attr/props.c): whether a
 * setting holds, decided from the placement read back (slices/attr/readers.c
 * wrote its keys) and the cgroup limits the settings add up to.  0 in
 * force, 1 not (why says what was read instead). */
#include <inttypes.h>
#include <stdio.h>

#include "slices/attr/attrs.h"
#include "slices/attr/props.h"
#include "slices/sys/cgfs.h"
#include "common/secret.h"
#include "common/util.h"

/* key's value in the placement, noted in vf->read as what the check read
 * back; a note that does not fit ends the list with "...". */
static const char *read_back(const struct attr_verify *vf, const char *key)
{
	const char *got = placement_get(vf->p, key);
	size_t off = vf->read ? strlen(vf->read) : 0;
	int n;

	if (!vf->read || (off >= 3 && streq(vf->read + off - 3, "...")))
		return got;
	n = snprintf(vf->read + off, vf->read_len - off, "%s%s=%s", off ? "; " : "", key, got ? got : "(none)");
	if (n < 0 || (size_t)n >= vf->read_len - off)
		snprintf(vf->read + MIN(off, vf->read_len - 4), 4, "...");
	return got;
}

static int expect_key(const struct attr_verify *vf, const char *key, const char *want, char *why, size_t len)
{
	const char *got = read_back(vf, key);
	_cleanup_free_ char *shown = NULL;

	/* The snapshot withholds secrets: compare with what it shows, and say
	 * nothing more in why. */
	if (strncmp(key, "env.", 4) == 0) {
		shown = secret_mask_value(key + 4, want);
		if (!shown)
			return -ENOMEM;
		want = shown;
	}
	if (got && streq(got, want))
		return 0;
	snprintf(why, len, "%s is %s, not %s", key, got ? got : "unreadable", want);
	return 1;
}

/* key's value is u, or the word `unbounded` where u is UINT64_MAX (NULL:
 * UINT64_MAX is a number as any other). */
static int expect_u64(const struct attr_verify *vf, const char *key, uint64_t u, const char *unbounded, char *why,
		      size_t len)
{
	char want[32];

	if (unbounded && u == UINT64_MAX)
		(void)text_copy(want, sizeof(want), unbounded);
	else
		snprintf(want, sizeof(want), "%" PRIu64, u);
	return expect_key(vf, key, want, why, len);
}

/* key's value is the list of v's CPUs (or nodes). */
static int expect_cpus(const struct attr_verify *vf, const char *key, const struct prop_value *v, char *why, size_t len)
{
	char want[CPUSET_BYTES * 8];

	if (cpumask_format(v->cpus, v->cpus_bytes, want, sizeof(want)) < 0)
		return -ENOBUFS;
	return expect_key(vf, key, want, why, len);
}

int force_weight(const struct prop_value *v _unused_, const struct attr_verify *vf, char *why, size_t len)
{
	char want[32];

	snprintf(want, sizeof(want), "%" PRIu64, vf->mode == CGROUP_UNIFIED ? vf->limits->weight : vf->limits->shares);
	return expect_key(vf, vf->mode == CGROUP_UNIFIED ? "cpu.weight" : "cpu.shares", want, why, len);
}

int force_quota(const struct prop_value *v _unused_, const struct attr_verify *vf, char *why, size_t len)
{
	uint64_t period = vf->limits->period_usec ? vf->limits->period_usec : 100000;
	char want[64];

	if (vf->mode == CGROUP_UNIFIED)
		snprintf(want, sizeof(want), "%" PRIu64 " %" PRIu64, vf->limits->quota_per_sec * period / USEC_PER_SEC, period);
	else
		snprintf(want, sizeof(want), "%" PRIu64, vf->limits->quota_per_sec * period / USEC_PER_SEC);
	return expect_key(vf, vf->mode == CGROUP_UNIFIED ? "cpu.max" : "cpu.cfs_quota_us", want, why, len);
}

int force_period(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	const char *max = read_back(vf, "cpu.max");
	char want[32];

	snprintf(want, sizeof(want), "%" PRIu64, v->u);
	if (vf->mode != CGROUP_UNIFIED)
		return expect_key(vf, "cpu.cfs_period_us", want, why, len);
	if (max && strchr(max, ' ') && streq(strchr(max, ' ') + 1, want))
		return 0;
	snprintf(why, len, "cpu.max is %s, not a period of %s", max ? max : "unreadable", want);
	return 1;
}

int force_allowed_cpus(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_cpus(vf, "cpuset.cpus.effective", v, why, len);
}

int force_cpus(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_cpus(vf, v->def->keys[0], v, why, len);
}

int force_accounting(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_key(vf, "cpu.accounting", v->u ? "yes" : "no", why, len);
}

int force_tasks_max(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_u64(vf, "tasks.max", v->u, "max", why, len);
}

int force_i(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	char want[32];

	snprintf(want, sizeof(want), "%" PRIi64, v->i);
	return expect_key(vf, v->def->keys[0], want, why, len);
}

int force_u(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_u64(vf, v->def->keys[0], v->u, NULL, why, len);
}

int force_bool(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_key(vf, v->def->keys[0], v->u ? "1" : "0", why, len);
}

int force_rlimit(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_u64(vf, v->def->keys[0], v->u, "unlimited", why, len);
}

int force_sched_policy(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_key(vf, "sched.policy", sched_policy_names[v->i], why, len);
}

int force_numa(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	/* numa_maps' words for the policies, in the parser's order. */
	static const char *const words[] = { "default", "prefer", "bind", "interleave", "local" };
	const char *got = read_back(vf, "numa.policy");

	if (got && strncmp(got, words[v->i], strlen(words[v->i])) == 0)
		return 0;
	snprintf(why, len, "numa.policy is %s, not %s", got ? got : "unreadable", words[v->i]);
	return 1;
}

int force_ioprio_class(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_key(vf, "ioprio.class", ioprio_class_names[v->i & 3], why, len);
}

int force_umask(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	char want[16];

	snprintf(want, sizeof(want), "%04" PRIo64, v->u);
	if (!expect_key(vf, "umask", want, why, len))
		return 0;
	/* mariadbd and mysqld set their own umask from $UMASK (0660 for files
	 * by default, so 0006) once started: the setting reached exec, and the
	 * server replaced it. */
	snprintf(why + strlen(why), len - strlen(why), " (the server sets its own umask from $UMASK)");
	return 1;
}

int force_text(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return expect_key(vf, v->def->keys[0], v->text, why, len);
}

int force_caps_include(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	const char *got = read_back(vf, v->def->keys[0]);

	if (got && (strtoull(got, NULL, 16) & v->u) == v->u)
		return 0;
	snprintf(why, len, "%s is %s, which lacks %016" PRIx64, v->def->keys[0], got ? got : "unreadable", v->u);
	return 1;
}

int force_caps_equal(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	char want[32];

	snprintf(want, sizeof(want), "%016" PRIx64, v->u);
	return expect_key(vf, v->def->keys[0], want, why, len);
}

int force_seccomp(const struct prop_value *v _unused_, const struct attr_verify *vf, char *why, size_t len)
{
	const char *got = read_back(vf, "seccomp.filters");

	if (got && strtoul(got, NULL, 10) > 0)
		return 0;
	snprintf(why, len, "seccomp.filters is %s, not more than 0", got ? got : "unreadable");
	return 1;
}

/* Every path of the row's src whose mount.PATH was read must start with
 * want (a path this machine lacks is not read). */
static int expect_paths(const struct prop_value *v, const struct attr_verify *vf, const char *want, char *why, size_t len)
{
	_cleanup_free_ char *copy = strdup(v->def->src);
	char key[1100];

	if (!copy)
		return -ENOMEM;
	for (char *save = NULL, *p = strtok_r(copy, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		const char *got;

		snprintf(key, sizeof(key), "mount.%s", p);
		got = read_back(vf, key);
		if (got && strncmp(got, want, strlen(want)) != 0) {
			snprintf(why, len, "%s is %s, not %s", key, got, want);
			return 1;
		}
	}
	return 0;
}

static bool is_off(const struct prop_value *v)
{
	return streq(v->text, "no") || streq(v->text, "false") || streq(v->text, "0");
}

/* ProtectSystem=yes: /usr and /boot read-only; full and strict: /etc too. */
int force_protect_system(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	if (is_off(v))
		return 0;
	if (streq(v->text, "yes") || streq(v->text, "true")) {
		const char *got = read_back(vf, "mount./usr");

		if (!got || strncmp(got, "ro", 2) == 0)
			return 0;
		snprintf(why, len, "mount./usr is %s, not ro", got);
		return 1;
	}
	return expect_paths(v, vf, "ro", why, len);
}

int force_protect_home(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	if (is_off(v))
		return 0;
	return expect_paths(v, vf, streq(v->text, "yes") || streq(v->text, "true") ? "inaccessible" : "ro", why, len);
}

int force_read_only(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return is_off(v) ? 0 : expect_paths(v, vf, "ro", why, len);
}

int force_private_tmp(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	return is_off(v) ? 0 : expect_key(vf, "mount.namespace", "private", why, len);
}

int force_environment(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	for (char **s = v->strv; *s; s++) {
		char key[256];
		const char *eq = strchr(*s, '=');

		snprintf(key, sizeof(key), "env.%.*s", (int)(eq - *s), *s);
		if (expect_key(vf, key, eq + 1, why, len))
			return 1;
	}
	return 0;
}

/* The NAME=VALUE word of strv that sets the name name[0..n), or NULL. */
static const char *word_setting(char *const *strv, const char *name, size_t n)
{
	for (char *const *s = strv; s && *s; s++)
		if (strncmp(*s, name, n) == 0 && (*s)[n] == '=')
			return *s;
	return NULL;
}

/* The word of an Environment= beside environment= that sets name[0..n),
 * or NULL: the raw kind applies environment= first and Environment= on
 * top of it, as the table orders them. */
static const char *added_on_top(const struct attr_verify *vf, const char *name, size_t n)
{
	const char *w = NULL;

	for (size_t i = 0; i < vf->n_props && !w; i++)
		if (streq(vf->props[i].def->name, "Environment"))
			w = word_setting(vf->props[i].strv, name, n);
	return w;
}

/* environment=: each of its variables, and no other but systemd's own and
 * those an Environment= beside it adds (whose own check sees to their
 * values, the ones it sets again included). */
int force_whole_environment(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	for (size_t i = 0; i < vf->p->n; i++) {
		const char *k = vf->p->attrs[i].key, *name = k + 4;

		if (strncmp(k, "env.", 4) != 0 || placement_key_is_identity(k))
			continue;
		if (!word_setting(v->strv, name, strlen(name)) && !added_on_top(vf, name, strlen(name))) {
			snprintf(why, len, "%s is set", k);
			return 1;
		}
	}
	for (char **s = v->strv; *s; s++) {
		size_t n = strcspn(*s, "=");
		char key[256];

		if (added_on_top(vf, *s, n))
			continue;
		snprintf(key, sizeof(key), "env.%.*s", (int)n, *s);
		if (expect_key(vf, key, *s + n + 1, why, len))
			return 1;
	}
	return 0;
}

int force_unset_environment(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	for (char **s = v->strv; *s; s++) {
		char key[256];

		snprintf(key, sizeof(key), "env.%s", *s);
		if (read_back(vf, key)) {
			snprintf(why, len, "%s is set", key);
			return 1;
		}
	}
	return 0;
}

struct env_check {
	const struct attr_verify *vf;
	char *why;
	size_t len;
};

static int check_env_one(const char *key, const char *value, void *userdata)
{
	struct env_check *c = userdata;
	char k[256];

	snprintf(k, sizeof(k), "env.%s", key);
	return expect_key(c->vf, k, value, c->why, c->len) ? -ESRCH : 0;
}

int force_environment_file(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	struct env_check c = { .vf = vf, .why = why, .len = len };
	int r = env_file_parse(v->text, check_env_one, &c);

	return r == -ESRCH ? 1 : r;
}

/* NUMAMask=: the nodes after the policy's colon in numa_maps; a policy
 * that takes no nodes (default, local) leaves nothing to check. */
int force_numa_mask(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	const char *got = read_back(vf, "numa.policy"), *colon = got ? strchr(got, ':') : NULL;
	char want[CPUSET_BYTES * 8];

	if (got && !colon)
		return 0;
	if (cpumask_format(v->cpus, v->cpus_bytes, want, sizeof(want)) < 0)
		return -ENOBUFS;
	if (colon && streq(colon + 1, want))
		return 0;
	snprintf(why, len, "numa.policy is %s, not on nodes %s", got ? got : "unreadable", want);
	return 1;
}

/* A server variable: server.NAME as the server reads it back over SQL
 * (the engine's facts), parsed by the row and equal in value: a size
 * written 128M reads back 134217728, ON reads back ON.  The server may
 * adjust a value (MariaDB lowers table_open_cache to fit its descriptors):
 * then it is not in force, and why says what it runs with. */
int force_server_variable(const struct prop_value *v, const struct attr_verify *vf, char *why, size_t len)
{
	const char *got = read_back(vf, v->def->keys[0]);
	struct prop_value back = {};
	bool same = got && prop_parse(v->def->name, got, &back) >= 0 && back.u == v->u;

	prop_value_done(&back);
	if (same)
		return 0;
	snprintf(why, len, "%s is %s, not %s", v->def->keys[0], got ? got : "unread (no answer over SQL)", v->text);
	return 1;
}

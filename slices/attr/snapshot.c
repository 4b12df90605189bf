/* Placement snapshots from /proc/PID and cgroupfs.  Every attribute is a
 * string, so that a diff is a string comparison and a record needs no
 * schema; what cannot be read is simply absent. */
#include <dirent.h>
#include <fnmatch.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>

#include "slices/attr/attrs.h"
#include "slices/kinds/context.h"
#include "slices/attr/props.h"
#include "slices/attr/snapshot.h"
#include "common/secret.h"
#include "common/util.h"

int placement_set(struct placement *p, const char *key, const char *value)
{
	struct placement_attr *a;

	for (size_t i = 0; i < p->n; i++)
		if (streq(p->attrs[i].key, key)) {
			char *v = strdup(value);

			if (!v)
				return -ENOMEM;
			free(p->attrs[i].value);
			p->attrs[i].value = v;
			return 0;
		}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;

		a = realloc(p->attrs, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		p->attrs = a;
		p->cap = cap;
	}
	a = &p->attrs[p->n];
	a->key = strdup(key);
	a->value = strdup(value);
	if (!a->key || !a->value) {
		free(a->key);
		free(a->value);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

int placement_setf(struct placement *p, const char *key, const char *fmt, ...)
{
	_cleanup_free_ char *v = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	return n < 0 ? -ENOMEM : placement_set(p, key, v);
}

const char *placement_get(const struct placement *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (streq(p->attrs[i].key, key))
			return p->attrs[i].value;
	return NULL;
}

void placement_done(struct placement *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->attrs[i].key);
		free(p->attrs[i].value);
	}
	free(p->attrs);
	*p = (struct placement){};
}

bool placement_key_is_counter(const char *key)
{
	return strncmp(key, "cpu.stat.", 9) == 0;
}

bool placement_key_is_identity(const char *key)
{
	static const char *const names[] = { "unit", "slice", "autogroup", "env.INVOCATION_ID", "env.JOURNAL_STREAM",
					      "env.SYSTEMD_EXEC_PID", "env.NOTIFY_SOCKET", "env.MANAGERPID" };

	if (strncmp(key, "cgroup.", 7) == 0)
		return true;
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (streq(key, names[i]))
			return true;
	return false;
}

bool placement_key_is_setting(const char *key)
{
	return strncmp(key, "setting.", 8) == 0 || strncmp(key, "in_force.", 9) == 0;
}

void placement_setting_names(const struct placement *p, const char **names, size_t *n)
{
	/* Every settable row has an in-force check (t/035): in_force.NAME
	 * stands for the setting. */
	for (size_t i = 0; i < p->n && *n < PLACEMENT_SETTINGS_MAX; i++) {
		const char *name = strncmp(p->attrs[i].key, "in_force.", 9) == 0 ? p->attrs[i].key + 9 : NULL;
		size_t k;

		for (k = 0; name && k < *n && !streq(names[k], name); k++)
			;
		if (name && k == *n)
			names[(*n)++] = name;
	}
}

#define SETTING_KEY_MAX 96
/* The key setting.NAME.FIELD, or in_force.NAME for a NULL field. */
static int setting_key(char key[static SETTING_KEY_MAX], const char *name, const char *field)
{
	int n = field ? snprintf(key, SETTING_KEY_MAX, "setting.%s.%s", name, field)
		      : snprintf(key, SETTING_KEY_MAX, "in_force.%s", name);

	return n > 0 && n < SETTING_KEY_MAX ? 0 : -ENOBUFS;
}

static const char *setting_get(const struct placement *p, const char *name, const char *field)
{
	char key[SETTING_KEY_MAX];

	return setting_key(key, name, field) < 0 ? NULL : placement_get(p, key);
}

int placement_setting_text(const struct placement *p, const char *name, char **ret)
{
	const char *written = setting_get(p, name, "written"), *resolved = setting_get(p, name, "resolved"),
		   *read = setting_get(p, name, "read"), *in_force = setting_get(p, name, NULL),
		   *verdict = !in_force ? "not checked" : streq(in_force, "yes") ? "in force" : "not in force",
		   *why = in_force && strncmp(in_force, "no: ", 4) == 0 ? in_force + 2 : "";

	if (!written && !in_force)
		return (*ret = strdup("not set")) ? 0 : -ENOMEM;
	/* A placement recorded before the values set were kept: only the verdict. */
	if (!written)
		return xasprintf(ret, "%s%s", verdict, why);
	return xasprintf(ret, "%s -> %s -> %s: %s%s", written, resolved ? resolved : "?", read ? read : "(not read)",
			 verdict, why);
}

bool placement_setting_differs(const struct placement *a, const struct placement *b, const char *name)
{
	static const char *const fields[] = { "written", "resolved", "read" };

	for (size_t i = 0; i < ELEMENTSOF(fields); i++)
		if (!streq_ptr(setting_get(a, name, fields[i]), setting_get(b, name, fields[i])))
			return true;
	return !streq_ptr(setting_get(a, name, NULL), "yes") || !streq_ptr(setting_get(b, name, NULL), "yes");
}

struct cgroups {
	struct placement *p;
	char **systemd_path;
};

static int add_cgroup(char *controllers, const char *cg, void *userdata)
{
	struct cgroups *x = userdata;
	char key[128];
	int r = 0;

	if (!*controllers)
		r = placement_set(x->p, "cgroup.unified", cg);
	/* One key per controller, whether or not a hierarchy co-mounts
	 * them (cpu,cpuacct here, cpu and cpuacct there). */
	for (char *c = *controllers ? controllers : NULL, *save = NULL, *tok; c && r >= 0; c = NULL)
		for (tok = strtok_r(c, ",", &save); tok && r >= 0; tok = strtok_r(NULL, ",", &save)) {
			snprintf(key, sizeof(key), "cgroup.%s", strncmp(tok, "name=", 5) ? tok : tok + 5);
			r = placement_set(x->p, key, cg);
		}
	/* The v2 path on unified and hybrid, name=systemd on legacy. */
	if (r >= 0 && (!*controllers || streq(controllers, "name=systemd")) && !*x->systemd_path)
		*x->systemd_path = strdup(cg);
	return r;
}

/* /proc/PID/cgroup: "cgroup.<controllers>" for each hierarchy, and the
 * unit and slice systemd's path names. */
static int read_cgroups(struct placement *p, pid_t pid, char **ret_systemd_path)
{
	struct cgroups x = { .p = p, .systemd_path = ret_systemd_path };

	return cgroup_foreach_of_pid(pid, add_cgroup, &x);
}

static const char *same(const char *a, const char *b)
{
	return a && b && streq(a, b) ? "yes" : "no";
}

/* What the load generator shares with the server. */
static int read_client(struct placement *p, pid_t pid, pid_t client, enum cgroup_mode mode)
{
	_cleanup_(placement_done) struct placement c = {};
	_cleanup_free_ char *systemd_path = NULL;
	struct attr_reader cr = { .pid = client, .mode = mode, .p = &c };
	const char *cpu_key = mode == CGROUP_UNIFIED ? "cgroup.unified" : "cgroup.cpu";
	int r;

	r = read_cgroups(&c, client, &systemd_path);
	if (r >= 0)
		r = read_affinity_attr(&cr, NULL);
	if (r >= 0)
		r = read_session(&cr, NULL);
	attr_reader_done(&cr);
	if (r >= 0)
		r = placement_set(p, "client.same_cpu_cgroup", same(placement_get(p, cpu_key), placement_get(&c, cpu_key)));
	if (r >= 0)
		r = placement_set(p, "client.same_session", getsid(client) == getsid(pid) ? "yes" : "no");
	if (r >= 0)
		r = placement_set(p, "client.same_autogroup", same(placement_get(p, "autogroup"), placement_get(&c, "autogroup")));
	if (r >= 0)
		r = placement_set(p, "client.affinity", strempty(placement_get(&c, "affinity")));
	/* The path systemd keeps units in: the client's own scope shows here
	 * even where v1 gives it no cpu cgroup of its own. */
	if (r >= 0)
		r = placement_set(p, "client.cgroup", strempty(systemd_path));
	return r;
}

/* Has an earlier row the same reader and source?  Then its keys are read. */
static bool read_already(const struct prop_def *table, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (table[j].read == table[i].read && streq_ptr(table[j].src, table[i].src))
			return true;
	return false;
}

int placement_snapshot(pid_t pid, pid_t client, enum cgroup_mode mode, struct placement *ret)
{
	_cleanup_free_ char *systemd_path = NULL;
	struct placement p = {};
	struct attr_reader ar = { .pid = pid, .mode = mode, .p = &p };
	size_t n;
	const struct prop_def *table = prop_table(&n);
	int r;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	/* The cgroups first: the rows' readers look their paths up. */
	r = read_cgroups(&p, pid, &systemd_path);
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (!read_already(table, i))
			r = table[i].read(&ar, &table[i]);
	attr_reader_done(&ar);
	if (r >= 0 && client > 0)
		r = read_client(&p, pid, client, mode);
	if (r < 0) {
		placement_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}

int placement_diff(const struct placement *a, const struct placement *b, const char ***ret_keys, size_t *ret_n)
{
	const char **keys = calloc(a->n + b->n + 1, sizeof(*keys));
	size_t n = 0;

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		const char *other = placement_get(b, a->attrs[i].key);

		if (!placement_key_is_counter(a->attrs[i].key) && !streq_ptr(other, a->attrs[i].value))
			keys[n++] = a->attrs[i].key;
	}
	for (size_t i = 0; i < b->n; i++)
		if (!placement_key_is_counter(b->attrs[i].key) && !placement_get(a, b->attrs[i].key))
			keys[n++] = b->attrs[i].key;
	*ret_keys = keys;
	*ret_n = n;
	return 0;
}

json_t *placement_to_json(const struct placement *p)
{
	json_t *j = json_object();

	for (size_t i = 0; j && i < p->n; i++)
		if (json_object_set_new(j, p->attrs[i].key, json_string(p->attrs[i].value)) < 0) {
			json_decref(j);
			return NULL;
		}
	return j;
}

int placement_from_json(const json_t *j, struct placement *ret)
{
	struct placement p = {};
	const char *key;
	json_t *v;
	int r = 0;

	if (!json_is_object(j))
		return -EINVAL;
	json_object_foreach((json_t *)j, key, v)
	{
		if (!json_is_string(v)) {
			r = -EINVAL;
			break;
		}
		r = placement_set(&p, key, json_string_value(v));
		if (r < 0)
			break;
	}
	if (r < 0) {
		placement_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}

int placement_verify(struct placement *p, const struct context_spec *spec, enum cgroup_mode mode, unsigned *ret_bad)
{
	return placement_verify_props(p, spec->props, spec->n_props, mode, ret_bad);
}

/* What was asked for, beside what was read back (field NULL: in_force). */
static int set_setting(struct placement *p, const struct prop_def *d, const char *field, const char *value)
{
	char key[SETTING_KEY_MAX];
	int r = setting_key(key, d->name, field);

	return r < 0 ? r : placement_set(p, key, value);
}

/* The setting as written and as resolved on this host (llc:1 and 1),
 * secrets withheld. */
static int record_setting(struct placement *p, const struct prop_value *v)
{
	_cleanup_free_ char *written = secret_mask_text(v->given ? v->given : v->text),
			    *resolved = secret_mask_text(v->text);
	int r;

	if (!written || !resolved)
		return -ENOMEM;
	r = set_setting(p, v->def, "written", written);
	return r < 0 ? r : set_setting(p, v->def, "resolved", resolved);
}

int placement_verify_props(struct placement *p, const struct prop_value *props, size_t n, enum cgroup_mode mode,
			   unsigned *ret_bad)
{
	struct cgroup_limits l = {};
	char read[1024];
	struct attr_verify vf = { .p = p, .limits = &l, .mode = mode, .read = read, .read_len = sizeof(read),
				  .props = props, .n_props = n };
	unsigned bad = 0;
	int r = 0;

	prop_collect_cgroup_limits(props, n, &l);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct prop_value *v = &props[i];
		_cleanup_free_ char *no = NULL;
		char why[512];
		int in_force;

		r = record_setting(p, v);
		if (r < 0 || !v->def->in_force)
			continue;
		read[0] = 0;
		in_force = r = v->def->in_force(v, &vf, why, sizeof(why));
		if (r >= 0 && read[0])
			r = set_setting(p, v->def, "read", read);
		if (r >= 0 && in_force == 0)
			r = set_setting(p, v->def, NULL, "yes");
		else if (r >= 0) {
			bad++;
			r = xasprintf(&no, "no: %s", why);
			r = r < 0 ? r : set_setting(p, v->def, NULL, no);
		}
	}
	*ret_bad = bad;
	return r;
}

/* The placement: a flat, ordered list of KEY=VALUE strings, so that a
 * diff is a string comparison and a record needs no schema.  What is
 * read into it, and how, is the snapshot's (slices/attr/snapshot.c) and
 * the readers' (slices/attr/readers.c); this is the list itself, the
 * meaning of its keys, and its JSON. */
#include <stdio.h>

#include "slices/attr/placement.h"
#include "common/text.h"
#include "common/util.h"

static size_t key_hash(const char *key)
{
	size_t h = 14695981039346656037ULL;

	for (const unsigned char *c = (const unsigned char *)key; *c; c++)
		h = (h ^ *c) * 1099511628211ULL;
	return h;
}

/* The slot of key: where its index is, or the free slot it would take. */
static size_t *slot_of(const struct placement *p, const char *key)
{
	size_t mask = p->n_slots - 1;

	for (size_t i = key_hash(key) & mask;; i = (i + 1) & mask)
		if (!p->slots[i] || streq(p->attrs[p->slots[i] - 1].key, key))
			return &p->slots[i];
}

/* The index again, twice the slots of the keys (at least 128). */
static int rehash(struct placement *p)
{
	size_t n = 128;

	while (n < 2 * (p->n + 1))
		n *= 2;
	free(p->slots);
	p->slots = calloc(n, sizeof(*p->slots));
	if (!p->slots) {
		p->n_slots = 0;
		return -ENOMEM;
	}
	p->n_slots = n;
	for (size_t i = 0; i < p->n; i++)
		*slot_of(p, p->attrs[i].key) = i + 1;
	return 0;
}

/* s as valid UTF-8: itself, or as text_escape() writes it. */
static char *utf8_copy(const char *s)
{
	size_t len = strlen(s);

	return utf8_valid_prefix(s, len) == len ? strdup(s) : text_escape(s);
}

int placement_set(struct placement *p, const char *key, const char *value)
{
	_cleanup_free_ char *k = utf8_copy(key), *v = utf8_copy(value);
	struct placement_attr *a;
	size_t *slot;

	if (!k || !v || (4 * (p->n + 1) > 3 * p->n_slots && rehash(p) < 0))
		return -ENOMEM;
	slot = slot_of(p, k);
	if (*slot) {
		free(p->attrs[*slot - 1].value);
		p->attrs[*slot - 1].value = v;
		v = NULL;
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
	p->attrs[p->n] = (struct placement_attr){ .key = k, .value = v };
	k = v = NULL;
	*slot = ++p->n;
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
	size_t *slot = p->n_slots ? slot_of(p, key) : NULL;

	return slot && *slot ? p->attrs[*slot - 1].value : NULL;
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
	free(p->slots);
	*p = (struct placement){};
}

/* A cgroupfs or /proc file as one attribute, if it can be read. */
int placement_set_file(struct placement *p, const char *key, const char *path)
{
	_cleanup_free_ char *v = NULL;

	if (read_file_str(path, &v) < 0)
		return 0;
	for (char *c = v; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return placement_set(p, key, v);
}

const char *placement_key_own(const char *key)
{
	size_t n = strlen(PLACEMENT_PROXY_PREFIX);

	return strncmp(key, PLACEMENT_PROXY_PREFIX, n) == 0 ? key + n : key;
}

int placement_of_proxy(const struct placement *p, struct placement *ret)
{
	int r = 0;

	*ret = (struct placement){};
	for (size_t i = 0; i < p->n && r >= 0; i++)
		if (placement_key_own(p->attrs[i].key) != p->attrs[i].key)
			r = placement_set(ret, placement_key_own(p->attrs[i].key), p->attrs[i].value);
	if (r < 0)
		placement_done(ret);
	return r;
}

bool placement_key_is_counter(const char *key)
{
	return strncmp(placement_key_own(key), "cpu.stat.", 9) == 0;
}

bool placement_key_is_identity(const char *key)
{
	static const char *const names[] = { "pid", "unit", "slice", "autogroup", "env.INVOCATION_ID", "env.JOURNAL_STREAM",
					      "env.SYSTEMD_EXEC_PID", "env.NOTIFY_SOCKET", "env.MANAGERPID" };

	key = placement_key_own(key);
	/* A capture's own keys and its replay's (slices/attr/capture.h). */
	if (strncmp(key, "cgroup.", 7) == 0 || strncmp(key, "capture.", 8) == 0 || strncmp(key, "replay.", 7) == 0)
		return true;
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (streq(key, names[i]))
			return true;
	return false;
}

bool placement_key_is_setting(const char *key)
{
	key = placement_key_own(key);
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

int placement_set_setting(struct placement *p, const char *name, const char *field, const char *value)
{
	char key[SETTING_KEY_MAX];
	int r = setting_key(key, name, field);

	return r < 0 ? r : placement_set(p, key, value);
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

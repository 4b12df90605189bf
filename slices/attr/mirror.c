/* The mirror of an installed unit: which settings its unit file (and its
 * drop-ins) gives, and their values as the manager resolved them, read
 * over D-Bus and written back as text for the table's parsers.  A value
 * is formatted by its row's format() or, where none, by its signature. */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "slices/attr/attrs.h"
#include "slices/attr/props.h"
#include "slices/sys/bus.h"
#include "slices/attr/mirror.h"
#include "common/util.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_SERVICE "org.freedesktop.systemd1.Service"
#define SD_UNIT "org.freedesktop.systemd1.Unit"

/* By signature: t (infinity for the maximum), b, s, i, u, as. */
static int format_generic(sd_bus *bus, const char *path, const struct prop_def *d, char **ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	uint64_t t;
	uint32_t u;
	int32_t i;
	int b, r;
	char **l = NULL;

	switch (d->signature[0]) {
	case 't':
		r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, 't', &t);
		return r < 0 ? r : t == UINT64_MAX ? xasprintf(ret, "infinity") : xasprintf(ret, "%" PRIu64, t);
	case 'u':
		r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, 'u', &u);
		return r < 0 ? r : xasprintf(ret, "%" PRIu32, u);
	case 'i':
		r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, 'i', &i);
		return r < 0 ? r : xasprintf(ret, "%" PRIi32, i);
	case 'b':
		r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, 'b', &b);
		return r < 0 ? r : xasprintf(ret, "%s", b ? "yes" : "no");
	case 's':
		return sd_bus_get_property_string(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, ret);
	case 'a':
		if (!streq(d->signature, "as"))
			break;
		r = sd_bus_get_property_strv(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, &l);
		if (r >= 0) {
			size_t len = 1;

			for (char **s = l; s && *s; s++)
				len += strlen(*s) + 1;
			*ret = calloc(1, len);
			for (char **s = l; *ret && s && *s; s++)
				strcat(strcat(*ret, s == l ? "" : " "), *s);
			r = *ret ? 0 : -ENOMEM;
		}
		strv_free(l);
		return r;
	}
	return -EOPNOTSUPP;
}

int format_umask(sd_bus *bus, const char *path, const struct prop_def *d, char **ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	uint32_t u;
	int r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, 'u', &u);

	return r < 0 ? r : xasprintf(ret, "%04" PRIo32, u);
}

/* A capability mask as the names the parser takes. */
int format_caps(sd_bus *bus, const char *path, const struct prop_def *d, char **ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	char buf[2048] = "";
	uint64_t t;
	int r = sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, 't', &t);

	if (r < 0)
		return r;
	for (unsigned cap = 0; cap < 64; cap++)
		if (t & (UINT64_C(1) << cap)) {
			const char *name = cap_name(cap);

			if (!name)
				continue; /* beyond what this table names */
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", *buf ? " " : "", name);
		}
	return xasprintf(ret, "%s", buf);
}

/* EnvironmentFiles a(sb): the first, with - when it may be missing. */
int format_env_files(sd_bus *bus, const char *path, const struct prop_def *d, char **ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *file;
	int optional, r;

	r = sd_bus_get_property(bus, SD_DEST, path, SD_SERVICE, d->dbus_name, &error, &reply, "a(sb)");
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "(sb)");
	if (r >= 0)
		r = sd_bus_message_read(reply, "(sb)", &file, &optional);
	if (r <= 0)
		return r < 0 ? r : -ENODATA;
	return xasprintf(ret, "%s%s", optional ? "-" : "", file);
}

/* The keys of [Service] in a unit file, added to keys if new. */
static int service_keys(const char *file, char ***keys, size_t *n)
{
	_cleanup_fclose_ FILE *f = fopen(file, "re");
	char line[4096];
	bool in_service = false, continued = false;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n"), klen;
		bool was_continued = continued;
		char **nk;

		line[len] = 0;
		continued = len && line[len - 1] == '\\';
		if (was_continued || !*line || *line == '#' || *line == ';')
			continue;
		if (*line == '[') {
			in_service = strncmp(line, "[Service]", 9) == 0;
			continue;
		}
		klen = strcspn(line, "= \t");
		if (!in_service || !line[klen] || klen == 0)
			continue;
		line[klen] = 0;
		for (size_t i = 0; i < *n; i++)
			if (streq((*keys)[i], line))
				goto next;
		nk = realloc(*keys, (*n + 2) * sizeof(char *));
		if (!nk)
			return -ENOMEM;
		*keys = nk;
		if (!(nk[*n] = strdup(line)))
			return -ENOMEM;
		nk[++*n] = NULL;
next:;
	}
	return 0;
}

static int strv_push(char ***l, size_t *n, const char *s)
{
	char **nl = realloc(*l, (*n + 2) * sizeof(char *));

	if (!nl)
		return -ENOMEM;
	*l = nl;
	if (!(nl[*n] = strdup(s)))
		return -ENOMEM;
	nl[++*n] = NULL;
	return 0;
}

/* Words of a helper's line that change the host for every process, not
 * the server's own: THP (Percona's ps_mysqld_helper sets it to never),
 * sysctls. */
static const char *const host_wide[] = { "transparent_hugepage", "/proc/sys/", "sysctl ", "sysctl\t", NULL };

/* The lines of the helper at path (a script: text up to 1 MiB) that write
 * host-wide settings, as "PATH:LINE: text", added to *l. */
static int helper_host_writes(const char *path, char ***l, size_t *n)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	struct stat st;
	int r = 0;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20) || !(f = fopen(path, "re")))
		return 0; /* not a script we can read: nothing to list */
	/* Whole lines, however long (one of 1023 bytes was cut, its rest
	 * taken for the next line). */
	for (unsigned no = 1; r >= 0 && getline(&line, &cap, f) >= 0; no++) {
		_cleanup_free_ char *entry = NULL;
		const char *text = line + strspn(line, " \t");
		bool hit = false;

		if (*text == '#')
			continue;
		for (size_t i = 0; host_wide[i]; i++)
			hit |= strstr(text, host_wide[i]) != NULL;
		if (!hit)
			continue;
		text = strndupa(text, strcspn(text, "\n"));
		r = xasprintf(&entry, "%s:%u: %s", path, no, text);
		if (r >= 0)
			r = strv_push(l, n, entry);
	}
	return r;
}

/* ExecStartPre= a(sasbttttuii): each command line, and its helper's
 * host-wide writes. */
static int read_exec_pre(sd_bus *bus, const char *path, struct mirror *m, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	size_t n_pre = 0, n_host = 0;
	const char *binary;
	int r;

	r = sd_bus_get_property(bus, SD_DEST, path, SD_SERVICE, "ExecStartPre", error, &reply, "a(sasbttttuii)");
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "(sasbttttuii)");
	while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', "sasbttttuii")) > 0) {
		_cleanup_(strv_freep) char **argv = NULL;
		_cleanup_free_ char *line = NULL;

		r = sd_bus_message_read(reply, "s", &binary);
		if (r >= 0)
			r = sd_bus_message_read_strv(reply, &argv);
		if (r >= 0)
			r = sd_bus_message_skip(reply, "bttttuii");
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
		for (size_t i = 0; r >= 0 && argv && argv[i]; i++) {
			char *more;

			r = xasprintf(&more, "%s%s%s", strempty(line), line ? " " : "", argv[i]);
			free(line);
			line = r < 0 ? NULL : more;
		}
		if (r >= 0)
			r = strv_push(&m->exec_pre, &n_pre, line ? line : binary);
		if (r >= 0)
			r = helper_host_writes(binary, &m->host_writes, &n_host);
	}
	return r < 0 ? r : 0;
}

int mirror_unit(sd_bus *bus, const char *unit, struct mirror *ret, sd_bus_error *error)
{
	_cleanup_free_ char *path = NULL, *fragment = NULL;
	char **dropins = NULL, **keys = NULL;
	size_t n_keys = 0, n_names = 0, n_unknown = 0, n_table;
	const struct prop_def *table = prop_table(&n_table);
	struct mirror m = {};
	int r;

	if (strlen(unit) < 9 || !streq(unit + strlen(unit) - 8, ".service"))
		return -EMEDIUMTYPE;
	r = bus_load_unit(bus, unit, &path, error);
	if (r >= 0)
		r = sd_bus_get_property_string(bus, SD_DEST, path, SD_UNIT, "FragmentPath", error, &fragment);
	if (r >= 0)
		r = sd_bus_get_property_strv(bus, SD_DEST, path, SD_UNIT, "DropInPaths", error, &dropins);
	if (r >= 0 && *fragment)
		r = service_keys(fragment, &keys, &n_keys);
	for (char **d = dropins; r >= 0 && d && *d; d++)
		r = service_keys(*d, &keys, &n_keys);
	strv_free(dropins);
	if (r >= 0)
		r = read_exec_pre(bus, path, &m, error);
	/* Values in the table's order (the order they are applied in). */
	for (size_t t = 0; r >= 0 && t < n_table; t++)
		for (size_t k = 0; r >= 0 && k < n_keys; k++) {
			_cleanup_free_ char *value = NULL;

			if (!streq(keys[k], table[t].name) || !prop_settable(&table[t]))
				continue;
			r = table[t].format ? table[t].format(bus, path, &table[t], &value)
					    : format_generic(bus, path, &table[t], &value);
			if (r == -EOPNOTSUPP || r == -ENODATA) {
				r = 0; /* no formatter for it: reported as not reproduced */
				continue;
			}
			if (r >= 0 && (r = strv_push(&m.names, &n_names, table[t].name)) >= 0) {
				size_t n_values = n_names - 1;

				r = strv_push(&m.values, &n_values, value);
			}
			free(keys[k]);
			keys[k] = strdup(""); /* taken */
			if (!keys[k])
				r = -ENOMEM;
		}
	for (size_t k = 0; r >= 0 && k < n_keys; k++)
		if (*keys[k])
			r = strv_push(&m.unknown, &n_unknown, keys[k]);
	strv_free(keys);
	if (r < 0) {
		mirror_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

void mirror_done(struct mirror *m)
{
	strv_free(m->names);
	strv_free(m->values);
	strv_free(m->unknown);
	strv_free(m->exec_pre);
	strv_free(m->host_writes);
	*m = (struct mirror){};
}

/* The attribute table's values on D-Bus: each setting as the (sv) of a
 * unit property that StartTransientUnit and SetUnitProperties take, by the
 * row's D-Bus name and signature, or by the row's own appender where the
 * signature is not a plain one. */
#include "slices/attr/attrs.h"
#include "slices/attr/props.h"
#include "common/util.h"

/* ("Name", <as>) or ("Name", <ay>): an array in a variant in a struct. */
static int append_array(sd_bus_message *m, const char *name, const char *signature, const struct prop_value *v)
{
	int r = sd_bus_message_open_container(m, 'r', "sv");

	if (r >= 0)
		r = sd_bus_message_append(m, "s", name);
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'v', signature);
	if (r >= 0)
		r = streq(signature, "as") ? sd_bus_message_append_strv(m, v->strv)
					   : sd_bus_message_append_array(m, 'y', v->cpus, v->cpus_bytes);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r < 0 ? r : sd_bus_message_close_container(m);
}

/* Limit*=: soft and hard; systemd's bus API takes them apart. */
int append_rlimit(sd_bus_message *m, const struct prop_value *v)
{
	_cleanup_free_ char *soft = NULL;
	int r = xasprintf(&soft, "%sSoft", v->def->dbus_name);

	if (r >= 0)
		r = sd_bus_message_append(m, "(sv)", v->def->dbus_name, "t", v->u); /* (sv) hard */
	return r < 0 ? r : sd_bus_message_append(m, "(sv)", soft, "t", v->u); /* (sv) soft */
}

/* SystemCallFilter (bas): allow list or not, and the words as given. */
int append_syscall_filter(sd_bus_message *m, const struct prop_value *v)
{
	_cleanup_(strv_freep) char **words = NULL;
	int r = attr_split_words(v->text[0] == '~' ? v->text + 1 : v->text, &words);

	if (r >= 0)
		r = sd_bus_message_open_container(m, 'r', "sv");
	if (r >= 0)
		r = sd_bus_message_append(m, "s", v->def->dbus_name);
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'v', "(bas)");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'r', "bas");
	if (r >= 0)
		r = sd_bus_message_append(m, "b", (int)v->i);
	if (r >= 0)
		r = sd_bus_message_append_strv(m, words);
	for (int i = 0; i < 3 && r >= 0; i++)
		r = sd_bus_message_close_container(m);
	return r;
}

/* EnvironmentFiles a(sb): the path and whether a missing file is fine. */
int append_environment_file(sd_bus_message *m, const struct prop_value *v)
{
	bool optional = v->text[0] == '-';

	return sd_bus_message_append(m, "(sv)", v->def->dbus_name, "a(sb)", 1, v->text + optional, (int)optional);
}

int prop_append_dbus(sd_bus_message *m, const struct prop_value *v)
{
	const struct prop_def *d = v->def;

	if (!d->dbus_name)
		return -EINVAL;
	if (d->append)
		return d->append(m, v);
	switch (d->signature[0]) {
	case 't':
		return sd_bus_message_append(m, "(sv)", d->dbus_name, "t", v->u);
	case 'u':
		return sd_bus_message_append(m, "(sv)", d->dbus_name, "u", (uint32_t)v->u);
	case 'b':
		return sd_bus_message_append(m, "(sv)", d->dbus_name, "b", (int)v->u);
	case 'i':
		return sd_bus_message_append(m, "(sv)", d->dbus_name, "i", (int32_t)v->i);
	case 's':
		return sd_bus_message_append(m, "(sv)", d->dbus_name, "s", v->text);
	case 'a':
		return append_array(m, d->dbus_name, d->signature, v);
	}
	return -EINVAL;
}

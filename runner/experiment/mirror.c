/* unit = NAME.service: a context that mirrors an installed unit.  A step of
 * its own after the file is read and its kinds checked (only a service
 * mirrors), before its properties are: the installed unit's settings that
 * the attribute table knows, read over D-Bus, become the context's
 * properties (those the file gives itself win), and checks see them as
 * the file's.  The rest are listed as not reproduced. */
#include "slices/sys/bus.h"
#include "slices/attr/mirror.h"
#include "experiment/parse.h"

/* One more to the list of what is not reproduced: NAME=VALUE, or a name. */
static int add_left(char **left, const char *name, const char *value)
{
	char *s;

	if (xasprintf(&s, "%s%s%s%s%s", strempty(*left), *left ? ", " : "", name, value ? "=" : "", strempty(value)) < 0)
		return -ENOMEM;
	free(*left);
	*left = s;
	return 0;
}

/* The unit's settings that context i does not give itself, each taken if
 * its kind applies it in this cgroup mode, else added to *left. */
static int take_settings(struct parser *p, size_t i, const struct mirror *m, char **left)
{
	struct context_spec *c = &p->e->contexts[i];
	unsigned line = p->key_line[i][KEY_CONTEXT_UNIT];
	int r;

	for (size_t k = 0; m->names && m->names[k]; k++) {
		const char *why;
		bool given = false;

		for (size_t j = 0; j < c->n_props; j++)
			given |= streq(c->props[j].def->name, m->names[k]);
		if (given)
			continue;
		if (c->n_props == CONTEXT_PROPS_MAX)
			return fail_at(p, line, "unit", "%s brings more than %d properties", p->unit[i], CONTEXT_PROPS_MAX);
		if (prop_parse(m->names[k], m->values[k], &c->props[c->n_props]) < 0 ||
		    context_check_prop(&c->props[c->n_props], c->kind, p->mode, &why) < 0) {
			prop_value_done(&c->props[c->n_props]);
			r = add_left(left, m->names[k], m->values[k]);
			if (r < 0)
				return r;
			continue;
		}
		p->prop_line[i][c->n_props++] = line;
	}
	return 0;
}

/* The datadir belongs to the server's user.  Where the file names none,
 * the first mirrored unit's User= becomes it (every context's server then
 * runs as that user, as [server] user would make it); otherwise a unit's
 * User= must be it.  *ret_taken: this unit's was taken. */
static int take_user(struct parser *p, size_t i, bool *ret_taken)
{
	const struct context_spec *c = &p->e->contexts[i];
	bool free_to_take = !line_of(p, KEY_USER) && !p->from_json && !p->user_from;
	char *user;

	*ret_taken = false;
	for (size_t j = 0; j < c->n_props; j++) {
		if (!streq(c->props[j].def->name, "User"))
			continue;
		if (streq(c->props[j].text, "root"))
			return fail_at(p, p->prop_line[i][j], "User",
				       "%s runs its server as root, which would leave root's files in the datadir; set "
				       "[server] user to the server's own",
				       p->unit[i]);
		if (free_to_take) {
			user = strdup(c->props[j].text);
			if (!user)
				return -ENOMEM;
			free(p->e->server_user);
			p->e->server_user = user;
			p->user_from = i + 1;
			*ret_taken = true;
		} else if (!streq(c->props[j].text, p->e->server_user))
			return fail_at(p, p->prop_line[i][j], "User",
				       "%s runs the server as %s, but the server's user is %s%s%s; set [server] user = %s",
				       p->unit[i], c->props[j].text, p->e->server_user, p->user_from ? ", from " : "",
				       p->user_from ? p->unit[p->user_from - 1] : "", c->props[j].text);
	}
	return 0;
}

static int mirror_into(struct parser *p, size_t i)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(mirror_done) struct mirror m = {};
	_cleanup_free_ char *left = NULL;
	struct context_spec *c = &p->e->contexts[i];
	unsigned line = p->key_line[i][KEY_CONTEXT_UNIT];
	bool user_taken;
	int r;

	if (!context_ops_for(c->kind)->mirror)
		return fail_at(p, line, "unit", "only a service context mirrors an installed unit (this is %s)",
			       context_kind_to_string(c->kind));
	if (bus_open_system(&bus) < 0)
		return fail_at(p, line, "unit", "reading %s needs a running systemd (run it under slicebench sandbox)",
			       p->unit[i]);
	r = mirror_unit(bus, p->unit[i], &m, &error);
	if (r == -EMEDIUMTYPE)
		return fail_at(p, line, "unit", "%s is not a service", p->unit[i]);
	if (r < 0)
		return fail_at(p, line, "unit", "no unit %s is installed here (%s)", p->unit[i],
			       sd_bus_error_is_set(&error) ? error.message : strerror(-r));
	r = take_settings(p, i, &m, &left);
	if (r >= 0)
		r = take_user(p, i, &user_taken);
	for (size_t k = 0; r >= 0 && m.unknown && m.unknown[k]; k++)
		r = add_left(&left, m.unknown[k], NULL);
	if (r < 0)
		return r;
	return xasprintf(&p->e->mirror_notes[i], "[context %s] mirrors %s%s%s%s; not reproduced: %s", c->name,
			 p->unit[i], user_taken ? " (its User=" : "", user_taken ? p->e->server_user : "",
			 user_taken ? " is the server's user, every context's)" : "", left ? left : "nothing");
}

int mirror_units(struct parser *p)
{
	for (size_t i = 0; i < p->e->n_contexts; i++)
		if (p->unit[i] && mirror_into(p, i) < 0)
			return -EINVAL;
	return 0;
}

/* unit = NAME.service: a context that mirrors an installed unit.  A step of
 * its own after the file is read and its kinds checked (only a service
 * mirrors), before its properties are: the installed unit's settings that
 * the attribute table knows, read over D-Bus, become the context's
 * properties (those the file gives itself win), and checks see them as
 * the file's.  The rest are listed as not reproduced. */
#include "slices/sys/bus.h"
#include "slices/attr/capture.h"
#include "slices/attr/mirror.h"
#include "slices/attr/snapshot.h"
#include "experiment/mirror.h"

/* The context's setting of that row, NULL if none. */
static const struct prop_value *find_prop(const struct context_spec *c, const char *name)
{
	for (size_t j = 0; j < c->n_props; j++)
		if (streq(c->props[j].def->name, name))
			return &c->props[j];
	return NULL;
}

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
		p->prop_source[i][c->n_props] = p->unit[i];
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

/* What the unit's server really gets, which no property shows: the
 * environment after its ExecStartPre= helpers wrote their EnvironmentFile=
 * (Percona's appends LD_PRELOAD of jemalloc), read from the running unit's
 * main process and taken as Environment= unless the section gives one;
 * the helpers' host-wide writes (THP, sysctls) listed, never applied.
 * What was done goes to *said. */
static int take_exec_time(struct parser *p, size_t i, sd_bus *bus, const struct mirror *m, char **said)
{
	_cleanup_(placement_done) struct placement main = {};
	_cleanup_free_ char *words = NULL, *left = NULL, *code = NULL, *refused = NULL, *pre = NULL, *host = NULL;
	struct context_spec *c = &p->e->contexts[i];
	unsigned line = p->key_line[i][KEY_CONTEXT_UNIT];
	bool own_env = find_prop(c, "Environment");
	const char *how;
	uint32_t pid = 0;
	int r = 0;

	for (size_t k = 0; r >= 0 && m->exec_pre && m->exec_pre[k]; k++)
		r = add_left(&pre, m->exec_pre[k], NULL);
	for (size_t k = 0; r >= 0 && m->host_writes && m->host_writes[k]; k++)
		r = add_left(&host, m->host_writes[k], NULL);
	if (r >= 0 && bus_unit_get_u32(bus, p->unit[i], "org.freedesktop.systemd1.Service", "MainPID", &pid, NULL) >= 0 &&
	    pid > 0 && placement_snapshot((pid_t)pid, 0, p->mode, &main) >= 0)
		r = capture_environment_words(&main, &words, &left, &code, &refused);
	if (r == -EPERM)
		return fail_at(p, line, "unit", "the main process of %s (PID %u) has %s", p->unit[i], pid, refused);
	if (r >= 0 && words && !own_env && c->n_props < CONTEXT_PROPS_MAX) {
		r = prop_parse("Environment", words, &c->props[c->n_props]);
		if (r >= 0) {
			p->prop_source[i][c->n_props] = p->unit[i];
			p->prop_line[i][c->n_props++] = line;
		}
	}
	if (r < 0)
		return r;
	how = !pid	 ? "is not known (the unit is not running here: its EnvironmentFile= is read at each start as it stands)"
	      : !words	 ? "was not read"
	      : own_env ? "is read from its main process, and the section's Environment= is taken instead"
			 : "is taken, as read from its main process";
	return xasprintf(said, "; its ExecStartPre= %s%s; the environment its server got after them %s%s%s%s%s%s; "
			 "host-wide writes of its helpers, listed and not applied: %s",
			 pre ? "ran before its server: " : "is none", strempty(pre), how, code ? " (" : "", strempty(code),
			 code ? ": root's alone)" : "", left ? "; left out: " : "", strempty(left), host ? host : "none");
}

static int mirror_into(struct parser *p, size_t i)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(mirror_done) struct mirror m = {};
	_cleanup_free_ char *left = NULL, *exec_time = NULL;
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
	/* The environment its server got first: the unit's Environment= is
	 * part of it. */
	r = take_exec_time(p, i, bus, &m, &exec_time);
	if (r >= 0)
		r = take_settings(p, i, &m, &left);
	if (r >= 0)
		r = take_user(p, i, &user_taken);
	for (size_t k = 0; r >= 0 && m.unknown && m.unknown[k]; k++)
		r = add_left(&left, m.unknown[k], NULL);
	if (r < 0)
		return r;
	return xasprintf(&p->e->mirror_notes[i], "[context %s] mirrors %s%s%s%s; not reproduced: %s%s", c->name,
			 p->unit[i], user_taken ? " (its User=" : "", user_taken ? p->e->server_user : "",
			 user_taken ? " is the server's user, every context's)" : "", left ? left : "nothing",
			 strempty(exec_time));
}

int mirror_units(struct parser *p)
{
	for (size_t i = 0; i < p->e->n_contexts; i++)
		if (p->unit[i] && mirror_into(p, i) < 0)
			return -EINVAL;
	return 0;
}

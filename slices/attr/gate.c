/* The trust gate (see gate.h): the allow-lists the attribute table's rows
 * name, and the two ways in, a setting (gate_prop) and a placement a
 * setting is taken from (gate_placement). */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>

#include "slices/attr/gate.h"
#include "slices/attr/attrs.h"
#include "common/text.h"
#include "common/trust.h"
#include "common/util.h"

/* A refusal's why, allocated, with what came from the input escaped. */
static int refuse(char **ret_why, const char *fmt, ...) _printf_(2, 3);
static int refuse(char **ret_why, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(ret_why, fmt, ap);
	va_end(ap);
	if (r < 0) {
		*ret_why = NULL;
		return -ENOMEM;
	}
	return -EPERM;
}

int gate_env(const char *name, const char *value, const struct gate_policy *pol, char **ret_why)
{
	_cleanup_free_ char *shown = NULL, *why = NULL;
	int r;

	*ret_why = NULL;
	if (!trust_env_name_valid(name)) {
		shown = text_escape(name);
		return refuse(ret_why, "'%s' is no environment variable's name ([A-Za-z_][A-Za-z0-9_]*: the "
			      "environment is written as NAME=VALUE words, and this one would split)", strempty(shown));
	}
	if (!trust_env_chooses_code(name))
		return 0;
	r = trust_env_value(name, value, &why);
	if (r >= 0 || r == -ENOMEM)
		return r;
	shown = text_escape(value);
	r = refuse(ret_why, "%s=%s chooses code the server would run, and %s", name, strempty(shown),
		   why ? why : "it cannot be checked");
	return r == -EPERM && pol->trust_code ? GATE_TRUSTED : r;
}

int allow_env_words(const struct prop_value *v, const struct gate_policy *pol, char **ret_why)
{
	int trusted = 0;

	*ret_why = NULL;
	for (char *const *w = v->strv; w && *w; w++) {
		_cleanup_free_ char *name = strndup(*w, strcspn(*w, "=")), *why = NULL;
		int r;

		if (!name)
			return -ENOMEM;
		r = gate_env(name, (*w)[strlen(name)] ? *w + strlen(name) + 1 : "", pol, &why);
		if (r < 0 || (r == GATE_TRUSTED && !trusted)) {
			free(*ret_why);
			*ret_why = why;
			why = NULL;
		}
		if (r < 0)
			return r;
		trusted |= r;
	}
	return trusted;
}

struct env_file_gate {
	const struct gate_policy *pol;
	char **why;
};

/* A line of the file: refused as any variable; one that chooses code not
 * root's is refused even when trusted, since the file is root's. */
static int gate_env_line(const char *key, const char *value, void *userdata)
{
	const struct env_file_gate *g = userdata;
	int r;

	free(*g->why);
	*g->why = NULL;
	r = gate_env(key, value, g->pol, g->why);
	return r == GATE_TRUSTED ? -EPERM : r;
}

/* EnvironmentFile=: systemd reads it as root, into the server's
 * environment.  A file root alone could have put there (not a user's,
 * whose lines could change after this check), that every account may read
 * (/etc/shadow would hand the server what its account may not see), and
 * each of its variables as any other; a missing -PATH only where root
 * alone could make it. */
int allow_env_file(const struct prop_value *v, const struct gate_policy *pol, char **ret_why)
{
	const char *path = v->text[0] == '-' ? v->text + 1 : v->text;
	_cleanup_free_ char *why = NULL, *shown = text_escape(path), *dir = NULL;
	struct env_file_gate g = { pol, ret_why };
	struct stat st;
	int r;

	*ret_why = NULL;
	if (!shown)
		return -ENOMEM;
	if (v->text[0] == '-' && lstat(path, &st) < 0 && errno == ENOENT) {
		dir = strndup(path, (size_t)(strrchr(path, '/') - path));
		if (!dir)
			return -ENOMEM;
		return dir_check_trusted(*dir ? dir : "/") < 0
			       ? refuse(ret_why, "%s is missing in a directory someone other than root can change", shown)
			       : 0;
	}
	/* Read as root: whoever could change it would choose the server's
	 * environment; --trust-results-code takes it, and says so. */
	r = trust_code_file(path, &why);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		r = refuse(ret_why, "%s is read by root into the server's environment, and %s", shown,
			   why ? why : strerror(-r));
		return r == -EPERM && pol->trust_code ? GATE_TRUSTED : r;
	}
	if (stat(path, &st) < 0 || !(st.st_mode & S_IROTH))
		return refuse(ret_why, "%s is read by root into the server's environment, and not every account may read "
			      "it (mode %04o)", shown, (unsigned)(st.st_mode & 07777));
	r = env_file_parse(v->text, gate_env_line, &g);
	return r == -EPERM || r == -ENOMEM || r >= 0 ? r : refuse(ret_why, "%s: %s", shown, strerror(-r));
}

/* The capabilities of GATE_SAFE_CAPS as a mask. */
static uint64_t safe_caps(void)
{
	struct prop_value v = {};
	const struct prop_def *d = prop_lookup("AmbientCapabilities");

	v.def = d;
	return d->parse(GATE_SAFE_CAPS, &v) < 0 ? 0 : v.u;
}

int allow_caps(const struct prop_value *v, const struct gate_policy *pol _unused_, char **ret_why)
{
	uint64_t extra = v->u & ~safe_caps();
	char names[1024] = "";

	*ret_why = NULL;
	if (!extra)
		return 0;
	for (unsigned cap = 0; cap < 64; cap++)
		if ((extra & (UINT64_C(1) << cap)) && cap_name(cap))
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", *names ? " " : "", cap_name(cap));
	return refuse(ret_why, "%s would be the server account's: it may get %s and no other", names, GATE_SAFE_CAPS);
}

int allow_user(const struct prop_value *v, const struct gate_policy *pol, char **ret_why)
{
	_cleanup_free_ char *shown = text_escape(v->text);

	*ret_why = NULL;
	if (!shown)
		return -ENOMEM;
	return pol->user && streq(v->text, pol->user)
		       ? 0
		       : refuse(ret_why, "%s is another account than the server's own (%s); [server] user names it",
				shown, strempty(pol->user));
}

/* Group=: the server account's own group, or one [server] groups lists. */
int allow_group(const struct prop_value *v, const struct gate_policy *pol, char **ret_why)
{
	_cleanup_free_ char *shown = text_escape(v->text);
	struct passwd *pw = pol->user ? getpwnam(pol->user) : NULL;
	struct group *gr = getgrnam(v->text);

	*ret_why = NULL;
	if (!shown)
		return -ENOMEM;
	if (gr && pw && gr->gr_gid == pw->pw_gid)
		return 0;
	for (char *const *g = pol->groups; g && *g; g++)
		if (streq(*g, v->text))
			return 0;
	return refuse(ret_why, "%s is not the group of the server's account (%s), nor one [server] groups lists", shown,
		      strempty(pol->user));
}

const char *gate_group_refusal(const char *name)
{
	struct group *gr = getgrnam(name);
	struct passwd *pw;

	if (!gr)
		return "no such group here";
	if (gr->gr_gid == 0)
		return "root's group";
	setpwent();
	while ((pw = getpwent()))
		if (pw->pw_gid == gr->gr_gid && pw->pw_uid != 0) {
			endpwent();
			return NULL;
		}
	endpwent();
	return "no account's own group: a group that only gives access to files (as shadow, disk or adm do)";
}

int gate_prop(const struct prop_value *v, const struct gate_policy *pol, char **ret_why)
{
	*ret_why = NULL;
	if (!v->def->power)
		return refuse(ret_why, "%s says nothing of what it can do (its row has no power)", v->def->name);
	if (v->def->power == POWER_NOTHING)
		return 0;
	if (!v->def->allow)
		return refuse(ret_why, "%s can do more than an input may ask, and has no allow-list", v->def->name);
	return v->def->allow(v, pol, ret_why);
}

/* A row's value as it would set it (its parser), through gate_prop(). */
static int gate_row_value(const char *name, const char *value, const struct gate_policy *pol, char **ret_why)
{
	struct prop_value v;
	int r = prop_parse(name, value, &v);

	/* A value the row cannot take is not taken (the replay says so). */
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	r = gate_prop(&v, pol, ret_why);
	prop_value_done(&v);
	return r;
}

/* The key's gate: an environment variable, a setting of the capture, or
 * the first key of a row that takes its value from there. */
static int gate_key(const char *key, const char *value, const struct gate_policy *pol, char **ret_why)
{
	const char *own = placement_key_own(key), *setting = "capture.setting.";
	size_t n;
	const struct prop_def *t = prop_table(&n);

	if (strncmp(own, "env.", 4) == 0)
		return gate_env(own + 4, value, pol, ret_why);
	if (strncmp(own, setting, strlen(setting)) == 0)
		return gate_row_value(own + strlen(setting), value, pol, ret_why);
	for (size_t i = 0; i < n; i++)
		if (t[i].take && t[i].power != POWER_NOTHING && streq(t[i].keys[0], own))
			return gate_row_value(t[i].name, value, pol, ret_why);
	return 0;
}

int gate_placement(const struct placement *p, const struct gate_policy *pol,
		   void (*said)(const char *key, const char *why, bool refused, void *userdata), void *userdata)
{
	int n = 0;

	for (size_t k = 0; k < p->n; k++) {
		_cleanup_free_ char *why = NULL;
		int r = gate_key(p->attrs[k].key, p->attrs[k].value, pol, &why);

		if (r == -ENOMEM)
			return r;
		if (r < 0 || r == GATE_TRUSTED)
			said(p->attrs[k].key, why ? why : strerror(-r), r < 0, userdata);
		n += r < 0;
	}
	return n;
}

const char *gate_power_text(unsigned power, char *buf, size_t len)
{
	static const char *const words[] = { "nothing of these", "chooses code", "raises a privilege",
					     "names a path root reads or writes", "names an account or a group",
					     "as its property's row says" };
	size_t off = 0;

	*buf = 0;
	for (size_t i = 0; i < ELEMENTSOF(words); i++)
		if (power & (1u << i))
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", off ? ", " : "", words[i]);
	return buf;
}

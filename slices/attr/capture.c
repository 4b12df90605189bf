/* A capture of a running process slicebench did not start: what says
 * where it came from, beside the placement the table's readers read.
 * Everything here reads /proc; nothing is written, nothing is signalled. */
#include <dirent.h>
#include <stdio.h>

#include "slices/attr/capture.h"
#include "slices/attr/props.h"
#include "common/secret.h"
#include "common/trust.h"
#include "common/util.h"

/* Command-line words longer than this are cut (a server's are short). */
#define CMDLINE_MAX 4096

/* Options whose value is SQL that may hold a password (SET PASSWORD,
 * IDENTIFIED BY): withheld whole. */
static bool sql_option(const char *option)
{
	static const char *const names[] = { "init-command", "init_command", "init-connect", "init_connect", NULL };

	for (size_t i = 0; names[i]; i++)
		if (streq(option, names[i]))
			return true;
	return false;
}

/* One word of a command line as it may be shown: an option's value whose
 * option names a secret (--password=x, as an environment variable would)
 * or is SQL (--init-command) withheld, the word after a bare --password,
 * and the secrets of connection strings and URLs (secret_mask_text()). */
static char *mask_word(const char *word, bool *after_secret)
{
	const char *name = word + strspn(word, "-");
	size_t n = strcspn(name, "=");
	_cleanup_free_ char *option = strndup(name, n);
	bool secret = option && (secret_name(option) || (name != word && sql_option(option)));

	if (!option)
		return NULL;
	if (*after_secret) {
		*after_secret = false;
		return strdup(SECRET_WITHHELD_PART);
	}
	if (secret && name[n] == '=') {
		char *shown;

		return xasprintf(&shown, "%.*s=%s", (int)(name + n - word), word, SECRET_WITHHELD_PART) < 0 ? NULL : shown;
	}
	/* mysqld's -pPASSWORD, and --password with its value the next word. */
	if (strncmp(word, "-p", 2) == 0 && word[2] && word[1] != '-')
		return strdup("-p" SECRET_WITHHELD_PART);
	*after_secret = secret && word != name && !name[n];
	return secret_mask_value("", word);
}

/* /proc/PID/cmdline as words separated by blanks, each masked. */
static int read_cmdline(pid_t pid, char **ret)
{
	char path[64], buf[CMDLINE_MAX];
	_cleanup_fclose_ FILE *f = NULL;
	char *text = NULL;
	FILE *out;
	size_t len = 0, n;
	int r = 0;
	bool after_secret = false;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	out = open_memstream(&text, &len);
	if (!out)
		return -ENOMEM;
	for (size_t off = 0; r >= 0 && off < n; off += strlen(buf + off) + 1) {
		_cleanup_free_ char *shown = mask_word(buf + off, &after_secret);

		if (!shown || fprintf(out, "%s%s", off ? " " : "", shown) < 0)
			r = -ENOMEM;
	}
	if (fclose(out) != 0 || r < 0) {
		free(text);
		return -ENOMEM;
	}
	*ret = text;
	return 0;
}

/* The inodes of pid's sockets ("socket:[123]"), up to max. */
static size_t socket_inodes(pid_t pid, unsigned long *inodes, size_t max)
{
	char dir[64], link[340], target[64];
	DIR *d;
	struct dirent *e;
	size_t n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	while (d && n < max && (e = readdir(d))) {
		ssize_t len;

		snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (sscanf(target, "socket:[%lu]", &inodes[n]) == 1)
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

int capture_listening_socket(pid_t pid, char **ret)
{
	unsigned long inodes[256];
	size_t n = socket_inodes(pid, inodes, ELEMENTSOF(inodes));
	_cleanup_fclose_ FILE *f = NULL;
	char path[64], line[4200];

	snprintf(path, sizeof(path), "/proc/%d/net/unix", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* Num RefCount Protocol Flags Type St Inode Path: a listening socket
	 * has __SO_ACCEPTCON (0x10000) among its flags. */
	while (fgets(line, sizeof(line), f)) {
		unsigned long flags, inode;
		char name[4097];

		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %lu %4096s", &flags, &inode, name) != 3 ||
		    !(flags & 0x10000) || name[0] != '/')
			continue;
		for (size_t i = 0; i < n; i++)
			if (inodes[i] == inode)
				return (*ret = strdup(name)) ? 0 : -ENOMEM;
	}
	return -ENOENT;
}

int capture_describe(pid_t pid, struct placement *p)
{
	_cleanup_free_ char *cmdline = NULL, *socket = NULL;
	char path[64], exe[4096];
	ssize_t n;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = 0;
	r = placement_setf(p, CAPTURE_PREFIX "pid", "%d", (int)pid);
	/* A binary upgraded (or removed) since the server started: the kernel
	 * says "PATH (deleted)"; the path is still the server's. */
	if (r >= 0 && n > 10 && streq(exe + n - 10, " (deleted)")) {
		exe[n - 10] = 0;
		r = placement_set(p, CAPTURE_PREFIX "exe_replaced",
				  "yes: the file it ran from was replaced or removed since it started (an upgrade)");
	}
	if (r >= 0)
		r = placement_set(p, CAPTURE_PREFIX "exe", exe);
	if (r >= 0 && read_cmdline(pid, &cmdline) >= 0)
		r = placement_set(p, CAPTURE_PREFIX "cmdline", cmdline);
	if (r >= 0 && capture_listening_socket(pid, &socket) >= 0)
		r = placement_set(p, CAPTURE_PREFIX "socket", socket);
	return r;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && streq(s + n - m, suffix);
}

int capture_set_kind(struct placement *p)
{
	const char *unit = placement_get(p, "unit"), *cg = placement_get(p, "cgroup.unified");
	const char *kind = "raw";

	if (!cg || streq(cg, "/"))
		cg = placement_get(p, "cgroup.systemd");
	if (unit && strncmp(unit, "session-", 8) == 0 && ends_with(unit, ".scope"))
		kind = "login";
	else if (unit && *unit && cg && strstr(cg, "/user@"))
		kind = "user";
	else if (unit && ends_with(unit, ".service"))
		kind = "service";
	else if (unit && ends_with(unit, ".scope"))
		kind = "scope";
	return placement_set(p, CAPTURE_PREFIX "kind", kind);
}

bool capture_key_is_own(const char *key)
{
	return strncmp(key, CAPTURE_PREFIX, strlen(CAPTURE_PREFIX)) == 0 || strncmp(key, "replay.", 7) == 0;
}

/* An attribute of the captured process a replay can be held to. */
static bool compared(const char *key)
{
	return !capture_key_is_own(key) && !placement_key_is_identity(key) && !placement_key_is_counter(key) &&
	       !placement_key_is_setting(key) && strncmp(key, "client.", 7) != 0 && !streq(key, "server.read") &&
	       !streq(key, "server.missing");
}

/* Why a replay did not bring key back: the row that would set it, or that
 * none can. */
static const char *why_differs(const char *key, char *buf, size_t len)
{
	const struct prop_def *taker = prop_taking_key(key), *row = NULL;
	size_t n;
	const struct prop_def *t = prop_table(&n);

	for (size_t i = 0; i < n && !row; i++)
		if (prop_moves_key(&t[i], key))
			row = &t[i];
	const struct prop_def *variable = strncmp(key, "server.", 7) == 0 ? prop_lookup(key + 7) : NULL;

	/* The server's own variables first: a replay sets those of the table
	 * (the server may lower one to fit its limits), [server] the rest. */
	if (variable && variable->class == PROP_SERVER)
		snprintf(buf, len, "a server variable: set from the capture unless the section or [server] sets it; "
			 "the server adjusts some to its limits");
	else if (strncmp(key, "server.", 7) == 0)
		snprintf(buf, len, "a server option: [server] and slicebench's option file set it, not the capture");
	else if (taker)
		snprintf(buf, len, "%s%s set from the capture, read back otherwise", taker->name, taker->dbus_name ? "=" : "");
	else if (row)
		snprintf(buf, len, "%s: recorded, not set by a replay", row->name);
	else
		snprintf(buf, len, "no setting of the table moves it");
	return buf;
}

int capture_compare(const struct placement *snap, struct placement *p, size_t *ret_same, size_t *ret_total)
{
	_cleanup_free_ char *differs = NULL;
	size_t same = 0, total = 0, len = 0;
	FILE *f = open_memstream(&differs, &len);
	int r;

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < snap->n; i++) {
		const char *key = snap->attrs[i].key, *here = placement_get(p, key);
		char why[160];

		if (!compared(key))
			continue;
		total++;
		if (streq_ptr(here, snap->attrs[i].value)) {
			same++;
			continue;
		}
		fprintf(f, "%s%s captured %s, here %s (%s)", len ? "; " : "", key, snap->attrs[i].value,
			here ? here : "(none)", why_differs(key, why, sizeof(why)));
		fflush(f);
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	r = placement_setf(p, "replay.reproduced", "%zu of %zu", same, total);
	if (r >= 0)
		r = placement_set(p, "replay.differs", differs && *differs ? differs : "nothing");
	*ret_same = same;
	*ret_total = total;
	return r;
}

/* One more "NAME..." to a list separated by ", ". */
static int list_add(char **list, const char *fmt, const char *name, const char *more)
{
	char *s;

	if (xasprintf(&s, "%s%s", strempty(*list), *list ? ", " : "") < 0)
		return -ENOMEM;
	free(*list);
	*list = s;
	if (xasprintf(&s, fmt, *list, name, more) < 0)
		return -ENOMEM;
	free(*list);
	*list = s;
	return 0;
}

int capture_environment_words(const struct placement *p, char **ret_words, char **ret_left, char **ret_code,
			      char **ret_refused)
{
	_cleanup_free_ char *words = NULL, *left = NULL, *code = NULL;
	int r = 0;

	*ret_words = *ret_left = *ret_code = *ret_refused = NULL;
	for (size_t k = 0; r >= 0 && k < p->n; k++) {
		const char *key = p->attrs[k].key, *v = p->attrs[k].value, *name = key + 4;
		_cleanup_free_ char *why = NULL;

		if (strncmp(key, "env.", 4) != 0 || placement_key_is_identity(key))
			continue;
		if (strstr(v, SECRET_WITHHELD_PART) || strstr(v, SECRET_WITHHELD) || strpbrk(v, " \t\n")) {
			r = list_add(&left, "%s%s (%s)", name, strstr(v, "withheld") ? "a secret, withheld" : "blanks in its value");
			continue;
		}
		if (trust_env_chooses_code(name) && (r = trust_env_value(name, v, &why)) < 0) {
			if (r != -ENOMEM && xasprintf(ret_refused, "%s=%s: %s", name, v, why ? why : "it cannot be checked") < 0)
				return -ENOMEM;
			return r == -ENOMEM ? r : -EPERM;
		}
		if (trust_env_chooses_code(name) && !streq(name, "PATH"))
			r = list_add(&code, "%s%s=%s", name, v);
		if (r >= 0)
			r = words ? list_add(&words, "%s%s=%s", name, v) : xasprintf(&words, "%s=%s", name, v);
	}
	if (r < 0)
		return r;
	/* list_add separates by ", "; Environment= takes blanks. */
	for (char *c = words; c && (c = strstr(c, ", ")); c++)
		memmove(c, c + 1, strlen(c + 1) + 1);
	*ret_words = words;
	*ret_left = left;
	*ret_code = code;
	words = left = code = NULL;
	return 0;
}

/* The experiment file parser: inih reads the INI, a line-counting reader
 * gives every key its line and registers sections (empty ones too), and
 * each key goes through its row of the key table (key_table.c) into
 * struct experiment.  It reads the file and nothing else: what the file
 * names on this host (an engine, a command, an installed unit) is for the
 * checks and the mirror after it. */
#include <fcntl.h>
#include <ini.h>
#include <sys/stat.h>

#include "experiment/gate.h"
#include "experiment/check.h"
#include "experiment/key_table.h"
#include "experiment/mirror.h"
#include "experiment/parse.h"
#include "experiment/replay.h"
#include "experiment/script.h"
#include "oltp/script.h"
#include "common/text.h"
#include "common/topology.h"

/* The defaults of section s's keys, or (SECTION_NONE) of every section of
 * its own; a named section's are set as each of its sections opens. */
static int set_defaults(struct parser *p, enum section s)
{
	int r = 0;

	for (const struct key_def *k = key_table; k < key_table + _KEY_MAX && r >= 0; k++)
		if (k->def && (s == SECTION_NONE ? !section_table[k->section].named : k->section == s))
			r = set_key(p, k, k->def);
	return r;
}

/* [context NAME], [slice NAME] or [neighbour NAME]: one more of them. */
static int open_instance(struct parser *p, enum section s, const char *header)
{
	const struct section_def *d = &section_table[s];
	size_t *n = (size_t *)((char *)p->e + d->count);
	char name[128], extra[2];
	const char *why = NULL;

	p->section = s;
	if (sscanf(header + strlen(d->name) + 1, "%127s%1s", name, extra) != 1 || !d->valid(name, &why))
		return fail_at(p, p->line, NULL, "[%s]: %s", header, why ? why : d->rule);
	for (size_t i = 0; i < *n; i++)
		if (streq(section_instance_name(p->e, d, i), name))
			return fail_at(p, p->line, NULL, "[%s %s] is defined twice (first on line %u)", d->name, name,
				       p->header_line[s][i]);
	if (*n == d->max)
		return fail_at(p, p->line, NULL, "more than %zu %ss", d->max, d->name);
	p->header_line[s][*n] = p->line;
	p->instance = (*n)++;
	/* The section's rule keeps a valid name within its names' length. */
	memcpy(section_instance_name(p->e, d, p->instance), name, strlen(name) + 1);
	return set_defaults(p, s);
}

/* "[experiment], [server], ... or [vary]", for the message. */
static const char *section_list(char *buf, size_t len)
{
	char names[_SECTION_MAX][32];
	struct word words[_SECTION_MAX] = {};

	for (enum section s = SECTION_EXPERIMENT; s < _SECTION_MAX; s++) {
		snprintf(names[s], sizeof(names[s]), "[%s%s]", section_table[s].name, section_table[s].named ? " NAME" : "");
		words[s - 1] = (struct word){ names[s], s };
	}
	return word_join(words, ", ", " or ", buf, len);
}

static void section_header(struct parser *p, const char *line)
{
	char name[128], list[160];
	const char *s = line + strspn(line, " \t");
	size_t len;

	if (*s != '[')
		return;
	len = strcspn(s + 1, "]");
	if (s[1 + len] != ']' || len >= sizeof(name)) {
		fail_at(p, p->line, NULL, "a section header needs a closing ]");
		p->section = SECTION_NONE;
		return;
	}
	memcpy(name, s + 1, len);
	name[len] = 0;
	p->instance = 0;
	for (enum section i = SECTION_EXPERIMENT; i < _SECTION_MAX; i++) {
		const struct section_def *d = &section_table[i];
		size_t n = strlen(d->name);

		if (!d->named && streq(name, d->name)) {
			p->section = i;
			/* A second one would merge into the first without a word. */
			if (p->header_line[i][0])
				fail_at(p, p->line, NULL, "[%s] is given twice (first on line %u)", name, p->header_line[i][0]);
			p->header_line[i][0] = p->line;
			return;
		}
		if (d->named && strncmp(name, d->name, n) == 0 && name[n] == ' ') {
			(void)open_instance(p, i, name);
			return;
		}
	}
	p->section = SECTION_NONE;
	fail_at(p, p->line, NULL, "unknown section [%s] (want %s)", name, section_list(list, sizeof(list)));
}

/* fgets for inih that counts lines and sees section headers itself, so that
 * every key has a line and an empty [context NAME] still counts.  A line
 * inih would split, a NUL that would cut it short and a control character
 * that would reach the terminal (in list, in --dry-run) end the file with
 * an error instead: each changed what was read without a word. */
static char *read_line(char *str, int num, void *stream)
{
	struct parser *p = stream;
	long before = ftell(p->f);
	size_t len;

	if (p->msg || !fgets(str, num, p->f))
		return NULL;
	len = (size_t)(ftell(p->f) - before);
	if (p->at_line_start)
		p->line++;
	p->at_line_start = true;
	if (strlen(str) != len)
		return fail_at(p, p->line, NULL, "a NUL byte in the line"), NULL;
	if (len == (size_t)num - 1 && str[len - 1] != '\n' && !feof(p->f))
		return fail_at(p, p->line, NULL, "a line longer than %d characters", num - 2), NULL;
	/* A byte order mark, as some editors write: the file's first line is line 1. */
	if (p->line == 1 && strncmp(str, "\xef\xbb\xbf", 3) == 0)
		memmove(str, str + 3, (len -= 3) + 1);
	/* The line ending (LF, or CRLF) aside, what the file holds is text
	 * that list, --dry-run and the reports show as it is. */
	if (len > 0 && str[len - 1] == '\n')
		len -= 1 + (len > 1 && str[len - 2] == '\r');
	if (utf8_valid_prefix(str, len) != len)
		return fail_at(p, p->line, NULL, "not UTF-8 (byte 0x%02x, column %zu)",
			       (unsigned char)str[utf8_valid_prefix(str, len)], utf8_valid_prefix(str, len) + 1), NULL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)str[i], next = (unsigned char)str[i + 1];

		if ((c < 0x20 && c != '\t') || c == 0x7f || (c == 0xc2 && next >= 0x80 && next <= 0x9f))
			return fail_at(p, p->line, NULL, "a control character (%s%02x) in the line", c == 0xc2 ? "U+00" : "0x",
				       c == 0xc2 ? next : c), NULL;
	}
	section_header(p, str);
	return str;
}

/* "1 2 4" or "1,2,4" or "1-8" into a list. */
static int parse_list(const char *value, long min, long max, long *ret, size_t cap, size_t *ret_n)
{
	_cleanup_free_ char *s = strdup(value);

	if (!s)
		return -ENOMEM;
	for (char *c = s; *c; c++)
		if (*c == ' ' || *c == '\t')
			*c = ',';
	for (char *c = s; (c = strstr(c, ",,"));)
		memmove(c, c + 1, strlen(c));
	return parse_int_list(s, min, max, ret, cap, ret_n);
}

/* A CPU list of this machine (CPUs, llc:N, node:N, core:N) into cpus; on
 * error, why says what is wrong with it. */
static int parse_cpu_value(const char *value, long *cpus, size_t *ret_n, char *why, size_t why_len)
{
	int r = cpu_list_parse(value, sysconf(_SC_NPROCESSORS_CONF) - 1, cpus, OLTP_MAX_CPUS, ret_n, why, why_len);

	if (r < 0 && !*why)
		snprintf(why, why_len, "CPUs of this machine such as 0 or 0-1, or llc:N, node:N, core:N");
	return r;
}

static int set_text(char **field, const char *value)
{
	free(*field);
	*field = strdup(value);
	return *field ? 0 : -ENOMEM;
}

/* A context's client-cpus, recorded as resolved here: llc:1 is other CPUs
 * on another host. */
static int set_cpus_text(struct parser *p, const struct key_def *k, const char *value, char **field)
{
	long cpus[OLTP_MAX_CPUS];
	char buf[CPU_LIST_MAX * 5];
	size_t n;

	if (parse_cpu_value(value, cpus, &n, buf, sizeof(buf)) < 0)
		return fail_at(p, p->line, k->name, "bad value '%s' (%s)", value, buf);
	if (cpu_list_is_topological(value) && cpu_list_format(cpus, n, buf, sizeof(buf)) < 0)
		return -ENOBUFS;
	return set_text(field, cpu_list_is_topological(value) ? buf : value);
}

/* One of two words or both ("restart live"), separated by blanks or commas. */
static int set_flags(struct parser *p, const struct key_def *k, const char *value, unsigned *field)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL, each[64], both[64];
	unsigned flags = 0;
	int w;

	if (!copy)
		return -ENOMEM;
	word_join(k->words, ", ", ", ", each, sizeof(each));
	word_join(k->words, " ", " ", both, sizeof(both));
	for (char *s = strtok_r(copy, " \t,", &save); s; s = strtok_r(NULL, " \t,", &save)) {
		if (word_lookup(k->words, s, &w) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (%s, or %s for both)", s, each, both);
		flags |= (unsigned)w;
	}
	if (!flags)
		return fail_at(p, p->line, k->name, "no value (%s, or %s for both)", each, both);
	*field = flags;
	return 0;
}

static int set_command(struct parser *p, const struct key_def *k, const char *value, char ***field)
{
	if (strv_split_words(value, field) < 0)
		return -ENOMEM;
	if (!(*field)[0])
		return fail_at(p, p->line, k->name, "an empty command");
	return 0; /* whether it is here is the checks' (check_settings()) */
}

/* One word of the row's words (an enum, yes or no), or a kind of context. */
static int set_word(struct parser *p, const struct key_def *k, const char *value, void *field)
{
	char list[256];
	int w;

	/* workload = FILE.lua: the user's scripts; a word: none */
	if (k->type == TYPE_WORKLOAD && oltp_script_workload(value, &(enum oltp_workload){ 0 }) == 0)
		return set_workload_scripts(p, k, value);
	if (k->type == TYPE_WORKLOAD) {
		free(p->e->workload_scripts);
		p->e->workload_scripts = NULL;
		p->e->oltp.scripts = NULL;
	}
	if (k->type == TYPE_KIND) {
		w = context_kind_from_string(value);
		if (w == CONTEXT_KIND_INVALID)
			return fail_at(p, p->line, k->name, "bad value '%s' (%s)", value, context_kind_list(false));
	} else if (word_lookup(k->words, value, &w) < 0)
		return fail_at(p, p->line, k->name, "bad value '%s' (%s)", value, word_list(k->words, list, sizeof(list)));
	if (k->type == TYPE_BOOL)
		*(bool *)field = w;
	else
		*(int *)field = w;
	return 0;
}

/* The numbers: counts, percentages, durations, sizes, each within the
 * row's range. */
static int set_number(struct parser *p, const struct key_def *k, const char *value, void *field)
{
	uint64_t u, mem;
	double pct;
	long v;

	switch (k->type) {
	case TYPE_REPEAT:
		if (streq(value, "auto") || streq(value, "decide")) {
			p->e->repeat_auto = streq(value, "auto");
			p->e->repeat_decide = !p->e->repeat_auto;
			return 0;
		}
		if (parse_int_range(value, k->min, k->max, &v) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (an integer from %ld to %ld, auto or decide)",
				       value, k->min, k->max);
		*(unsigned *)field = (unsigned)v;
		return 0;
	case TYPE_UINT:
		if (parse_int_range(value, k->min, k->max, &v) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (an integer from %ld to %ld)", value, k->min,
				       k->max);
		*(unsigned *)field = (unsigned)v;
		return 0;
	case TYPE_PERCENT:
		if (parse_percent(value, true, &pct) < 0 || !(pct > 0 && pct < 100))
			return fail_at(p, p->line, k->name, "bad value '%s' (a percentage above 0 and below 100, such as 5%%)",
				       value);
		*(double *)field = pct / 100;
		return 0;
	case TYPE_WHOLE_PERCENT:
		if (parse_percent(value, true, &pct) < 0 || pct < k->min || pct > k->max || pct != (double)(unsigned)pct)
			return fail_at(p, p->line, k->name, "bad value '%s' (a whole percentage from %ld%% to %ld%%)", value,
				       k->min, k->max);
		*(unsigned *)field = (unsigned)pct;
		return 0;
	case TYPE_DURATION:
		if (parse_duration_ns(value, &u) < 0 || u < (uint64_t)k->min * NSEC_PER_SEC)
			return fail_at(p, p->line, k->name, "bad value '%s' (a duration such as 10s, 500ms or 2m, from %lds to a year)",
				       value, k->min);
		*(uint64_t *)field = u;
		return 0;
	case TYPE_SIZE:
		mem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
		if (parse_size_bytes(value, &u) < 0 || u < (uint64_t)k->min || u > mem)
			return fail_at(p, p->line, k->name, "bad value '%s' (a size such as 128M or 1G, from %ldM to this machine's %" PRIu64 "M)",
				       value, k->min >> 20, mem >> 20);
		return set_text(field, value);
	default:
		return -EINVAL;
	}
}

/* A section's name (proxy = NAME); whether the file defines it is known
 * at its end. */
static int set_name(struct parser *p, const struct key_def *k, const char *value, char *field)
{
	if (!name_is_valid(value) || text_copy(field, sizeof(p->ctx_proxy[0]), value) < 0)
		return fail_at(p, p->line, k->name, "bad value '%s' (a section's name)", value);
	return 0;
}

/* Any text but none, or one of the row's words. */
static int set_string(struct parser *p, const struct key_def *k, const char *value, void *field)
{
	char list[256];
	int w;

	if (!*value)
		return fail_at(p, p->line, k->name, "an empty value");
	if (k->words && word_lookup(k->words, value, &w) < 0)
		return fail_at(p, p->line, k->name, "bad value '%s' (%s)", value, word_list(k->words, list, sizeof(list)));
	return set_text(field, value);
}

/* The key table's switch over the types: a case each, or the helper of a
 * kind of them. */
int set_key(struct parser *p, const struct key_def *k, const char *value)
{
	struct experiment *e = p->e;
	void *field = (k->in_parser ? (char *)p : (char *)e) + k->offset + p->instance * k->stride;
	char why[160];

	if (k->check && k->check(p, k, value) < 0)
		return -EINVAL;
	switch (k->type) {
	case TYPE_STRING:
		return set_string(p, k, value, field);
	case TYPE_UNIT:
	case TYPE_FILE:
		return set_text(field, value);
	case TYPE_REPEAT:
	case TYPE_UINT:
	case TYPE_PERCENT:
	case TYPE_WHOLE_PERCENT:
	case TYPE_DURATION:
	case TYPE_SIZE:
		return set_number(p, k, value, field);
	case TYPE_THREADS:
		if (parse_list(value, k->min, k->max, e->threads, EXP_THREADS_MAX, &e->n_threads) < 0 || !e->n_threads)
			return fail_at(p, p->line, k->name, "bad value '%s' (thread counts such as 1 2 4, at most %d)",
				       value, EXP_THREADS_MAX);
		return 0;
	case TYPE_CPUS:
		if (parse_cpu_value(value, e->client_cpus_list, &e->n_client_cpus, why, sizeof(why)) < 0)
			return fail_at(p, p->line, k->name, "%s", why);
		return 0;
	case TYPE_CPUS_TEXT:
		return set_cpus_text(p, k, value, field);
	case TYPE_WORKLOAD:
	case TYPE_WORD:
	case TYPE_BOOL:
	case TYPE_KIND:
		return set_word(p, k, value, field);
	case TYPE_FLAGS:
		return set_flags(p, k, value, field);
	case TYPE_BASELINE:
		if (!name_is_valid(value) || text_copy(field, sizeof(e->baseline), value) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (a context name)", value);
		return 0;
	case TYPE_NAME:
		return set_name(p, k, value, field);
	case TYPE_SLICE:
		if (text_copy(field, SLICE_NAME_MAX, value) < 0)
			return fail_at(p, p->line, k->name, "bad value '%s' (longer than any slice's name)", value);
		return 0; /* whether it is defined is known at the end of the file */
	case TYPE_COMMAND:
		return set_command(p, k, value, field);
	case TYPE_PROPERTY:
	case TYPE_PROPERTY_VALUES:
		break; /* the row's add(), which give_key() calls */
	}
	return -EINVAL;
}

/* A key of the current section: once, then through its row. */
static int give_key(struct parser *p, const char *name, const char *value)
{
	const struct section_def *s = &section_table[p->section];
	const struct key_def *k = key_find(p->section, name);
	char where[96], list[128];
	unsigned *line;

	section_where(p, where, sizeof(where));
	if (!k && s->unknown_lists_keys)
		return fail_at(p, p->line, name, "unknown key in %s (%s)", where, key_list(p->section, " or ", list, sizeof(list)));
	if (!k)
		return fail_at(p, p->line, name, "unknown key in %s", where);
	line = &p->key_line[p->instance][k - key_table];
	/* A property's row takes many: each property is once (its add()). */
	if (!k->add && *line && s->twice_names_line)
		return fail_at(p, p->line, name, "given twice in %s (first on line %u)", where, *line);
	if (!k->add && *line)
		return fail_at(p, p->line, name, "given twice in %s", where);
	*line = p->line;
	return k->add ? k->add(p, name, value) : set_key(p, k, value);
}

static int handle_key(void *user, const char *section _unused_, const char *name, const char *value)
{
	struct parser *p = user;

	/* After an error (a bad section header among them) nothing is read. */
	if (p->msg)
		return 1;
	if (p->section == SECTION_NONE)
		fail_at(p, p->line, name, "a key outside any section");
	else
		(void)give_key(p, name, value);
	return 1;
}

int experiment_defaults(struct experiment *e)
{
	struct parser p = { .e = e, .path = "(the key table's defaults)" };
	int r;

	/* The engine's own first: what no key sets (the user, the tools'
	 * paths, the timeouts, the distribution's parameters). */
	oltp_options_default(&e->oltp);
	r = set_defaults(&p, SECTION_NONE);

	free(p.msg);
	/* Not keys of the table: no Slice=, no proxy and no [vary] on a slice. */
	e->vary_slice = -1;
	for (size_t i = 0; i < EXP_CONTEXTS_MAX; i++)
		e->context_slice[i] = e->context_proxy[i] = -1;
	return r;
}

/* A regular file of at most EXP_FILE_MAX bytes: a FIFO would block the
 * open and /dev/zero never end. */
static int open_experiment_file(const char *path, FILE **ret, char **ret_msg)
{
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		return xasprintf(ret_msg, "%s: %s", path, strerror(-r)), r;
	}
	r = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : st.st_size > EXP_FILE_MAX ? -EFBIG : 0;
	if (r < 0) {
		close(fd);
		return xasprintf(ret_msg, "%s: %s", path,
				 r == -EINVAL ? "not a regular file"
				 : r == -EFBIG ? "larger than " STRINGIFY(EXP_FILE_MAX) " bytes"
					       : strerror(-r)), r;
	}
	*ret = fdopen(fd, "r");
	if (!*ret) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

int parse_file(struct parser *p, char **ret_msg)
{
	int r = open_experiment_file(p->path, &p->f, ret_msg);

	if (r < 0)
		return r;
	r = ini_parse_stream(read_line, p, handle_key, p);
	fclose(p->f);
	p->f = NULL;
	if (r > 0 && !p->msg)
		fail_at(p, (unsigned)r, NULL, "not a key = value line or a [section]");
	else if (r < 0 && !p->msg)
		fail_at(p, p->line, NULL, "cannot read the file");
	return p->msg ? -EINVAL : 0;
}

/* The stem of path: experiments/cpu-quota.ini is cpu-quota. */
static int stem_of(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strcspn(base, ".");

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, base, n);
	buf[n] = 0;
	return name_is_valid(buf) ? 0 : -EINVAL;
}

int experiment_load(const char *path, enum cgroup_mode mode, struct experiment *ret, char **ret_msg)
{
	struct parser p = { .e = ret, .path = path, .mode = mode, .at_line_start = true };
	int r;

	*ret = (struct experiment){};
	*ret_msg = NULL;
	ret->path = strdup(path);
	if (!ret->path)
		return -ENOMEM;
	r = experiment_defaults(ret);
	if (r >= 0 && stem_of(path, ret->name, sizeof(ret->name)) < 0) {
		xasprintf(ret_msg, "%s: the file name must be NAME.ini with NAME [a-z0-9][a-z0-9_-]{0,39}", path);
		r = -EINVAL;
	}
	if (r >= 0)
		r = parse_file(&p, ret_msg);
	/* A replay may give a context its kind, which the checks want. */
	if (r >= 0)
		r = replay_snapshots(&p);
	/* The mirror needs each context's kind, and brings properties that
	 * the checks after it see as the file's. */
	if (r >= 0)
		r = check_file(&p);
	if (r >= 0)
		r = mirror_units(&p);
	if (r >= 0)
		r = check_settings(&p);
	/* Every setting, whatever brought it, through the one gate. */
	if (r >= 0)
		r = experiment_gate(&p, false);
	for (size_t i = 0; i < EXP_CONTEXTS_MAX; i++) {
		free(p.unit[i]);
		free(p.from[i]);
	}
	if (p.msg) {
		*ret_msg = p.msg;
		r = -EINVAL;
	}
	if (r < 0)
		experiment_done(ret);
	return r;
}

int experiment_options_start(struct experiment *e, struct parser **ret)
{
	struct parser *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	*p = (struct parser){ .e = e, .path = "the command line", .mode = cgroup_mode_detect(), .options = true };
	*e = (struct experiment){};
	r = experiment_defaults(e);
	if (r < 0) {
		free(p);
		return r;
	}
	/* Its one context, which --context, --session and -p describe. */
	e->n_contexts = 1;
	*ret = p;
	return 0;
}

int experiment_set_option(struct parser *p, const struct key_def *k, const char *value)
{
	const char *eq = strchr(value, '=');
	_cleanup_free_ char *name = NULL;
	char *why;

	/* Given twice, the last one counts, as getopt's options do. */
	p->line++;
	p->section = k->section;
	p->instance = 0;
	p->key_line[0][k - key_table] = p->line;
	if (!k->add)
		return set_key(p, k, value);
	name = eq ? strndup(value, (size_t)(eq - value)) : NULL;
	if (!name)
		return fail_at(p, p->line, k->name, "bad value '%s' (a systemd property as NAME=VALUE; see slicebench "
				 "properties)", value);
	if (k->add(p, name, eq + 1) >= 0)
		return 0;
	/* The property's own message, after the option's value. */
	why = p->msg;
	p->msg = NULL;
	fail_at(p, p->line, k->name, "bad value '%s' (%s)", value, why ? strchr(why, ' ') + 1 : "bad input");
	free(why);
	return -EINVAL;
}

/* from = SNAPSHOT.json: a context that reproduces a captured server (place
 * --pid or --unit), taken the way explain's hybrids take an attribute from
 * another context's placement: each row of the attribute table that can
 * (prop_def.take) sets what reproduces the value read there.  Its kind is
 * where the server ran unless the section says, a service takes its
 * unit's settings as the capture read them, and the server is [server]'s
 * binary whatever ran there.  A snapshot is input like a results
 * directory: a variable that chooses code (LD_PRELOAD, PATH) is taken only
 * when it names files root alone could have put there, and the note says
 * so; anything else is refused, FILE:LINE: from, before anything starts. */
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>

#include "experiment/replay.h"
#include "slices/attr/capture.h"
#include "slices/attr/gate.h"
#include "slices/attr/snapshot.h"
#include "common/input.h"
#include "common/secret.h"
#include "common/text.h"
#include "common/trust.h"

/* Rows whose value the replay does not take from the snapshot: the
 * server's account is [server] user, every context's (taken from the
 * snapshot where the file names none, as a mirrored unit's User=). */
static bool row_is_account(const struct prop_def *d)
{
	return streq(d->name, "User") || streq(d->name, "Group");
}

/* Context i's snapshot, read as every input is (common/input.c): a
 * regular file, no symbolic link, at most EXP_FILE_MAX bytes, an object
 * of strings.  *ret_why says what was wrong. */
static int load_snapshot(const struct parser *p, size_t i, struct placement *ret, char **ret_why)
{
	_cleanup_free_ char *full = NULL;
	json_t *j;
	int r;

	r = where_path(p, p->from[i], &full);
	if (r < 0)
		return r;
	j = input_load_json(full, EXP_FILE_MAX, ret_why);
	if (!j)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	r = placement_from_json(j, ret);
	json_decref(j);
	if (r == -EINVAL && !(*ret_why = strdup("not a snapshot (an object of strings, as place --pid --json prints)")))
		return -ENOMEM;
	return r;
}

/* One more "text" to a list separated by ", ". */
static int add_to(char **list, const char *a, const char *b)
{
	char *s;

	if (xasprintf(&s, "%s%s%s%s", strempty(*list), *list ? ", " : "", a, strempty(b)) < 0)
		return -ENOMEM;
	free(*list);
	*list = s;
	return 0;
}

struct replay {
	struct parser *p;
	size_t i;
	unsigned line;
	const char *path;
	struct placement taken; /* the snapshot as the takers see it */
	/* slicebench's own process, as the snapshot was read: what a server it
	 * forks has without a setting, and mostly what systemd gives one (nice
	 * 0, every CPU, the kernel's timer slack).  A value the capture shares
	 * with it is not written, so that explain does not count it as a
	 * setting in which the replay differs from a shell start. */
	struct placement own;
	unsigned as_own;
	char *took, *left;	/* what the note says was taken, and not */
};

/* The snapshot's environment as the takers may take it: a withheld secret
 * or a value with blanks is left out (and said), a variable that chooses
 * code (which the gate let through: root's alone) is said. */
static int replay_environment(struct replay *rp, const struct placement *snap)
{
	int r = 0;

	for (size_t k = 0; r >= 0 && k < snap->n; k++) {
		const char *key = snap->attrs[k].key, *v = snap->attrs[k].value;

		if (strncmp(key, "env.", 4) != 0) {
			r = strncmp(key, CAPTURE_PREFIX, strlen(CAPTURE_PREFIX)) ? placement_set(&rp->taken, key, v) : 0;
			continue;
		}
		if (strstr(v, SECRET_WITHHELD_PART) || strstr(v, SECRET_WITHHELD) || strpbrk(v, " \t\n")) {
			r = add_to(&rp->left, key + 4, strstr(v, "withheld") ? " (a secret, withheld)" : " (blanks in its value)");
			continue;
		}
		if (trust_env_chooses_code(key + 4) && !streq(key + 4, "PATH")) {
			_cleanup_free_ char *said = NULL;

			if (xasprintf(&said, "%s=%s (root's alone: taken)", key + 4, v) < 0 || add_to(&rp->took, said, NULL) < 0)
				return -ENOMEM;
		}
		r = placement_set(&rp->taken, key, v);
	}
	return r;
}

/* "NAME=VALUE" of a setting taken, for the note (the whole environment
 * by its count of variables). */
static int note_taken(struct replay *rp, const struct prop_value *v)
{
	char what[160];
	size_t n = 0;

	if (streq(v->def->name, "environment") || streq(v->def->name, "Environment")) {
		while (v->strv && v->strv[n])
			n++;
		snprintf(what, sizeof(what), "the environment (%zu variables%s)", n,
			 v->def->dbus_name ? ", as Environment=" : "");
	} else
		snprintf(what, sizeof(what), "%s=%.100s", v->def->name, strempty(v->text));
	return add_to(&rp->took, what, NULL);
}

/* A service's unit settings as the capture read them (capture.setting.*),
 * each as a mirrored unit's would be; and its environment as Environment=
 * (systemd builds a service's own: the captured variables are added). */
static int replay_unit_settings(struct replay *rp, const struct placement *snap, struct context_spec *c)
{
	const size_t prefix = strlen(CAPTURE_PREFIX "setting.");
	int r = 0;

	for (size_t k = 0; r >= 0 && k < snap->n; k++) {
		const char *key = snap->attrs[k].key;
		const char *why;

		if (strncmp(key, CAPTURE_PREFIX "setting.", prefix) != 0)
			continue;
		if (c->n_props == CONTEXT_PROPS_MAX) {
			r = add_to(&rp->left, key + prefix, "= (too many settings)");
			continue;
		}
		if (prop_lookup(key + prefix) && row_is_account(prop_lookup(key + prefix))) {
			r = add_to(&rp->left, key + prefix, "= (the server's account is [server] user's)");
			continue;
		}
		if (prop_parse(key + prefix, snap->attrs[k].value, &c->props[c->n_props]) < 0 ||
		    context_check_prop(&c->props[c->n_props], c->kind, rp->p->mode, &why) < 0) {
			prop_value_done(&c->props[c->n_props]);
			r = add_to(&rp->left, key + prefix, "=");
			continue;
		}
		rp->p->prop_line[rp->i][c->n_props] = rp->line;
		r = note_taken(rp, &c->props[c->n_props++]);
	}
	return r;
}

/* A snapshot's unit settings where the context has no unit to give them
 * (raw, login): said, not dropped in silence. */
static int replay_unit_settings_unused(struct replay *rp, const struct placement *snap, const struct context_spec *c)
{
	unsigned n = 0;
	char what[128];

	for (size_t k = 0; k < snap->n; k++)
		n += strncmp(snap->attrs[k].key, CAPTURE_PREFIX "setting.", strlen(CAPTURE_PREFIX "setting.")) == 0;
	if (!n)
		return 0;
	snprintf(what, sizeof(what), "%u unit setting%s (capture.setting.*: a %s context has no unit)", n, n == 1 ? "" : "s",
		 context_kind_to_string(c->kind));
	return add_to(&rp->left, what, NULL);
}

/* Has the section, or an earlier take, set this row? */
static bool spec_has(const struct context_spec *c, const struct prop_def *d)
{
	for (size_t j = 0; j < c->n_props; j++)
		if (c->props[j].def == d)
			return true;
	return false;
}

/* Does the snapshot hold the row's own attribute (its first key, or any
 * key under it: env.*)? */
static bool holds(const struct placement *snap, const struct prop_def *d)
{
	for (size_t k = 0; k < snap->n; k++) {
		const char *key = d->keys[0];
		size_t n = strlen(key);

		if (key[n - 1] == '*' ? strncmp(snap->attrs[k].key, key, n - 1) == 0 : streq(snap->attrs[k].key, key))
			return true;
	}
	return false;
}

/* Each row that can take its attribute from the snapshot, unless the
 * section gives it; what the kind cannot apply is said. */
static int replay_rows(struct replay *rp, struct context_spec *c)
{
	size_t n;
	const struct prop_def *t = prop_table(&n);
	int r = 0;

	for (size_t k = 0; r >= 0 && k < n; k++) {
		struct context_spec one = { .kind = c->kind, .session = c->session };
		const char *why;
		int took;

		/* The server's variables: replay_server_variables(). */
		if (!t[k].take || row_is_account(&t[k]) || t[k].class == PROP_SERVER ||
		    (t[k].class != PROP_RECORD && spec_has(c, &t[k])) ||
		    !holds(&rp->taken, &t[k]))
			continue;
		/* A service's environment is Environment=, the whole one a fork's. */
		if (!t[k].dbus_name && t[k].no_systemd && context_ops_for(c->kind)->exec_by_systemd)
			continue;
		if (!strchr(t[k].keys[0], '*') &&
		    streq_ptr(placement_get(&rp->taken, t[k].keys[0]), placement_get(&rp->own, t[k].keys[0]))) {
			rp->as_own++;
			continue;
		}
		took = prop_take(&t[k], &rp->taken, &one);
		c->session = one.session;
		for (size_t j = 0; j < one.n_props; j++) {
			if (context_check_prop(&one.props[j], c->kind, rp->p->mode, &why) < 0 || c->n_props == CONTEXT_PROPS_MAX)
				r = add_to(&rp->left, one.props[j].def->name, c->n_props == CONTEXT_PROPS_MAX ? " (too many)" : "=");
			else if (!spec_has(c, one.props[j].def)) {
				c->props[c->n_props] = one.props[j];
				one.props[j] = (struct prop_value){};
				rp->p->prop_line[rp->i][c->n_props] = rp->line;
				r = note_taken(rp, &c->props[c->n_props++]);
			}
			prop_value_done(&one.props[j]);
		}
		if (r >= 0 && took < 0 && took != -EOPNOTSUPP)
			r = took;
	}
	return r;
}

/* A kind whose manager builds the environment itself (a service) gets
 * the captured variables as Environment=, systemd's per-invocation ones
 * left out; the section's own Environment= wins. */
static int replay_service_environment(struct replay *rp, struct context_spec *c)
{
	_cleanup_free_ char *words = NULL, *left = NULL, *code = NULL, *refused = NULL;
	const struct prop_def *d = prop_lookup("Environment");
	const char *why;
	int r;

	if (!context_ops_for(c->kind)->exec_by_systemd || spec_has(c, d) || c->n_props == CONTEXT_PROPS_MAX)
		return 0;
	/* rp->taken holds what replay_environment() let through: nothing is
	 * left out or refused here. */
	r = capture_environment_words(&rp->taken, &words, &left, &code, &refused);
	if (r < 0 || !words)
		return r == -ENOMEM ? r : 0;
	if (prop_parse(d->name, words, &c->props[c->n_props]) < 0 ||
	    context_check_prop(&c->props[c->n_props], c->kind, rp->p->mode, &why) < 0) {
		prop_value_done(&c->props[c->n_props]);
		return add_to(&rp->left, "Environment=", NULL);
	}
	rp->p->prop_line[rp->i][c->n_props] = rp->line;
	return note_taken(rp, &c->props[c->n_props++]);
}

/* Is size variable d's value v what [server] buffer-pool gives every
 * context (innodb_buffer_pool_size, shared_buffers)? */
static bool as_buffer_pool(const struct experiment *e, const struct prop_value *v)
{
	uint64_t pool;

	return v->def->buffer_pool && parse_size_bytes(e->buffer_pool, &pool) >= 0 && pool == v->u;
}

/* The row, other than d, that moves d's variable and that the context sets
 * (the section, or a limit the replay took: LimitNOFILE= moves
 * table_open_cache) or that the capture read (table_open_cache moves
 * open_files_limit); NULL if none.  The server derives d from it: writing
 * both would make explain count one cause twice. */
static const struct prop_def *followed(const struct prop_def *d, const struct placement *snap,
				       const struct context_spec *c)
{
	size_t n;
	const struct prop_def *t = prop_table(&n);

	for (size_t j = 0; j < c->n_props; j++)
		if (c->props[j].def != d && prop_moves_key(c->props[j].def, d->keys[0]))
			return c->props[j].def;
	for (size_t k = 0; k < n; k++)
		if (&t[k] != d && t[k].class == PROP_SERVER && prop_moves_key(&t[k], d->keys[0]) &&
		    placement_get(snap, t[k].keys[0]))
			return &t[k];
	return NULL;
}

/* The server's variables the capture read (server.NAME), each of the
 * table's (PROP_SERVER rows) set as the capture read it unless the section
 * sets it, [server] buffer-pool already gives it, or the server derives it
 * from another setting (followed()); a fact that is not
 * such a variable (version, max_connections: [server]'s) is said; any
 * other server.* key, or a value its row refuses, is refused: a snapshot
 * never names a path, a plugin or code for the server. */
static int replay_server_variables(struct replay *rp, const struct placement *snap, struct context_spec *c)
{
	struct experiment *e = rp->p->e;
	int r = 0;

	for (size_t k = 0; r >= 0 && k < snap->n; k++) {
		const char *key = snap->attrs[k].key, *name = key + 7, *value = snap->attrs[k].value;
		const struct prop_def *d = prop_lookup(name), *from;
		struct prop_value v = {};

		if (strncmp(key, "server.", 7) != 0 || streq(name, "read") || streq(name, "missing"))
			continue;
		if (!d || d->class != PROP_SERVER) {
			if (!server_fact_known(name))
				return fail_at(rp->p, rp->line, "from", "%s: %s is no server variable a replay may set (%s)",
					       rp->path, key, prop_class_list(PROP_SERVER));
			r = add_to(&rp->left, name, " (read, not set by a replay)");
			continue;
		}
		if (prop_parse(name, value, &v) < 0)
			return fail_at(rp->p, rp->line, "from", "%s: %s=%s is not a value of %s (%s)", rp->path, key, value,
				       name, d->help);
		from = spec_has(c, d) ? NULL : followed(d, snap, c);
		if (spec_has(c, d) || as_buffer_pool(e, &v) || !prop_server_has(d, e->engine) || from ||
		    c->n_props == CONTEXT_PROPS_MAX) {
			if (!prop_server_has(d, e->engine))
				r = add_to(&rp->left, name, " ([server] engine has no such variable)");
			else if (from) {
				_cleanup_free_ char *why = NULL;

				if (xasprintf(&why, " (the server derives it from %s)", from->name) < 0)
					return -ENOMEM;
				r = add_to(&rp->left, name, why);
			}
			rp->as_own += as_buffer_pool(e, &v);
			prop_value_done(&v);
			continue;
		}
		rp->p->prop_line[rp->i][c->n_props] = rp->line;
		c->props[c->n_props++] = v;
		r = note_taken(rp, &c->props[c->n_props - 1]);
	}
	return r;
}

/* The kind where the server ran (capture.kind; a placement of a context
 * without one: raw), unless the section gives one. */
static int replay_kind(struct replay *rp, const struct placement *snap, struct context_spec *c)
{
	const char *kind = placement_get(snap, CAPTURE_PREFIX "kind");

	if (rp->p->key_line[rp->i][KEY_CONTEXT_KIND])
		return 0;
	c->kind = context_kind_from_string(kind ? kind : "raw");
	if (c->kind == CONTEXT_KIND_INVALID)
		return fail_at(rp->p, rp->line, "from", "%s: %s is not a kind of context (%s)", rp->path, kind,
			       context_kind_list(false));
	rp->p->key_line[rp->i][KEY_CONTEXT_KIND] = rp->line;
	return 0;
}

/* What the snapshot shows that no row of the table sets, where this
 * process (a fresh start's) has it otherwise: said, never "nothing".
 * systemd's per-start variables (INVOCATION_ID) are said once. */
static int replay_untaken(struct replay *rp, const struct placement *snap)
{
	unsigned n = 0, per_start = 0;
	int r = 0;

	for (size_t k = 0; r >= 0 && k < snap->n; k++) {
		const char *key = snap->attrs[k].key;

		if (strncmp(key, "env.", 4) == 0 && placement_key_is_identity(key)) {
			per_start++;
			continue;
		}
		if (placement_key_is_identity(key) || placement_key_is_counter(key) || placement_key_is_setting(key) ||
		    strncmp(key, "env.", 4) == 0 || strncmp(key, "server.", 7) == 0 || strncmp(key, "client.", 7) == 0 ||
		    prop_taking_key(key) || streq_ptr(placement_get(&rp->own, key), snap->attrs[k].value))
			continue;
		if (n++ < 8)
			r = add_to(&rp->left, key, " (no setting of the table sets it)");
	}
	if (r >= 0 && n > 8) {
		char more[64];

		snprintf(more, sizeof(more), "%u more that no setting sets", n - 8);
		r = add_to(&rp->left, more, NULL);
	}
	if (r >= 0 && per_start)
		r = add_to(&rp->left, "systemd's variables of one start (INVOCATION_ID, ...)", NULL);
	return r;
}

/* A key of the snapshot the gate refused: the first is the message. */
static void refused_key(const char *key, const char *why, bool refused _unused_, void *userdata)
{
	struct replay *rp = userdata;
	_cleanup_free_ char *shown = text_escape(key);

	(void)fail_at(rp->p, rp->line, "from", "%s: %s: refused: %s", rp->path, strempty(shown), why);
}

/* The snapshot's account is the server's ([server] user) or none here: a
 * snapshot never chooses who owns the datadir (the gate refuses another
 * account of this host); root, or an account this host lacks, is said. */
static int replay_user(struct replay *rp, const struct placement *snap)
{
	const char *user = placement_get(snap, "user");

	if (!user || streq(user, rp->p->e->server_user))
		return 0;
	return add_to(&rp->left, "its user ", user);
}

static int replay_into(struct parser *p, size_t i)
{
	_cleanup_(placement_done) struct placement snap = {};
	_cleanup_free_ char *why = NULL;
	_cleanup_(experiment_gate_policy_done) struct gate_policy pol = {};
	struct context_spec *c = &p->e->contexts[i];
	struct replay rp = { .p = p, .i = i, .line = p->key_line[i][KEY_CONTEXT_FROM], .path = p->from[i] };
	size_t n_before = c->n_props;
	int r;

	r = load_snapshot(p, i, &snap, &why);
	if (r == -EINVAL)
		return fail_at(p, rp.line, "from", "%s", why);
	/* Everything the snapshot could set, through the gate first. */
	if (r >= 0)
		r = experiment_gate_policy(p->e, false, &pol);
	if (r >= 0 && (r = gate_placement(&snap, &pol, refused_key, &rp)) > 0)
		return -EINVAL;
	if (r >= 0)
		r = placement_snapshot(getpid(), 0, p->mode, &rp.own);
	if (r >= 0)
		r = replay_kind(&rp, &snap, c);
	if (r >= 0)
		r = replay_environment(&rp, &snap);
	if (r >= 0)
		r = context_ops_for(c->kind)->mirror ? replay_unit_settings(&rp, &snap, c)
						     : replay_unit_settings_unused(&rp, &snap, c);
	if (r >= 0)
		r = replay_rows(&rp, c);
	if (r >= 0)
		r = replay_service_environment(&rp, c);
	if (r >= 0)
		r = replay_server_variables(&rp, &snap, c);
	if (r >= 0)
		r = replay_user(&rp, &snap);
	if (r >= 0)
		r = replay_untaken(&rp, &snap);
	for (size_t j = n_before; j < c->n_props; j++)
		p->prop_source[i][j] = p->from[i];
	if (r >= 0 && !(p->e->replays[i] = calloc(1, sizeof(struct placement))))
		r = -ENOMEM;
	if (r >= 0) {
		*p->e->replays[i] = snap;
		snap = (struct placement){};
		c->replays = p->e->replays[i];
		r = xasprintf(&p->e->mirror_notes[i], "[context %s] replays %s (PID %s, %s, %s): took %s; as a fresh start "
			      "has them already, not written: %u; not reproduced: %s; the server is [server]'s binary, not the "
			      "snapshot's", c->name, rp.path, placement_get(c->replays, CAPTURE_PREFIX "pid") ?: "?",
			      placement_get(c->replays, CAPTURE_PREFIX "exe") ?: "?", context_kind_to_string(c->kind),
			      rp.took ? rp.took : "nothing", rp.as_own, rp.left ? rp.left : "nothing");
	}
	placement_done(&rp.taken);
	placement_done(&rp.own);
	free(rp.took);
	free(rp.left);
	return r;
}

/* The replayed server's variables (context i's server rows) into context
 * j, each that j's section does not set: a shell start of the same server
 * reads the same configuration, so the gap between them is the start's,
 * not [server]'s option file against the unit's (a 1 GiB pool against
 * 128 MiB).  The replay's note says what j took. */
static int share_server_variables(struct parser *p, size_t i, size_t j)
{
	struct context_spec *from = &p->e->contexts[i], *c = &p->e->contexts[j];
	_cleanup_free_ char *took = NULL;
	char *note;
	int r = 0;

	for (size_t k = 0; r >= 0 && k < from->n_props && c->n_props < CONTEXT_PROPS_MAX; k++) {
		const struct prop_value *v = &from->props[k];

		if (v->def->class != PROP_SERVER || spec_has(c, v->def))
			continue;
		r = prop_parse(v->def->name, v->given ? v->given : v->text, &c->props[c->n_props]);
		if (r < 0)
			return r;
		p->prop_line[j][c->n_props] = p->key_line[i][KEY_CONTEXT_FROM];
		p->prop_source[j][c->n_props++] = p->from[i];
		r = add_to(&took, v->def->name, NULL);
	}
	if (r < 0 || !took)
		return r;
	if (xasprintf(&note, "%s; [context %s] starts the same server, and takes its variables (unless its section "
		      "sets them): %s", p->e->mirror_notes[i], c->name, took) < 0)
		return -ENOMEM;
	free(p->e->mirror_notes[i]);
	p->e->mirror_notes[i] = note;
	return 0;
}

int replay_snapshots(struct parser *p)
{
	size_t n = 0, replayed = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < p->e->n_contexts; i++)
		if (p->from[i]) {
			r = replay_into(p, i);
			replayed = i;
			n++;
		}
	/* One replayed server: the file's other contexts start it too.
	 * With several, whose variables a shell start would read is the
	 * file's to say. */
	for (size_t j = 0; r >= 0 && n == 1 && j < p->e->n_contexts; j++)
		if (j != replayed && !p->unit[j])
			r = share_server_variables(p, replayed, j);
	return r < 0 && r != -ENOMEM ? -EINVAL : r;
}

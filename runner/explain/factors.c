/* explain's factors and hybrids.  A factor is a row of the attribute table
 * (slices/attr/props.h) in which A and B differ: a setting their sections
 * write, or, from their placements, any attribute the row can take from a
 * placement (prop_def.take) such as the affinity or environment a shell's
 * server inherits.  The diff's keys are matched to rows by the keys each
 * row moves, so that every fact stays in its row. */
#include <stdio.h>

#include <unistd.h>

#include "explain/factors.h"
#include "run/results.h"
#include "slices/sys/cgmode.h"
#include "common/util.h"

static const struct prop_value *find_prop(const struct context_spec *s, const struct prop_def *d)
{
	for (size_t i = 0; i < s->n_props; i++)
		if (s->props[i].def == d)
			return &s->props[i];
	return NULL;
}

static struct factor *factor_of(struct factor_set *fs, const struct prop_def *row)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].row == row)
			return &fs->f[i];
	return NULL;
}

static int factor_add(struct factor_set *fs, const struct prop_def *row, const struct context_spec *a,
		      const struct context_spec *b)
{
	if (factor_of(fs, row))
		return 0;
	if (fs->n == FACTORS_MAX)
		return -E2BIG;
	fs->f[fs->n++] = (struct factor){ .row = row, .in_a = row ? find_prop(a, row) : NULL,
					  .in_b = row ? find_prop(b, row) : NULL };
	return 0;
}

static void append(char *buf, size_t len, const char *fmt, const char *s)
{
	size_t used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, fmt, used ? ", " : "", s);
}

/* The row whose first key is key (env.* covers every variable): the row
 * that owns the attribute, over the rows it only follows from. */
static const struct prop_def *owner_of(const char *key)
{
	size_t n;
	const struct prop_def *t = prop_table(&n);

	for (size_t i = 0; i < n; i++)
		if (t[i].take && t[i].keys[0]) {
			size_t len = strlen(t[i].keys[0]);

			if (t[i].keys[0][len - 1] == '*' ? strncmp(key, t[i].keys[0], len - 1) == 0
							 : streq(key, t[i].keys[0]))
				return &t[i];
		}
	return NULL;
}

/* Does one of the first n factors move key? */
static bool moved_by(const struct factor_set *fs, size_t n, const char *key)
{
	for (size_t k = 0; k < n; k++)
		if (fs->f[k].row && prop_moves_key(fs->f[k].row, key))
			return true;
	return false;
}

/* client.cpus is what the file writes (client-cpus), a factor of its own. */
static bool is_attribute(const char *key)
{
	return !placement_key_is_identity(key) && !placement_key_is_setting(key) && !streq(key, "client.cpus");
}

/* The rows of the placement diff: owners first, then the keys no factor
 * moves yet go to a row that can take them, or to fs->unmovable. */
static int factors_from_placements(struct factor_set *fs, const struct context_spec *a, const struct context_spec *b,
				   const struct placement *pa, const struct placement *pb)
{
	_cleanup_free_ const char **keys = NULL;
	size_t nk = 0, written = fs->n;
	int r = placement_diff(pa, pb, &keys, &nk);

	/* What the written settings move (CPUQuota= a cpu cgroup of its own)
	 * is theirs; the owner of any other key is a factor. */
	for (size_t i = 0; r >= 0 && i < nk; i++)
		if (is_attribute(keys[i]) && !moved_by(fs, written, keys[i]) && owner_of(keys[i]))
			r = factor_add(fs, owner_of(keys[i]), a, b);
	for (size_t i = 0; r >= 0 && i < nk; i++) {
		if (!is_attribute(keys[i]) || moved_by(fs, fs->n, keys[i]))
			continue;
		if (prop_taking_key(keys[i]))
			r = factor_add(fs, prop_taking_key(keys[i]), a, b);
		else
			append(fs->unmovable, sizeof(fs->unmovable), "%s%s", keys[i]);
	}
	return r;
}

/* Can a context of kind take f from the side whose setting is in, whose
 * placement is p?  Without placements (--what-if) the only factor not
 * written is the session. */
static bool kind_takes_side(enum context_kind kind, enum cgroup_mode mode, const struct factor *f,
			    const struct prop_value *in, const struct placement *p)
{
	struct context_spec scratch = { .kind = kind };
	const char *why;
	bool ok = true;

	if (in)
		return context_check_prop(in, kind, mode, &why) >= 0;
	if (!f->row->take)
		return true; /* not written on this side: the kind's default */
	if (!p)
		return context_ops_for(kind)->session;
	if (prop_take(f->row, p, &scratch) < 0)
		ok = false;
	for (size_t i = 0; i < scratch.n_props; i++) {
		ok = ok && context_check_prop(&scratch.props[i], kind, mode, &why) >= 0;
		prop_value_done(&scratch.props[i]);
	}
	return ok;
}

static bool kind_takes(enum context_kind kind, enum cgroup_mode mode, const struct factor *f,
		       const struct context_spec *b, const struct placement *pa, const struct placement *pb)
{
	if (!f->row)
		return true;
	return kind_takes_side(kind, mode, f, f->in_a, pa) &&
	       (b->kind == kind || kind_takes_side(kind, mode, f, f->in_b, pb));
}

/* "CPUQuota=" (a row systemd sets) or "environment"; for a factor only the
 * placements show, the detail: the row's first key on both sides, or the
 * names of the variables that differ. */
static void factor_label(struct factor *f, const struct placement *pa, const struct placement *pb)
{
	const char *key = f->row ? f->row->keys[0] : NULL, *va, *vb;
	size_t more = 0;

	if (!f->row) {
		snprintf(f->label, sizeof(f->label), "the client's CPUs");
		return;
	}
	snprintf(f->label, sizeof(f->label), "%s%s", f->row->name, f->row->dbus_name ? "=" : "");
	if (f->in_a || f->in_b || !pa)
		return;
	if (key[strlen(key) - 1] != '*') {
		va = placement_get(pa, key);
		vb = placement_get(pb, key);
		snprintf(f->detail, sizeof(f->detail), "%s %s against %s", key, va ? va : "unset", vb ? vb : "unset");
		return;
	}
	for (int side = 0; side < 2; side++) {
		const struct placement *p = side ? pb : pa, *o = side ? pa : pb;

		for (size_t i = 0; i < p->n; i++) {
			const char *k = p->attrs[i].key;

			if (!prop_moves_key(f->row, k) || !is_attribute(k) || (side && placement_get(o, k)) ||
			    streq_ptr(placement_get(o, k), p->attrs[i].value))
				continue;
			if (strlen(f->detail) + strlen(k) < sizeof(f->detail) - 16)
				append(f->detail, sizeof(f->detail), "%s%s", k + strlen(key) - 1);
			else
				more++;
		}
	}
	if (more)
		snprintf(f->detail + strlen(f->detail), sizeof(f->detail) - strlen(f->detail), " and %zu more", more);
}

int factors_find(const struct experiment *e, size_t ia, size_t ib, const struct placement *pa,
		 const struct placement *pb, struct factor_set *ret)
{
	const struct context_spec *a = &e->contexts[ia], *b = &e->contexts[ib];
	enum cgroup_mode mode = cgroup_mode_detect();
	size_t n_rows, kept = 0;
	const struct prop_def *rows = prop_table(&n_rows);
	int r = 0;

	*ret = (struct factor_set){};
	for (size_t i = 0; i < n_rows && r >= 0; i++)
		if (!streq_ptr(find_prop(a, &rows[i]) ? find_prop(a, &rows[i])->text : NULL,
			       find_prop(b, &rows[i]) ? find_prop(b, &rows[i])->text : NULL))
			r = factor_add(ret, &rows[i], a, b);
	if (r >= 0 && a->session != b->session)
		r = factor_add(ret, prop_lookup("session"), a, b);
	if (r >= 0 && !streq_ptr(e->client_cpus[ia], e->client_cpus[ib]))
		r = factor_add(ret, NULL, a, b);
	if (r >= 0 && pa && pb)
		r = factors_from_placements(ret, a, b, pa, pb);
	else if (r >= 0 && a->kind != b->kind)
		snprintf(ret->unmovable, sizeof(ret->unmovable), "the kind of context (%s against %s), whose attributes "
			 "the placements show when both have started", context_kind_to_string(a->kind),
			 context_kind_to_string(b->kind));
	if (r < 0)
		return r;
	/* B's kind if it takes every factor; else a scope, whose server
	 * slicebench forks (so that it inherits what a shell's does) and
	 * systemd places as it places B's; else raw, which forks it outside
	 * systemd. */
	const enum context_kind kinds[] = { b->kind, CONTEXT_SCOPE, CONTEXT_RAW };
	for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
		bool all = true;

		for (size_t k = 0; k < ret->n && all; k++)
			all = kind_takes(kinds[i], mode, &ret->f[k], b, pa, pb);
		ret->kind = kinds[i];
		if (all)
			break;
	}
	for (size_t k = 0; k < ret->n; k++) {
		if (!kind_takes(ret->kind, mode, &ret->f[k], b, pa, pb)) {
			char what[160];

			snprintf(what, sizeof(what), "%s (a %s context cannot take it)", ret->f[k].row->name,
				 context_kind_to_string(ret->kind));
			append(ret->unmovable, sizeof(ret->unmovable), "%s%s", what);
			continue;
		}
		ret->f[kept] = ret->f[k];
		factor_label(&ret->f[kept++], pa, pb);
	}
	ret->n = kept;
	ret->closure_is_a = a->kind == ret->kind;
	return 0;
}

static int copy_prop(const struct prop_value *v, struct context_spec *to)
{
	int r;

	if (to->n_props == CONTEXT_PROPS_MAX)
		return -E2BIG;
	r = prop_parse(v->def->name, v->text, &to->props[to->n_props]);
	if (r >= 0)
		to->n_props++;
	return r;
}

static int copy_context(const struct context_spec *from, struct context_spec *to)
{
	int r = 0;

	to->kind = from->kind;
	to->session = from->session;
	for (size_t p = 0; p < from->n_props && r >= 0; p++)
		r = copy_prop(&from->props[p], to);
	return r;
}

/* Factor f into the hybrid s, from A (or B): the setting as written, else
 * what the side's placement shows; nothing when the side is B of the
 * hybrids' kind (s is B's already) or writes nothing the row can take. */
static int take_factor(const struct factor *f, bool from_a, const struct context_spec *b, const struct placement *p,
		       struct context_spec *s)
{
	const struct prop_value *in = from_a ? f->in_a : f->in_b;

	if (in)
		return copy_prop(in, s);
	if ((!from_a && b->kind == s->kind) || !f->row->take || !p)
		return 0;
	return prop_take(f->row, p, s);
}

int factors_add_mix(const struct experiment *e, size_t ia, size_t ib, const struct placement *pa,
		    const struct placement *pb, const struct factor_set *fs, unsigned mask, const char *name,
		    struct experiment *x)
{
	const struct context_spec *a = &e->contexts[ia], *b = &e->contexts[ib];
	const char *client = e->client_cpus[ib], *why;
	struct context_spec *s;
	size_t i;
	int r = 0;

	if (x->n_contexts == EXP_CONTEXTS_MAX)
		return -E2BIG;
	i = x->n_contexts++;
	s = &x->contexts[i];
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (mask == FACTORS_A || (mask == (1u << fs->n) - 1 && fs->closure_is_a)) {
		r = copy_context(a, s);
		client = e->client_cpus[ia];
	} else if (mask == 0)
		r = copy_context(b, s);
	else {
		s->kind = fs->kind;
		s->session = b->session;
		for (size_t p = 0; p < b->n_props && r >= 0; p++) {
			const struct factor *f = NULL;

			for (size_t k = 0; k < fs->n && !f; k++)
				f = fs->f[k].row == b->props[p].def ? &fs->f[k] : NULL;
			if (!f && context_check_prop(&b->props[p], s->kind, cgroup_mode_detect(), &why) >= 0)
				r = copy_prop(&b->props[p], s);
		}
		for (size_t k = 0; k < fs->n && r >= 0; k++) {
			bool from_a = (mask >> k) & 1;

			if (!fs->f[k].row)
				client = e->client_cpus[from_a ? ia : ib];
			else
				r = take_factor(&fs->f[k], from_a, b, from_a ? pa : pb, s);
		}
	}
	if (r >= 0 && client && !(x->client_cpus[i] = strdup(client)))
		r = -ENOMEM;
	return r;
}

int factors_load_placement(const char *dir, const char *name, struct placement *ret, char **ret_path)
{
	json_t *j;
	int r = results_first_placement_path(dir, name, ret_path);

	if (r < 0)
		return r;
	j = json_load_file(*ret_path, 0, NULL);
	if (!j)
		return access(*ret_path, R_OK) < 0 ? -errno : -EINVAL;
	r = placement_from_json(j, ret);
	json_decref(j);
	return r;
}

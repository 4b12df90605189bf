/* explain's factors and hybrids.  A factor is a row of the attribute table
 * (slices/attr/props.h) in which A and B differ: a setting their sections
 * write, or, from their placements, any attribute the row can take from a
 * placement (prop_def.take) such as the affinity or environment a shell's
 * server inherits.  The diff's keys are matched to rows by the keys each
 * row moves, so that every fact stays in its row.
 *
 * When A and B both go through a proxy, the chain has two links: the
 * proxy's settings and its placement (the proxy.* keys of the server's)
 * are found as the server's are, each a factor of the proxy, and each
 * hybrid goes through a proxy of its own, B's with the proxy's factors
 * taken from A or B. */
#include <stdio.h>

#include <unistd.h>

#include "explain/factors.h"
#include "store/results.h"
#include "slices/sys/cgmode.h"
#include "common/input.h"
#include "common/util.h"

/* One link of the chain for A and B: their contexts (the server's, or
 * their proxies') and what their placements show of it (the proxy's own
 * keys, placement_of_proxy()); NULL when not known. */
struct link {
	const struct context_spec *a, *b;
	const struct placement *pa, *pb;
	bool proxy;
};

static const struct prop_value *find_prop(const struct context_spec *s, const struct prop_def *d)
{
	for (size_t i = 0; i < s->n_props; i++)
		if (s->props[i].def == d)
			return &s->props[i];
	return NULL;
}

static const struct factor *factor_of(const struct factor_set *fs, const struct prop_def *row, bool proxy)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].row == row && fs->f[i].proxy == proxy)
			return &fs->f[i];
	return NULL;
}

static int factor_add(struct factor_set *fs, const struct prop_def *row, const struct link *l)
{
	if (factor_of(fs, row, l->proxy))
		return 0;
	if (fs->n == FACTORS_MAX)
		return -E2BIG;
	fs->f[fs->n++] = (struct factor){ .row = row, .in_a = row ? find_prop(l->a, row) : NULL,
					  .in_b = row ? find_prop(l->b, row) : NULL, .proxy = l->proxy };
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

/* The recorded row whose own attribute key is and which follows other
 * keys (the allocator: env.LD_PRELOAD), NULL if key is none such. */
static const struct prop_def *follower_row(const char *key)
{
	size_t n;
	const struct prop_def *t = prop_table(&n);

	for (size_t i = 0; i < n; i++)
		if (t[i].class == PROP_RECORD && !t[i].take && t[i].keys[0] && t[i].keys[1] && streq(t[i].keys[0], key))
			return &t[i];
	return NULL;
}

/* Does one of the first n factors of link l move key?  systemd turns on
 * the controller that one unit's setting needs in the units beside it in
 * its slice, so that a cgroup setting written for the proxy moves the
 * server's keys too (the proxy's CPUQuota= gives the server a cpu cgroup
 * of its own): those are the proxy's setting's. */
static bool moved_by(const struct factor_set *fs, size_t n, const struct link *l, const char *key)
{
	const struct prop_def *follows = follower_row(key);

	/* A recorded attribute that follows others (the allocator, LD_PRELOAD)
	 * is moved by whatever moves them. */
	for (size_t i = 1; follows && i < ATTR_KEYS_MAX && follows->keys[i]; i++)
		if (moved_by(fs, n, l, follows->keys[i]))
			return true;
	for (size_t k = 0; k < n; k++) {
		const struct factor *f = &fs->f[k];
		bool beside = f->proxy && !l->proxy && (f->in_a || f->in_b) && f->row->class == PROP_CGROUP;

		if (f->row && (f->proxy == l->proxy || beside) && prop_moves_key(f->row, key))
			return true;
	}
	return false;
}

/* A key of link l's placement that describes its process: not identity,
 * not a setting; in the server's, not the proxy's (its keys and the
 * chain, which the proxy's link and fs->unmovable say); in the proxy's,
 * not its engine (said there too); never client.cpus, which the file
 * writes (client-cpus), a factor of its own. */
static bool is_attribute(const struct link *l, const char *key)
{
	if (placement_key_is_identity(key) || placement_key_is_setting(key) || streq(key, "client.cpus"))
		return false;
	if (l->proxy)
		return !streq(key, "engine");
	return placement_key_own(key) == key && !streq(key, "chain");
}

/* The rows of the placement diff: owners first, then the server's
 * variables that no factor moves yet (a server lowers table_open_cache to
 * fit its descriptors: that is LimitNOFILE='s), then the keys no factor
 * moves yet go to a row that can take them, or to fs->unmovable (a
 * proxy's under its prefix). */
static int factors_from_placements(struct factor_set *fs, const struct link *l)
{
	_cleanup_free_ const char **keys = NULL;
	size_t nk = 0, written = fs->n;
	int r = placement_diff(l->pa, l->pb, &keys, &nk);

	/* What the written settings move (CPUQuota= a cpu cgroup of its own)
	 * is theirs; the owner of any other key is a factor. */
	for (size_t i = 0; r >= 0 && i < nk; i++)
		if (is_attribute(l, keys[i]) && !moved_by(fs, written, l, keys[i]) && owner_of(keys[i]) &&
		    owner_of(keys[i])->class != PROP_SERVER)
			r = factor_add(fs, owner_of(keys[i]), l);
	for (size_t i = 0; r >= 0 && i < nk; i++)
		if (is_attribute(l, keys[i]) && !moved_by(fs, fs->n, l, keys[i]) && owner_of(keys[i]))
			r = factor_add(fs, owner_of(keys[i]), l);
	for (size_t i = 0; r >= 0 && i < nk; i++) {
		if (!is_attribute(l, keys[i]) || moved_by(fs, fs->n, l, keys[i]))
			continue;
		if (prop_taking_key(keys[i]))
			r = factor_add(fs, prop_taking_key(keys[i]), l);
		else
			append(fs->unmovable, sizeof(fs->unmovable), l->proxy ? "%s" PLACEMENT_PROXY_PREFIX "%s" : "%s%s",
			       keys[i]);
	}
	return r;
}

/* Can a context of kind take f from the side whose setting is in, whose
 * placement is p?  Without placements (--dry-run) the only factor not
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

static bool kind_takes(enum context_kind kind, enum cgroup_mode mode, const struct factor *f, const struct link *l)
{
	if (!f->row)
		return true;
	return kind_takes_side(kind, mode, f, f->in_a, l->pa) &&
	       (l->b->kind == kind || kind_takes_side(kind, mode, f, f->in_b, l->pb));
}

/* The recorded row other than row that follows key (the allocator
 * follows env.LD_PRELOAD), NULL if none. */
static const struct prop_def *followed_by(const struct prop_def *row, const char *key)
{
	size_t n;
	const struct prop_def *t = prop_table(&n);

	for (size_t i = 0; i < n; i++)
		if (&t[i] != row && t[i].class == PROP_RECORD && !t[i].take && prop_moves_key(&t[i], key))
			return &t[i];
	return NULL;
}

/* Whether an environment variable of this name tunes the C library, the
 * loader or an allocator in the server (LD_*, MALLOC_*, GLIBC_TUNABLES,
 * TCMALLOC_*): what a factor's list of variables names first. */
static bool env_tunes_runtime(const char *name)
{
	static const char *const prefixes[] = { "LD_", "MALLOC_", "GLIBC_TUNABLES", "TCMALLOC_", "JEMALLOC_", NULL };

	for (size_t i = 0; prefixes[i]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Into f's detail: each key of f's row that differs and that a recorded
 * attribute follows, with that attribute on both sides: "LD_PRELOAD
 * (allocator jemalloc against glibc)". */
static void label_followed(struct factor *f, const struct link *l)
{
	size_t len = strlen(f->row->keys[0]) - 1;

	for (int side = 0; side < 2; side++) {
		const struct placement *p = side ? l->pb : l->pa, *o = side ? l->pa : l->pb;

		for (size_t i = 0; i < p->n; i++) {
			const char *k = p->attrs[i].key, *rk;
			const struct prop_def *by = followed_by(f->row, k);
			char one[96];

			if (!by || !prop_moves_key(f->row, k) || !is_attribute(l, k) || (side && placement_get(o, k)) ||
			    streq_ptr(placement_get(o, k), p->attrs[i].value))
				continue;
			rk = by->keys[0];
			snprintf(one, sizeof(one), "%s (%s %s against %s)", k + len, rk, placement_get(l->pa, rk) ?: "unset",
				 placement_get(l->pb, rk) ?: "unset");
			append(f->detail, sizeof(f->detail), "%s%s", one);
		}
	}
}

/* Appends to f->detail the variables under key ("env.*") that differ
 * between the sides, those that tune the runtime or the others; how many
 * did not fit. */
static size_t list_variables(struct factor *f, const struct link *l, const char *key, bool tuning)
{
	size_t more = 0;

	for (int side = 0; side < 2; side++) {
		const struct placement *p = side ? l->pb : l->pa, *o = side ? l->pa : l->pb;

		for (size_t i = 0; i < p->n; i++) {
			const char *k = p->attrs[i].key;

			if (!prop_moves_key(f->row, k) || !is_attribute(l, k) || (side && placement_get(o, k)) ||
			    streq_ptr(placement_get(o, k), p->attrs[i].value) || followed_by(f->row, k) ||
			    env_tunes_runtime(k + strlen(key) - 1) != tuning)
				continue;
			if (strlen(f->detail) + strlen(k) < sizeof(f->detail) - 16)
				append(f->detail, sizeof(f->detail), "%s%s", k + strlen(key) - 1);
			else
				more++;
		}
	}
	return more;
}

/* "CPUQuota=" (a row systemd sets) or "environment", "the proxy's
 * CPUQuota=" for the proxy's; for a factor only the placements show, the
 * detail: the row's first key on both sides, or the names of the
 * variables that differ. */
static void factor_label(struct factor *f, const struct link *l)
{
	const char *key = f->row ? f->row->keys[0] : NULL, *va, *vb;
	size_t more;

	if (!f->row) {
		snprintf(f->label, sizeof(f->label), "the client's CPUs");
		return;
	}
	snprintf(f->label, sizeof(f->label), "%s%s%s",
		 f->proxy ? "the proxy's " : f->row->class == PROP_SERVER ? "the server's " : "", f->row->name,
		 f->row->dbus_name ? "=" : "");
	/* A server variable as written shows what each server ran with: the
	 * server may fit it to its limits. */
	if ((f->in_a || f->in_b || !l->pa) && !(l->pa && f->row->class == PROP_SERVER)) {
		if (l->pa && key[strlen(key) - 1] == '*')
			label_followed(f, l); /* Environment= as written: what it brought, LD_PRELOAD */
		return;
	}
	if (key[strlen(key) - 1] != '*') {
		va = placement_get(l->pa, key);
		vb = placement_get(l->pb, key);
		/* The label names a server variable already. */
		snprintf(f->detail, sizeof(f->detail), "%s%s%s against %s", f->row->class == PROP_SERVER ? "" : key,
			 f->row->class == PROP_SERVER ? "" : " ", va ? va : "unset", vb ? vb : "unset");
		return;
	}
	/* A variable that a recorded attribute follows (LD_PRELOAD, the
	 * allocator) first, with what that attribute is on each side. */
	label_followed(f, l);
	/* The variables the C library and the allocators read first, so that
	 * a cut list still names them (HOME and LANG seldom move TPS). */
	more = list_variables(f, l, key, true);
	more += list_variables(f, l, key, false);
	if (more)
		snprintf(f->detail + strlen(f->detail), sizeof(f->detail) - strlen(f->detail), " and %zu more", more);
}

/* A server variable that one side writes and whose value the other
 * side's server runs with already (a replay's performance_schema=OFF
 * against a server whose default it is): no difference, as the placements
 * read back say; without them it counts. */
static bool server_variable_alike(const struct prop_value *a, const struct prop_value *b, const struct link *l)
{
	const struct prop_value *one = a ? a : b;
	const struct attr_verify other = { .p = a ? l->pb : l->pa };
	char why[160];

	return one && !(a && b) && one->def->class == PROP_SERVER && other.p &&
	       one->def->in_force(one, &other, why, sizeof(why)) == 0;
}

/* Every row that l's A and B write differently, and their sessions. */
static int factors_written(struct factor_set *fs, const struct link *l)
{
	size_t n_rows;
	const struct prop_def *rows = prop_table(&n_rows);
	int r = 0;

	for (size_t i = 0; i < n_rows && r >= 0; i++) {
		const struct prop_value *a = find_prop(l->a, &rows[i]), *b = find_prop(l->b, &rows[i]);

		if (!streq_ptr(a ? a->text : NULL, b ? b->text : NULL) && !server_variable_alike(a, b, l))
			r = factor_add(fs, &rows[i], l);
	}
	if (r >= 0 && l->a->session != l->b->session)
		r = factor_add(fs, prop_lookup("session"), l);
	return r;
}

/* The factors of link l that its placements show when both are known;
 * else the kinds' difference, as what they would show. */
static int factors_shown(struct factor_set *fs, const struct link *l)
{
	if (l->pa && l->pb)
		return factors_from_placements(fs, l);
	if (l->a->kind != l->b->kind) {
		char what[200];

		fs->kinds_differ = true;
		snprintf(what, sizeof(what), "the kind of %scontext (%s against %s), whose attributes the placements "
			 "show when both have started", l->proxy ? "the proxy's " : "",
			 context_kind_to_string(l->a->kind), context_kind_to_string(l->b->kind));
		append(fs->unmovable, sizeof(fs->unmovable), "%s%s", what);
	}
	return 0;
}

/* The hybrids' kind for link l: B's if it takes every factor of the link;
 * else a scope, whose server slicebench forks (so that it inherits what a
 * shell's does) and systemd places as it places B's; else raw, which
 * forks it outside systemd. */
static enum context_kind link_kind(const struct factor_set *fs, const struct link *l, enum cgroup_mode mode)
{
	const enum context_kind kinds[] = { l->b->kind, CONTEXT_SCOPE, CONTEXT_RAW };
	bool all = true;
	size_t i;

	for (i = 0; i < ELEMENTSOF(kinds); i++) {
		all = true;
		for (size_t k = 0; k < fs->n && all; k++)
			all = fs->f[k].proxy != l->proxy || kind_takes(kinds[i], mode, &fs->f[k], l);
		if (all)
			break;
	}
	return kinds[MIN(i, ELEMENTSOF(kinds) - 1)];
}

/* The proxies of A and B.  Both through one: l is their link, with the
 * proxy's own keys of each placement in qa and qb.  Otherwise, and when
 * the engines differ, fs->unmovable says so: a hybrid goes through B's
 * proxy (or none), as B does, and can neither add nor drop one. */
static int proxy_link(const struct factor_pair *p, struct placement *qa, struct placement *qb, struct link *l,
		      struct factor_set *fs)
{
	const struct experiment *e = p->e;
	size_t ia = p->ia, ib = p->ib;
	const struct placement *pa = p->pa, *pb = p->pb;
	int ka = e->context_proxy[ia], kb = e->context_proxy[ib], r = 0;
	char what[200];

	*l = (struct link){ .proxy = true };
	if (ka < 0 && kb < 0)
		return 0;
	fs->proxy_kind = kb >= 0 ? e->proxies[kb].kind : CONTEXT_KIND_INVALID;
	fs->chain_differs = ka < 0 || kb < 0 || !streq(e->proxy_engine[ka], e->proxy_engine[kb]) ||
			    !streq_ptr(e->proxy_binary[ka], e->proxy_binary[kb]);
	if (ka < 0 || kb < 0) {
		snprintf(what, sizeof(what), "the proxy (%s through %s, %s straight to the server)",
			 e->contexts[ka < 0 ? ib : ia].name, e->proxy_engine[ka < 0 ? kb : ka], e->contexts[ka < 0 ? ia : ib].name);
		append(fs->unmovable, sizeof(fs->unmovable), "%s%s", what);
		return 0;
	}
	if (fs->chain_differs) {
		snprintf(what, sizeof(what), "the proxy's engine (%s against %s)", e->proxy_binary[ka] ?: e->proxy_engine[ka],
			 e->proxy_binary[kb] ?: e->proxy_engine[kb]);
		append(fs->unmovable, sizeof(fs->unmovable), "%s%s", what);
	}
	*l = (struct link){ .a = &e->proxies[ka], .b = &e->proxies[kb], .proxy = true };
	if (pa && pb && (r = placement_of_proxy(pa, qa)) >= 0 && (r = placement_of_proxy(pb, qb)) >= 0) {
		l->pa = qa;
		l->pb = qb;
	}
	return r;
}

/* Each factor a hybrid of its link's kind can take, labelled; the others
 * are said in fs->unmovable. */
static void keep_takeable(struct factor_set *fs, const struct link *server, const struct link *proxy,
			  enum cgroup_mode mode)
{
	size_t kept = 0;

	for (size_t k = 0; k < fs->n; k++) {
		const struct link *l = fs->f[k].proxy ? proxy : server;
		enum context_kind kind = fs->f[k].proxy ? fs->proxy_kind : fs->kind;

		if (!kind_takes(kind, mode, &fs->f[k], l)) {
			char what[160];

			snprintf(what, sizeof(what), "%s%s (a %s context cannot take it)", fs->f[k].proxy ? "the proxy's " : "",
				 fs->f[k].row->name, context_kind_to_string(kind));
			append(fs->unmovable, sizeof(fs->unmovable), "%s%s", what);
			continue;
		}
		fs->f[kept] = fs->f[k];
		factor_label(&fs->f[kept++], l);
	}
	fs->n = kept;
}

int factors_find(const struct factor_pair *p, struct factor_set *ret)
{
	const struct experiment *e = p->e;
	const struct link server = { .a = &e->contexts[p->ia], .b = &e->contexts[p->ib], .pa = p->pa, .pb = p->pb };
	_cleanup_(placement_done) struct placement qa = {}, qb = {};
	enum cgroup_mode mode = cgroup_mode_detect();
	struct link proxy;
	int r;

	*ret = (struct factor_set){};
	/* Every written setting first, the proxy's too, so that what they
	 * move in either placement is theirs. */
	r = factors_written(ret, &server);
	if (r >= 0 && !streq_ptr(e->client_cpus[p->ia], e->client_cpus[p->ib]))
		r = factor_add(ret, NULL, &server);
	if (r >= 0)
		r = proxy_link(p, &qa, &qb, &proxy, ret);
	if (r >= 0 && proxy.a)
		r = factors_written(ret, &proxy);
	if (r >= 0)
		r = factors_shown(ret, &server);
	if (r >= 0 && proxy.a)
		r = factors_shown(ret, &proxy);
	if (r < 0)
		return r;
	ret->kind = link_kind(ret, &server, mode);
	if (proxy.a)
		ret->proxy_kind = link_kind(ret, &proxy, mode);
	keep_takeable(ret, &server, &proxy, mode);
	if (p->pa && p->pb && !streq_ptr(placement_get(p->pa, "allocator"), placement_get(p->pb, "allocator")) &&
	    moved_by(ret, ret->n, &server, "allocator")) {
		(void)text_copy(ret->allocator_a, sizeof(ret->allocator_a), placement_get(p->pa, "allocator") ?: "unknown");
		(void)text_copy(ret->allocator_b, sizeof(ret->allocator_b), placement_get(p->pb, "allocator") ?: "unknown");
	}
	/* The closure is A when A is of the hybrids' kind and goes through a
	 * proxy as theirs do: none, or one of B's engine and their kind. */
	ret->closure_is_a = server.a->kind == ret->kind && !ret->chain_differs && (!proxy.a || proxy.a->kind == ret->proxy_kind);
	return 0;
}

/* Factor f into the hybrid s of link l, from A (or B): the setting as
 * written, else what the side's placement shows; nothing when the side is
 * B of the hybrids' kind (s is B's already) or writes nothing the row can
 * take. */
static int take_factor(const struct factor *f, bool from_a, const struct link *l, struct context_spec *s)
{
	const struct prop_value *in = from_a ? f->in_a : f->in_b;
	const struct placement *p = from_a ? l->pa : l->pb;

	if (in)
		return context_spec_add_prop(s, in);
	if ((!from_a && l->b->kind == s->kind) || !f->row->take || !p)
		return 0;
	return prop_take(f->row, p, s);
}

/* The hybrid of link l in s: of kind, B's settings but the factors', then
 * each factor of the link from A where mask has its bit, else from B. */
static int mix_spec(const struct factor_set *fs, const struct link *l, enum context_kind kind, unsigned mask,
		    struct context_spec *s)
{
	const char *why;
	int r = 0;

	s->kind = kind;
	s->session = l->b->session;
	for (size_t p = 0; p < l->b->n_props && r >= 0; p++)
		if (!factor_of(fs, l->b->props[p].def, l->proxy) &&
		    context_check_prop(&l->b->props[p], kind, cgroup_mode_detect(), &why) >= 0)
			r = context_spec_add_prop(s, &l->b->props[p]);
	for (size_t k = 0; k < fs->n && r >= 0; k++)
		if (fs->f[k].row && fs->f[k].proxy == l->proxy)
			r = take_factor(&fs->f[k], (mask >> k) & 1, l, s);
	return r;
}

/* Is the mix of mask A itself: FACTORS_A, or the closure when it is A? */
static bool mix_is_a(const struct factor_set *fs, unsigned mask)
{
	return mask == FACTORS_A || (mask == (1u << fs->n) - 1 && fs->closure_is_a);
}

/* The proxy of x's context i, the mix of mask named name: A's own for A,
 * B's for B, none where that side goes straight to the server; for any
 * other mix B's, in the proxy hybrids' kind, with the proxy's factors
 * from A or B as mask says.  Mixes alike in the proxy share one. */
static int mix_proxy(const struct factor_pair *p, const struct factor_set *fs, unsigned mask, const char *name,
		     struct experiment *x, size_t i)
{
	const struct experiment *e = p->e;
	const struct placement *pa = p->pa, *pb = p->pb;
	bool is_a = mix_is_a(fs, mask);
	int k = e->context_proxy[is_a ? p->ia : p->ib], r;
	_cleanup_(placement_done) struct placement qa = {}, qb = {};
	struct context_spec s = {};
	struct link l = { .b = &e->proxies[MAX(k, 0)], .proxy = true };

	x->context_proxy[i] = -1;
	if (k < 0)
		return 0;
	if (is_a || mask == 0)
		r = experiment_add_proxy(x, e, (size_t)k, name, NULL);
	else {
		r = 0;
		if (pa && pb && (r = placement_of_proxy(pa, &qa)) >= 0 && (r = placement_of_proxy(pb, &qb)) >= 0) {
			l.pa = &qa;
			l.pb = &qb;
		}
		if (r >= 0)
			r = mix_spec(fs, &l, fs->proxy_kind, mask, &s);
		if (r >= 0)
			r = experiment_add_proxy(x, e, (size_t)k, name, &s);
		for (size_t p = 0; p < s.n_props; p++)
			prop_value_done(&s.props[p]);
	}
	if (r >= 0)
		x->context_proxy[i] = r;
	return r < 0 ? r : 0;
}

int factors_add_mix(const struct factor_pair *p, const struct factor_set *fs, unsigned mask, const char *name,
		    struct experiment *x)
{
	const struct experiment *e = p->e;
	size_t ia = p->ia, ib = p->ib;
	const struct link server = { .a = &e->contexts[ia], .b = &e->contexts[ib], .pa = p->pa, .pb = p->pb };
	bool is_a = mix_is_a(fs, mask);
	const char *client = e->client_cpus[is_a ? ia : ib];
	struct context_spec *s;
	size_t i;
	int r;

	if (x->n_contexts == EXP_CONTEXTS_MAX)
		return -E2BIG;
	i = x->n_contexts++;
	s = &x->contexts[i];
	x->context_slice[i] = -1;
	(void)text_copy(s->name, sizeof(s->name), name);
	if (is_a || mask == 0)
		r = context_spec_copy(is_a ? server.a : server.b, s);
	else {
		r = mix_spec(fs, &server, fs->kind, mask, s);
		for (size_t k = 0; k < fs->n; k++)
			if (!fs->f[k].row)
				client = e->client_cpus[(mask >> k) & 1 ? ia : ib];
	}
	if (r >= 0)
		r = mix_proxy(p, fs, mask, name, x, i);
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
	_cleanup_free_ char *why = NULL;

	j = input_load_json(*ret_path, INPUT_JSON_MAX, &why);
	if (!j)
		return errno == EBADMSG ? -EINVAL : -errno;
	r = placement_from_json(j, ret);
	json_decref(j);
	return r;
}

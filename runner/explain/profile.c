/* The server's profile beside the figures of mechanism (doc/profile.md):
 * A's starts against B's in a stage whose steps were profiled, the
 * allocator's sentence and the figures whose shares differ,
 * Holm-adjusted across those tested, as one paragraph kept with the
 * stage. */
#include <math.h>
#include <stdio.h>

#include "explain/profile.h"
#include "report/judge/profiles.h"
#include "common/util.h"

/* The most differing figures quoted; report DIR/screen has them all. */
#define QUOTED_MAX 4

static void side_text(const struct profile_side_figure *f, bool share, char *buf, size_t len)
{
	if (share)
		snprintf(buf, len, isnan(f->lo) ? "%.1f%%" : "%.1f%% (%.1f-%.1f%%)", 100 * f->mean, 100 * f->lo, 100 * f->hi);
	else
		snprintf(buf, len, isnan(f->lo) ? "%.0f ms/s" : "%.0f ms/s (%.0f-%.0f)", f->mean, f->lo, f->hi);
}

/* The paragraph of d into f. */
static void write_paragraph(FILE *f, const struct profile_diff *d, const char *a, const char *b)
{
	size_t quoted = 0;
	char x[64], y[64];

	fprintf(f, "The server's profile, %s against %s (its starts in this stage; Holm across the %zu shares of "
		   "0.5%% of its CPU or more, and apart the %zu off-CPU reasons):", a, b, d->family, d->family_off);
	for (size_t i = 0; i < d->n; i++) {
		const struct profile_diff_item *it = &d->items[i];
		bool share = profile_item_is_share(it->kind);

		if (it->kind == PROFILE_ITEM_GROUP && streq(it->name, profile_groups[PROFILE_GROUP_ALLOCATOR].name)) {
			side_text(&it->a, true, x, sizeof(x));
			side_text(&it->b, true, y, sizeof(y));
			fprintf(f, " the allocator: %s of the server's CPU in %s (%s) against %s in %s (%s)%s;", x, a,
				it->top_library_a ? it->top_library_a : "none seen", y, b,
				it->top_library_b ? it->top_library_b : "none seen", it->significant ? "" : ", n.s.");
		}
		if (!it->significant || quoted >= QUOTED_MAX || it->kind == PROFILE_ITEM_GROUP)
			continue;
		side_text(&it->a, share, x, sizeof(x));
		side_text(&it->b, share, y, sizeof(y));
		fprintf(f, " %s%s%s %s against %s;", it->kind == PROFILE_ITEM_OFF_CPU ? "off-CPU " : "", it->name,
			it->library ? " in " : "", x, y);
		quoted++;
	}
	fprintf(f, "%s\n", quoted ? "" : " no other figure differs.");
}

/* Whether a step is A's (its context "a", or "closure" where the closure is A) or B's ("b"). */
static bool is_side(const json_t *step, const struct explain_sides *r, bool a)
{
	const char *name = json_string_value(json_object_get(step, "context"));

	if (!name)
		return false;
	return a ? streq(name, "a") || (r->closure_is_a && streq(name, "closure")) : streq(name, "b");
}

int explain_profile_paragraph(const json_t *steps, const struct explain_sides *r, char *buf, size_t len)
{
	struct profile_shares *sa[EXPLAIN_PROFILE_STARTS_MAX], *sb[EXPLAIN_PROFILE_STARTS_MAX];
	size_t na = 0, nb = 0, i;
	struct profile_diff *d = NULL;
	const json_t *st;
	int e = 0;

	buf[0] = '\0';
	json_array_foreach(steps, i, st) {
		bool in_a = is_side(st, r, true), in_b = !in_a && is_side(st, r, false);
		struct profile_shares *sh = NULL;

		if ((!in_a && !in_b) || (in_a ? na : nb) == EXPLAIN_PROFILE_STARTS_MAX)
			continue;
		e = judge_step_shares(st, &sh);
		if (e < 0)
			break;
		if (sh)
			*(in_a ? &sa[na++] : &sb[nb++]) = sh;
	}
	if (e >= 0 && na && nb)
		e = profile_diff((const struct profile_shares *const *)sa, na, (const struct profile_shares *const *)sb,
				 nb, r->level, &d);
	if (d) {
		FILE *f = fmemopen(buf, len, "w");

		if (f) {
			write_paragraph(f, d, r->a, r->b);
			fclose(f);
		}
	}
	profile_diff_free(d);
	for (i = 0; i < na; i++)
		profile_shares_free(sa[i]);
	for (i = 0; i < nb; i++)
		profile_shares_free(sb[i]);
	return e;
}

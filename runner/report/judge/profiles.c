#include <math.h>

#include "report/model/model.h"
#include "report/judge/profiles.h"
#include "store/results.h"
#include "common/util.h"

/* A step's stacks as a profile whose lines borrow the document's keys. */
static int profile_of_step(const json_t *stacks, struct profile *ret)
{
	const char *key;
	json_t *v;
	size_t i = 0;

	ret->n = json_object_size(stacks);
	ret->lines = calloc(ret->n + 1, sizeof(*ret->lines));
	if (!ret->lines)
		return -ENOMEM;
	json_object_foreach((json_t *)stacks, key, v)
		ret->lines[i++] = (struct profile_line){ .stack = (char *)key,
							 .weight = (uint64_t)MAX(json_integer_value(v), 0) };
	return 0;
}

int judge_step_shares(const json_t *step, struct profile_shares **ret)
{
	const json_t *prof = json_object_get(step, "profile"), *stacks = json_object_get(prof, "stacks");
	double seconds = json_number_value(json_object_get(prof, "seconds"));
	struct profile p = {};
	int r;

	*ret = NULL;
	if (!stacks || !(seconds > 0) || !results_step_counted(step))
		return 0;
	r = profile_of_step(stacks, &p);
	if (r >= 0)
		r = profile_shares_of(&p, seconds, ret);
	free(p.lines);
	return r;
}

/* The node named name..name+len among n's kids, added if new. */
static struct flame_node *kid(struct flame_node *n, const char *name, size_t len)
{
	struct flame_node *k;

	for (size_t i = 0; i < n->n; i++)
		if (strlen(n->kids[i].name) == len && strncmp(n->kids[i].name, name, len) == 0)
			return &n->kids[i];
	k = realloc(n->kids, (n->n + 1) * sizeof(*k));
	if (!k)
		return NULL;
	n->kids = k;
	k = &n->kids[n->n];
	*k = (struct flame_node){ .name = strndup(name, len) };
	if (!k->name)
		return NULL;
	n->n++;
	return k;
}

/* One start's on-CPU stacks into the tree, each frame weighed by its
 * share of the start's samples over the side's starts (into a or b). */
static int add_to_flame(struct flame_node *root, const struct profile *p, double total, size_t n_starts, bool side_a)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *s = p->lines[i].stack, *end;
		double w = (double)p->lines[i].weight / total / (double)n_starts;
		struct flame_node *at = root;
		size_t reason;

		if (!profile_line_on_cpu(s, &reason))
			continue;
		*(side_a ? &root->a : &root->b) += w;
		for (s = strchr(s, ';'); s; s = end) {
			s++;
			end = strchr(s, ';');
			at = kid(at, s, end ? (size_t)(end - s) : strlen(s));
			if (!at)
				return -ENOMEM;
			*(side_a ? &at->a : &at->b) += w;
		}
	}
	return 0;
}

static void flame_free(struct flame_node *n)
{
	for (size_t i = 0; i < n->n; i++)
		flame_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

/* The kept, profiled steps of a cell: their shares, and their stacks into
 * the tree of this cell (side a) or of the cell compared with it (b). */
static int cell_starts(const struct model *m, const json_t *steps, size_t cell, struct cell_profile *cp,
		       struct flame_node *flame, bool side_a)
{
	size_t row = cell / m->ncols, col = cell % m->ncols;
	const json_t *s;
	size_t i, n = 0;
	int r = 0;

	json_array_foreach(steps, i, s)
		n += model_step_in_cell(m, s, row, col) && results_step_counted(s) &&
		     json_object_get(json_object_get(s, "profile"), "stacks");
	json_array_foreach(steps, i, s) {
		const json_t *prof = json_object_get(s, "profile"), *stacks = json_object_get(prof, "stacks");
		double seconds = json_number_value(json_object_get(prof, "seconds"));
		struct profile p = {};
		struct profile_shares *sh = NULL;

		if (!stacks || !model_step_in_cell(m, s, row, col) || !results_step_counted(s) || !(seconds > 0))
			continue;
		r = profile_of_step(stacks, &p);
		if (r >= 0)
			r = profile_shares_of(&p, seconds, &sh);
		if (r >= 0 && sh->samples > 0)
			r = add_to_flame(flame, &p, sh->samples, n, side_a);
		free(p.lines);
		if (r >= 0 && cp) {
			struct profile_shares **list = reallocarray(cp->starts, cp->n + 1, sizeof(*list));

			if (list) {
				cp->starts = list;
				cp->samples_mean += sh->samples / (double)n;
				cp->starts[cp->n++] = sh;
				continue;
			}
			r = -ENOMEM;
		}
		profile_shares_free(sh);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Against the baseline's cell of the same row: its stacks into this
 * cell's tree as side b, and the differences (their names borrowed from
 * both cells' starts). */
static int compare_cell(const struct model *m, const json_t *steps, size_t row, size_t col, struct cell_profile *cp,
			const struct cell_profile *bp)
{
	int r = cell_starts(m, steps, row * m->ncols + (size_t)m->cols[col].base, NULL, &cp->flame, false);

	if (r < 0)
		return r;
	return profile_diff((const struct profile_shares *const *)cp->starts, cp->n,
			    (const struct profile_shares *const *)bp->starts, bp->n, m->level, &cp->vs_base);
}

static size_t count_profiled(const json_t *steps, const char **ret_why)
{
	const json_t *s;
	size_t i, n = 0;

	*ret_why = NULL;
	json_array_foreach(steps, i, s) {
		const json_t *prof = json_object_get(s, "profile");

		n += !!json_object_get(prof, "stacks");
		if (!*ret_why)
			*ret_why = json_string_value(json_object_get(prof, "why"));
	}
	return n;
}

static void profiles_free(struct model_profiles *p, size_t n_cells);

int judge_profiles_build(struct model *m, const json_t *doc)
{
	const json_t *steps = json_object_get(doc, "steps");
	size_t n_cells = m->nrows * m->ncols;
	struct model_profiles *p;
	const char *why;
	size_t n = count_profiled(steps, &why);
	int r = 0;

	m->profiles = NULL;
	if (!n && !why)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->cells = calloc(n_cells + 1, sizeof(*p->cells)))) {
		free(p);
		return -ENOMEM;
	}
	p->n_profiled = n;
	p->why = why;
	for (size_t c = 0; c < n_cells && r >= 0; c++) {
		p->cells[c].flame.name = strdup("all");
		r = p->cells[c].flame.name ? cell_starts(m, steps, c, &p->cells[c], &p->cells[c].flame, true) : -ENOMEM;
	}
	for (size_t c = 0; c < n_cells && r >= 0; c++) {
		long base = m->cols[c % m->ncols].base;
		const struct cell_profile *bp = base >= 0 ? &p->cells[c - c % m->ncols + (size_t)base] : NULL;

		if (bp && p->cells[c].n && bp->n)
			r = compare_cell(m, steps, c / m->ncols, c % m->ncols, &p->cells[c], bp);
	}
	if (r < 0) {
		profiles_free(p, n_cells);
		return r;
	}
	m->profiles = p;
	return 0;
}

void judge_profiles_free(struct model *m)
{
	profiles_free(m->profiles, m->nrows * m->ncols);
	m->profiles = NULL;
}

static void profiles_free(struct model_profiles *p, size_t n_cells)
{
	if (!p)
		return;
	for (size_t c = 0; c < n_cells; c++) {
		struct cell_profile *cp = &p->cells[c];

		profile_diff_free(cp->vs_base);
		for (size_t i = 0; i < cp->n; i++)
			profile_shares_free(cp->starts[i]);
		free(cp->starts);
		flame_free(&cp->flame);
	}
	free(p->cells);
	free(p);
}

/* explain's designs (explain/design.h). */
#include <stdio.h>
#include <string.h>

#include "explain/design.h"
#include "common/util.h"

static void add_once(struct design *d, unsigned mask)
{
	if (design_index(d, mask) < 0 && d->n < DESIGN_MIXES_MAX)
		d->masks[d->n++] = mask;
}

long design_index(const struct design *d, unsigned mask)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->masks[i] == mask)
			return (long)i;
	return -1;
}

bool design_is_a(unsigned mask, unsigned closure, bool closure_is_a)
{
	return mask == EXPLAIN_A || (closure_is_a && mask == closure);
}

void design_full(unsigned factors, unsigned a, struct design *ret)
{
	ret->n = 0;
	/* Every subset of factors, in the order of the masks (B first). */
	for (unsigned m = 0;; m = (m - factors) & factors) {
		add_once(ret, m);
		if (m == factors)
			break;
	}
	add_once(ret, a);
}

/* The sign (+1: from A) of factor k in run r of the saturated resolution
 * III design on q base factors: a base factor's own bit, or the product of
 * the base factors of the (k - q)-th subset of two or more of them, the
 * subsets taken by size, then by value. */
static bool run_sign(unsigned q, size_t k, unsigned r)
{
	unsigned subset = 0;
	size_t seen = 0;

	if (k < q)
		return (r >> k) & 1;
	for (unsigned size = 2; size <= q && !subset; size++)
		for (unsigned s = 1; s < (1u << q) && !subset; s++)
			if ((unsigned)__builtin_popcount(s) == size && seen++ == k - q)
				subset = s;
	/* The product of signs: +1 when an even number of them is -1. */
	return __builtin_popcount(subset & ~r) % 2 == 0;
}

void design_fraction(size_t n, bool closure_is_a, struct design *ret)
{
	unsigned q = 3, all = (1u << n) - 1;

	while ((1u << q) - 1 < n)
		q++;
	ret->n = 0;
	add_once(ret, 0);
	for (unsigned r = 0; r < (1u << q); r++) {
		unsigned mask = 0;

		for (size_t k = 0; k < n; k++)
			mask |= (unsigned)run_sign(q, k, r) << k;
		/* and its foldover, every sign reversed */
		add_once(ret, mask);
		add_once(ret, all & ~mask);
	}
	add_once(ret, all);
	if (!closure_is_a)
		add_once(ret, EXPLAIN_A);
}

void design_holdout(unsigned set, unsigned closure, bool closure_is_a, struct design *ret)
{
	ret->n = 0;
	add_once(ret, 0);
	add_once(ret, set);
	add_once(ret, closure & ~set);
	add_once(ret, closure);
	if (!closure_is_a)
		add_once(ret, EXPLAIN_A);
}

void design_mix_name(unsigned mask, size_t n_factors, bool closure_is_a, char *buf, size_t len)
{
	unsigned closure = (1u << n_factors) - 1;
	char bits[FACTORS_MAX + 1] = {};

	if (mask == 0 || design_is_a(mask, closure, closure_is_a)) {
		(void)text_copy(buf, len, mask ? "a" : "b");
		return;
	}
	if (mask == closure) {
		snprintf(buf, len, "closure");
		return;
	}
	for (size_t k = 0; k < n_factors; k++)
		bits[k] = (mask >> k) & 1 ? 'a' : 'b';
	snprintf(buf, len, "mix-%s", bits);
}

void design_mix_label(const char *const *labels, size_t n, unsigned mask, const char *sep, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t k = 0; k < n; k++)
		if ((mask >> k) & 1)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", *buf ? sep : "", labels[k]);
}

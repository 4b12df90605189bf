/* explain's designs: which mixes a stage measures.  A mix is a mask over
 * the factors (explain/factors.h): bit k set takes factor k from A, the
 * rest come from B; mask 0 is B, EXPLAIN_A is A itself (of its own kind),
 * and the mask of every factor is the closure (A itself when A is of the
 * hybrids' kind).
 *
 * Up to DESIGN_FULL_MAX factors every mix is measured (2^k), and each
 * factor's share is its exact Shapley value.  Beyond, a two-level
 * fractional factorial of resolution IV screens them first: the foldover
 * of a saturated resolution III design on q base factors (2^(q+1) mixes
 * for up to 2^q - 1 factors), in which no main effect is aliased with an
 * interaction of two factors; then every mix of the strongest
 * DESIGN_FULL_MAX.  Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "explain/factors.h"

#define DESIGN_FULL_MAX 5
/* 2^5 mixes and A, or a fraction of 32 with B, the closure and A. */
#define DESIGN_MIXES_MAX 36
#define EXPLAIN_A FACTORS_A

struct design {
	unsigned masks[DESIGN_MIXES_MAX];
	size_t n;
};

/* Every mix of the factors in `factors` (a mask: the others stay at B),
 * then A (mask a: EXPLAIN_A, or every factor when A is the closure) when
 * it is not among them. */
void design_full(unsigned factors, unsigned a, struct design *ret);
/* The resolution IV screen of n factors (n > DESIGN_FULL_MAX, at most
 * FACTORS_MAX), with B, the closure and A added where the fraction lacks
 * them. */
void design_fraction(size_t n, bool closure_is_a, struct design *ret);
/* The hold-out mixes of a named set: B, the set, the closure without it,
 * the closure, A; each once. */
void design_holdout(unsigned set, unsigned closure, bool closure_is_a, struct design *ret);

/* The index of mask in d; -1: not there. */
long design_index(const struct design *d, unsigned mask);
/* Is the mask A itself (EXPLAIN_A, or the closure when A is the closure)? */
bool design_is_a(unsigned mask, unsigned closure, bool closure_is_a);

/* The context name of a mix: "b", "a", "closure", or "mix-abb" (the k-th
 * letter says where factor k comes from: its position). */
void design_mix_name(unsigned mask, size_t n_factors, bool closure_is_a, char *buf, size_t len);
/* "CPUAffinity= + LimitNOFILE=": the factors mask takes from A, joined by sep. */
void design_mix_label(const char *const *labels, size_t n, unsigned mask, const char *sep, char *buf, size_t len);

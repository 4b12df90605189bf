/* The orders of a round's units (run/rounds.c): each round a row of a
 * Williams square over the units, so that every unit takes every place
 * once in each n rounds (n units) and follows every other unit equally
 * often; the units' labels and each square's rows drawn from the run's
 * seed.  A cold host's slow first start then falls on a different unit in
 * each round, never twice on one before every unit has had it, and the
 * model's position term (stats/block.h) can take it out; an independent
 * shuffle per round put one context first in both rounds of the
 * quickstart's 2 in a quarter of its runs.  For an odd n the second square
 * of each pair is the first's mirror, which balances the neighbours.
 * Pure: the same seed and round give the same order on any machine. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Round `round` (from 1) of n units: a permutation of 0..n-1 into ret. */
void run_order_balanced(uint64_t seed, unsigned round, size_t n, size_t *ret);

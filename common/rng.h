/* A small seeded generator (splitmix64) for what must be repeatable from a
 * recorded seed on any machine: the order of a round's units, explain's
 * bootstrap over rounds.  Not for secrets. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Seeds that fit a JSON number exactly (2^53), so that a recorded seed
 * reads back as it was written. */
#define RNG_SEED_MAX ((UINT64_C(1) << 53) - 1)

struct rng {
	uint64_t state;
};

static inline struct rng rng_seeded(uint64_t seed, uint64_t stream)
{
	/* One stream per round: the same seed gives each round an order of
	 * its own, and a resumed run the same orders again. */
	return (struct rng){ .state = seed ^ (stream * UINT64_C(0x9e3779b97f4a7c15)) };
}

uint64_t rng_next(struct rng *g);
/* Uniform on [0, n), without modulo bias; n > 0. */
size_t rng_below(struct rng *g, size_t n);
/* A seed from the kernel's random source, at most RNG_SEED_MAX; -errno. */
int rng_fresh_seed(uint64_t *ret);
/* v[0..n) of size bytes each shuffled in place (Fisher-Yates). */
void rng_shuffle(struct rng *g, void *v, size_t n, size_t size);

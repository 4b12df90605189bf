/* splitmix64 (Steele, Lea and Flood's, as in java.util.SplittableRandom):
 * one 64-bit state, every output a bijection of it. */
#include <errno.h>
#include <sys/random.h>

#include "common/rng.h"

uint64_t rng_next(struct rng *g)
{
	uint64_t z = (g->state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

size_t rng_below(struct rng *g, size_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = rng_next(g);
	while (x >= limit);
	return (size_t)(x % n);
}

int rng_fresh_seed(uint64_t *ret)
{
	uint64_t s;

	if (getrandom(&s, sizeof(s), 0) != sizeof(s))
		return -errno;
	*ret = s & RNG_SEED_MAX;
	return 0;
}

void rng_shuffle(struct rng *g, void *v, size_t n, size_t size)
{
	unsigned char *p = v;

	for (size_t i = n; i > 1; i--) {
		unsigned char *x = p + (i - 1) * size, *y = p + rng_below(g, i) * size;

		for (size_t k = 0; x != y && k < size; k++) {
			unsigned char t = x[k];

			x[k] = y[k];
			y[k] = t;
		}
	}
}

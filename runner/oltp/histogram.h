/* A mergeable log-linear latency histogram (HdrHistogram-like): values in ns,
 * 2^SUB buckets per power of two, so the relative error stays below 1/2^SUB.
 * One per thread, written only by its owner, merged after the join. */
#pragma once

#include <stdint.h>

#define HISTOGRAM_SUB_BITS 5
#define HISTOGRAM_SUB (1u << HISTOGRAM_SUB_BITS)
#define HISTOGRAM_BUCKETS ((64 - HISTOGRAM_SUB_BITS + 1) * HISTOGRAM_SUB)

struct histogram {
	uint64_t count, sum, min, max;
	uint64_t buckets[HISTOGRAM_BUCKETS];
};

void histogram_init(struct histogram *h);
void histogram_merge(struct histogram *into, const struct histogram *from);
/* pct in [0,100]: the upper edge of the bucket holding that rank, capped by max. 0 if empty. */
uint64_t histogram_percentile(const struct histogram *h, double pct);
uint64_t histogram_max(const struct histogram *h);
double histogram_mean(const struct histogram *h);

static inline unsigned histogram_bucket(uint64_t v)
{
	unsigned msb, shift;

	if (v < HISTOGRAM_SUB)
		return (unsigned)v;
	msb = 63 - (unsigned)__builtin_clzll(v);
	shift = msb - HISTOGRAM_SUB_BITS;
	return (shift + 1) * HISTOGRAM_SUB + (unsigned)((v >> shift) & (HISTOGRAM_SUB - 1));
}

static inline void histogram_add(struct histogram *h, uint64_t v)
{
	h->buckets[histogram_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

#include "oltp/histogram.h"

#include <string.h>

void histogram_init(struct histogram *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void histogram_merge(struct histogram *into, const struct histogram *from)
{
	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++)
		into->buckets[i] += from->buckets[i];
	into->count += from->count;
	into->sum += from->sum;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
}

/* Largest value that maps to bucket i. */
static uint64_t bucket_upper(unsigned i)
{
	unsigned group = i / HISTOGRAM_SUB, sub = i % HISTOGRAM_SUB, shift;

	if (group == 0)
		return i;
	shift = group - 1;
	return (((uint64_t)(HISTOGRAM_SUB + sub) + 1) << shift) - 1;
}

uint64_t histogram_percentile(const struct histogram *h, double pct)
{
	uint64_t rank, seen = 0;

	if (h->count == 0)
		return 0;
	if (pct <= 0)
		return h->min;
	rank = (uint64_t)((pct / 100.0) * (double)h->count + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			uint64_t v = bucket_upper(i);
			return v > h->max ? h->max : v < h->min ? h->min : v;
		}
	}
	return h->max;
}

uint64_t histogram_max(const struct histogram *h) { return h->count ? h->max : 0; }

double histogram_mean(const struct histogram *h) { return h->count ? (double)h->sum / (double)h->count : 0; }

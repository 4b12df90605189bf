/* histogram and sbrand: pure unit checks, no server needed. */
#include "oltp/histogram.h"
#include "oltp/sbrand.h"
#include "tap.h"

int main(void)
{
	static struct histogram a, b;
	struct sbrand_params p;
	struct sbrand r;
	uint32_t lo = UINT32_MAX, hi = 0, mid = 0;

	histogram_init(&a);
	histogram_init(&b);
	for (uint64_t v = 1; v <= 1000; v++)
		histogram_add(v <= 500 ? &a : &b, v * 1000);
	histogram_merge(&a, &b);
	is_int((long long)a.count, 1000, "merge adds counts");
	is_int((long long)histogram_max(&a), 1000000, "max survives merge");
	uint64_t p50 = histogram_percentile(&a, 50), p95 = histogram_percentile(&a, 95),
		 p99 = histogram_percentile(&a, 99);
	ok(p50 <= p95 && p95 <= p99 && p99 <= histogram_max(&a), "p50 <= p95 <= p99 <= max");
	cmp_ok((double)p50, ">=", 500000 * 0.96, "p50 within bucket error (low)");
	cmp_ok((double)p50, "<=", 500000 * 1.04, "p50 within bucket error (high)");

	sbrand_params_default(&p);
	sbrand_init(&r, &p, 42);
	for (int i = 0; i < 100000; i++) {
		uint32_t v = sbrand_default(&r, 1, 10000);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		mid += v >= 4950 && v <= 5051;
	}
	ok(lo >= 1 && hi <= 10000, "special stays in [1, 10000] (got %u..%u)", lo, hi);
	cmp_ok(mid / 100000.0, ">", 0.70, "special: ~75%% of draws in the central 1%%");
	p.type = SBRAND_UNIFORM;
	sbrand_init(&r, &p, 7);
	lo = UINT32_MAX, hi = 0;
	for (int i = 0; i < 100000; i++) {
		uint32_t v = sbrand_default(&r, 1, 4);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	ok(lo == 1 && hi == 4, "uniform covers [1, 4] exactly");
	return done_testing();
}

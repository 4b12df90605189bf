/* Per-thread PRNG (xoshiro256**) and the id distributions of sysbench 1.0.20
 * (uniform, gaussian, special, pareto), re-implemented from their semantics. */
#pragma once

#include "common/words.h"

#include <stdint.h>

enum sbrand_type {
	SBRAND_SPECIAL, /* sysbench 1.0.20 default */
	SBRAND_UNIFORM,
	SBRAND_GAUSSIAN,
	SBRAND_PARETO,
	_SBRAND_MAX,
};

struct sbrand_params {
	enum sbrand_type type;
	unsigned spec_iter; /* --rand-spec-iter, 12 */
	unsigned spec_pct;  /* --rand-spec-pct, 1 */
	unsigned spec_res;  /* --rand-spec-res, 75 */
	double pareto_h;    /* --rand-pareto-h, 0.2 */
};

struct sbrand {
	uint64_t s[4];
	struct sbrand_params p;
	double iter_mult, pct_mult, pct_2_mult, res_mult, pareto_power;
};

void sbrand_params_default(struct sbrand_params *p);
void sbrand_init(struct sbrand *r, const struct sbrand_params *p, uint64_t seed);
/* special, uniform, gaussian, pareto: sysbench's --rand-type words. */
extern const struct word sbrand_type_words[];
const char *sbrand_type_to_string(enum sbrand_type t);

static inline uint64_t sbrand_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t sbrand_next(struct sbrand *r)
{
	uint64_t *s = r->s;
	uint64_t result = sbrand_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sbrand_rotl(s[3], 45);
	return result;
}

/* [0, 1) with 53 random bits. */
static inline double sbrand_double(struct sbrand *r) { return (double)(sbrand_next(r) >> 11) * 0x1.0p-53; }

static inline uint32_t sbrand_uniform(struct sbrand *r, uint32_t a, uint32_t b)
{
	return a + (uint32_t)(sbrand_double(r) * (double)(b - a + 1));
}

/* The configured distribution, as sysbench.rand.default(). */
uint32_t sbrand_default(struct sbrand *r, uint32_t a, uint32_t b);
/* oltp_common's c and pad templates: groups of 11 random digits joined by
 * dashes, 119 and 59 characters (the columns are CHAR(120) and CHAR(60)). */
#define SBTEST_C_TEMPLATE                                                        \
	"###########-###########-###########-###########-###########-"          \
	"###########-###########-###########-###########-###########"
#define SBTEST_PAD_TEMPLATE "###########-###########-###########-###########-###########"

/* Fill buf with fmt where '#' becomes a random digit (sysbench.rand.string). */
void sbrand_string(struct sbrand *r, const char *fmt, char *buf);

#include "oltp/sbrand.h"

#include <errno.h>
#include <math.h>
#include <string.h>

const struct word sbrand_type_words[] = {
	{ "special", SBRAND_SPECIAL },
	{ "uniform", SBRAND_UNIFORM },
	{ "gaussian", SBRAND_GAUSSIAN },
	{ "pareto", SBRAND_PARETO },
	{},
};

const char *sbrand_type_to_string(enum sbrand_type t)
{
	return word_name(sbrand_type_words, (int)t);
}

void sbrand_params_default(struct sbrand_params *p)
{
	*p = (struct sbrand_params){
		.type = SBRAND_SPECIAL, .spec_iter = 12, .spec_pct = 1, .spec_res = 75, .pareto_h = 0.2,
	};
}

/* splitmix64 expands one seed into the four state words. */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void sbrand_init(struct sbrand *r, const struct sbrand_params *p, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
	r->p = *p;
	if (r->p.spec_iter == 0)
		r->p.spec_iter = 1;
	r->iter_mult = 1.0 / r->p.spec_iter;
	r->pct_mult = r->p.spec_pct / 100.0;
	r->pct_2_mult = r->p.spec_pct / 200.0;
	r->res_mult = r->p.spec_res < 100 ? 100.0 / (100.0 - r->p.spec_res) : 1e9;
	r->pareto_power = log(r->p.pareto_h) / log(1.0 - r->p.pareto_h);
}

static uint32_t rand_gaussian(struct sbrand *r, uint32_t a, uint32_t b)
{
	double t = (double)(b - a) + 1, sum = 0;

	for (unsigned i = 0; i < r->p.spec_iter; i++)
		sum += sbrand_double(r) * t;
	return a + (uint32_t)(sum * r->iter_mult);
}

/* 'special': one draw decides the branch.  If it falls in the first
 * (100-res)% of the stretched range, the value is the mean of iter uniforms
 * (bell-shaped); otherwise the same draw is mapped uniformly into a window of
 * pct% of the range centred in the middle, which is where res% of the values
 * land: the hot spot. */
static uint32_t rand_special(struct sbrand *r, uint32_t a, uint32_t b)
{
	double t = (double)(b - a), rnd = sbrand_double(r), sum = 0, res;

	if (rnd * t * r->res_mult < t) {
		for (unsigned i = 0; i < r->p.spec_iter; i++)
			sum += sbrand_double(r);
		return a + (uint32_t)(sum * t * r->iter_mult);
	}
	res = rnd * (t * r->pct_mult + 1) + t / 2 - t * r->pct_2_mult;
	return a + (uint32_t)res;
}

static uint32_t rand_pareto(struct sbrand *r, uint32_t a, uint32_t b)
{
	return a + (uint32_t)(((double)(b - a) + 1) * pow(sbrand_double(r), r->pareto_power));
}

uint32_t sbrand_default(struct sbrand *r, uint32_t a, uint32_t b)
{
	switch (r->p.type) {
	case SBRAND_UNIFORM:
		return sbrand_uniform(r, a, b);
	case SBRAND_GAUSSIAN:
		return rand_gaussian(r, a, b);
	case SBRAND_PARETO:
		return rand_pareto(r, a, b);
	case SBRAND_SPECIAL:
	default:
		return rand_special(r, a, b);
	}
}

/* Two digits from each 64-bit draw, each by the high word of a 32-bit
 * half times 10 (uniform within 2^-32): the loader draws 180 digits a row,
 * a draw and a double each were most of its CPU. */
void sbrand_string(struct sbrand *r, const char *fmt, char *buf)
{
	uint64_t bits = 0;
	unsigned left = 0;

	for (size_t i = 0; fmt[i]; i++) {
		if (fmt[i] != '#') {
			buf[i] = fmt[i];
			continue;
		}
		if (!left) {
			bits = sbrand_next(r);
			left = 2;
		}
		buf[i] = (char)('0' + (((bits & 0xffffffffu) * 10) >> 32));
		bits >>= 32;
		left--;
	}
}

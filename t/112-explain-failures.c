/* Failed starts in an explain directory, counted as a run's report counts
 * them (report_fails_too_often(): the same rule, "more than a fifth
 * failed" and the mix takes no part), in the text, the JSON and the page
 * that report makes of it.  Explain directories of known truth (t/sim.c)
 * whose steps fail as run writes a failed step: A failing 2 of its 3
 * starts never gets its cause named; a hybrid mix failing so takes no
 * part, and nothing is named from shares that need it; every failed start
 * is shown.  Hundreds of seeded data sets where starts fail at random,
 * each rate asserted with its simulation interval (Wilson, 99%).
 * SLICEBENCH_SIM_SCALE=N multiplies every count.  No prerequisites. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/util.h"
#include "explain/explain.h"
#include "sim.h"
#include "tap.h"

static char dir[512];
static size_t scale = 1;

/* Which mix fails, and how: the starts of rounds 1 and 2 (every), or each
 * start with probability p (random). */
struct failing {
	unsigned mask;
	bool every;
	double p;
	unsigned failed[2]; /* the failed starts drawn, in the screen: of the mix, of any other */
};

static bool fails(const struct truth *t, size_t cell, unsigned round)
{
	const struct mixes *m = t->ctx;
	struct failing *f = (struct failing *)t->fail_ctx;
	unsigned mask = m->masks[cell] == EXPLAIN_A ? (1u << m->n) - 1 : m->masks[cell];
	bool failed = mask == f->mask && (f->every ? round <= 2 : sim_uniform() < f->p);

	f->failed[0] += failed;
	return failed;
}

/* f0 the whole of a 1.3x gap, f1 nothing, sigma 3%, 3 rounds; the mix
 * f fails. */
static const char *write_failing(struct failing *f)
{
	const char *path = sim_fresh(dir, "fail");
	struct mixes m = { .n = 2, .effect = { 1, 0 }, .gap = log(1.3) };
	struct truth t = { .sigma = 0.03, .fails = fails, .fail_ctx = f };
	struct explain_record rec;

	f->failed[0] = 0;
	sim_explain_screen(path, &m, 3, &t, &rec);
	return path;
}

static bool has(const char *s, const char *what)
{
	return strstr(s, what) != NULL;
}

/* A "nan" printed as a figure: the word alone, not inside one such as
 * "provenance". */
static bool has_nan(const char *s)
{
	for (const char *p = strstr(s, "nan"); p; p = strstr(p + 1, "nan"))
		if ((p == s || !isalpha((unsigned char)p[-1])) && !isalpha((unsigned char)p[3]))
			return true;
	return false;
}

static bool names_a_cause(const char *text)
{
	return has(text, " explains ") || has(text, " together explain ") || has(text, " all that differs between ");
}

/* A, the closure, fails in rounds 1 and 2: said in each form, no cause
 * named. */
static void check_a_fails(void)
{
	struct failing f = { .mask = 3, .every = true };
	const char *path = write_failing(&f);
	_cleanup_free_ char *text = sim_explanation(path, SIM_TEXT), *js = sim_explanation(path, SIM_JSON),
			    *page = sim_explanation(path, SIM_HTML);
	json_t *x = json_loads(js, 0, NULL), *fail = json_array_get(json_object_get(x, "failures"), 0);

	diag("%s", text);
	ok(has(text, "\nfailures (report of the stage's directory gives each step's reason):\n  screen, A: a: 2 of 3 "
			       "starts failed (67%, ") &&
		   has(text, "): more than a fifth, so it takes no part\n"),
	   "the text counts A's failed starts and says it takes no part");
	ok(has(text, "a vs b at 1 thread: no gap: a's or b's starts on the screen failed too often") && !names_a_cause(text),
	   "no gap, and no cause named");
	ok(json_array_size(json_object_get(x, "failures")) == 1 &&
		   streq_ptr(json_string_value(json_object_get(fail, "mix")), "a") &&
		   json_integer_value(json_object_get(fail, "failed")) == 2 &&
		   json_integer_value(json_object_get(fail, "starts")) == 3 &&
		   json_is_true(json_object_get(fail, "too_many_failed")) && json_is_true(json_object_get(x, "ends_failed")) &&
		   json_is_null(json_object_get(x, "named")),
	   "the JSON: A's 2 of 3 failed, too many, no set named");
	ok(has(page, "<li class=\"failure excluded\">screen, A: a: 2 of 3 starts failed") &&
		   has(page, "id=\"withheld\"") && !has(page, "id=\"shares\"") && !names_a_cause(page),
	   "the page: the failed starts, the shares withheld, no cause");
	json_decref(x);
}

/* f1's mix alone fails in rounds 1 and 2: it takes no part, and no set
 * is named from shares that need it. */
static void check_hybrid_fails(void)
{
	struct failing f = { .mask = 2, .every = true };
	const char *path = write_failing(&f);
	_cleanup_free_ char *text = sim_explanation(path, SIM_TEXT), *page = sim_explanation(path, SIM_HTML);

	diag("%s", text);
	ok(has(text, "  screen, f1: 2 of 3 starts failed (67%, ") && has(text, "No set of these factors is named: 1 mix "
									   "failed too often to take part"),
	   "a hybrid failing 2 of 3: counted, it takes no part, nothing is named without it");
	ok(has(page, "<li class=\"failure excluded\">screen, f1: 2 of 3 starts failed") && !has_nan(page) &&
		   has(page, "the bars need every factor alone"),
	   "its page: the failed starts, no waterfall of shares that have no value, no \"nan\"");
}

/* The hold-out's A fails in rounds 1 and 2 of 3: the set named on the
 * screen gets no share from it, and the sentence says why. */
static void check_holdout_fails(void)
{
	struct failing none = { .mask = 0, .p = 0 }, f = { .mask = 3, .every = true };
	const char *path = write_failing(&none);
	struct mixes m = { .n = 2, .effect = { 1, 0 }, .gap = log(1.3) };
	struct truth t = { .sigma = 0.03, .fails = fails, .fail_ctx = &f };
	struct explain_record rec;
	_cleanup_free_ char *text = NULL;

	sim_explain_screen(path, &m, 3, &(struct truth){ .sigma = 0.03 }, &rec);
	sim_explain_holdout(path, 1, &m, 3, 3, &t, &rec);
	text = sim_explanation(path, SIM_TEXT);
	diag("%s", text);
	ok(has(text, "  confirm, A: a: 2 of 3 starts failed (67%, ") &&
		   has(text, "\nf0, named on the screen, has no share in the hold-out's 3 fresh rounds") &&
		   has(text, "a mix it needs failed too often to take part (above)"),
	   "the hold-out's A failing 2 of 3: counted, and the set named gets no share from it");
}

/* A's starts fail at random (40% each, 3 rounds): whenever more than a
 * fifth of them failed, no cause is named; every failed start is shown. */
static void check_random(void)
{
	struct failing f = { .mask = 3, .p = 0.4 };
	struct rate named = {}, shown = {}, kept = {};

	for (size_t i = 0; i < 300 * scale; i++) {
		const char *path = write_failing(&f);
		_cleanup_free_ char *text = sim_explanation(path, SIM_TEXT);
		char count[64];

		if (f.failed[0] == 0) {
			kept.hits += has(text, " explains ");
			kept.n++;
			continue;
		}
		snprintf(count, sizeof(count), "  screen, A: a: %u of 3 starts failed", f.failed[0]);
		shown.hits += has(text, count);
		shown.n++;
		named.hits += names_a_cause(text);
		named.n++;
	}
	sim_row("explain, f0 the whole of a 1.3x gap, A's starts failing at 40% each, 3 rounds, one failed or more (more "
		"than a fifth): a cause named", &named, "<=", 0);
	sim_row("the same: the failed starts counted in the text", &shown, ">=", 1);
	sim_row("the same, where none failed: f0 named (not asserted)", &kept, "", 0);
}

int main(void)
{
	scale = sim_start(dir, sizeof(dir), 20261208);
	check_a_fails();
	check_hybrid_fails();
	check_holdout_fails();
	check_random();
	remove_tree(dir);
	return done_testing();
}

/* explain's sentence about the set it names, each claim tested for truth
 * on explain directories of known truth (t/sim.c writes them in the real
 * format; explain's document reads them back as `report DIR` does):
 * - "neither alone moves it" only when each alone is shown within
 *   +-ANALYSIS_SMALL of the gap (both ends of its interval), never when
 *   each alone moves the gap the wrong way;
 * - "they add" judged on every pair of the set it names, and a pair the
 *   table claims as an interaction named in the sentence;
 * - a set of every factor, A their closure, never "100% (100-100%)" nor
 *   "about 1 times the rounds".
 * Hundreds of seeded data sets per case, each rate asserted with its
 * simulation interval (Wilson, 99%); doc/explain.md quotes the table.
 * SLICEBENCH_SIM_SCALE=N multiplies every count.  No prerequisites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "explain/explain.h"
#include "sim.h"
#include "tap.h"

static char dir[512];
static size_t scale = 1;

/* The text report prints of a fresh screen of m in 3 rounds at sigma. */
static char *screen_text(struct mixes *m, double sigma)
{
	const char *path = sim_fresh(dir, "set");
	struct truth t = { .sigma = sigma };
	struct explain_record rec;

	sim_explain_screen(path, m, 3, &t, &rec);
	return sim_explanation(path, SIM_TEXT);
}

/* The sentence naming the set: its share of the gap, or all that
 * differs. */
static const char *set_sentence(const char *text)
{
	const char *s = strstr(text, " together explain ") ?: strstr(text, " all that differs between ");

	while (s && s > text && s[-1] != '\n')
		s--;
	return s ? s : "";
}

static bool says(const char *text, const char *what)
{
	return strstr(set_sentence(text), what) != NULL;
}

/* Whether the set named has the factor label. */
static bool names(const char *text, const char *label)
{
	const char *s = set_sentence(text), *end = strstr(s, " are all that ") ?: strstr(s, " together explain ");
	size_t n = strlen(label);

	for (const char *p = s; end && (p = strstr(p, label)) && p < end; p += n)
		if ((p == s || p[-1] == ' ') && (p[n] == ' '))
			return true;
	return false;
}

/* Whether the table's line of a pair claims an interaction. */
static bool claimed(const char *text, const char *pair)
{
	const char *line = strstr(text, pair), *end = line ? strchr(line, '\n') : NULL;
	const char *tail = ": an interaction";

	return end && (size_t)(end - line) > strlen(tail) && strncmp(end - strlen(tail), tail, strlen(tail)) == 0;
}

/* Each alone moves the gap the wrong way (-50%), together +200%: "neither
 * alone moves it" is false.  Each alone 0, together the gap: true. */
static void check_neither_alone(void)
{
	struct mixes wrong = { .n = 2, .effect = { -0.5, -0.5 }, .together = 2, .gap = log(1.5) },
		     pure = { .n = 2, .together = 1, .gap = log(1.5) };
	struct rate said_wrong = {}, said_pure = {};

	for (size_t i = 0; i < 300 * scale; i++) {
		_cleanup_free_ char *text = screen_text(&wrong, 0.05);

		said_wrong.hits += says(text, "neither alone moves it");
		said_wrong.n++;
	}
	sim_row("explain, each of two factors alone -50% of a 1.5x gap, together +200%, sigma 5%, 3 rounds: \"neither "
		"alone moves it\" said (false)", &said_wrong, "<=", 0.05);
	for (size_t i = 0; i < 300 * scale; i++) {
		_cleanup_free_ char *text = screen_text(&pure, 0.01);

		said_pure.hits += says(text, "neither alone moves it");
		said_pure.n++;
	}
	sim_row("each alone 0, together the gap, sigma 1%: \"neither alone moves it\" said (true; not asserted)",
		&said_pure, "", 0);
}

/* Three factors of 40%, 20% and 20% with f1 x f2 20% more, sigma 1% (each
 * pair's interval narrow enough to show f0 x f1 within +-10): the set named
 * is all three; "they add" is false, and f1 x f2 is the pair to name. */
static void check_they_add(void)
{
	struct mixes m = { .n = 3, .effect = { 0.4, 0.2, 0.2 }, .together = 0.2, .pair = 6, .gap = log(1.5) },
		     add = { .n = 3, .effect = { 0.4, 0.3, 0.3 }, .gap = log(1.5) };
	struct rate added = {}, unnamed = {}, add_said = {};

	for (size_t i = 0; i < 300 * scale; i++) {
		_cleanup_free_ char *text = screen_text(&m, 0.01);

		if (!names(text, "f1") || !names(text, "f2"))
			continue;
		added.hits += says(text, "they add:") || says(text, "each pair adds:");
		added.n++;
		if (claimed(text, "  f1 x f2: ")) {
			unnamed.hits += !says(text, "f1 x f2");
			unnamed.n++;
		}
	}
	sim_row("explain, f0 40%, f1 20%, f2 20% and f1 x f2 20% of a 1.5x gap, sigma 1%, 3 rounds, f1 and f2 named: "
		"\"they add\" said (false)", &added, "<=", 0.05);
	sim_row("the same, where the table claims f1 x f2: the sentence does not name that pair", &unnamed, "<=", 0);
	for (size_t i = 0; i < 300 * scale; i++) {
		_cleanup_free_ char *text = screen_text(&add, 0.01);

		add_said.hits += says(text, "they add:") || says(text, "each pair adds:");
		add_said.n++;
	}
	sim_row("f0 40%, f1 30%, f2 30%, no interaction, sigma 1%: that they add said (true; not asserted)", &add_said, "",
		0);
}

/* A set of every factor, A their closure: 100% by construction, with no
 * interval to print, and a rounds count that means something. */
static void check_every_factor(void)
{
	struct mixes two = { .n = 2, .effect = { 0.5, 0.5 }, .gap = log(1.3) },
		     three = { .n = 3, .effect = { 0.4, 0.3, 0.3 }, .gap = log(1.3) },
		     near = { .n = 2, .effect = { 0.46, 0.46 }, .together = 0.08, .gap = log(1.3) };
	struct rate empty = {}, once = {};

	for (size_t i = 0; i < 200 * scale; i++) {
		_cleanup_free_ char *a = screen_text(&two, 0.05), *b = screen_text(&three, 0.05),
				    *c = screen_text(&near, 0.008);

		empty.hits += says(a, "(100-100%)") + says(b, "(100-100%)") + says(c, "(100-100%)");
		once.hits += says(a, "about 1 times") + says(b, "about 1 times") + says(c, "about 1 times");
		empty.n += 3;
		once.n += 3;
	}
	sim_row("explain, a set of every factor named (2 and 3 factors adding, sigma 5%; 2 with an interaction of 8%, "
		"sigma 0.8%; a 1.3x gap, 3 rounds): \"100% (100-100%)\" printed",
		&empty, "<=", 0);
	sim_row("the same: \"about 1 times the rounds would tell\" printed", &once, "<=", 0);
}

int main(void)
{
	scale = sim_start(dir, sizeof(dir), 20261206);
	check_neither_alone();
	check_they_add();
	check_every_factor();
	remove_tree(dir);
	return done_testing();
}

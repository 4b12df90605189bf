/* explain's analysis (runner/explain/attribute.c) on mixes whose TPS is
 * written here, no prerequisites: what the sentence names for an
 * interaction (two settings that move the gap only together), for a single
 * cause beside an idle setting, and for no gap; the figure of mechanism it
 * quotes; the screening's second round, which must find a pair that
 * acts only together among five settings; and the confirmation, which
 * measures again the mixes of a share whose interval is too wide.  t/083 makes the interaction
 * for real. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/attribute.h"
#include "tap.h"
#include "common/util.h"

static struct measured mz;

/* Mix m: its repeats, and the server's run-queue wait per transaction. */
static void set_mix(size_t m, double t1, double t2, double t3, double wait_us)
{
	const double t[] = { t1, t2, t3 };

	memcpy(mz.t[m], t, sizeof(t));
	mz.n[m] = 3;
	mz.med[m] = t2;
	for (size_t f = 0; f < OLTP_MECHANISM_MAX; f++)
		mz.mech[m][f] = NAN;
	mz.mech[m][0] = wait_us; /* server_runq_wait_us: the table's first row */
}

/* attribute_print's text for the design d over mz. */
static char *analysis(const char *const *labels, size_t n, const struct design *d, const char *a, const char *b)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		bail_out("open_memstream: %m");
	attribute_print(&(struct attribution_names){ .labels = labels, .n = n, .a = a, .b = b, .threads = 1 },
			d, &mz, f);
	fclose(f);
	return text;
}

static const char *line_with(const char *text, const char *needle, char *buf, size_t len)
{
	const char *p = strstr(text, needle), *start, *end;

	if (!p)
		return "";
	for (start = p; start > text && start[-1] != '\n'; start--)
		;
	end = strchrnul(p, '\n');
	snprintf(buf, len, "%.*s", (int)(end - start), start);
	return buf;
}

static void check_interaction(void)
{
	const char *labels[] = { "CPUAffinity=", "the client's CPUs" };
	struct design d = { .masks = { 0, 1, 2, 3 }, .n = 4 };
	char buf[1024];
	const char *s;
	char *text;
	bool good = true;

	mz = (struct measured){ .full = 3, .closure = 3, .level = 0.95, .full_counts = true };
	set_mix(0, 210, 213.6, 218, 610);  /* free */
	set_mix(1, 205, 216, 224, 600);    /* the server on CPU 1, the client anywhere */
	set_mix(2, 207, 212, 221, 590);    /* the client on CPU 1, the server anywhere */
	set_mix(3, 720, 734.6, 741, 95);   /* both on CPU 1 */
	text = analysis(labels, 2, &d, "together", "free");
	s = line_with(text, " together explain ", buf, sizeof(buf));
	good &= ok(strncmp(s, "CPUAffinity= and the client's CPUs together explain 100% (all that differs) of the gap at 1 thread "
		      "(together at 3.4",
		   110) == 0,
	   "the pair is named together with all of the gap: %s", s);
	good &= ok(strstr(s, "; neither alone moves it (CPUAffinity= 0%, the client's CPUs 0%): an interaction.") != NULL,
	   "as an interaction, each alone near 0%%");
	s = line_with(text, "CPUAffinity= x the client's CPUs: ", buf, sizeof(buf));
	good &= ok(strncmp(s, "  CPUAffinity= x the client's CPUs: 100% (", 42) == 0, "the two-way interaction: %s", s);
	s = line_with(text, "CPUAffinity= + the client's CPUs ", buf, sizeof(buf));
	good &= ok(strstr(s, " 100% A itself") != NULL, "A's own row is A, not a sample with an interval: %s", s);
	s = line_with(text, "What moved with it: ", buf, sizeof(buf));
	good &= ok(strncmp(s, "What moved with it: server run-queue wait per transaction 95 us against 610 us (together against "
		      "free; r = -1.00",
		   111) == 0,
	   "the run-queue wait is quoted: %s", s);
	if (!good)
		diag("%s", text);
	free(text);

	/* Noisy: the stronger setting has more than half of the gap for its
	 * share, with an interval that holds 100% and not 0%, but alone it
	 * moves the gap by no more than the noise: the pair is the cause. */
	set_mix(1, 185, 240, 300, 600);
	set_mix(2, 125, 216, 400, 590);
	text = analysis(labels, 2, &d, "together", "free");
	s = line_with(text, " explain", buf, sizeof(buf));
	ok(strncmp(s, "CPUAffinity= and the client's CPUs together explain ", 52) == 0,
	   "noisy, the pair is named, not the stronger setting: %s", s);
	free(text);
}

static void check_single(void)
{
	const char *labels[] = { "CPUQuota=", "OOMScoreAdjust=" };
	struct design d = { .masks = { 0, 1, 2, 3 }, .n = 4 };
	unsigned confirm[5];
	char buf[1024];
	const char *s;
	char *text;

	mz = (struct measured){ .full = 3, .closure = 3, .level = 0.95, .full_counts = true };
	set_mix(0, 1000, 1050, 1100, 100);
	set_mix(1, 190, 200, 215, 2500);
	set_mix(2, 990, 1040, 1105, 100);
	set_mix(3, 185, 195, 205, 2600);
	text = analysis(labels, 2, &d, "limited", "free");
	s = line_with(text, " explains ", buf, sizeof(buf));
	ok(strncmp(s, "CPUQuota= explains 99% (", 24) == 0 && !strstr(text, "together explain"),
	   "CPUQuota= alone, not the pair: %s", s);
	free(text);
	ok(attribute_confirm_masks(&d, &mz, confirm) == 0, "a share with a narrow interval is not measured again");

	set_mix(3, 1010, 1045, 1095, 100);
	text = analysis(labels, 2, &d, "same", "free");
	ok(strstr(text, "No significant gap: the interval of the ratio contains 1") && !strstr(text, "explain"),
	   "no gap: nothing named");
	free(text);
}

/* Five settings, of which the second and the fourth act only together. */
static void check_screening(void)
{
	struct design d = { .n = 0 };
	unsigned all = 31, next[4];
	size_t n_next;
	bool found = false;

	mz = (struct measured){ .level = 0.95 };
	d.masks[d.n] = 0;
	set_mix(d.n++, 200, 210, 220, NAN);
	for (unsigned k = 0; k < 5; k++) {
		d.masks[d.n] = 1u << k;
		set_mix(d.n++, 201, 209, 221, NAN);
	}
	for (unsigned k = 0; k < 5; k++) {
		bool gone = k == 1 || k == 3;

		d.masks[d.n] = all & ~(1u << k);
		set_mix(d.n++, gone ? 199 : 690, gone ? 211 : 700, gone ? 219 : 715, NAN);
	}
	d.masks[d.n] = all;
	mz.full = d.n;
	set_mix(d.n++, 695, 705, 710, NAN);
	n_next = attribute_strongest_combinations(&d, &mz, 5, next);
	for (size_t i = 0; i < n_next; i++)
		found |= next[i] == ((1u << 1) | (1u << 3));
	ok(n_next >= 1 && n_next <= 4 && found,
	   "the screening's second round holds the pair that acts only together (%zu mixes)", n_next);
}

/* The taskset case as t/085 measures it: five factors, the second the
 * affinity.  Its hybrid alone is a lottery (two starts in three land on the
 * client's CPU and run nearly as fast as B), so what it moves added to B has an
 * interval down to nothing; the closure without it is as tight as B.  The
 * mean of the two names it alone; a set's share and its complement's add
 * up to the closure's. */
static void check_lottery(void)
{
	const char *labels[] = { "session", "CPUAffinity=", "LimitNOFILE=", "environment", "CapabilityBoundingSet=" };
	struct design d = { .n = 0 };
	unsigned all = 31;
	long alone, without;
	struct stats_share s_alone, s_without, s_closure;
	unsigned confirm[5];
	size_t n_confirm;
	char buf[1024];
	const char *s;
	char *text;

	mz = (struct measured){ .level = 0.95 };
	d.masks[d.n] = 0;
	set_mix(d.n++, 1600, 1630, 1660, NAN);
	for (unsigned k = 0; k < 5; k++) {
		d.masks[d.n] = 1u << k;
		if (k == 1)
			set_mix(d.n++, 1050, 1500, 1600, NAN);
		else
			set_mix(d.n++, 1610, 1625, 1655, NAN);
	}
	for (unsigned k = 0; k < 5; k++) {
		d.masks[d.n] = all & ~(1u << k);
		if (k == 1)
			set_mix(d.n++, 1615, 1640, 1665, NAN);
		else
			set_mix(d.n++, 1240, 1285, 1310, NAN);
	}
	d.masks[d.n] = all;
	mz.closure = d.n;
	set_mix(d.n++, 1250, 1290, 1320, NAN);
	d.masks[d.n] = 1u << 31; /* A itself, a service */
	mz.full = d.n;
	set_mix(d.n++, 1230, 1280, 1305, NAN);
	alone = mix_index(&d, 2);
	s_alone = attribute_share(&mz, (size_t)alone);
	ok(s_alone.share < 0.8 && !(s_alone.bounded && s_alone.lo > 0),
	   "the affinity added to B alone: %.0f%% (%.0f-%.0f%%), short of 80%% and not clear of 0",
	   100 * s_alone.share, 100 * s_alone.lo, 100 * s_alone.hi);
	text = analysis(labels, 5, &d, "service", "shell");
	s = line_with(text, " explains ", buf, sizeof(buf));
	ok(strncmp(s, "CPUAffinity= explains ", 22) == 0 && atoi(s + 22) >= 80 && !strstr(text, "together explain"),
	   "the mean of added and removed names it alone, for at least 80%%: %s", s);
	if (strncmp(s, "CPUAffinity= explains ", 22))
		diag("%s", text);
	free(text);
	without = mix_index(&d, all & ~2u);
	s_alone = attribute_set_share(&d, &mz, (size_t)alone);
	s_without = attribute_set_share(&d, &mz, (size_t)without);
	s_closure = attribute_share(&mz, mz.closure);
	n_confirm = attribute_confirm_masks(&d, &mz, confirm);
	ok(n_confirm == 5 && confirm[0] == 0 && confirm[1] == 2 && confirm[2] == (all & ~2u) && confirm[3] == all &&
		   confirm[4] == 1u << 31,
	   "a share as wide as the lottery's is confirmed: B, the affinity, the closure without it, the closure and A "
	   "are measured again (%zu mixes)", n_confirm);
	ok(fabs(s_alone.share + s_without.share - s_closure.share) < 1e-9,
	   "a set's share and its complement's add up to the closure's (%.3f + %.3f = %.3f)", s_alone.share,
	   s_without.share, s_closure.share);
}

int main(void)
{
	check_interaction();
	check_single();
	check_screening();
	check_lottery();
	return done_testing();
}

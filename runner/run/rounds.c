/* Rounds: each measures every selected unit (a context at a vary value,
 * and each context's live unit) once, in an order that is a row of a
 * Williams square drawn from the run's seed (run/order.h), so that a drift
 * of the host (warming up, a neighbour ramping up) and a slow first start
 * fall on no context more than on another, the round term of the model
 * (stats/block.h) takes out what a round shares and its position term
 * what the first unit loses.
 * The seed and every round's order go to schedule.json before the round
 * begins; a resumed run draws the same orders again from the same seed.
 *
 * repeat = auto is Stein's two-stage rule: RUN_AUTO_PILOT rounds, then,
 * from the pilot's spread, as many whole rounds as the target width needs
 * (o->rounds_needed), within repeat-max.  With a budget (o->deadline_ns,
 * any plan) no round begins that would end past it at the longest round's
 * time so far: the budget is a bound, not a hope.  It never stops because an interval happened to be narrow: a rule that does stops on the
 * lucky draws, and its intervals cover less than they say. */
#include <inttypes.h>

#include "run/order.h"
#include "run/runner.h"
#include "stats/sequential.h"
#include "common/interrupt.h"

const struct word run_order_words[] = {
	{ "random", RUN_ORDER_RANDOM },
	{ "fixed", RUN_ORDER_FIXED },
	{},
};

/* One unit of a round: restart's (a fresh server for vary value v) or
 * the context's live one (every vary value on one server). */
struct round_unit {
	size_t ctx, v;
	bool live;
};

/* Whether context c runs in round: the plan selects it and, with
 * repeat = decide, the last look before the round left it open. */
static bool runs_in(const struct runner *rn, size_t c, unsigned round)
{
	const struct run_look *last = NULL;

	for (size_t i = 0; i < rn->n_looks; i++)
		if (rn->looks[i].round < round)
			last = &rn->looks[i];
	return rn->plan->selected[c] && (!last || last->open[c]);
}

/* The round's units, in the fixed order (A B C D for every vary value,
 * then the live ones), in the round's balanced order unless the order is
 * fixed. */
static size_t round_units(const struct runner *rn, unsigned round, struct round_unit *u)
{
	const struct experiment *e = rn->e;
	struct round_unit fixed[EXP_VARY_MAX * EXP_CONTEXTS_MAX + EXP_CONTEXTS_MAX];
	size_t n = 0, order[EXP_VARY_MAX * EXP_CONTEXTS_MAX + EXP_CONTEXTS_MAX];

	for (size_t v = 0; (runner_vary_modes(e) & VARY_RESTART) && v < experiment_n_values(e); v++)
		for (size_t c = 0; c < e->n_contexts; c++)
			if (runs_in(rn, c, round))
				u[n++] = (struct round_unit){ .ctx = c, .v = v };
	for (size_t c = 0; (runner_vary_modes(e) & VARY_LIVE) && c < e->n_contexts; c++)
		if (runs_in(rn, c, round))
			u[n++] = (struct round_unit){ .ctx = c, .live = true };
	if (rn->order != RUN_ORDER_RANDOM)
		return n;
	memcpy(fixed, u, n * sizeof(*u));
	run_order_balanced(rn->seed, round, n, order);
	for (size_t i = 0; i < n; i++)
		u[i] = fixed[order[i]];
	return n;
}

/* The name a unit's steps are recorded under (managed_unit_names()); the
 * live unit's first value stands for it. */
static int round_unit_name(const struct runner *rn, const struct round_unit *u, unsigned round, char *buf, size_t len)
{
	struct managed_unit_names names;
	int r;

	r = managed_unit_names(rn->e, u->ctx, u->live ? 0 : u->v, round, u->live, &names);
	return r < 0 ? r : snprintf_whole(buf, len, "%s", names.name);
}

/* A round's unit names in their order, as a JSON array. */
static json_t *round_names(const struct runner *rn, unsigned round, const struct round_unit *u, size_t n)
{
	json_t *names = json_array();
	char name[96];

	for (size_t i = 0; names && i < n; i++)
		if (round_unit_name(rn, &u[i], round, name, sizeof(name)) < 0 ||
		    json_array_append_new(names, json_string(name)) < 0) {
			json_decref(names);
			return NULL;
		}
	return names;
}

/* The contexts the plan selects, when not all ("only": "a,b"), so that
 * --resume DIR alone runs the same units. */
static int only_put(const struct runner *rn, json_t *sched)
{
	_cleanup_free_ char *list = NULL;
	size_t used = 0, n = 0;

	for (size_t c = 0; c < rn->e->n_contexts; c++)
		n += rn->plan->selected[c];
	if (n == rn->e->n_contexts)
		return 0;
	list = calloc(n, sizeof(rn->e->contexts[0].name) + 1);
	for (size_t c = 0; list && c < rn->e->n_contexts; c++)
		if (rn->plan->selected[c])
			used += (size_t)sprintf(list + used, "%s%s", used ? "," : "", rn->e->contexts[c].name);
	return list && json_object_set_new(sched, "only", json_string(list)) >= 0 ? 0 : -ENOMEM;
}

/* repeat = decide: the design ("sequential": its margin, most rounds,
 * rounds between looks and the spread its plan assumed) and every look
 * so far with the contexts it left open. */
static int looks_put(const struct runner *rn, json_t *sched)
{
	const struct experiment *e = rn->e;
	json_t *design, *looks;

	if (!e->repeat_decide)
		return 0;
	design = json_pack("{s:f, s:i, s:i}", "margin", e->margin, "max_rounds", (int)e->repeat, "look_every",
			   (int)MAX(e->look_every, 1));
	if (design && rn->planned_sigma > 0 &&
	    (json_object_set_new(design, "planned_sigma", json_real(rn->planned_sigma)) < 0 ||
	     json_object_set_new(design, "planned_from", json_string(strempty(rn->planned_from))) < 0))
		return json_decref(design), -ENOMEM;
	if (!design || json_object_set_new(sched, "sequential", design) < 0 ||
	    json_object_set_new(sched, "looks", looks = json_array()) < 0 || !looks)
		return -ENOMEM;
	for (size_t i = 0; i < rn->n_looks; i++) {
		json_t *open = json_array(), *one;

		for (size_t c = 0; open && c < e->n_contexts; c++)
			if (rn->looks[i].open[c] && json_array_append_new(open, json_string(e->contexts[c].name)) < 0)
				return json_decref(open), -ENOMEM;
		one = json_pack("{s:i, s:b, s:o}", "round", (int)rn->looks[i].round, "final", rn->looks[i].final, "open", open);
		if (!one || json_array_append_new(looks, one) < 0)
			return -ENOMEM;
	}
	return 0;
}

int runner_resume_looks(struct runner *rn, const json_t *sched)
{
	const json_t *look, *name;
	size_t i, k;

	json_array_foreach(json_object_get(sched, "looks"), i, look) {
		struct run_look *l = &rn->looks[rn->n_looks];

		if (rn->n_looks == RUN_LOOKS_MAX || !json_is_integer(json_object_get(look, "round")))
			return -EBADMSG;
		*l = (struct run_look){ .round = (unsigned)json_integer_value(json_object_get(look, "round")),
					.final = json_is_true(json_object_get(look, "final")) };
		json_array_foreach(json_object_get(look, "open"), k, name)
			for (size_t c = 0; c < rn->e->n_contexts; c++)
				l->open[c] |= streq_ptr(json_string_value(name), rn->e->contexts[c].name);
		rn->n_looks++;
	}
	return 0;
}

/* schedule.json with this round's order added (or put again, on resume):
 * the earlier rounds' orders drawn again from the seed. */
static int schedule_put(struct runner *rn, unsigned round, const struct round_unit *u, size_t n)
{
	_cleanup_free_ char *command = NULL;
	json_t *sched, *rounds;
	int r = 0;

	/* repeat = auto: the pilot's rounds, whose spread the verdicts take
	 * (Stein's rule: the spread that chose the rounds' number). */
	sched = json_pack("{s:s, s:I, s:i, s:[]}", "order", word_name(run_order_words, rn->order), "seed",
			  (json_int_t)rn->seed, "pilot", rn->e->repeat_auto ? RUN_AUTO_PILOT : 0, "rounds");
	rounds = json_object_get(sched, "rounds");
	if (sched && (only_put(rn, sched) < 0 || looks_put(rn, sched) < 0))
		r = -ENOMEM;
	if (sched && rn->kept_command && json_object_set_new(sched, "command", json_string(rn->kept_command)) < 0)
		r = -ENOMEM;
	else if (sched && !rn->kept_command && rn->command &&
		 (xasprintf(&command, "%s --order %s --seed %" PRIu64, rn->command, word_name(run_order_words, rn->order),
			    rn->seed) < 0 ||
		  json_object_set_new(sched, "command", json_string(command)) < 0))
		r = -ENOMEM;
	for (unsigned k = 1; sched && k <= round && r >= 0; k++) {
		struct round_unit earlier[EXP_VARY_MAX * EXP_CONTEXTS_MAX + EXP_CONTEXTS_MAX];
		size_t m = k == round ? n : round_units(rn, k, earlier);
		json_t *names = round_names(rn, k, k == round ? u : earlier, m);

		if (!names || json_array_append_new(rounds, json_pack("{s:i, s:o}", "round", (int)k, "units", names)) < 0)
			r = -ENOMEM;
	}
	r = !sched ? -ENOMEM : r >= 0 ? results_put(rn->res, RESULTS_SCHEDULE, sched) : r;
	json_decref(sched);
	return r < 0 ? log_error_errno(r, "%s: cannot write %s/" RESULTS_SCHEDULE ": %m", rn->verb, results_dir(rn->res))
		     : 0;
}

/* One round: its order recorded, then its units in that order. */
static int run_round(struct runner *rn, unsigned round)
{
	struct round_unit u[EXP_VARY_MAX * EXP_CONTEXTS_MAX + EXP_CONTEXTS_MAX];
	size_t n = round_units(rn, round, u);
	int r = schedule_put(rn, round, u, n);

	for (size_t i = 0; r >= 0 && i < n; i++) {
		rn->slot = (unsigned)i + 1;
		if (interrupt_signal)
			r = -EINTR;
		else if (u[i].live)
			r = runner_run_live_unit(rn, u[i].ctx, round);
		else
			r = runner_run_unit(rn, u[i].ctx, u[i].v, round);
	}
	rn->slot = 0;
	return r;
}

/* repeat = auto after the pilot: the rounds the target needs, from the
 * document of record so far, within repeat-max (the budget is the
 * rounds' loop's). */
static int auto_rounds(struct runner *rn, struct run_options *o, unsigned *ret)
{
	_cleanup_free_ char *why = NULL;
	json_t *doc = NULL;
	unsigned want = 0;
	int r;

	r = results_load(results_dir(rn->res), &doc, &why);
	if (r < 0 && why)
		return log_error_errno(r, "%s: cannot read back %s: %s", rn->verb, results_dir(rn->res), why);
	if (r < 0)
		return log_error_errno(r, "%s: cannot read back %s: %m", rn->verb, results_dir(rn->res));
	r = o->rounds_needed(o->userdata, doc, &want);
	json_decref(doc);
	if (r < 0)
		return r;
	o->rounds_wanted = want;
	*ret = MIN(MAX(want, RUN_AUTO_PILOT), rn->e->repeat);
	o->stopped = want > rn->e->repeat ? RUN_STOP_MAX : RUN_STOP_SETTLED;
	/* The ETA's plan: the rounds chosen, not repeat-max. */
	rn->n_units = rn->plan->n_units / rn->e->repeat * *ret;
	rn->n_steps = rn->plan->n_steps / rn->e->repeat * *ret;
	if (*ret > RUN_AUTO_PILOT)
		runner_progress(PROGRESS_NOTE, "the pilot's spread asks for %u rounds%s: %u more", want,
				*ret < want ? ", more than repeat-max allows" : "", *ret - RUN_AUTO_PILOT);
	return 0;
}

/* Whether round may begin: it would end by the deadline, at the longest
 * round's time so far.  The first always begins (the verb checked that the
 * plan's least fits before anything started). */
static bool round_fits(const struct run_options *o, unsigned round, uint64_t longest_ns)
{
	return !o->deadline_ns || round == 1 || now_ns() + longest_ns <= o->deadline_ns;
}

/* repeat = decide after round: a look when the design has one there, or
 * when no round follows (the plan's last, or the last the budget leaves:
 * a final look spends what is left).  What it leaves open runs on;
 * *ret_done when nothing does. */
static int look(struct runner *rn, struct run_options *o, unsigned round, bool final, bool *ret_done)
{
	_cleanup_free_ char *why = NULL;
	struct run_look *l = &rn->looks[rn->n_looks];
	json_t *doc = NULL;
	size_t open = 0;
	int r;

	*ret_done = false;
	if ((rn->n_looks && rn->looks[rn->n_looks - 1].round >= round) || rn->n_looks == RUN_LOOKS_MAX ||
	    !(final || seq_is_look(rn->e->look_every, round)))
		return 0; /* none here, or recorded already (--resume) */
	r = results_load(results_dir(rn->res), &doc, &why);
	if (r < 0)
		return log_error_errno(r, "%s: cannot read back %s: %s", rn->verb, results_dir(rn->res), why ? why : strerror(-r));
	*l = (struct run_look){ .round = round, .final = final };
	r = o->look(o->userdata, doc, round, final, l->open);
	json_decref(doc);
	if (r < 0)
		return r;
	for (size_t c = 0; c < rn->e->n_contexts; c++)
		open += l->open[c] = l->open[c] && rn->plan->selected[c];
	rn->n_looks++;
	*ret_done = open == 0;
	/* Recorded now, not with the next round's order: the look that
	 * decides the last ratio has no next round, and report re-derives
	 * its decisions from the looks schedule.json holds. */
	struct round_unit u[EXP_VARY_MAX * EXP_CONTEXTS_MAX + EXP_CONTEXTS_MAX];
	return schedule_put(rn, round, u, round_units(rn, round, u));
}

/* The units still to run, for the progress's ETA: those open now, in
 * the rounds left. */
static void plan_left(struct runner *rn, unsigned round, unsigned last)
{
	size_t open = 0, all = 0;

	for (size_t c = 0; c < rn->e->n_contexts; c++) {
		all += rn->plan->selected[c];
		open += runs_in(rn, c, round + 1);
	}
	if (all)
		rn->n_units = rn->units_done + open * (last - round) * (rn->plan->n_units / rn->e->repeat / all);
	rn->n_steps = rn->n_units * rn->e->n_threads;
}

int runner_run_rounds(struct runner *rn, struct run_options *o)
{
	const struct experiment *e = rn->e;
	bool adaptive = e->repeat_auto && o->rounds_needed, decide = e->repeat_decide && o->look;
	unsigned last = adaptive ? RUN_AUTO_PILOT : e->repeat;
	uint64_t longest = 0;
	bool done = false;
	int r = 0;

	for (unsigned round = 1; r >= 0 && round <= last && !done; round++) {
		uint64_t begin = now_ns();

		if (!round_fits(o, round, longest)) {
			runner_progress(PROGRESS_NOTE, "the budget leaves no time for round %u (the longest so far took %.0fs)",
					round, (double)longest / 1e9);
			o->stopped = RUN_STOP_BUDGET;
			break;
		}
		o->rounds = round;
		r = run_round(rn, round);
		longest = MAX(longest, now_ns() - begin);
		if (r >= 0 && adaptive && round == RUN_AUTO_PILOT)
			r = auto_rounds(rn, o, &last);
		if (r >= 0 && decide) {
			r = look(rn, o, round, round == last || !round_fits(o, round + 1, longest), &done);
			plan_left(rn, round, last);
		}
	}
	if (r >= 0 && done)
		o->stopped = RUN_STOP_DECIDED;
	else if (r >= 0 && decide && o->stopped == RUN_STOP_NONE && o->rounds == last)
		o->stopped = RUN_STOP_MAX;
	o->looks = rn->n_looks;
	return r;
}

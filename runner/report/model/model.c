/* The report's model: the document of record read once into cells of TPS
 * (median of the successful repeats, min..max, n, the noise within a start
 * and across starts, the verdict against the baseline column of the same
 * vary value, and against its context's column at the first vary value),
 * the failed and the noisy steps; the placement differences against the
 * baseline are diffs.c's. */
#include <math.h>
#include <stdio.h>

#include "report/model/model.h"
#include "oltp/script.h"
#include "stats/figure.h"
#include "stats/stats.h"
#include "store/results.h"
#include "common/util.h"

void model_done(struct model *m)
{
	for (size_t i = 0; i < m->ncols; i++)
		free(m->cols[i].label);
	free(m->cols);
	for (size_t i = 0; i < m->nvary; i++)
		free(m->vary[i]);
	free(m->vary);
	free(m->threads);
	for (size_t i = 0; m->cells && i < m->nrows * m->ncols; i++) {
		free(m->cells[i].tps);
		free(m->cells[i].within);
		free(m->cells[i].round);
		free(m->cells[i].slot);
	}
	free(m->cells);
	free(m->round_slots);
	json_decref(m->failures);
	json_decref(m->diffs);
	json_decref(m->noisy);
	json_decref(m->saturated);
	json_decref(m->open_loop.outran);
	for (size_t i = 0; i <= MODEL_LATENCIES; i++) {
		struct model *o = i < MODEL_LATENCIES ? m->open_loop.latency[i] : m->open_loop.late;

		if (o)
			model_done(o);
		free(o);
	}
	*m = (struct model){};
}

/* The coefficient of variation of the per-second TPS of one step; NAN
 * with fewer than two seconds. */
static int intervals_cv(const json_t *step, double *ret)
{
	const json_t *a = json_object_get(step, "intervals_tps"), *v;
	_cleanup_free_ double *x = calloc(json_array_size(a) + 1, sizeof(double));
	size_t i, n = 0;

	if (!x)
		return -ENOMEM;
	json_array_foreach(a, i, v)
		if (json_is_number(v))
			x[n++] = json_number_value(v);
	*ret = stats_cv(x, n);
	return 0;
}

const struct telemetry_summary_def telemetry_summaries[_TEL_MAX] = {
	[TEL_IDLE_PCT] = { .name = "cpu_idle_pct", .sample = "cpu_idle_pct", .reduce = REDUCE_MEAN, .decimals = 2 },
	[TEL_THROTTLED] = { .name = "nr_throttled_delta", .sample = "nr_throttled", .reduce = REDUCE_DELTA },
	/* The seed's loop: the load average jumping between 10 and 60 beside
	 * the running (R) and uninterruptible (D) tasks that explain it. */
	[TEL_LOAD1_MIN] = { .name = "load1_min", .sample = "load1", .reduce = REDUCE_MIN, .decimals = 2 },
	[TEL_LOAD1_MAX] = { .name = "load1_max", .sample = "load1", .reduce = REDUCE_MAX, .decimals = 2 },
	[TEL_RUNNING_MEAN] = { .name = "procs_running_mean", .sample = "procs_running", .reduce = REDUCE_MEAN,
			       .decimals = 2 },
	[TEL_RUNNING_MAX] = { .name = "procs_running_max", .sample = "procs_running", .reduce = REDUCE_MAX },
	[TEL_BLOCKED_MEAN] = { .name = "tasks_d_mean", .sample = "tasks_uninterruptible", .reduce = REDUCE_MEAN,
			       .decimals = 2 },
	[TEL_BLOCKED_MAX] = { .name = "tasks_d_max", .sample = "tasks_uninterruptible", .reduce = REDUCE_MAX },
	/* Who got the CPU: the server's, the client's, the proxy's and the
	 * neighbours' CPU seconds per second of the step. */
	[TEL_SERVER_CPU] = { .name = "server_cpu_per_s", .sample = "server_cpu_s", .reduce = REDUCE_RATE, .decimals = 3 },
	[TEL_CLIENT_CPU] = { .name = "client_cpu_per_s", .sample = "client_cpu_s", .reduce = REDUCE_RATE, .decimals = 3 },
	[TEL_PROXY_CPU] = { .name = "proxy_cpu_per_s", .sample = "proxy_cpu_s", .reduce = REDUCE_RATE, .decimals = 3 },
	[TEL_NEIGHBOURS_CPU] = { .name = "neighbours_cpu_per_s", .sample = "neighbour_cpu_s", .reduce = REDUCE_RATE,
				 .decimals = 3 },
	/* and what the oltp neighbours' servers did with theirs */
	[TEL_NEIGHBOURS_TPS] = { .name = "neighbours_tps", .sample = "neighbour_tps", .reduce = REDUCE_STEP, .decimals = 1 },
};

/* A sample's number, or the sum of an object's numbers (the neighbours'). */
static bool sample_number(const json_t *v, double *ret)
{
	const char *key;
	const json_t *m;

	if (json_is_number(v)) {
		*ret = json_number_value(v);
		return true;
	}
	if (!json_is_object(v) || json_object_size(v) == 0)
		return false;
	*ret = 0;
	json_object_foreach((json_t *)v, key, m) {
		if (!json_is_number(m))
			return false;
		*ret += json_number_value(m);
	}
	return true;
}

/* One row of telemetry_summaries over a step's samples; NAN without any
 * (a delta needs two). */
static double step_summary(const json_t *step, const struct telemetry_summary_def *d)
{
	const json_t *s;
	double acc = 0, first = NAN, first_t = NAN, last_t = NAN;
	size_t i, n = 0;

	if (d->reduce == REDUCE_STEP)
		return sample_number(json_object_get(step, d->sample), &acc) ? acc : NAN;
	json_array_foreach(json_object_get(step, "telemetry"), i, s) {
		double x, t = json_number_value(json_object_get(s, "t_s"));

		if (!sample_number(json_object_get(s, d->sample), &x))
			continue;
		switch (d->reduce) {
		case REDUCE_MEAN:
			acc += x;
			break;
		case REDUCE_MIN:
			acc = n ? MIN(acc, x) : x;
			break;
		case REDUCE_MAX:
			acc = n ? MAX(acc, x) : x;
			break;
		case REDUCE_STEP: /* returned above */
		case REDUCE_DELTA:
		case REDUCE_RATE:
			first = n ? first : x;
			first_t = n ? first_t : t;
			acc = x - first;
			last_t = t;
			break;
		}
		n++;
	}
	if (n == 0 || ((d->reduce == REDUCE_DELTA || d->reduce == REDUCE_RATE) && n < 2))
		return NAN;
	/* A CPU time that went back (an older record's sum over processes) has no rate. */
	if (d->reduce == REDUCE_RATE)
		return last_t > first_t && acc >= 0 ? acc / (last_t - first_t) : NAN;
	return d->reduce == REDUCE_MEAN ? acc / (double)n : acc;
}

/* Failed, or ran and completed nothing: a step at 0 TPS has no logarithm,
 * and a floor put in its place would be a made-up number in a mean. */
/* A step's repeat of the model's measure: NAN for one that failed (or
 * has no latency). */
const char *const model_latency_keys[MODEL_LATENCIES] = { "p50", "p95", "p99" };

static double step_value(const struct model *m, const json_t *s)
{
	const json_t *p;

	if (m->measure == MODEL_TPS)
		return report_step_tps(s);
	if (m->measure == MODEL_LATE_SHARE)
		return isnan(report_step_tps(s)) ? NAN : model_step_late_share(s);
	p = json_object_get(json_object_get(s, "latency_ms"), model_latency_keys[m->measure - MODEL_LATENCY_P50]);
	return !isnan(report_step_tps(s)) && json_is_number(p) && json_number_value(p) > 0 ? json_number_value(p) : NAN;
}

static bool step_failed(const struct model *m, const json_t *s)
{
	return isnan(step_value(m, s));
}

double report_step_tps(const json_t *s)
{
	return results_step_counted(s) ? json_number_value(json_object_get(s, "tps")) : NAN;
}

/* The medians over the cell's steps of each figure in their "mechanism". */
static int cell_mechanism(struct model *m, const json_t *steps, size_t row, size_t col, struct cell *c)
{
	size_t n_rows, i;
	const struct oltp_mechanism_def *rows = oltp_mechanism_table(&n_rows);
	_cleanup_free_ double *x = calloc(json_array_size(steps) + 1, sizeof(double));
	const json_t *s;

	if (!x)
		return -ENOMEM;
	for (size_t k = 0; k < n_rows; k++) {
		size_t n = 0;

		json_array_foreach(steps, i, s) {
			const json_t *v = json_object_get(json_object_get(s, "mechanism"), rows[k].key);

			if (model_step_in_cell(m, s, row, col) && !step_failed(m, s) && json_is_number(v))
				x[n++] = json_number_value(v);
		}
		stats_median_interval(x, n, m->level, &c->mechanism[k], &c->mechanism_lo[k], &c->mechanism_hi[k],
				      &c->mechanism_cover[k]);
	}
	return 0;
}

/* The doubles compute_cell() needs per step of the document. */
#define CELL_SERIES (4 + _TEL_MAX)

/* A step of the cell that the rule left out: counted, and one that ran
 * and completed nothing counted apart. */
static void count_failed(struct cell *c, const json_t *s)
{
	c->n_failed++;
	c->n_zero += oltp_step_rule_of_json(s) == OLTP_RULE_ZERO;
}

/* The noise within a successful step: its CV among the cell's, and the
 * step among the noisy ones with its silent seconds. */
static int step_noise(struct model *m, struct cell *c, const json_t *s, double *within, size_t *nw)
{
	json_int_t silent = json_integer_value(json_object_get(s, "stalled_s"));
	double cv;
	int r;

	if (silent > 0) {
		c->n_stalled++;
		c->stalled_s += silent;
	}
	r = intervals_cv(s, &cv);
	if (r < 0 || isnan(cv))
		return r;
	within[(*nw)++] = cv;
	if (cv <= MODEL_NOISY_CV)
		return 0;
	c->n_noisy++;
	if (model_step_note(m->noisy, s, "cv", json_real(cv)) < 0)
		return -ENOMEM;
	/* A second without a completed transaction, too short for a stall
	 * (oltp.h), is said with the noise. */
	if (silent > 0 && json_object_set(json_array_get(m->noisy, json_array_size(m->noisy) - 1), "stalled_s",
					  json_object_get(s, "stalled_s")) < 0)
		return -ENOMEM;
	return 0;
}

/* A step whose client and server threads were more than its context's
 * CPUs: counted, and listed with its record of them. */
static int step_saturation(struct model *m, struct cell *c, const json_t *s)
{
	json_t *sat = json_object_get(s, "saturation");

	if (!json_is_true(json_object_get(sat, "saturated")))
		return 0;
	c->n_saturated++;
	return model_step_note(m->saturated, s, "saturation", json_incref(sat));
}

/* A cell's series, gathered from its steps (ns of the document's, the
 * room each series has): its c->n successful repeats' TPS and rounds, np
 * p95 latencies, nw per-second CVs, and ntel[k] values of telemetry row k
 * at tel + k * ns. */
struct cell_series {
	double *tps, *p95, *within, *tel;
	unsigned *round, *slot; /* each repeat's round, and its place in the round's order */
	size_t ns, np, nw, ntel[_TEL_MAX];
};

/* The cell's medians and noises from its repeats' series, and its TPS and
 * rounds kept for the verdicts. */
static int cell_summarize(struct cell *c, const struct cell_series *s)
{
	c->tps = malloc(c->n * sizeof(double));
	c->round = malloc(c->n * sizeof(unsigned));
	c->slot = malloc(c->n * sizeof(unsigned));
	c->within = malloc((s->nw + 1) * sizeof(double));
	if (!c->tps || !c->round || !c->slot || !c->within)
		return -ENOMEM;
	/* Before the medians sort them: the verdicts pair a TPS with its
	 * round and its place in the round's order. */
	memcpy(c->tps, s->tps, c->n * sizeof(double));
	memcpy(c->round, s->round, c->n * sizeof(unsigned));
	memcpy(c->slot, s->slot, c->n * sizeof(unsigned));
	memcpy(c->within, s->within, s->nw * sizeof(double));
	c->n_within = s->nw;
	c->across_cv = stats_cv(s->tps, c->n);
	c->median = stats_median(s->tps, c->n);
	c->min = s->tps[0];
	c->max = s->tps[c->n - 1];
	c->within_cv = stats_median(s->within, s->nw);
	c->p95_ms = stats_median(s->p95, s->np);
	for (size_t k = 0; k < _TEL_MAX; k++)
		c->tel[k] = stats_median(s->tel + k * s->ns, s->ntel[k]);
	return 0;
}

static void cell_clear(struct cell *c)
{
	*c = (struct cell){ .median = NAN, .min = NAN, .max = NAN, .within_cv = NAN, .across_cv = NAN, .p95_ms = NAN,
			    .fail_lo = NAN, .fail_hi = NAN };
	for (size_t k = 0; k < _TEL_MAX; k++)
		c->tel[k] = NAN;
	for (size_t k = 0; k < OLTP_MECHANISM_MAX; k++)
		c->mechanism[k] = c->mechanism_lo[k] = c->mechanism_hi[k] = c->mechanism_cover[k] = NAN;
}

/* buf holds CELL_SERIES x nsteps doubles, rounds the steps' rounds and
 * then their slots. */
static int compute_cell(struct model *m, const json_t *steps, size_t row, size_t col, double *buf, unsigned *rounds)
{
	size_t ns = json_array_size(steps), i;
	struct cell_series series = { .tps = buf, .p95 = buf + ns, .within = buf + 2 * ns, .tel = buf + 4 * ns,
				      .round = rounds, .slot = rounds + ns, .ns = ns };
	double *tps = series.tps, *p95 = series.p95, *tel = series.tel;
	size_t *ntel = series.ntel;
	struct cell *c = model_cell(m, row, col);
	const json_t *s;
	int r;

	cell_clear(c);
	json_array_foreach(steps, i, s) {
		const json_t *p;

		if (!model_step_in_cell(m, s, row, col))
			continue;
		if (step_failed(m, s)) {
			count_failed(c, s);
			continue;
		}
		rounds[c->n] = (unsigned)MAX(1, json_integer_value(json_object_get(s, "repeat")));
		rounds[ns + c->n] = (unsigned)MAX(0, json_integer_value(json_object_get(s, "slot")));
		tps[c->n++] = step_value(m, s);
		p = json_object_get(json_object_get(s, "latency_ms"), "p95");
		if (json_is_number(p))
			p95[series.np++] = json_number_value(p);
		for (size_t k = 0; k < _TEL_MAX; k++) {
			double v = step_summary(s, &telemetry_summaries[k]);

			if (!isnan(v))
				tel[k * ns + ntel[k]++] = v;
		}
		r = step_noise(m, c, s, series.within, &series.nw);
		if (r >= 0)
			r = step_saturation(m, c, s);
		if (r < 0)
			return r;
	}
	if (c->n == 0)
		return 0;
	r = cell_summarize(c, &series);
	return r < 0 ? r : cell_mechanism(m, steps, row, col, c);
}

struct strv {
	const char **v;
	size_t n;
};

static int strv_add_unique(struct strv *l, const char *s)
{
	const char **p;

	for (size_t i = 0; i < l->n; i++)
		if (streq_ptr(l->v[i], s))
			return 0;
	p = realloc(l->v, (l->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	l->v = p;
	l->v[l->n++] = s;
	return 0;
}

/* repeat = decide: the design and the looks of schedule.json, as
 * store/check.c let them through; any design: the margin of "the same"
 * (experiment.json's from a build that records it for every design). */
static void model_read_looks(struct model *m, const json_t *sched, const json_t *exp)
{
	const json_t *d = json_object_get(sched, "sequential"), *look;
	double margin = json_number_value(json_object_get(exp, "margin"));
	size_t i;

	m->seq = (struct model_sequential){ .on = json_is_object(d), .margin = margin > 0 && margin < 1 ? margin : MODEL_MARGIN };
	if (!m->seq.on)
		return;
	m->seq.margin = json_number_value(json_object_get(d, "margin"));
	m->seq.max_rounds = (unsigned)json_integer_value(json_object_get(d, "max_rounds"));
	m->seq.look_every = (unsigned)json_integer_value(json_object_get(d, "look_every"));
	m->seq.planned_sigma = json_number_value(json_object_get(d, "planned_sigma"));
	m->seq.planned_from = json_string_value(json_object_get(d, "planned_from"));
	json_array_foreach(json_object_get(sched, "looks"), i, look) {
		if (m->seq.n_looks == SEQ_LOOKS_MAX)
			break;
		m->seq.looks[m->seq.n_looks++] = (struct model_look){
			.round = (unsigned)json_integer_value(json_object_get(look, "round")),
			.final = json_is_true(json_object_get(look, "final")),
			.open = json_object_get(look, "open"),
		};
	}
}

/* The document's format, the experiment's name, baseline and vary property. */
static int model_header(struct model *m, const json_t *doc, const json_t **ret_exp, const json_t **ret_steps)
{
	const json_t *exp, *steps, *v;
	int workload;

	if (!json_is_object(doc))
		return -EINVAL;
	v = json_object_get(doc, "format_version");
	if (!json_is_integer(v))
		return -EINVAL;
	if (json_integer_value(v) != RESULTS_FORMAT_VERSION)
		return -EPROTONOSUPPORT;
	exp = json_object_get(doc, "experiment");
	steps = json_object_get(doc, "steps");
	if (steps && !json_is_array(steps))
		return -EINVAL;
	m->name = json_string_value(json_object_get(exp, "name"));
	m->builds = json_object_get(doc, "slicebench");
	if (!m->name)
		m->name = "slicebench";
	m->baseline = json_string_value(json_object_get(exp, "baseline"));
	m->vary_property = json_string_value(json_object_get(json_object_get(exp, "vary"), "property"));
	m->pilot = (unsigned)json_integer_value(json_object_get(json_object_get(doc, "schedule"), "pilot"));
	m->order_fixed = streq_ptr(json_string_value(json_object_get(json_object_get(doc, "schedule"), "order")), "fixed");
	model_read_looks(m, json_object_get(doc, "schedule"), exp);
	/* the user's scripts are recorded by their paths */
	if (!json_is_string(json_object_get(exp, "workload")) ||
	    (word_lookup(oltp_workload_words, json_string_value(json_object_get(exp, "workload")), &workload) < 0 &&
	     oltp_script_workload(json_string_value(json_object_get(exp, "workload")), (enum oltp_workload *)&workload) < 0))
		workload = OLTP_WORKLOAD_READ_ONLY;
	m->workload = (enum oltp_workload)workload;
	m->failures = json_array();
	m->noisy = json_array();
	m->saturated = json_array();
	if (!m->failures || !m->noisy || !m->saturated)
		return -ENOMEM;
	*ret_exp = exp;
	*ret_steps = steps;
	return 0;
}

/* The contexts: what the experiment asked for, in its order, then whatever
 * the steps hold beyond it. */
static int collect_contexts(struct strv *ctxs, const json_t *exp, const json_t *steps)
{
	const json_t *v, *s;
	size_t i;

	json_array_foreach(json_object_get(exp, "contexts"), i, v)
		if (json_is_string(v) && strv_add_unique(ctxs, json_string_value(v)) < 0)
			return -ENOMEM;
	json_array_foreach(steps, i, s)
		if (json_is_string(v = json_object_get(s, "context")) && strv_add_unique(ctxs, json_string_value(v)) < 0)
			return -ENOMEM;
	return 0;
}

/* x as a vary value of m, once (NULL: the steps of an experiment without). */
static int add_vary(struct model *m, const char *x)
{
	char **p;

	for (size_t k = 0; k < m->nvary; k++)
		if (streq_ptr(m->vary[k], x))
			return 0;
	p = realloc(m->vary, (m->nvary + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	m->vary = p;
	m->vary[m->nvary] = NULL;
	if (x && !(m->vary[m->nvary] = strdup(x)))
		return -ENOMEM;
	m->nvary++;
	return 0;
}

/* The vary values, the experiment's first; at least one, NULL without vary. */
static int collect_vary(struct model *m, const json_t *exp, const json_t *steps)
{
	const json_t *v, *s;
	char buf[64];
	size_t i;

	json_array_foreach(json_object_get(json_object_get(exp, "vary"), "values"), i, v)
		if (scalar_str(v, buf, sizeof(buf)) && add_vary(m, scalar_str(v, buf, sizeof(buf))) < 0)
			return -ENOMEM;
	json_array_foreach(steps, i, s)
		if (add_vary(m, scalar_str(json_object_get(s, "vary_value"), buf, sizeof(buf))) < 0)
			return -ENOMEM;
	return m->nvary ? 0 : add_vary(m, NULL);
}

/* The rows: every thread count of the experiment and of the steps, sorted. */
static int collect_threads(struct model *m, const json_t *exp, const json_t *steps)
{
	size_t i, nth = 0, cap = json_array_size(json_object_get(exp, "threads")) + json_array_size(steps);
	long long *th = calloc(cap + 1, sizeof(*th));
	const json_t *v, *s;

	if (!th)
		return -ENOMEM;
	m->threads = th;
	json_array_foreach(json_object_get(exp, "threads"), i, v)
		if (json_is_number(v))
			th[nth++] = (long long)json_number_value(v);
	json_array_foreach(steps, i, s)
		if (json_is_number(v = json_object_get(s, "threads")))
			th[nth++] = (long long)json_number_value(v);
	qsort(th, nth, sizeof(*th), cmp_ll);
	for (i = 0; i < nth; i++)
		if (m->nrows == 0 || th[m->nrows - 1] != th[i])
			th[m->nrows++] = th[i];
	return 0;
}

/* A column per vary value and context, each with the baseline column of
 * its vary value. */
static int make_columns(struct model *m, const struct strv *ctxs)
{
	int r;

	m->cols = calloc(ctxs->n * m->nvary + 1, sizeof(*m->cols));
	if (!m->cols)
		return -ENOMEM;
	for (size_t vi = 0; vi < m->nvary; vi++)
		for (size_t ci = 0; ci < ctxs->n; ci++) {
			struct column *c = &m->cols[m->ncols];

			c->context = ctxs->v[ci];
			c->vary = m->vary[vi];
			c->vary_index = vi;
			c->is_baseline = streq_ptr(c->context, m->baseline);
			c->base = -1;
			/* The first value's columns come first, a context's at index ci. */
			c->first = vi > 0 && c->vary ? (long)ci : -1;
			if (!c->vary)
				r = xasprintf(&c->label, "%s", c->context);
			else if (m->vary_property)
				r = xasprintf(&c->label, "%s %s=%s", c->context, m->vary_property, c->vary);
			else
				r = xasprintf(&c->label, "%s %s", c->context, c->vary);
			if (r < 0)
				return r;
			m->ncols++;
		}
	for (size_t k = 0; k < m->ncols; k++)
		for (size_t b = 0; b < m->ncols && !m->cols[k].is_baseline; b++)
			if (m->cols[b].is_baseline && m->cols[b].vary_index == m->cols[k].vary_index)
				m->cols[k].base = (long)b;
	return 0;
}

/* A start counted by the rule that kept or left it out, and whether the
 * host was busy beside it (its record's "host", oltp/record.c). */
static void count_start(struct model *m, const json_t *s, enum oltp_rule rule)
{
	const json_t *host = json_object_get(s, "host"), *load = json_object_get(host, "load1_max");

	m->n_starts++;
	m->removed[rule]++;
	m->n_host_known += json_is_boolean(json_object_get(host, "busy"));
	if (!json_is_true(json_object_get(host, "busy")))
		return;
	m->n_busy++;
	if (json_is_number(load))
		m->busy_load_max = MAX(m->busy_load_max, json_number_value(load));
	m->busy_cpus = MAX(m->busy_cpus, (unsigned)json_integer_value(json_object_get(host, "cpus")));
}

/* The highest place a step of its round carries, failed ones too: the
 * round's units. */
static int note_slot(struct model *m, const json_t *s)
{
	json_int_t round = json_integer_value(json_object_get(s, "repeat")),
		   slot = json_integer_value(json_object_get(s, "slot"));
	unsigned *p;

	if (round < 1 || round > 100000 || slot < 1 || slot > 100000)
		return 0;
	if ((size_t)round > m->n_round_slots) {
		p = realloc(m->round_slots, (size_t)round * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + m->n_round_slots, 0, ((size_t)round - m->n_round_slots) * sizeof(*p));
		m->round_slots = p;
		m->n_round_slots = (size_t)round;
	}
	m->round_slots[round - 1] = MAX(m->round_slots[round - 1], (unsigned)slot);
	return 0;
}

/* Every cell, its ratio, and the failed steps. */
static int compute_cells(struct model *m, const json_t *steps)
{
	_cleanup_free_ double *buf = calloc(CELL_SERIES * json_array_size(steps) + 1, sizeof(double));
	_cleanup_free_ unsigned *rounds = calloc(2 * json_array_size(steps) + 1, sizeof(unsigned));
	const json_t *s;
	size_t i;
	int r;

	m->cells = calloc(m->nrows * m->ncols + 1, sizeof(*m->cells));
	if (!m->cells || !buf || !rounds)
		return -ENOMEM;
	for (size_t row = 0; row < m->nrows; row++)
		for (size_t col = 0; col < m->ncols; col++)
			if ((r = compute_cell(m, steps, row, col, buf, rounds)) < 0)
				return r;
	json_array_foreach(steps, i, s) {
		const char *why = json_string_value(json_object_get(s, "reason"));
		enum oltp_rule rule = oltp_step_rule_of_json(s);

		count_start(m, s, rule);
		if (note_slot(m, s) < 0 || model_note_open_loop(m, s) < 0)
			return -ENOMEM;
		if (rule == OLTP_RULE_KEPT)
			continue;
		/* A record from before the rule: what left it out, in its words. */
		if (!why || !json_is_true(json_object_get(s, "failed")))
			why = oltp_rules[rule].label;
		if (model_step_note(m->failures, s, "reason", json_string(why)) < 0 ||
		    json_object_set_new(json_array_get(m->failures, json_array_size(m->failures) - 1), "failure_class",
					json_string(oltp_rules[rule].key)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int model_fill(struct model *m, const json_t *doc, struct strv *ctxs)
{
	const json_t *exp = NULL, *steps = NULL;
	int r;

	r = model_header(m, doc, &exp, &steps);
	if (r >= 0)
		r = collect_contexts(ctxs, exp, steps);
	if (r >= 0)
		r = collect_vary(m, exp, steps);
	if (r >= 0)
		r = collect_threads(m, exp, steps);
	if (r >= 0)
		r = make_columns(m, ctxs);
	if (r >= 0)
		r = compute_cells(m, steps);
	return r < 0 ? r : model_placement_diffs(m, json_object_get(doc, "placements"), ctxs->v, ctxs->n);
}

static int build_measure(const json_t *doc, double level, enum model_measure measure, struct model *ret)
{
	struct strv ctxs = {};
	struct model m = { .level = level, .measure = measure };
	int r;

	if (!(level > 0 && level < 1))
		return -EINVAL;
	r = model_fill(&m, doc, &ctxs);
	free(ctxs.v);
	if (r < 0) {
		model_done(&m);
		return r;
	}
	*ret = m;
	return 0;
}

int model_build(const json_t *doc, double level, struct model *ret)
{
	return build_measure(doc, level, MODEL_TPS, ret);
}

/* The model of doc's measure into *ret (to free and model_done()). */
static int build_other(const json_t *doc, double level, enum model_measure measure, struct model **ret)
{
	struct model *o = calloc(1, sizeof(*o));
	int r = o ? build_measure(doc, level, measure, o) : -ENOMEM;

	if (r < 0) {
		free(o);
		return r;
	}
	*ret = o;
	return 0;
}

int model_build_latency(struct model *m, const json_t *doc)
{
	int r = 0;

	for (size_t i = 0; m->open_loop.rate && r >= 0 && i < MODEL_LATENCIES; i++)
		r = build_other(doc, m->level, MODEL_LATENCY_P50 + i, &m->open_loop.latency[i]);
	if (r >= 0 && m->open_loop.rate && m->open_loop.latency_limit_ms > 0)
		r = build_other(doc, m->level, MODEL_LATE_SHARE, &m->open_loop.late);
	return r;
}

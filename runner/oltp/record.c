/* What all drivers share: the options' defaults, the classes of MySQL
 * errors (ignorable, reconnect, fatal), the step record and its JSON. */
#include <errmsg.h>
#include <inttypes.h>
#include <math.h>
#include <mysqld_error.h>
#include <stddef.h>
#include <stdio.h>

#include "oltp/histogram.h"
#include "oltp/record.h"
#include "common/load.h"
#include "common/util.h"

const struct word oltp_driver_words[] = {
	{ "slicebench", OLTP_DRIVER_NATIVE },
	{ "sysbench", OLTP_DRIVER_SYSBENCH },
	{ "pgbench", OLTP_DRIVER_PGBENCH },
	{ "native", OLTP_DRIVER_NATIVE },
	{},
};

const struct word oltp_arrivals_words[] = {
	{ "poisson", OLTP_ARRIVALS_POISSON },
	{ "constant", OLTP_ARRIVALS_CONSTANT },
	{},
};

const struct word oltp_pin_words[] = {
	{ "all", OLTP_PIN_ALL },
	{ "round-robin", OLTP_PIN_ROUND_ROBIN },
	{},
};

void oltp_options_default(struct oltp_options *o)
{
	*o = (struct oltp_options){
		.user = "root",
		.tables = OLTP_DEFAULT_TABLES,
		.table_size = OLTP_DEFAULT_TABLE_SIZE,
		.scale = 1,
		.range_size = 100,
		.duration_ns = OLTP_DEFAULT_DURATION_S * NSEC_PER_SEC,
		.max_reconnects = 3,
		.timeout_s = 10,
		.sysbench_path = "sysbench",
		.pgbench_path = "pgbench",
	};
	sbrand_params_default(&o->rand);
}

/* sysbench's defaults for --mysql-ignore-errors, and the codes after which
 * its before_restart_event hook reconnects and prepares again. */
enum oltp_err_class oltp_classify_error(unsigned mysql_errno)
{
	switch (mysql_errno) {
	case ER_LOCK_DEADLOCK:
	case ER_CHECKREAD:
	case ER_LOCK_WAIT_TIMEOUT:
		return OLTP_ERR_IGNORABLE;
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_SERVER_LOST_EXTENDED:
	case CR_TCP_CONNECTION:
		return OLTP_ERR_RECONNECT;
	default:
		return OLTP_ERR_FATAL;
	}
}

void step_result_start(struct step_result *r, enum oltp_driver driver, unsigned threads)
{
	*r = (struct step_result){ .threads = threads, .lat_avg_ms = -1, .lat_p50_ms = -1, .lat_p95_ms = -1,
				   .lat_p99_ms = -1, .lat_max_ms = -1,
				   .open_loop = { .service_p50_ms = -1, .service_p95_ms = -1, .service_p99_ms = -1,
						  .lag_avg_ms = -1, .lag_max_ms = -1, .backlog_at_end = UINT64_MAX } };
	(void)text_copy(r->driver, sizeof(r->driver), word_name(oltp_driver_words, driver));
}

void step_result_done(struct step_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_samples; i++)
		oltp_telemetry_sample_done(&r->samples[i]);
	free(r->samples);
	free(r->intervals);
	profile_free(r->profile.folded);
	r->profile.folded = NULL;
	r->samples = NULL;
	r->intervals = NULL;
	r->n_samples = r->n_intervals = 0;
}

/* CPU seconds per second of one counter between the first and the last
 * sample that know it: who got the CPU during the step. */
static json_t *cpu_rate(const struct step_result *r, size_t offset)
{
	const struct oltp_telemetry_sample *first = NULL, *last = NULL;

	for (size_t i = 0; i < r->n_samples; i++)
		if (*(const double *)((const char *)&r->samples[i] + offset) >= 0) {
			first = first ?: &r->samples[i];
			last = &r->samples[i];
		}
	/* A counter that went back (a record from before the server's CPU
	 * was a counter) has no rate: never a negative one. */
	if (!first || last->t_s <= first->t_s ||
	    *(const double *)((const char *)last + offset) < *(const double *)((const char *)first + offset))
		return json_null();
	return json_real((*(const double *)((const char *)last + offset) - *(const double *)((const char *)first + offset)) /
			 (last->t_s - first->t_s));
}

/* {"server": us, "client": us, "proxy": us}: each process's CPU time per
 * transaction, the rates of cpu_per_s over the TPS (the chain's cost, part
 * by part); a proxy only where the step had one. */
static json_t *cpu_per_txn_us(const json_t *per_s, double tps)
{
	json_t *j = json_object(), *v;
	const char *key;

	if (!j || !(tps > 0))
		return j;
	json_object_foreach((json_t *)per_s, key, v)
		if (json_is_number(v) && json_object_set_new(j, key, json_real(json_number_value(v) / tps * 1e6)) < 0) {
			json_decref(j);
			return NULL;
		}
	return j;
}

/* {"server": s/s, "client": s/s, "proxy": s/s, "neighbours": {NAME: s/s}},
 * from the telemetry's cumulative counters. */
static json_t *cpu_per_s(const struct step_result *r)
{
	json_t *j = json_pack("{s:o, s:o}", "server", cpu_rate(r, offsetof(struct oltp_telemetry_sample, server_cpu_s)),
			      "client", cpu_rate(r, offsetof(struct oltp_telemetry_sample, client_cpu_s))), *nb;
	size_t n = r->n_samples ? r->samples[0].n_neighbours : 0;

	if (j && r->n_samples && r->samples[0].proxy_cpu_s >= 0 &&
	    json_object_set_new(j, "proxy", cpu_rate(r, offsetof(struct oltp_telemetry_sample, proxy_cpu_s))) < 0) {
		json_decref(j);
		return NULL;
	}
	if (!j || !n)
		return j;
	nb = json_object();
	if (json_object_set_new(j, "neighbours", nb) < 0) {
		json_decref(j);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (json_object_set_new(nb, r->samples[0].neighbour_names[i],
					cpu_rate(r, offsetof(struct oltp_telemetry_sample, neighbour_cpu_s) + i * sizeof(double))) < 0) {
			json_decref(j);
			return NULL;
		}
	return j;
}

/* The CPU seconds a second of one cumulative counter over the step; 0 if
 * unknown (a part the step did not have). */
static double rate_or_zero(const struct step_result *r, size_t offset)
{
	_cleanup_(json_decrefp) json_t *v = cpu_rate(r, offset);

	return json_is_number(v) ? json_number_value(v) : 0;
}

int step_result_host(const struct step_result *r, struct step_host *ret)
{
	double busy = 0, ours;
	size_t n = 0;

	*ret = (struct step_host){ .load1_max = NAN };
	for (size_t i = 0; i < r->n_samples; i++) {
		if (!isnan(r->samples[i].host_busy_cpus)) {
			busy += r->samples[i].host_busy_cpus;
			n++;
		}
		if (!isnan(r->samples[i].load1))
			ret->load1_max = isnan(ret->load1_max) ? r->samples[i].load1 : MAX(ret->load1_max, r->samples[i].load1);
	}
	if (!n)
		return -ENODATA;
	ours = rate_or_zero(r, offsetof(struct oltp_telemetry_sample, server_cpu_s)) +
	       rate_or_zero(r, offsetof(struct oltp_telemetry_sample, client_cpu_s)) +
	       rate_or_zero(r, offsetof(struct oltp_telemetry_sample, proxy_cpu_s));
	for (size_t i = 0; i < r->samples[0].n_neighbours; i++)
		ours += rate_or_zero(r, offsetof(struct oltp_telemetry_sample, neighbour_cpu_s) + i * sizeof(double));
	ret->cpus = r->samples[r->n_samples - 1].n_cpus;
	ret->busy_cpus = busy / (double)n;
	ret->other_cpus = MAX(ret->busy_cpus - ours, 0.0);
	ret->busy = host_is_busy(ret->other_cpus);
	return 0;
}

/* "host": step_result_host()'s figures. */
static int put_host(json_t *o, const struct step_result *r)
{
	struct step_host h;

	if (step_result_host(r, &h) < 0)
		return 0;
	return json_object_set_new(o, "host",
				   json_pack("{s:i, s:f, s:f, s:o, s:b}", "cpus", (int)h.cpus, "busy_cpus", h.busy_cpus,
					     "other_cpus", h.other_cpus, "load1_max",
					     isnan(h.load1_max) ? json_null() : json_real(h.load1_max), "busy", h.busy)) < 0
		       ? -ENOMEM
		       : 0;
}

/* Who got the CPU during the step, per second and per transaction. */
static int put_cpu(json_t *o, const struct step_result *r)
{
	if (json_object_set_new(o, "cpu_per_s", cpu_per_s(r)) < 0 ||
	    json_object_set_new(o, "cpu_per_txn_us", cpu_per_txn_us(json_object_get(o, "cpu_per_s"), r->tps)) < 0)
		return -ENOMEM;
	return 0;
}

/* "saturation": the client threads, the server threads serving them,
 * the CPUs the context may use and whether the threads are more; none
 * when the CPUs are not known. */
static int put_saturation(json_t *o, const struct step_result *r)
{
	if (!(r->cpus > 0))
		return 0;
	return json_object_set_new(o, "saturation",
				   json_pack("{s:I, s:I, s:f, s:b}", "client_threads",
					     (json_int_t)step_result_client_threads_in(r),
					     "server_threads", (json_int_t)r->threads, "cpus", r->cpus, "saturated",
					     step_result_saturated(r))) < 0
		       ? -ENOMEM
		       : 0;
}

/* What the telemetry says beside the TPS: who got the CPU, what else ran
 * on the host, why the hardware counters are null, the neighbours' TPS. */
static int put_beside(json_t *o, const struct step_result *r)
{
	json_t *nb;

	if (r->n_samples && (put_cpu(o, r) < 0 || put_host(o, r) < 0))
		return -ENOMEM;
	/* The figures that need a PMU are null: say why once. */
	if (r->n_samples && r->samples[0].pmu_why &&
	    json_object_set_new(o, "hardware_counters", json_string(r->samples[0].pmu_why)) < 0)
		return -ENOMEM;
	if (r->n_samples && r->samples[0].wakeups_why &&
	    json_object_set_new(o, "wakeups", json_string(r->samples[0].wakeups_why)) < 0)
		return -ENOMEM;
	if (!r->n_neighbour_tps)
		return 0;
	nb = json_object();
	if (json_object_set_new(o, "neighbour_tps", nb) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_neighbour_tps; i++)
		if (json_object_set_new(nb, r->neighbour_tps_names[i], json_real(r->neighbour_tps[i])) < 0)
			return -ENOMEM;
	return 0;
}

json_t *step_profile_to_json(const struct step_profile *p)
{
	if (p->why)
		return json_pack("{s:s}", "why", p->why);
	if (!p->folded)
		return NULL;
	return json_pack("{s:I, s:b, s:f, s:I, s:I, s:I, s:I, s:o}", "hz", (json_int_t)p->hz, "off_cpu_stacks",
			 p->off_cpu_stacks, "seconds", p->seconds, "samples", (json_int_t)p->samples, "server_samples",
			 (json_int_t)p->server_samples, "lost", (json_int_t)p->lost, "switches", (json_int_t)p->switches,
			 "throttled_ms", oltp_json_real_unless_negative(p->throttled_ms));
}

/* The step's "mechanism" object: a figure per row of the mechanism table. */
static int put_mechanism(json_t *o, const struct step_result *r)
{
	const struct oltp_mechanism_def *rows;
	json_t *mechanism = json_object();
	size_t n_rows;

	if (json_object_set_new(o, "mechanism", mechanism) < 0)
		return -ENOMEM;
	rows = oltp_mechanism_table(&n_rows);
	for (size_t i = 0; i < n_rows; i++) {
		double v = oltp_mechanism_value(&rows[i], r->samples, r->n_samples, r->tps);

		if (json_object_set_new(mechanism, rows[i].key, oltp_json_real_unless_nan(v)) < 0)
			return -ENOMEM;
	}
	return 0;
}

void step_open_loop_service(struct step_open_loop *l, const struct histogram *service, uint64_t lag_sum_ns,
			    uint64_t lag_max_ns)
{
	if (service->count == 0)
		return;
	l->service_p50_ms = (double)histogram_percentile(service, 50) / 1e6;
	l->service_p95_ms = (double)histogram_percentile(service, 95) / 1e6;
	l->service_p99_ms = (double)histogram_percentile(service, 99) / 1e6;
	l->lag_avg_ms = (double)lag_sum_ns / (double)service->count / 1e6;
	l->lag_max_ms = (double)lag_max_ns / 1e6;
}

/* An open-loop step's "open_loop": its rate, where its latencies count
 * from, and what its driver said of the service time, the lag and the
 * backlog; nothing for a closed loop. */
static int put_open_loop(json_t *o, const struct step_open_loop *l)
{
	if (!l->rate)
		return 0;
	return json_object_set_new(
		o, "open_loop",
		json_pack("{s:I, s:s, s:s, s:{s:o, s:o, s:o}, s:{s:o, s:o}, s:o, s:o, s:o, s:o}", "rate",
			  (json_int_t)l->rate, "arrivals", l->constant ? "constant" : "poisson", "latency_from", l->latency_from_start ? "start" : "intended", "service_ms", "p50",
			  oltp_json_real_unless_negative(l->service_p50_ms), "p95",
			  oltp_json_real_unless_negative(l->service_p95_ms), "p99",
			  oltp_json_real_unless_negative(l->service_p99_ms), "lag_ms", "avg",
			  oltp_json_real_unless_negative(l->lag_avg_ms), "max", oltp_json_real_unless_negative(l->lag_max_ms),
			  "backlog_at_end",
			  l->backlog_at_end == UINT64_MAX ? json_null() : json_integer((json_int_t)l->backlog_at_end),
			  "latency_limit_ms", l->latency_limit_ms > 0 ? json_real(l->latency_limit_ms) : json_null(), "late",
			  l->latency_limit_ms > 0 ? json_integer((json_int_t)l->late) : json_null(), "skipped",
			  l->latency_limit_ms > 0 ? json_integer((json_int_t)l->skipped) : json_null()));
}

/* The step's record: figures only, no formatting (the renderers do that). */
int step_result_to_json(const struct step_result *r, json_t **ret)
{
	json_t *o, *intervals, *samples;

	o = json_pack("{s:s, s:I, s:f, s:I, s:I, s:f, s:f, s:{s:o, s:o, s:o, s:o, s:o}, s:{s:I, s:I, s:I}, s:I, s:b}",
		      "driver", r->driver, "threads", (json_int_t)r->threads, "duration_s", r->duration_s,
		      "transactions", (json_int_t)r->transactions, "queries", (json_int_t)r->queries, "tps", r->tps,
		      "qps", r->qps, "latency_ms", "avg", oltp_json_real_unless_negative(r->lat_avg_ms), "p50",
		      oltp_json_real_unless_negative(r->lat_p50_ms), "p95", oltp_json_real_unless_negative(r->lat_p95_ms),
		      "p99", oltp_json_real_unless_negative(r->lat_p99_ms), "max",
		      oltp_json_real_unless_negative(r->lat_max_ms), "errors", "ignorable",
		      (json_int_t)r->errors[OLTP_ERR_IGNORABLE],
		      "reconnect", (json_int_t)r->errors[OLTP_ERR_RECONNECT], "fatal",
		      (json_int_t)r->errors[OLTP_ERR_FATAL], "reconnects", (json_int_t)r->reconnects, "failed",
		      r->failed);
	if (!o)
		return -ENOMEM;
	if (r->failed && (json_object_set_new(o, "reason", json_string(r->reason)) < 0 ||
			  json_object_set_new(o, "failure_class",
					      json_string(oltp_rules[r->rule > OLTP_RULE_KEPT && r->rule < _OLTP_RULE_MAX
									 ? r->rule
									 : OLTP_RULE_FAILED].key)) < 0))
		goto oom;
	if (json_object_set_new(o, "connect_s", r->connect_s > 0 ? json_real(r->connect_s) : json_null()) < 0 ||
	    json_object_set_new(o, "stalled_s", json_integer(r->stalled_s)) < 0 ||
	    json_object_set_new(o, "in_flight_at_end", json_integer((json_int_t)r->in_flight_at_end)) < 0 ||
	    put_saturation(o, r) < 0 || put_open_loop(o, &r->open_loop) < 0)
		goto oom;
	intervals = json_array();
	if (json_object_set_new(o, "intervals_tps", intervals) < 0)
		goto oom;
	for (size_t i = 0; i < r->n_intervals; i++)
		if (json_array_append_new(intervals, json_real(r->intervals[i])) < 0)
			goto oom;
	if (put_mechanism(o, r) < 0 || put_beside(o, r) < 0)
		goto oom;
	if ((r->profile.folded || r->profile.why) &&
	    json_object_set_new(o, "profile", step_profile_to_json(&r->profile)) < 0)
		goto oom;
	samples = json_array();
	if (json_object_set_new(o, "telemetry", samples) < 0)
		goto oom;
	for (size_t i = 0; i < r->n_samples; i++)
		if (json_array_append_new(samples, oltp_telemetry_sample_to_json(&r->samples[i])) < 0)
			goto oom;
	*ret = o;
	return 0;
oom:
	json_decref(o);
	return -ENOMEM;
}

/* A telemetry sample as its record keeps it: its JSON, and its arrays
 * freed (oltp/telemetry.c takes it). */
#include <math.h>

#include "oltp/sample.h"
#include "oltp/pmu.h"
#include "common/util.h"

void oltp_telemetry_sample_done(struct oltp_telemetry_sample *s)
{
	if (!s)
		return;
	free(s->server_per_l3);
	free(s->client_per_l3);
	free(s->server_per_node);
	free(s->client_per_node);
	s->server_per_l3 = s->client_per_l3 = s->server_per_node = s->client_per_node = NULL;
}

static json_t *counts_to_json(const unsigned *v, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && v && i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *known_or_null(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

json_t *oltp_json_real_unless_nan(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

json_t *oltp_json_real_unless_negative(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

static json_t *counter_or_null(uint64_t v)
{
	return v == OLTP_PMU_UNKNOWN ? json_null() : json_integer((json_int_t)v);
}

/* The host's figures the sample has besides the first ones (common/load.h). */
static int put_host_figures(json_t *j, const struct oltp_telemetry_sample *s)
{
	if (json_object_set_new(j, "wall_s", json_real(s->wall_s)) < 0 ||
	    json_object_set_new(j, "cpu_iowait_pct", oltp_json_real_unless_nan(s->cpu_iowait_pct)) < 0 ||
	    json_object_set_new(j, "host_busy_cpus", oltp_json_real_unless_nan(s->host_busy_cpus)) < 0 ||
	    json_object_set_new(j, "cpus", json_integer(s->n_cpus)) < 0 ||
	    json_object_set_new(j, "tasks_running", json_integer(s->tasks_running)) < 0 ||
	    json_object_set_new(j, "tasks_uninterruptible", json_integer(s->tasks_uninterruptible)) < 0 ||
	    json_object_set_new(j, "server_vol_ctxt", json_integer((json_int_t)s->server_vol_ctxt)) < 0 ||
	    json_object_set_new(j, "client_vol_ctxt", json_integer((json_int_t)s->client_vol_ctxt)) < 0 ||
	    json_object_set_new(j, "server_instructions", counter_or_null(s->server_instructions)) < 0 ||
	    json_object_set_new(j, "server_cycles", counter_or_null(s->server_cycles)) < 0 ||
	    json_object_set_new(j, "server_llc_misses", counter_or_null(s->server_llc_misses)) < 0 ||
	    (s->server_wakeups != OLTP_PMU_UNKNOWN &&
	     (json_object_set_new(j, "server_wakeups", counter_or_null(s->server_wakeups)) < 0 ||
	      json_object_set_new(j, "server_wakeups_cross_l3", counter_or_null(s->server_wakeups_cross_l3)) < 0 ||
	      json_object_set_new(j, "wakeups_lost", counter_or_null(s->wakeups_lost)) < 0)))
		return -ENOMEM;
	return 0;
}

json_t *oltp_telemetry_sample_to_json(const struct oltp_telemetry_sample *s)
{
	json_t *j, *nb = NULL;

	/* Neighbours only when the step had some, so that a step's record
	 * without them is what it was before. */
	if (s->n_neighbours) {
		nb = json_object();
		for (size_t i = 0; nb && i < s->n_neighbours; i++)
			if (json_object_set_new(nb, s->neighbour_names[i], oltp_json_real_unless_negative(s->neighbour_cpu_s[i])) < 0) {
				json_decref(nb);
				return NULL;
			}
		if (!nb)
			return NULL;
	}
	j = json_pack("{s:f, s:o, s:o, s:o, s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, "
			 "s:I, s:I, s:I, s:I}",
			 "t_s", s->t_s, "cpu_user_pct", oltp_json_real_unless_nan(s->cpu_user_pct), "cpu_sys_pct",
			 oltp_json_real_unless_nan(s->cpu_sys_pct), "cpu_idle_pct", oltp_json_real_unless_nan(s->cpu_idle_pct), "load1",
			 oltp_json_real_unless_nan(s->load1), "procs_running", (int)s->procs_running,
			 "procs_blocked", (int)s->procs_blocked,
			 "ctxt_per_s", oltp_json_real_unless_nan(s->ctxt_per_s), "server_cpu_s",
			 oltp_json_real_unless_negative(s->server_cpu_s), "nr_throttled",
			 known_or_null(s->nr_throttled), "throttled_usec", known_or_null(s->throttled_usec),
			 "server_per_l3", counts_to_json(s->server_per_l3, s->n_l3), "client_per_l3",
			 counts_to_json(s->client_per_l3, s->n_l3), "server_per_node",
			 counts_to_json(s->server_per_node, s->n_nodes), "client_per_node",
			 counts_to_json(s->client_per_node, s->n_nodes), "server_migrations",
			 (json_int_t)s->server_migrations, "client_migrations", (json_int_t)s->client_migrations,
			 "server_nonvol_ctxt", (json_int_t)s->server_nonvol_ctxt, "client_nonvol_ctxt",
			 (json_int_t)s->client_nonvol_ctxt, "server_runq_wait_ns", (json_int_t)s->server_runq_wait_ns,
			 "client_runq_wait_ns", (json_int_t)s->client_runq_wait_ns, "server_run_ns",
			 (json_int_t)s->server_run_ns, "server_run_on_client_cpu_ns",
			 (json_int_t)s->server_run_on_client_cpu_ns);

	if (j && (json_object_set_new(j, "client_cpu_s", oltp_json_real_unless_negative(s->client_cpu_s)) < 0 ||
		  put_host_figures(j, s) < 0)) {
		json_decref(j);
		j = NULL;
	}
	/* Only a step through a proxy has one, so that the others' records are what they were. */
	if (j && s->proxy_cpu_s >= 0 && json_object_set_new(j, "proxy_cpu_s", json_real(s->proxy_cpu_s)) < 0) {
		json_decref(j);
		j = NULL;
	}
	if (j && nb && json_object_set_new(j, "neighbour_cpu_s", nb) < 0) {
		json_decref(j);
		return NULL;
	}
	if (!j)
		json_decref(nb);
	return j;
}

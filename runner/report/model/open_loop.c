/* An open-loop run's steps as the report's model reads them
 * (report/model/model.h): the rate, where a driver timed the latencies
 * from, the steps whose arrivals outran the server, and a step's share of
 * late arrivals. */
#include <math.h>

#include "report/model/model.h"
#include "common/util.h"

/* An open-loop step's rate and driver, and (the TPS model's, which the
 * report renders) whether its arrivals outran the server: more than 1% of
 * them still waited at the step's end (a Poisson stream leaves a few at
 * any pace), whose latencies are in no figure. */
int model_note_open_loop(struct model *m, const json_t *s)
{
	const json_t *l = json_object_get(s, "open_loop");
	double backlog = json_number_value(json_object_get(l, "backlog_at_end")),
	       done = json_number_value(json_object_get(s, "transactions"));

	if (!json_is_object(l))
		return 0;
	m->open_loop.rate = MAX(m->open_loop.rate, (unsigned)json_integer_value(json_object_get(l, "rate")));
	m->open_loop.constant |= streq_ptr(json_string_value(json_object_get(l, "arrivals")), "constant");
	m->open_loop.from_start |= streq_ptr(json_string_value(json_object_get(l, "latency_from")), "start");
	m->open_loop.latency_limit_ms = MAX(m->open_loop.latency_limit_ms,
					    json_number_value(json_object_get(l, "latency_limit_ms")));
	if (m->measure != MODEL_TPS || !(backlog > 0.01 * (backlog + done)))
		return 0;
	if (!m->open_loop.outran && !(m->open_loop.outran = json_array()))
		return -ENOMEM;
	if (model_step_note(m->open_loop.outran, s, "backlog_at_end", json_integer((json_int_t)backlog)) < 0)
		return -ENOMEM;
	return json_object_set_new(json_array_get(m->open_loop.outran, json_array_size(m->open_loop.outran) - 1),
				   "transactions", json_integer((json_int_t)done)) < 0 ? -ENOMEM : 0;
}

/* A step's share of late arrivals: its transactions above the latency
 * limit and its skipped arrivals, of the two counts' arrivals; NAN: none
 * recorded. */
double model_step_late_share(const json_t *s)
{
	const json_t *l = json_object_get(s, "open_loop"), *late = json_object_get(l, "late"),
		     *skipped = json_object_get(l, "skipped");
	double all = json_number_value(json_object_get(s, "transactions")) + json_number_value(skipped);

	if (!json_is_integer(late) || !json_is_integer(skipped) || !(all > 0))
		return NAN;
	return (json_number_value(late) + json_number_value(skipped)) / all;
}

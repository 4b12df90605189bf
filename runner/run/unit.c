/* A unit of a run: a fresh server in a context (at a vary value, in a
 * repeat), its placement recorded, its steps one per thread count, each
 * recorded as it finishes, and the server stopped. */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>

#include "run/runner.h"
#include "common/interrupt.h"
#include "slices/attr/snapshot.h"
#include "slices/server/proxy.h"

bool runner_unit_done(const struct runner *rn, const char *unit)
{
	char name[160];

	for (size_t t = 0; t < rn->e->n_threads; t++) {
		if (results_step_file(unit, rn->e->threads[t], name, sizeof(name)) < 0 || !results_have(rn->res, name))
			return false;
	}
	return true;
}

/* Step s of unit, begun at started_at, recorded; then the document of
 * record rebuilt. */
static int put_step(struct runner *rn, const struct managed_unit *u, double started_at, const struct step_result *s)
{
	const struct experiment *e = rn->e;
	const struct results_step_place place = {
		.context = u->names.column,
		.unit = u->names.name,
		.vary_value = e->n_vary ? e->vary_values[u->v] : NULL,
		.server_pid = u->server_pid,
		.repeat = u->repeat,
		.slot = rn->slot,
		.started_at = started_at,
	};
	char name[160] = "steps";
	int r;

	r = results_put_step(rn->res, &place, s, name, sizeof(name));
	if (r < 0)
		return log_error_errno(r, "%s: cannot write %s/%s: %m", rn->verb, results_dir(rn->res), name);
	/* The step is kept even when the document of record cannot follow
	 * (a full disk): say which file failed. */
	r = results_rebuild(rn->res);
	if (r < 0)
		return log_error_errno(r, "%s: cannot write %s/results.json: %m (the step is kept in %s)", rn->verb,
				       results_dir(rn->res), name);
	return 0;
}

/* A step that did not run: recorded as failed, so that the report shows a
 * gap and not a zero. */
int runner_put_failed_steps(struct runner *rn, const struct managed_unit *u, size_t from, enum oltp_rule why,
			    const char *reason)
{
	int r = 0;

	for (size_t t = from; t < rn->e->n_threads && r >= 0; t++) {
		struct step_result s = { .threads = (unsigned)rn->e->threads[t], .failed = true, .rule = why };
		char name[160];

		/* A step recorded before (--resume) stays as it was. */
		if (results_step_file(u->names.name, rn->e->threads[t], name, sizeof(name)) >= 0 &&
		    results_have(rn->res, name))
			continue;

		(void)text_copy(s.driver, sizeof(s.driver), word_name(oltp_driver_words, rn->e->oltp.driver));
		(void)text_copy(s.reason, sizeof(s.reason), reason);
		s.lat_avg_ms = s.lat_p50_ms = s.lat_p95_ms = s.lat_p99_ms = s.lat_max_ms = -1;
		r = put_step(rn, u, wall_clock_s(), &s);
		rn->steps_failed++;
	}
	return r;
}

int runner_put_placement(struct runner *rn, const struct managed_unit *u, const struct oltp_options *o)
{
	_cleanup_(placement_done) struct placement p = {};
	char name[160];
	json_t *j;
	int r;

	r = managed_unit_placement(u, o, &p);
	if (r < 0)
		return r;
	j = placement_to_json(&p);
	if (!j)
		return -ENOMEM;
	r = results_placement_file(u->names.name, name, sizeof(name));
	if (r >= 0)
		r = results_put(rn->res, name, j);
	json_decref(j);
	return r;
}

/* The CPUs of cpu_dir's quota (cgroup v2's cpu.max, v1's
 * cpu.cfs_quota_us over cpu.cfs_period_us); 0: none or not known. */
static double quota_cpus(const char *cpu_dir)
{
	_cleanup_free_ char *max = NULL, *quota = NULL, *period = NULL, *p1 = NULL, *p2 = NULL, *p3 = NULL;
	double q = 0, per = 0;
	char word[32];

	if (!cpu_dir || xasprintf(&p1, "%s/cpu.max", cpu_dir) < 0 || xasprintf(&p2, "%s/cpu.cfs_quota_us", cpu_dir) < 0 ||
	    xasprintf(&p3, "%s/cpu.cfs_period_us", cpu_dir) < 0)
		return 0;
	if (read_file_str(p1, &max) >= 0 && sscanf(max, "%31s %lf", word, &per) == 2 && sscanf(word, "%lf", &q) == 1)
		return per > 0 && q > 0 ? q / per : 0;
	if (read_file_str(p2, &quota) >= 0 && read_file_str(p3, &period) >= 0 && sscanf(quota, "%lf", &q) == 1 &&
	    sscanf(period, "%lf", &per) == 1)
		return per > 0 && q > 0 ? q / per : 0;
	return 0;
}

/* The CPUs the server in pid's context may use: its affinity, which its
 * cpuset bounds, and its quota when less; 0 when not known. */
static double context_cpus(pid_t pid, const char *cpu_dir)
{
	cpu_set_t set;
	double cpus, quota;

	if (pid <= 0 || sched_getaffinity(pid, sizeof(set), &set) < 0)
		return 0;
	cpus = CPU_COUNT(&set);
	quota = quota_cpus(cpu_dir);
	return quota > 0 ? MIN(cpus, quota) : cpus;
}

/* Were the client threads pinned to CPUs the server in pid may not use? */
static bool client_apart(pid_t pid, const struct oltp_options *o)
{
	cpu_set_t set;

	if (!o->n_client_cpus || pid <= 0 || sched_getaffinity(pid, sizeof(set), &set) < 0)
		return false;
	for (size_t k = 0; k < o->n_client_cpus; k++)
		if (o->client_cpus[k] < CPU_SETSIZE && CPU_ISSET(o->client_cpus[k], &set))
			return false;
	return true;
}

/* The CPUs of the server in pid's context, and whether the client ran
 * apart from them, for the step's saturation; pid 0: not known. */
static void step_cpus(struct step_result *s, pid_t pid, const struct oltp_options *o)
{
	s->cpus = context_cpus(pid, o->server_cpu_cgroup);
	s->client_apart = client_apart(pid, o);
}

/* After a failed step: which of the unit's processes is no longer
 * running, in the words of the steps that cannot run; NULL: neither. */
static const char *process_gone(struct managed_unit *u)
{
	if (!process_alive(&u->c.pid))
		return "the server was no longer running";
	if (u->proxy_started && !process_alive(&u->proxy.pid))
		return "the proxy was no longer running";
	return NULL;
}

/* The rule (oltp.h) for a warm-up that failed with r and msg: the unit's
 * steps would run on a cold buffer pool, so they are recorded as left
 * out, said as such, and not run. */
static int warmup_failed(struct runner *rn, const struct managed_unit *u, int r, const char *msg)
{
	_cleanup_free_ char *reason = NULL;
	int result;

	log_error("%s: %s: warming the buffer pool: %s; its steps are left out", rn->verb, u->names.name,
		  msg ? msg : strerror(-r));
	if (xasprintf(&reason, "the warm-up failed: %s", msg ? msg : strerror(-r)) < 0)
		return log_error_errno(-ENOMEM, "%s: %s: %m", rn->verb, u->names.name);
	result = runner_put_failed_steps(rn, u, 0, OLTP_RULE_WARMUP, reason);
	rn->steps_done += rn->e->n_threads;
	return result;
}

/* A step's end: its failure logged, or its TPS as progress, and beside it
 * what a reader must weigh it with: 800 clients take tens of seconds to
 * connect here (said apart from the TPS, which does not count them), and
 * a busy host. */
static void step_said(struct runner *rn, const char *unit, const struct oltp_options *o, long threads,
		      const struct step_result *s)
{
	const char *what = oltp_size_unit(o->workload, threads);
	char connecting[64] = "", busy[96] = "";
	struct step_host h;

	if (s->failed) {
		log_error("%s: %s: %ld %s failed: %s", rn->verb, unit, threads, what, s->reason);
		rn->steps_failed++;
		return;
	}
	if (s->connect_s >= 0.05)
		snprintf(connecting, sizeof(connecting), ", measured after %.1f s of connecting", s->connect_s);
	if (step_result_host(s, &h) >= 0 && h.busy)
		snprintf(busy, sizeof(busy), "; the host was busy: load %.0f on %u CPUs, %.2f of them outside slicebench's",
			 h.load1_max, h.cpus, h.other_cpus);
	runner_progress(PROGRESS_STEP, "unit %zu/%zu %s: %ld %s: %.1f TPS%s%s", rn->units_done, rn->plan->n_units, unit,
			threads, what, s->tps, connecting, busy);
}

/* The steps of a unit whose server runs (c), those not yet recorded, after
 * the buffer pool's warm-up.  Returns <0 for what must end the run. */
int runner_unit_steps(struct runner *rn, struct managed_unit *u, const struct oltp_options *o)
{
	const struct experiment *e = rn->e;
	const char *unit = u->names.name;
	_cleanup_free_ char *msg = NULL;
	char name[160], left[32];
	const char *gone;
	int r, result = 0;

	r = oltp_prewarm(o, &msg);
	if (r < 0 && !interrupt_signal)
		return warmup_failed(rn, u, r, msg);
	for (size_t t = 0; t < e->n_threads && result >= 0; t++) {
		struct step_result s = {};
		struct oltp_options step_o = *o;
		double started_at;

		if (results_step_file(unit, e->threads[t], name, sizeof(name)) >= 0 && results_have(rn->res, name)) {
			rn->steps_done++;
			continue;
		}
		runner_eta(rn, left, sizeof(left));
		runner_progress(PROGRESS_STEP, "unit %zu/%zu %s: %ld %s, ETA %s", rn->units_done, rn->plan->n_units,
				unit, e->threads[t], oltp_size_unit(o->workload, e->threads[t]), left);
		started_at = wall_clock_s();
		rn->steps_run++;
		r = runner_step(rn, u, &step_o, (unsigned)e->threads[t], &s);
		step_cpus(&s, r < 0 ? 0 : u->c.pid, o);
		if (r < 0) {
			snprintf(s.reason, sizeof(s.reason), "the step could not be set up: %s", strerror(-r));
			s.failed = true;
			s.threads = (unsigned)e->threads[t];
		}
		if (interrupt_signal) {
			/* A step cut short by a signal is not a result. */
			step_result_done(&s);
			return -EINTR;
		}
		step_said(rn, unit, o, e->threads[t], &s);
		r = put_step(rn, u, started_at, &s);
		rn->steps_done++;
		if (r < 0)
			result = r; /* put_step() said which file */
		else if (s.failed && e->on_error == ON_ERROR_STOP)
			result = -ECANCELED;
		else if (s.failed && (gone = process_gone(u))) {
			/* The server or the proxy is gone: the unit's other steps cannot run. */
			result = runner_put_failed_steps(rn, u, t + 1, OLTP_RULE_SERVER_GONE, gone);
			rn->steps_done += e->n_threads - t - 1;
			step_result_done(&s);
			break;
		}
		step_result_done(&s);
	}
	return result;
}

/* The progress line of a unit's start: the server's, then its proxy's. */
static void unit_progress(void *userdata, const struct managed_unit *u, enum managed_stage stage)
{
	struct runner *rn = userdata;
	char left[32];

	if (stage == MANAGED_COPIED_DATADIR) {
		rn->copy_s += u->copy.seconds;
		runner_progress(PROGRESS_STEP, "unit %zu/%zu %s: a pristine datadir (%s of %.1f MB in %" PRIu64 " files) in %.2f s",
				rn->units_done, rn->plan->n_units, u->names.name, u->copy.how, (double)u->copy.bytes / 1e6,
				u->copy.files, u->copy.seconds);
		return;
	}
	if (stage == MANAGED_STARTING_PROXY) {
		const struct context_spec *proxy = &rn->e->proxies[u->proxy_index];

		runner_progress(PROGRESS_STEP, "unit %zu/%zu %s: starting [proxy %s] (%s)", rn->units_done,
				rn->plan->n_units, u->names.name, proxy->name, context_kind_to_string(proxy->kind));
		return;
	}
	runner_eta(rn, left, sizeof(left));
	runner_progress(PROGRESS_UNIT, "unit %zu/%zu %s (%s%s): starting the server, ETA %s", rn->units_done,
			rn->plan->n_units, u->names.name, context_kind_to_string(u->spec.kind), u->live ? ", live" : "",
			left);
}

int runner_unit_init(struct runner *rn, struct managed_unit *u)
{
	u->verb = rn->verb;
	u->e = rn->e;
	u->servers = &rn->servers;
	u->progress = unit_progress;
	u->userdata = rn;
	return managed_unit_init(u);
}

void runner_unit_begins(struct runner *rn)
{
	rn->units_done++;
	if (!rn->work_start_ns)
		rn->work_start_ns = now_ns();
}

/* The line of a log's tail that says what went wrong (haproxy's ALERT,
 * pgbouncer's ERROR or FATAL), else its last: what a failed step's short
 * reason keeps of a proxy's start.  Points into text. */
static const char *alarm_line(char *text)
{
	static const char *const words[] = { "ALERT", "FATAL", "ERROR" };
	char *last = text, *nl;

	for (char *line = text; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		for (size_t i = 0; i < ELEMENTSOF(words); i++)
			if (strstr(line, words[i]))
				return line;
		last = line;
	}
	return last;
}

/* A unit whose server or proxy did not start (r, msg): its steps
 * recorded as failed, what it made undone. */
static int unit_start_failed(struct runner *rn, struct managed_unit *u, int r, char *msg)
{
	const struct experiment *e = rn->e;
	_cleanup_free_ char *reason = NULL;
	int result;

	if (u->proxy_failed) {
		log_error("%s: %s: the proxy did not start as %s: %s", rn->verb, u->names.name,
			  context_kind_to_string(u->proxy_spec.kind), strempty(msg));
		xasprintf(&reason, "the proxy did not start: %s", msg ? alarm_line(msg) : "it said nothing");
	} else {
		log_error_errno(r, "%s: %s: the server did not start as %s: %m%s%s", rn->verb, u->names.name,
				context_kind_to_string(u->spec.kind), msg ? "; " : "", strempty(msg));
		xasprintf(&reason, "the server did not start: %s", strerror(-r));
	}
	result = runner_put_failed_steps(rn, u, 0, OLTP_RULE_FAILED, reason ? reason : "the server did not start");
	rn->steps_done += e->n_threads;
	managed_unit_stop(u);
	return result < 0 ? result : e->on_error == ON_ERROR_STOP ? -ECANCELED : 0;
}

/* One unit: a fresh server in the context, its steps, the server stopped.
 * Returns <0 only for what must end the run (a results write that failed,
 * on-error = stop, a signal). */
int runner_run_unit(struct runner *rn, size_t ctx, size_t v, unsigned repeat)
{
	const struct experiment *e = rn->e;
	_cleanup_free_ char *msg = NULL;
	struct managed_unit u = { .ctx = ctx, .v = v, .repeat = repeat };
	struct oltp_options o = rn->o;
	const char *unit = u.names.name;
	int r, result;

	r = runner_unit_init(rn, &u);
	if (r < 0)
		return log_error_errno(r, "%s: %s: %m", rn->verb, e->contexts[ctx].name);
	if (runner_unit_done(rn, unit)) {
		rn->steps_done += e->n_threads;
		return 0;
	}
	runner_unit_begins(rn);
	r = managed_unit_start(&u, &o, &msg);
	if (r < 0 && !u.c.ops)
		return log_error_errno(r, "%s: %s: %m", rn->verb, unit);
	if (r < 0 && interrupt_signal) {
		/* A start cut short by a signal is not a failure of the unit: its
		 * steps stay unrun, so that --resume runs them. */
		managed_unit_stop(&u);
		return -EINTR;
	}
	if (r < 0)
		return unit_start_failed(rn, &u, r, msg);
	r = runner_put_placement(rn, &u, &o);
	if (r < 0)
		log_warning_errno(r, "%s: %s: cannot record the placement: %m", rn->verb, unit);
	result = runner_unit_steps(rn, &u, &o);
	r = managed_unit_stop(&u);
	if (r < 0)
		log_warning_errno(r, "%s: %s: stopping the server: %m", rn->verb, unit);
	return result;
}

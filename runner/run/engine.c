/* The run engine: an experiment from start to finish.  The plan is
 * repeats x vary values x contexts, interleaved (A B C D A B C D) so that
 * drift on the machine does not land on one context, with a fresh server
 * for every unit; every finished step is a file of its own, so an
 * interrupted run keeps them and --resume runs only what is missing. */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "experiment/experiment.h"
#include "run/runner.h"
#include "host/busy.h"
#include "host/calibration.h"
#include "host/facts.h"
#include "common/interrupt.h"
#include "managed/managed.h"
#include "managed/unit.h"
#include "slices/server/datadir.h"
#include "store/results.h"
#include "slices/attr/snapshot.h"
#include "managed/state.h"
#include "common/secret.h"
#include "common/rng.h"
#include "common/input.h"
#include "common/util.h"

static void options_for(const struct experiment *e, struct oltp_options *o, char *db, size_t db_len)
{
	*o = e->oltp;
	/* One database per dataset shape, so that experiments of different
	 * sizes reuse their own data on the one managed server. */
	if (streq(oltp_workload_def(e->oltp.workload)->protocol, "postgresql"))
		snprintf(db, db_len, "pgbench_s%u", e->oltp.scale);
	else
		snprintf(db, db_len, "sbtest_%ux%u", e->oltp.tables, e->oltp.table_size);
	o->db = db;
}

/* The template's dataset: the database (one per shape) and what its rows
 * are drawn with. */
static int dataset_of(const struct oltp_options *o, char **ret)
{
	return xasprintf(ret, "%s rand=%s/%u/%u/%u/%g", oltp_db(o), sbrand_type_to_string(o->rand.type), o->rand.spec_iter,
			 o->rand.spec_pct, o->rand.spec_res, o->rand.pareto_h);
}

/* The dataset loaded by a server with no placement of its own into an
 * empty datadir, which then becomes the template. */
static int prepare_template_data(struct runner *rn)
{
	_cleanup_free_ char *msg = NULL;
	struct context_spec spec = { .kind = CONTEXT_RAW };
	struct context c = { .ops = context_ops_for(CONTEXT_RAW), .spec = &spec, .server = &rn->servers.server,
			     .mode = cgroup_mode_detect() };
	struct oltp_options o = rn->o;
	char size[96];
	int r;

	snprintf(spec.name, sizeof(spec.name), "prepare");
	oltp_workload_def(o.workload)->data_size(&o, size, sizeof(size));
	runner_progress(PROGRESS_UNIT, "preparing %s", size);
	r = server_datadir_renew(&rn->servers.server);
	if (r < 0)
		return log_error_errno(r, "%s: cannot make an empty datadir %s for the dataset: %m", rn->verb,
				       rn->servers.server.datadir);
	r = managed_start(&c, &msg);
	if (r < 0)
		return log_error_errno(r, "%s: the server for the dataset did not start: %m%s%s", rn->verb,
				       msg ? "; " : "", strempty(msg));
	o.socket = rn->servers.server.socket;
	r = oltp_prepare(&o, &msg);
	if (r < 0)
		log_error_errno(r, "%s: preparing the dataset: %s", rn->verb, msg ? msg : strerror(-r));
	managed_stop(&c);
	return r;
}

/* The dataset is made once per server binary, and kept as a template
 * datadir (slices/server/datadir.h), so that no unit measures a server
 * still flushing the load, and each unit starts from the same rows. */
static int prepare_shared_dataset(struct runner *rn)
{
	_cleanup_free_ char *dataset = NULL, *key = NULL, *name = NULL, *why = NULL;
	int r;

	r = dataset_of(&rn->o, &dataset);
	if (r >= 0)
		r = datadir_template_key(&rn->servers.server, dataset, &key, &name);
	if (r >= 0)
		r = datadir_template_find(&rn->servers.server, key, name, &rn->servers.template, &why);
	if (r == -EPERM)
		return log_error_errno(r, "%s: " DATADIR_TEMPLATES "/ beside %s is not a directory that slicebench made and "
				       "root alone can write; refusing to use or touch it", rn->verb, rn->servers.server.datadir);
	if (r < 0)
		return log_error_errno(r, "%s: the dataset's template datadir: %m", rn->verb);
	if (r > 0) {
		runner_progress(PROGRESS_NOTE, "the dataset's template %s (%.1f MB) checked against its manifest",
				rn->servers.template->name, (double)rn->servers.template->bytes / 1e6);
		return 0;
	}
	if (why)
		log_warning("%s: the template %s is built anew: %s", rn->verb, name, why);
	r = prepare_template_data(rn);
	if (r < 0)
		return r;
	r = datadir_template_save(&rn->servers.server, key, name, &rn->servers.template);
	if (r < 0)
		return log_error_errno(r, "%s: cannot keep the prepared datadir as the template %s: %m", rn->verb, name);
	return 0;
}

int run_check_reaches_host(const char *verb, const char *dir)
{
	_cleanup_free_ char *why = NULL;
	int r = results_reaches_host(dir, &why);

	if (r == -EXDEV)
		return log_error_errno(r, "%s: %s", verb, why);
	if (r < 0)
		return log_error_errno(r, "%s: cannot tell whether %s reaches the host from the sandbox: %m", verb, dir);
	return 0;
}

static int open_results(const char *verb, const char *out, bool resume, const struct experiment *e,
			struct results **ret)
{
	_cleanup_free_ char *dir = NULL;
	char stamp[32];
	time_t now = time(NULL);
	int r;

	if (out)
		dir = strdup(out);
	else {
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		xasprintf(&dir, "results/%s-%s", e->name, stamp);
	}
	if (!dir)
		return log_error_errno(-ENOMEM, "%s: %m", verb);
	r = run_check_reaches_host(verb, dir);
	if (r < 0)
		return r;
	r = results_open(dir, resume, ret);
	if (r == -EBUSY)
		return log_error_errno(r, "%s: another run holds %s", verb, dir);
	if (r == -EEXIST)
		return log_error_errno(r, "%s: %s already holds results (--resume %s to finish it)", verb, dir, dir);
	if (r == -ENOENT && resume)
		return log_error_errno(r, "%s: --resume %s: there is no such directory to resume", verb, dir);
	if (r == -ENOTEMPTY)
		return log_error_errno(r, "%s: --out %s: refused: a directory that holds other files than a results directory of "
				 "slicebench's (give a new or an empty one)", verb, dir);
	if (r < 0)
		return log_error_errno(r, "%s: cannot write results to %s: %m%s", verb, dir,
				       r == -ELOOP ? " (a symbolic link, or under one that root did not make: give the directory itself)" : "");
	return 0;
}

/* The results directory's log, appended to (a resumed run adds to it);
 * -errno. */
static int open_run_log(const struct results *res)
{
	_cleanup_free_ char *path = NULL;
	int fd;

	if (xasprintf(&path, "%s/" RUN_LOG, results_dir(res)) < 0)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
	return fd < 0 ? -errno : fd;
}

/* The results directory's log opened and every message copied there;
 * the fd, or -errno when it cannot be (said: the journal has it all). */
static int log_begin(struct runner *rn)
{
	int fd = open_run_log(rn->res);

	if (fd < 0)
		log_warning_errno(fd, "%s: cannot open %s/" RUN_LOG ": %m (the progress goes to the journal only)", rn->verb,
				  results_dir(rn->res));
	log_copy_to(fd);
	return fd;
}

static void log_end(int fd)
{
	status_clear();
	log_copy_to(-EBADF);
	if (fd >= 0)
		close(fd);
}

/* Files run reads back as it wrote them, and the same experiment, or
 * --resume would mix two designs in one table. */
static int check_resumed(const char *verb, struct results *res, const json_t *exp)
{
	_cleanup_free_ char *path = NULL, *why = NULL;
	json_t *doc = NULL, *old;
	int same, r;

	r = results_load(results_dir(res), &doc, &why);
	if (r == -EBADMSG)
		return log_error_errno(r, "%s: --resume %s: %s (not as slicebench run writes it)", verb, results_dir(res), why);
	if (r < 0)
		return log_error_errno(r, "%s: --resume %s: %m", verb, results_dir(res));
	if (xasprintf(&path, "%s/experiment.json", results_dir(res)) < 0) {
		json_decref(doc);
		return -ENOMEM;
	}
	old = json_object_get(doc, "experiment");
	if (json_is_null(old)) {
		json_decref(doc);
		return 0;
	}
	json_object_del(old, "path");
	same = json_equal(old, exp);
	json_decref(doc);
	if (!same)
		return log_error_errno(-EINVAL, "%s: %s was run with another version of this experiment; start a new run", verb, path);
	return 0;
}

/* This host's calibration, when one was taken here, with the host facts:
 * report quotes the sigma the run was planned with from the directory
 * alone, wherever it is read later. */
static int host_put_calibration(json_t *host)
{
	struct server_config cfg = {};
	struct calibration c;
	char why[160];
	int r;

	managed_config_default(&cfg);
	r = calibration_of_this_host(cfg.state_dir, &c, why, sizeof(why));
	if (r <= 0)
		return r;
	return json_object_set_new(host, "calibration", calibration_to_json(&c)) < 0 ? -ENOMEM : 0;
}

static int write_run_facts(const char *verb, struct results *res, const struct experiment *e, bool resume)
{
	json_t *exp = experiment_to_json(e), *host = NULL;
	int r;

	if (!exp)
		return log_error_errno(-ENOMEM, "%s: %m", verb);
	json_object_del(exp, "path");
	/* As it is written, so that a resumed run compares like with like. */
	r = secret_mask_json(exp);
	if (r >= 0 && resume)
		r = check_resumed(verb, res, exp);
	if (r >= 0)
		r = results_put(res, "experiment.json", exp);
	json_decref(exp);
	if (r >= 0 && !(resume && results_have(res, "host.json"))) {
		r = host_facts_collect(&host);
		if (r >= 0)
			r = host_put_calibration(host);
		if (r >= 0)
			r = results_put(res, "host.json", host);
		json_decref(host);
	}
	/* check_resumed() said why it refused. */
	return r < 0 && r != -EINVAL && r != -EBADMSG ? log_error_errno(r, "%s: cannot write to %s: %m", verb, results_dir(res)) : r;
}

/* The seed of the rounds' orders: a resumed run's own (schedule.json),
 * else the one asked for, else a fresh one. */
static int choose_seed(struct runner *rn, const struct run_options *o, bool resume)
{
	_cleanup_free_ char *path = NULL, *why = NULL;
	json_t *sched = NULL;
	int r;

	if (resume && xasprintf(&path, "%s/" RESULTS_SCHEDULE, results_dir(rn->res)) >= 0 &&
	    (sched = input_load_json(path, INPUT_JSON_MAX, &why))) {
		const json_t *seed = json_object_get(sched, "seed");
		int order;
		bool kept = json_is_integer(seed) &&
			    word_lookup(run_order_words, json_string_value(json_object_get(sched, "order")), &order) >= 0;

		if (kept) {
			rn->seed = (uint64_t)json_integer_value(seed);
			rn->order = (enum run_order)order;
		}
		if (json_is_string(json_object_get(sched, "command")))
			rn->kept_command = strdup(json_string_value(json_object_get(sched, "command")));
		r = runner_resume_looks(rn, sched);
		json_decref(sched);
		if (r < 0)
			return log_error_errno(r, "%s: --resume: %s/" RESULTS_SCHEDULE ": looks not as run writes them", rn->verb,
					 results_dir(rn->res));
		if (kept)
			return 0;
	}
	if (o->seed_given) {
		rn->seed = o->seed;
		return 0;
	}
	r = rng_fresh_seed(&rn->seed);
	return r < 0 ? log_error_errno(r, "%s: cannot draw a seed for the order of the rounds: %m", rn->verb) : 0;
}

/* The managed server, the oltp neighbours' own servers, and with [client]
 * scope the load generator in a scope of its own; a datadir made now has
 * its installer's chatter in log_fd, the run's log. */
static int runner_setup(struct runner *rn, int log_fd)
{
	const struct experiment *e = rn->e;
	_cleanup_free_ char *unit = NULL;
	int r;

	r = managed_servers_setup(rn->verb, e, log_fd, &rn->servers);
	if (r >= 0)
		r = managed_servers_neighbours(rn->verb, e, log_fd, &rn->servers);
	if (r < 0 || !e->client_scope)
		return r;
	r = xasprintf(&unit, "slicebench-client-%s-%d.scope", e->name, (int)getpid());
	if (r >= 0)
		r = scope_wrap_pid(getpid(), unit, "slicebench load generator");
	if (r < 0)
		return log_error_errno(r, "%s: cannot move the client into %s: %m%s", rn->verb, strempty(unit),
				       r == -ENOENT || r == -ECONNREFUSED ? " (no systemd here: [client] scope needs one)" : "");
	runner_progress(PROGRESS_NOTE, "the client runs in %s", unit);
	return 0;
}

static size_t steps_not_counted(const json_t *doc)
{
	const json_t *s;
	size_t i, n = 0;

	json_array_foreach(json_object_get(doc, "steps"), i, s)
		n += !results_step_counted(s);
	return n;
}

/* The rounds, and the document of record for the caller. */
static int runner_measure(struct runner *rn, struct run_options *o)
{
	_cleanup_free_ char *why = NULL;
	json_t *doc = NULL;
	int r;

	runner_progress(PROGRESS_NOTE, "%s %s started, results in %s (%s order, seed %" PRIu64 ")", rn->verb, rn->e->name,
			results_dir(rn->res), word_name(run_order_words, rn->order), rn->seed);
	r = prepare_shared_dataset(rn);
	if (r >= 0)
		r = runner_run_rounds(rn, o);
	if (rn->units_done && rn->work_start_ns)
		o->unit_s = (double)(now_ns() - rn->work_start_ns) / 1e9 / (double)rn->units_done;
	if (r >= 0 || r == -EINTR || r == -ECANCELED)
		(void)results_rebuild(rn->res);
	/* The failed steps as report counts them: this run's and a resumed
	 * one's before, failed or without a transaction. */
	if (results_load(results_dir(rn->res), &doc, &why) >= 0)
		rn->steps_failed = steps_not_counted(doc);
	runner_progress(PROGRESS_NOTE, "%s %s %s: %zu steps, %zu failed, results in %s", rn->verb, rn->e->name,
			interrupt_signal ? "interrupted" : r < 0 ? "stopped" : "finished", rn->steps_done, rn->steps_failed,
			results_dir(rn->res));
	if (r >= 0 && o->finished && doc)
		o->finished(o->userdata, doc, results_dir(rn->res));
	json_decref(doc);
	return r;
}

int run_experiment(const struct experiment *e, const struct run_plan *plan, const char *out, bool resume,
		   struct run_options *o)
{
	struct run_options defaults = {};
	struct runner rn = { .e = e, .plan = plan, .start_ns = now_ns(), .n_units = plan->n_units,
			     .n_steps = plan->n_steps };
	char db[64];
	bool started = false;
	int r, log_fd;

	if (!o)
		o = &defaults;
	rn.verb = o->verb ? o->verb : "run";
	rn.command = o->command;
	rn.order = o->order;
	rn.planned_sigma = o->planned_sigma;
	rn.planned_from = o->planned_from;
	/* Before the first child: a signal from here on ends the run cleanly. */
	interrupt_catch();
	host_warn_if_busy(rn.verb, "what runs there will be measured too");
	o->stopped = RUN_STOP_NONE;
	o->rounds = o->rounds_wanted = o->looks = 0;
	o->unit_s = 0;
	o->refused = false;
	r = open_results(rn.verb, out, resume, e, &rn.res);
	if (r < 0) {
		o->refused = r == -ELOOP || r == -EEXIST || r == -ENOENT || r == -ENOTDIR || r == -ENOTEMPTY || r == -EXDEV;
		return r;
	}
	log_fd = log_begin(&rn);
	r = write_run_facts(rn.verb, rn.res, e, resume);
	if (r < 0)
		o->refused = r == -EINVAL || r == -EBADMSG;
	if (r >= 0)
		r = choose_seed(&rn, o, resume);
	if (r >= 0)
		r = runner_setup(&rn, log_fd);
	if (r >= 0)
		managed_servers_output_to(&rn.servers, log_fd);
	if (r >= 0) {
		o->seed_used = rn.seed;
		options_for(e, &rn.o, db, sizeof(db));
		started = true;
		r = runner_measure(&rn, o);
	}
	managed_servers_done(&rn.servers);
	free(rn.kept_command);
	log_end(log_fd);
	/* Refused or failed at set-up: no results directory stays behind. */
	if (started)
		results_close(rn.res);
	else
		results_discard(rn.res);
	if (interrupt_signal)
		return -EINTR;
	return r < 0 ? r : (int)MIN(rn.steps_failed, (size_t)INT_MAX);
}

int run_whole_experiment(const struct experiment *e, const char *out, struct run_options *o)
{
	struct run_plan plan;
	int r;

	r = run_plan_make(e, NULL, &plan);
	return r < 0 ? r : run_experiment(e, &plan, out, false, o);
}

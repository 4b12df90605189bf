/* The tables that everything else is derived from, walked row by row: a
 * row that is incomplete or contradicts itself fails here, before any
 * context starts.  The kinds of context (slices/kinds/context.c), and the
 * attribute table (slices/attr/props.c): every settable row has a reader and an
 * in-force check, every row raw can apply has an applier, and every
 * applier does something: its example value, applied in a forked child
 * that then execs sleep, reads back in force; the workloads
 * (runner/oltp/workload.c); the report's telemetry summaries
 * (runner/report/model/model.c).  Prerequisite: ROOT (the appliers need it, as
 * they do in a raw fork). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oltp/oltp.h"
#include "report/model/model.h"
#include "slices/kinds/context.h"
#include "slices/attr/snapshot.h"
#include "tap.h"
#include "common/util.h"

static void check_kinds(void)
{
	const char *all = context_kind_list(false), *with_session = context_kind_list(true);
	size_t n = 0;

	for (enum context_kind k = 0; context_ops_for(k); k++, n++) {
		const struct context_ops *o = context_ops_for(k);
		const char *name = o->name ? o->name : "(unnamed)";

		ok(o->name && name_is_valid(o->name), "kind %d has a valid name (%s)", (int)k, name);
		is_int(context_kind_from_string(name), k, "%s: parsing its name gives its row", name);
		ok(o->start && o->stop && o->cleanup && (o->set || o->cgroup == CGROUP_BY_NOBODY),
		   "%s: start, stop, cleanup, and set if it takes cgroup settings", name);
		ok(strstr(all, name) != NULL, "%s is in the kind list of messages (%s)", name, all);
		ok(!o->session == !strstr(with_session, name), "%s: the session list (%s) agrees with .session", name,
		   with_session);
		/* systemd applies exec settings only to a unit it starts, and a
		 * unit of ours needs a manager to live on. */
		ok(!o->exec_by_systemd || o->unit_suffix, "%s: exec settings by systemd only with a unit of its own", name);
		ok(!o->unit_suffix || o->manager != MANAGER_NONE, "%s: a unit only with a manager", name);
		ok(o->cgroup != CGROUP_BY_SYSTEMD || o->manager != MANAGER_NONE, "%s: cgroup settings by systemd need a manager",
		   name);
		/* A kind that forks the server itself applies exec settings there,
		 * so it is the one that can choose the session too. */
		ok(!o->session || !o->exec_by_systemd, "%s: a session is chosen only where slicebench forks", name);
	}
	cmp_ok((double)n, ">=", 4, "at least the four kinds");
	is_int(context_kind_from_string("client"), CONTEXT_KIND_INVALID, "client is not a kind of context");
	is_int(context_kind_from_string(""), CONTEXT_KIND_INVALID, "nor is the empty string");
}

static void check_row(const struct prop_def *d)
{
	bool settable = prop_settable(d);

	ok(prop_lookup(d->name) == d, "%s: the name finds its row", d->name);
	if (d->class == PROP_SERVER) {
		char key[80];

		/* Read over SQL by the engine's facts, passed on its command line. */
		snprintf(key, sizeof(key), "server.%s", d->name);
		bool server_keys = true;

		for (size_t k = 0; k < ATTR_KEYS_MAX && d->keys[k]; k++)
			server_keys = server_keys && strncmp(d->keys[k], "server.", 7) == 0;
		ok(!d->read && d->keys[0] && streq(d->keys[0], key) && server_keys, "%s: moves %s first and only server.* "
		   "keys, read by the engine's facts", d->name, key);
		ok(d->parse && d->in_force && d->take && d->engines && *d->engines && d->help && d->example &&
		   !d->dbus_name && !d->apply && !d->collect, "%s: a server variable's row is complete", d->name);
		for (size_t i = 0; server_engines[i]; i++)
			if (prop_server_has(d, server_engines[i]->name))
				ok(server_engines[i]->set_variable && server_engines[i]->fact_names,
				   "%s: %s takes it on its command line and reads it back", d->name, server_engines[i]->name);
		return;
	}
	ok(d->read && d->keys[0], "%s: a reader and the keys it moves", d->name);
	ok(d->help && *d->help, "%s: help", d->name);
	if (!settable) {
		ok(!d->dbus_name && !d->parse && !d->apply && !d->collect, "%s: recorded only, nothing sets it", d->name);
		return;
	}
	ok(d->parse && d->in_force && (d->dbus_name && d->signature ? !d->no_systemd : d->no_systemd && !d->signature),
	   "%s: a settable row has a parser, an in-force check, and its D-Bus name and signature or why systemd cannot "
	   "set it", d->name);
	if (d->class == PROP_EXEC)
		ok(!d->apply != !d->no_raw, "%s: raw and scope apply it, or the row says why not (%s)", d->name,
		   strempty(d->no_raw));
	else
		ok(!d->collect != !d->no_raw, "%s: raw writes it, or the row says why not (%s)", d->name, strempty(d->no_raw));
	if (d->class == PROP_EXEC && d->apply)
		ok(d->example != NULL, "%s: an example value to prove the applier", d->name);
}

/* Applies the settings in spec, in the table's order as a raw fork does,
 * in a child that then execs sleep; its placement, verified, into p.
 * Returns the child's PID (killed by the caller), or -1 if the appliers failed. */
static pid_t apply_in_child(const struct context_spec *spec, struct placement *p, int *ret)
{
	size_t n_table;
	const struct prop_def *table = prop_table(&n_table);
	enum cgroup_mode mode = cgroup_mode_detect();
	int pipefd[2];
	unsigned bad = 0;
	char status = 1;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		bail_out("pipe: %m");
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char c = 0;

		for (size_t t = 0; t < n_table; t++)
			for (size_t i = 0; i < spec->n_props; i++)
				if (spec->props[i].def == &table[t] && prop_apply_exec(&spec->props[i], spec->props, spec->n_props) < 0)
					c = 1;
		(void)!write(pipefd[1], &c, 1);
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	/* The byte, then EOF when exec closes the pipe. */
	if (read(pipefd[0], &status, 1) == 1) {
		char more;

		while (read(pipefd[0], &more, 1) > 0)
			;
	}
	close(pipefd[0]);
	*ret = status == 0 ? placement_snapshot(pid, 0, mode, p) : -ECHILD;
	if (*ret >= 0)
		*ret = placement_verify(p, spec, mode, &bad);
	return pid;
}

/* Applies the example in a child that then execs sleep, reads it back. */
static void check_applier(const struct prop_def *d)
{
	_cleanup_(placement_done) struct placement p = {};
	struct context_spec spec = { .kind = CONTEXT_RAW, .n_props = 1 };
	char key[80];
	pid_t pid;
	int r;

	if (prop_parse(d->name, d->example, &spec.props[0]) < 0) {
		ok(false, "%s: example '%s' parses", d->name, d->example);
		return;
	}
	pid = apply_in_child(&spec, &p, &r);
	ok(r != -ECHILD, "%s=%s: the applier succeeds in a forked child", d->name, d->example);
	snprintf(key, sizeof(key), "in_force.%s", d->name);
	if (r >= 0)
		is_str(placement_get(&p, key), "yes", "%s=%s: read back in force from the child", d->name, d->example);
	else
		ok(false, "%s=%s: the child's placement can be read (%s)", d->name, d->example, strerror(-r));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	prop_value_done(&spec.props[0]);
}

/* environment= replaces the environment and Environment= adds to it, one
 * variable set again: each is in force, and what the second adds is not
 * counted against the first; without the second, it is. */
static void check_environment_on_top(void)
{
	_cleanup_(placement_done) struct placement p = {};
	struct context_spec spec = { .kind = CONTEXT_RAW, .n_props = 2 };
	unsigned bad = 0;
	pid_t pid;
	int r;

	if (prop_parse("environment", "SLICEBENCH_T035=1 PATH=/usr/bin:/bin", &spec.props[0]) < 0 ||
	    prop_parse("Environment", "SLICEBENCH_T035=2 SLICEBENCH_T035_ADDED=3", &spec.props[1]) < 0)
		bail_out("the environment settings do not parse");
	pid = apply_in_child(&spec, &p, &r);
	is_str(r >= 0 ? placement_get(&p, "in_force.environment") : strerror(-r), "yes",
	       "environment= with an Environment= on top: in force");
	is_str(r >= 0 ? placement_get(&p, "in_force.Environment") : strerror(-r), "yes", "and the Environment= too");
	spec.n_props = 1;
	r = r >= 0 ? placement_verify(&p, &spec, cgroup_mode_detect(), &bad) : r;
	is_str(r >= 0 ? placement_get(&p, "in_force.environment") : strerror(-r),
	       "no: env.SLICEBENCH_T035_ADDED is set", "without the Environment=, what it added is not environment='s");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	prop_value_done(&spec.props[0]);
	prop_value_done(&spec.props[1]);
}

static void check_attrs(void)
{
	size_t n;
	const struct prop_def *table = prop_table(&n);

	for (size_t i = 0; i < n; i++)
		check_row(&table[i]);
	for (size_t i = 0; i < n; i++)
		if (table[i].apply && table[i].example)
			check_applier(&table[i]);
	check_environment_on_top();
}

/* The workloads (runner/oltp/workload.c). */
static void check_workloads(void)
{
	const char *all = oltp_workload_list(NULL);

	for (enum oltp_workload w = 0; w < _OLTP_WORKLOAD_MAX; w++) {
		const struct oltp_workload_def *d = oltp_workload_def(w);
		const char *name = oltp_workload_name(w);
		int back = -1;
		_cleanup_free_ char *why = NULL;

		ok(word_lookup(oltp_workload_words, name, &back) == 0 && back == (int)w, "workload %s: parsing its name gives its row",
		   name);
		if (d->user_script) {
			/* the user's script: its tool alone, named by the file, not in the lists */
			ok(d->protocol && d->db && d->unit && d->unit_one && d->data_size && d->prepare && d->prewarm &&
				   d->run_tool && !d->run_native && oltp_driver_check(w, d->tool, &why) == 0 &&
				   oltp_driver_check(w, OLTP_DRIVER_NATIVE, &why) < 0 && !strstr(all, name),
			   "%s: its dataset, its tool's driver alone, not among the workloads listed", name);
			continue;
		}
		ok(d->protocol && d->db && d->unit && d->unit_one && d->data_size && strstr(all, name),
		   "%s: protocol, database, unit and one of it, data size, in the list (%s)",
		   name, all);
		ok(d->prepare && d->prewarm && d->run_native && d->run_tool, "%s: prepare, prewarm and both drivers", name);
		ok(d->tool != OLTP_DRIVER_NATIVE && oltp_driver_check(w, d->tool, &why) == 0 &&
			   oltp_driver_check(w, OLTP_DRIVER_NATIVE, &why) == 0,
		   "%s: runs natively and with %s", name, word_name(oltp_driver_words, d->tool));
		ok(strstr(oltp_workload_list(d->protocol), name) != NULL, "%s is among the %s workloads", name, d->protocol);
		if (d->tool == OLTP_DRIVER_SYSBENCH)
			ok(d->script && (d->point_selects || d->ranges || d->index_updates || d->non_index_updates ||
					 d->delete_inserts || d->insert),
			   "%s: sysbench's script, and an event that runs a statement", name);
	}
}

/* The evidence of mechanism a step records (runner/oltp/record.c). */
static void check_mechanism(void)
{
	size_t n;
	const struct oltp_mechanism_def *rows = oltp_mechanism_table(&n);

	ok(n > 0 && n <= OLTP_MECHANISM_MAX, "the mechanism table has %zu rows, at most %d", n, OLTP_MECHANISM_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct oltp_mechanism_def *d = &rows[i];

		ok(d->key && d->label && d->unit && d->scale > 0 && d->counter > 0 &&
			   (d->per == OLTP_PER_COUNTER) == (d->of > 0),
		   "mechanism %s: key, label, unit, scale, counter, and a denominator exactly for a share",
		   d->key ? d->key : "(no key)");
	}
}

/* Every summary the report makes of a step's telemetry names its key and
 * reduces a key that a sample really has (one of a step with a neighbour,
 * whose CPU time is a key of its own), or one of the step's own (an oltp
 * neighbour's TPS). */
static void check_telemetry_summaries(void)
{
	static const char *const neighbours[] = { "hog" };
	struct oltp_telemetry_sample s = { .n_neighbours = 1, .neighbour_names = neighbours };
	struct step_result r = { .n_neighbour_tps = 1, .neighbour_tps_names = { "db" }, .neighbour_tps = { 10 } };
	json_t *j = oltp_telemetry_sample_to_json(&s), *step = NULL;

	ok(j != NULL && step_result_to_json(&r, &step) >= 0, "a sample and a step render as JSON");
	for (size_t k = 0; k < _TEL_MAX; k++) {
		const struct telemetry_summary_def *d = &telemetry_summaries[k];
		bool unique = true;

		for (size_t i = 0; d->name && i < k; i++)
			unique = unique && !streq_ptr(telemetry_summaries[i].name, d->name);
		ok(d->name && d->sample && unique, "telemetry summary %zu has a name of its own (%s)", k, strempty(d->name));
		ok(d->sample && json_object_get(d->reduce == REDUCE_STEP ? step : j, d->sample), "%s reduces a key of the %s (%s)",
		   strempty(d->name), d->reduce == REDUCE_STEP ? "step" : "samples", strempty(d->sample));
	}
	json_decref(j);
	json_decref(step);
}

int main(void)
{
	require("ROOT");
	check_kinds();
	check_attrs();
	check_workloads();
	check_mechanism();
	check_telemetry_summaries();
	return done_testing();
}

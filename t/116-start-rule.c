/* The one rule of which starts count (oltp.h), the same in run, report
 * and explain, on steps built here, no prerequisites: each kind of start
 * the rule leaves out (failed, a connection, the warm-up, the server gone,
 * no transaction, a stall: the start at 1.0 TPS whose seconds were 0, 0, 3
 * among them) is judged by run as it ends and by report from its record
 * alike; a record from before the rule (a 0-TPS step and that stall with
 * "failed": false) is left out by report all the same; the text, the page
 * and the JSON count the starts each rule removed alike, and the starts
 * that ran while the host was busy; and explain, which reads a start's
 * TPS through report_step_tps(), leaves out the same starts.  And
 * pgbench's workload through a proxy: its tables count clients, and the
 * page names the proxy with its engine. */
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "oltp/oltp.h"
#include "report/model/model.h"
#include "report/report.h"
#include "sim.h"
#include "tap.h"
#include "common/util.h"

#define HOST(other, busy) \
	",\"host\":{\"cpus\":2,\"busy_cpus\":1.9,\"other_cpus\":" other ",\"load1_max\":55.0,\"busy\":" busy "}"
#define KEPT(rep, tps, host) \
	"{\"context\":\"a\",\"repeat\":" #rep ",\"threads\":1,\"tps\":" #tps ",\"failed\":false," \
	"\"intervals_tps\":[" #tps "," #tps "," #tps "]" host "}"

/* Twelve starts of context a at 1 thread: six kept (three on a busy
 * host), and one left out by each rule; a twelfth, b's, is the baseline. */
static const char doc[] =
	"{\"format_version\":1,\"experiment\":{\"name\":\"rule\",\"baseline\":\"b\",\"contexts\":[\"a\",\"b\"],"
	"\"threads\":[1],\"repeat\":11,\"vary\":null},\"host\":null,\"placements\":{},\"steps\":["
	KEPT(1, 100.0, HOST("1.2", "true")) "," KEPT(2, 102.0, HOST("1.3", "true")) ","
	KEPT(3, 98.0, HOST("1.1", "true")) "," KEPT(4, 101.0, HOST("0.1", "false")) "," KEPT(5, 99.0, "") "," KEPT(6, 100.0, "") ","
	"{\"context\":\"a\",\"repeat\":7,\"threads\":1,\"tps\":0,\"failed\":true,\"failure_class\":\"warm-up\","
	"\"reason\":\"the warm-up failed: Lost connection to server during query (2013)\"},"
	"{\"context\":\"a\",\"repeat\":8,\"threads\":1,\"tps\":0,\"failed\":true,\"failure_class\":\"connection\","
	"\"reason\":\"thread 0: Can't connect (2002)\"},"
	"{\"context\":\"a\",\"repeat\":9,\"threads\":1,\"tps\":0,\"failed\":true,\"reason\":\"set up\"},"
	"{\"context\":\"a\",\"repeat\":10,\"threads\":1,\"tps\":0.0,\"failed\":false,\"intervals_tps\":[0,0,0]},"
	"{\"context\":\"a\",\"repeat\":11,\"threads\":1,\"tps\":1.0,\"failed\":false,\"intervals_tps\":[0,0,3]},"
	KEPT(1, 50.0, "") "]}";

/* pgbench's workload through a proxy: clients, not threads, and the
 * proxy named with its engine. */
static const char doc_pgbench[] =
	"{\"format_version\":1,\"experiment\":{\"name\":\"pooled\",\"baseline\":\"b\",\"contexts\":[\"a\",\"b\"],"
	"\"threads\":[1,8],\"repeat\":1,\"vary\":null,\"workload\":\"select-only\","
	"\"context_specs\":[{\"name\":\"a\",\"kind\":\"service\",\"proxy\":\"pool\"},{\"name\":\"b\",\"kind\":\"raw\"}],"
	"\"proxies\":[{\"name\":\"pool\",\"engine\":\"pgbouncer\",\"kind\":\"service\"}]},"
	"\"host\":null,\"placements\":{},\"steps\":["
	KEPT(1, 100.0, "") "," KEPT(2, 100.0, "") "]}";

/* doc's baseline step is b's: the last one. */
static void fix_baseline(json_t *d)
{
	json_t *steps = json_object_get(d, "steps");

	json_object_set_new(json_array_get(steps, json_array_size(steps) - 1), "context", json_string("b"));
}

static char *render(const json_t *d, enum report_format f)
{
	struct report_options o = { .format = f };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int r;

	if (!out)
		bail_out("open_memstream: %m");
	r = report_render(d, &o, out);
	fclose(out);
	if (r < 0)
		bail_out("report_render: %s", strerror(-r));
	return buf;
}

/* The text's sentences as one line each: the text renderer wraps a long
 * one at the terminal's width, its next lines indented by two. */
static void unwrap(char *text)
{
	char *w = text;

	for (const char *r = text; *r; r++) {
		if (r[0] == '\n' && r[1] == ' ' && r[2] == ' ' && w > text && w[-1] != '\n') {
			*w++ = ' ';
			r += 2;
			continue;
		}
		*w++ = *r;
	}
	*w = 0;
}

/* A step as run ends it: these intervals and TPS (failed as `why` when not
 * KEPT), judged, recorded, and judged again from its record. */
static void run_and_report_agree(const char *name, const double *tps, size_t n, enum oltp_rule why,
				 enum oltp_rule want)
{
	struct oltp_options o;
	struct step_result r;
	json_t *j = NULL;

	oltp_options_default(&o);
	o.duration_ns = n * NSEC_PER_SEC;
	o.warmup_ns = NSEC_PER_SEC;
	step_result_start(&r, OLTP_DRIVER_NATIVE, 1);
	r.intervals = calloc(n + 1, sizeof(double));
	if (!r.intervals)
		bail_out("out of memory");
	memcpy(r.intervals, tps, n * sizeof(double));
	r.n_intervals = n;
	for (size_t i = 0; i < n; i++)
		r.tps += tps[i] / (double)n;
	if (why != OLTP_RULE_KEPT) {
		r.failed = true;
		r.rule = why;
		snprintf(r.reason, sizeof(r.reason), "%s", oltp_rules[why].label);
	}
	step_result_judge(&o, &r);
	if (step_result_to_json(&r, &j) < 0)
		bail_out("step_result_to_json");
	ok(r.rule == want && oltp_step_rule_of_json(j) == want && r.failed == (want != OLTP_RULE_KEPT) &&
		   json_is_true(json_object_get(j, "failed")) == (want != OLTP_RULE_KEPT),
	   "%s: run says %s, its record says %s (%s)", name, oltp_rules[r.rule].key,
	   oltp_rules[oltp_step_rule_of_json(j)].key, json_string_value(json_object_get(j, "failure_class")) ?: "kept");
	json_decref(j);
	step_result_done(&r);
}

static void check_run_against_record(void)
{
	run_and_report_agree("a steady start", (const double[]){ 100, 98, 102 }, 3, OLTP_RULE_KEPT, OLTP_RULE_KEPT);
	run_and_report_agree("a start of no transaction", (const double[]){ 0, 0, 0 }, 3, OLTP_RULE_KEPT, OLTP_RULE_ZERO);
	run_and_report_agree("a start at 1.0 TPS, seconds 0, 0, 3", (const double[]){ 0, 0, 3 }, 3, OLTP_RULE_KEPT,
			     OLTP_RULE_STALLED);
	run_and_report_agree("a warm-up that failed", (const double[]){ 100, 100 }, 2, OLTP_RULE_WARMUP, OLTP_RULE_WARMUP);
	run_and_report_agree("a connection that failed", (const double[]){ 0 }, 1, OLTP_RULE_CONNECTION,
			     OLTP_RULE_CONNECTION);
	run_and_report_agree("a server gone", (const double[]){ 100, 0, 0 }, 3, OLTP_RULE_SERVER_GONE,
			     OLTP_RULE_SERVER_GONE);
}

static void check_clients_and_proxy(void)
{
	json_t *d = sim_json(doc_pgbench);
	char *text = render(d, REPORT_TEXT), *page = render(d, REPORT_HTML);

	ok(strstr(text, "clients ") && strstr(text, "\n1 ") && !strstr(text, "threads"),
	   "pgbench's workload: the table counts clients, not threads");
	ok(strstr(page, "<th>clients</th>") && strstr(page, "pool (pgbouncer, service)"),
	   "the page counts clients and names the proxy with its engine");
	free(text);
	free(page);
	json_decref(d);
}

int main(void)
{
	const char *want_rule = "5 of 12 starts left out by the rule: failed 1, a connection failed 1, the warm-up failed 1, "
				"it completed no transaction 1, it stalled 1";
	const char *want_busy = "3 of 12 starts ran while the host was busy (load 55 on 2 CPUs)";
	json_t *d = sim_json(doc), *rep, *by, *s;
	struct model m;
	char *text, *page, *json;
	size_t i, explain_out = 0;

	plan(17);
	check_run_against_record();
	fix_baseline(d);
	text = render(d, REPORT_TEXT);
	page = render(d, REPORT_HTML);
	json = render(d, REPORT_JSON);
	unwrap(text);
	ok(strstr(text, want_rule) && strstr(text, want_busy), "text: the starts each rule removed, and the busy host");
	ok(strstr(page, want_rule) && strstr(page, want_busy), "page: the same sentences");
	rep = sim_json(json);
	by = json_object_get(json_object_get(rep, "starts"), "by_rule");
	ok(json_integer_value(json_object_get(by, "kept")) == 7 && json_integer_value(json_object_get(by, "warm-up")) == 1 &&
		   json_integer_value(json_object_get(by, "connection")) == 1 &&
		   json_integer_value(json_object_get(by, "failed")) == 1 &&
		   json_integer_value(json_object_get(by, "no-transaction")) == 1 &&
		   json_integer_value(json_object_get(by, "stalled")) == 1,
	   "JSON: the same counts by rule");
	is_int(json_integer_value(json_object_get(json_object_get(rep, "starts"), "host_busy")), 3,
	       "JSON: 3 starts on a busy host");
	ok(!strstr(page, "<p id=\"failures\">None.</p>"), "the page's failed steps are not \"None\"");
	ok(strstr(text, "it stalled") && strstr(text, "it completed no transaction"),
	   "a record from before the rule is listed with what left it out");
	if (model_build(d, 0.95, &m) < 0)
		bail_out("model_build");
	is_int((long long)model_cell(&m, 0, 0)->n, 6, "the cell of a holds its six kept starts");
	is_int((long long)model_cell(&m, 0, 0)->n_zero, 1, "one of its failed starts completed nothing");
	model_done(&m);
	json_array_foreach(json_object_get(d, "steps"), i, s)
		explain_out += isnan(report_step_tps(s));
	is_int((long long)explain_out, 5, "explain, through report_step_tps(), leaves out the same five starts");
	free(text);
	free(page);
	free(json);
	json_decref(rep);
	json_decref(d);
	check_clients_and_proxy();
	return done_testing();
}

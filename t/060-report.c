/* report: the model and its renderers on documents built here, no prerequisites.
 * The medians below are worked out by hand from the literal steps; the
 * intervals and p-values with SciPy (ttest_ind on the logarithms, Welch),
 * as t/fixtures/stats/make-reference.py does for t/061. */
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "report/model/model.h"
#include "report/report.h"
#include "sim.h"
#include "tap.h"
#include "common/util.h"

#define STEP(ctx, rep, thr, tps) \
	"{\"context\":\"" ctx "\",\"vary_value\":null,\"repeat\":" #rep ",\"threads\":" #thr \
	",\"driver\":\"slicebench\",\"duration_s\":5.0,\"tps\":" #tps ",\"failed\":false," \
	"\"latency_ms\":{\"avg\":1.0,\"p50\":1.0,\"p95\":2.5,\"p99\":null,\"max\":null}," \
	"\"telemetry\":[{\"t_s\":1.0,\"cpu_idle_pct\":40.0,\"nr_throttled\":3,\"load1\":1.5," \
	"\"procs_running\":3,\"tasks_uninterruptible\":0}," \
	"{\"t_s\":2.0,\"cpu_idle_pct\":60.0,\"nr_throttled\":7,\"load1\":4.5,\"procs_running\":7," \
	"\"tasks_uninterruptible\":2},{\"t_s\":3.0,\"cpu_idle_pct\":null}]," \
	"\"mechanism\":{\"server_runq_wait_us\":" #tps "}}"

#define EXPERIMENT \
	"\"experiment\":{\"name\":\"quickstart\",\"description\":\"d\",\"baseline\":\"raw\"," \
	"\"contexts\":[\"service\",\"raw\"],\"threads\":[1,2],\"repeat\":3,\"vary\":null}"

/* raw: t1 100/110/90 (median 100), t2 200/190/210 (median 200).
 * service: t1 105/120/95 (median 105); t2 only repeat 1, which failed: a
 * gap.  Round by round the service leads by 5, 9 and 6%: the block model
 * (column + round) gives 1.07x (1.01-1.12) p=0.034, where Welch's t on the
 * two columns alone, blind to the rounds, says 1.07x (0.83-1.37) p=0.52. */
static const char doc_amd[] =
	"{\"format_version\":1," EXPERIMENT ","
	"\"host\":{\"cpu.vendor\":\"AuthenticAMD\",\"kernel.release\":\"6.1.0\",\"systemd.version\":\"252\",\"cpu.count\":8},"
	"\"placements\":{"
	"\"raw-v1-r1\":{\"cgroup.cpu\":\"/user.slice/session-1.scope\",\"autogroup\":\"/autogroup-7\","
	"\"affinity\":\"0-7\",\"cpu.stat.nr_throttled\":\"0\"},"
	"\"service-v1-r1\":{\"cgroup.cpu\":\"/system.slice/slicebench-service.service\",\"autogroup\":\"/autogroup-12\","
	"\"affinity\":\"0-7\",\"cpu.stat.nr_throttled\":\"5\"}},"
	"\"steps\":[" STEP("raw", 1, 1, 100.0) "," STEP("raw", 2, 1, 110.0) "," STEP("raw", 3, 1, 90.0) "," STEP(
		"raw", 1, 2, 200.0) "," STEP("raw", 2, 2, 190.0) "," STEP("raw", 3, 2, 210.0) "," STEP("service", 1, 1, 105.0) ","
		STEP("service", 2, 1, 120.0) "," STEP("service", 3, 1, 95.0) ","
	"{\"context\":\"service\",\"vary_value\":null,\"repeat\":1,\"threads\":2,\"driver\":\"slicebench\","
	"\"tps\":null,\"failed\":true,\"reason\":\"server went away\"}]}";

/* raw: t1 100/101/99, t2 200/202/198.  service: t1 130/131/129 (1.30x,
 * 1.27-1.33, p 6.6e-6: significant; at 90% 1.28-1.32); t2 one repeat at 260,
 * whose per-second CV of 3.1% is noise within a start: no interval across
 * starts. */
static const char doc_intel[] =
	"{\"format_version\":1," EXPERIMENT ","
	"\"host\":{\"cpu.vendor\":\"GenuineIntel\",\"kernel.release\":\"6.1.0\",\"systemd.version\":\"252\",\"cpu.count\":8},"
	"\"placements\":{},"
	"\"steps\":[" STEP("raw", 1, 1, 100.0) "," STEP("raw", 2, 1, 101.0) "," STEP("raw", 3, 1, 99.0) "," STEP(
		"raw", 1, 2, 200.0) "," STEP("raw", 2, 2, 202.0) "," STEP("raw", 3, 2, 198.0) "," STEP("service", 1, 1, 130.0) ","
		STEP("service", 2, 1, 131.0) "," STEP("service", 3, 1, 129.0) ","
	"{\"context\":\"service\",\"vary_value\":null,\"repeat\":1,\"threads\":2,\"tps\":260.0,\"failed\":false,"
	"\"intervals_tps\":[250,270,260,260]}]}";

/* Everything optional missing, and a vary. */
static const char doc_sparse[] =
	"{\"format_version\":1,\"experiment\":{\"name\":\"quota\",\"baseline\":\"raw\",\"contexts\":[\"service\",\"raw\"],"
	"\"threads\":[4],\"repeat\":1,\"vary\":{\"property\":\"CPUQuota\",\"values\":[\"50%\",\"100%\"]}},"
	"\"host\":null,\"placements\":{},"
	"\"steps\":[{\"context\":\"service\",\"vary_value\":\"50%\",\"repeat\":1,\"threads\":4,\"tps\":80.0,\"failed\":false}]}";

#define VSTEP(ctx, vary, rep, tps) \
	"{\"context\":\"" ctx "\",\"vary_value\":\"" vary "\",\"repeat\":" #rep ",\"threads\":4," \
	"\"duration_s\":5.0,\"tps\":" #tps ",\"failed\":false}"

/* A vary, laid out as run writes it: CPUWeight= 100 400.  service 100:
 * 100/101/99, 400: 130/131/129 (1.30x, 1.27-1.33, p 6.6e-6, as doc_intel's
 * 1 thread); raw 100: 100/110/90, 400: 105/120/95 (1.07x, 0.83-1.37, p
 * 0.52, as doc_amd's, unpaired).  Four columns of 3 rounds are too few for
 * each its own noise, so each ratio comes from its two columns paired by
 * round: raw's rounds move together (1.05, 1.09, 1.06), which the paired
 * t on 2 degrees of freedom shows, 1.07x (1.01-1.12) p=0.034.  service's placement records CPUAffinity=core:0,
 * raw's none. */
static const char doc_vary[] =
	"{\"format_version\":1,\"experiment\":{\"name\":\"weights\",\"baseline\":\"raw\","
	"\"contexts\":[\"service\",\"raw\"],\"threads\":[4],\"repeat\":3,"
	"\"vary\":{\"property\":\"CPUWeight\",\"values\":[\"100\",\"400\"],\"slice\":\"db.slice\",\"mode\":null}},"
	"\"host\":null,\"placements\":{\"raw-v1-r1\":{\"affinity\":\"0-1\"},"
	"\"service-v1-r1\":{\"affinity\":\"0\",\"setting.CPUAffinity.written\":\"core:0\","
	"\"setting.CPUAffinity.resolved\":\"0\",\"setting.CPUAffinity.read\":\"affinity=0\","
	"\"in_force.CPUAffinity\":\"yes\"}},\"steps\":["
	VSTEP("service", "100", 1, 100.0) "," VSTEP("service", "100", 2, 101.0) "," VSTEP("service", "100", 3, 99.0) ","
	VSTEP("raw", "100", 1, 100.0) "," VSTEP("raw", "100", 2, 110.0) "," VSTEP("raw", "100", 3, 90.0) ","
	VSTEP("service", "400", 1, 130.0) "," VSTEP("service", "400", 2, 131.0) "," VSTEP("service", "400", 3, 129.0) ","
	VSTEP("raw", "400", 1, 105.0) "," VSTEP("raw", "400", 2, 120.0) "," VSTEP("raw", "400", 3, 95.0) "]}";

static char *render(const json_t *doc, enum report_format f, bool latency, bool telemetry, size_t *ret_len, int *ret_r)
{
	struct report_options o = { .format = f, .latency = latency, .telemetry = telemetry };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		bail_out("open_memstream: %m");
	*ret_r = report_render(doc, &o, out);
	fclose(out);
	if (ret_len)
		*ret_len = len;
	return buf;
}

/* The first line of text that starts with prefix, or "" (static storage). */
static const char *line_with_prefix(const char *text, const char *prefix)
{
	static char line[1024];
	const char *p = text;

	while (p && *p) {
		const char *end = strchrnul(p, '\n');

		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
			return line;
		}
		p = *end ? end + 1 : NULL;
	}
	return "";
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static bool has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle);
}

static void check_text(const json_t *amd, const json_t *intel)
{
	char *s;
	const char *l;
	int r;

	s = render(amd, REPORT_TEXT, false, false, NULL, &r);
	is_int(r, 0, "text renders");
	diag("text report:\n%s", s);
	ok(has(s, "quickstart"), "text names the experiment");
	l = line_with_prefix(s, "1 ");
	ok(has(l, "105.0 (95.0..120.0) n=3"), "threads 1: service median 105.0 of 3 (%s)", l);
	ok(has(l, "100.0 (90.0..110.0) n=3"), "threads 1: raw median 100.0 of 3");
	ok(has(l, "1.07x (1.01-1.12) p=0.0339") && !has(l, "n.s."),
	   "threads 1: ratio 1.07x from the model, its rounds paired (%s)", l);
	ok(has(s, "service vs raw at 1 thread: significant; Welch's t on the two alone, Holm-adjusted alike, does not "
		  "bear it out: 1.07x (0.83-1.37) p=0.52"),
	   "the Welch cross-check that disagrees is said, adjusted as the verdict is");
	ok(has(s, "Holm-adjusted across the 1 ratio of this table"), "the family of the table is said");
	l = line_with_prefix(s, "2 ");
	ok(has(l, "200.0 (190.0..210.0) n=3"), "threads 2: raw median 200.0 (%s)", l);
	ok(has(l, "failed"), "threads 2: the failed service cell is a gap");
	ok(!has(l, " 0.0") && !has(l, "0.00x"), "threads 2: no 0 where the value is missing");
	ok(has(s, "server went away"), "the failure's reason is listed");
	ok(has(s, "cgroup.cpu: /user.slice/session-1.scope | /system.slice/slicebench-service.service"),
	   "diff: cgroup.cpu, baseline | other");
	ok(has(s, "autogroup: /autogroup-7 | /autogroup-12"), "diff: autogroup");
	ok(!has(s, "cpu.stat.nr_throttled"), "diff: volatile cpu.stat.* skipped");
	ok(!has(s, "affinity"), "diff: equal keys skipped");
	free(s);

	s = render(amd, REPORT_TEXT, true, true, NULL, &r);
	is_int(r, 0, "text with latency and telemetry renders");
	l = has(s, "p95 latency") ? line_with_prefix(strstr(s, "p95 latency"), "1 ") : "";
	ok(has(l, "2.50"), "latency table with the p95 median (%s)", l);
	ok(has(s, "cpu idle") && has(s, "50.0") && has(s, "nr_throttled delta"),
	   "telemetry: idle mean 50.0 (an unknown second left out) and delta");
	l = has(s, "server run-queue wait") ? line_with_prefix(strstr(s, "server run-queue wait"), "1 ") : "";
	ok(has(s, "server run-queue wait per transaction (us), median of the repeats") && has(l, "105") && has(l, "100"),
	   "telemetry: the run-queue wait per transaction, median of the repeats (%s)", l);
	l = has(s, "load average") ? line_with_prefix(strstr(s, "load average"), "1 ") : "";
	ok(has(l, "1.5..4.5 | 5.0, 7 | 1.0, 2"), "telemetry: load 1.5..4.5, R mean 5 max 7, D mean 1 max 2 (%s)", l);
	free(s);

	s = render(amd, REPORT_CSV, false, true, NULL, &r);
	is_int(r, 0, "csv with telemetry renders");
	ok(has(line_with_prefix(s, "column,"), ",failed,zero_tps,cpu_idle_pct,nr_throttled_delta,load1_min,load1_max,"
					      "procs_running_mean,procs_running_max,tasks_d_mean,tasks_d_max,"),
	   "csv: a column per telemetry summary (%s)", line_with_prefix(s, "column,"));
	ok(has(line_with_prefix(s, "raw,1,"), ",50.00,4,1.50,4.50,5.00,7,1.00,2,"), "csv: their values (%s)",
	   line_with_prefix(s, "raw,1,"));
	free(s);

	s = render(intel, REPORT_TEXT, false, false, NULL, &r);
	is_int(r, 0, "text renders the second document");
	l = line_with_prefix(s, "1 ");
	ok(has(l, "1.30x (1.29-1.31) p<0.001") && !has(l, "n.s."), "threads 1: 1.30x is significant (%s)", l);
	l = line_with_prefix(s, "2 ");
	/* Each column's sigma is its own at every thread count: the one start
	 * at 2 threads is judged by the noise of its column's starts at 1. */
	ok(has(l, "260.0 n=1") && has(l, "1.30x (1.2"), "threads 2: one repeat, judged by its column's sigma (%s)", l);
	ok(has(s, "from one model of log TPS, column + round") && has(s, "95% intervals"),
	   "the method is stated under the table");
	ok(has(s, "noise: CV of the per-second TPS within a start"), "the noise table follows");
	l = line_with_prefix(strstr(s, "noise: ") ?: "", "2 ");
	ok(has(l, "3.1% | " GAP), "noise: 3.1%% within the one start at 2 threads, none across (%s)", l);
	ok(!has(s, "taskset"), "no noisy step, no advice");
	free(s);

	/* The same document at 90%: recomputed from the raw repeats. */
	{
		struct report_options o = { .format = REPORT_TEXT, .confidence = 0.90 };
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);

		is_int(report_render(intel, &o, out), 0, "renders at 90%%");
		fclose(out);
		ok(has(line_with_prefix(buf, "1 "), "1.30x (1.29-1.31) p<0.001") && has(buf, "90% intervals"),
		   "at 90%% the interval is narrower (%s)", line_with_prefix(buf, "1 "));
		free(buf);
		o.confidence = 1.5;
		is_int(report_render(intel, &o, stdout), -EINVAL, "a level of 1.5 is refused");
	}
}

static void check_formats(const json_t *amd)
{
	json_t *j, *cell, *d;
	size_t len;
	char *s;
	int r;

	s = render(amd, REPORT_MARKDOWN, false, false, NULL, &r);
	is_int(r, 0, "markdown renders");
	ok(has(s, "\n|---"), "markdown has the |--- separator line");
	ok(has(s, "| threads |"), "markdown header row");
	ok(has(s, "- cgroup.cpu: ") || has(s, "  - cgroup.cpu: "), "markdown lists the diff");
	free(s);

	s = render(amd, REPORT_CSV, false, false, NULL, &r);
	is_int(r, 0, "csv renders");
	is_str(line_with_prefix(s, "column,"),
	       "column,threads,median_tps,min_tps,max_tps,n,ratio,ratio_lo,ratio_hi,p,df,level,significant,"
	       "p_raw,family,mde,sigma,within_cv,across_cv,noisy_steps,failed,zero_tps",
	       "csv header");
	is_int((long long)count_lines(s), 5, "csv: header and one row per cell (2 columns x 2 thread counts)");
	is_str(line_with_prefix(s, "service,1,"),
	       "service,1,105.000,95.000,120.000,3,1.0653,1.0119,1.1216,0.033896,2.00,0.9500,true,0.033896,1,1.1106,"
	       "0.0146,,0.1180,0,0,0",
	       "csv cell: the model's verdict, no per-second samples, 11.8%% across starts");
	is_str(line_with_prefix(s, "service,2,"), "service,2,,,,0,,,,,,,,,,,,,,0,1,0", "csv gap is empty, not 0");
	free(s);

	s = render(amd, REPORT_JSON, true, false, NULL, &r);
	is_int(r, 0, "json renders");
	j = json_loads(s ? s : "", 0, NULL);
	ok(j != NULL, "json parses back");
	is_int(json_integer_value(json_object_get(j, "format_version")), 3, "json format_version 3");
	cmp_ok(json_number_value(json_object_get(j, "confidence")), "==", 0.95, "json: the level");
	cell = json_array_get(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "cells"), 0);
	cmp_ok(json_number_value(json_object_get(cell, "median")), "==", 105.0, "json: service median at 1 thread");
	ok(json_is_true(json_object_get(cell, "significant")), "json: significant true");
	is_str(json_string_value(json_object_get(cell, "verdict")), "significant", "json: verdict");
	/* statsmodels' OLS of ln TPS ~ C(context) + C(round) gives these */
	cmp_ok(fabs(json_number_value(json_object_get(cell, "ratio")) - 1.0653353023273933), "<", 1e-9, "json: ratio");
	cmp_ok(fabs(json_number_value(json_object_get(cell, "ratio_lo")) - 1.01190742), "<", 1e-8,
	       "json: the interval's lower bound");
	cmp_ok(fabs(json_number_value(json_object_get(cell, "p")) - 0.033895902547883563), "<", 1e-8, "json: p");
	cmp_ok(fabs(json_number_value(json_object_get(json_object_get(cell, "welch"), "p")) - 0.5175655038650185), "<",
	       1e-8, "json: Welch's p beside it");
	is_int(json_integer_value(json_object_get(cell, "family")), 1, "json: a family of one");
	cell = json_array_get(json_object_get(json_array_get(json_object_get(j, "rows"), 1), "cells"), 0);
	ok(json_is_null(json_object_get(cell, "median")), "json: the failed cell's median is null");
	d = json_object_get(json_object_get(j, "diffs"), "service");
	ok(json_object_get(d, "cgroup.cpu") && json_object_get(d, "autogroup") &&
		   !json_object_get(d, "cpu.stat.nr_throttled") && json_object_size(d) == 2,
	   "json diffs: cgroup.cpu and autogroup only");
	json_decref(j);
	free(s);

	s = render(amd, REPORT_SVG, false, false, &len, &r);
	is_int(r, 0, "svg renders");
	ok(len > 5 && strncmp(s, "<?xml", 5) == 0, "svg starts with <?xml");
	ok(has(s, "<svg"), "svg has an <svg element");
	free(s);

	s = render(amd, REPORT_PNG, false, false, &len, &r);
	is_int(r, 0, "png renders");
	ok(len > 8 && memcmp(s, "\x89PNG\r\n\x1a\n", 8) == 0, "png starts with the PNG signature (%zu bytes)", len);
	free(s);
}

static void check_sparse(void)
{
	json_t *doc = sim_json(doc_sparse), *bad;
	struct report_options o = { .format = REPORT_TEXT };
	enum report_format f;
	char *s;
	int r;

	s = render(doc, REPORT_TEXT, true, true, NULL, &r);
	is_int(r, 0, "a document without host, placements or most steps renders");
	ok(has(s, "service CPUQuota=50%") && has(s, "raw CPUQuota=100%"), "vary: a column per context x value");
	ok(has(line_with_prefix(s, "4 "), "80.0 n=1"), "vary: the one step in its column");
	free(s);
	s = render(doc, REPORT_PNG, false, false, NULL, &r);
	is_int(r, 0, "a plot without a single line renders");
	free(s);
	json_decref(doc);

	/* A repeat that completed nothing is a failed start, not a floored
	 * value: counted, and the ratio judged on the other two. */
	doc = sim_json("{\"format_version\":1,\"experiment\":{\"name\":\"zero\",\"baseline\":\"raw\","
		   "\"contexts\":[\"service\",\"raw\"],\"threads\":[1]},\"steps\":["
		   "{\"context\":\"service\",\"repeat\":1,\"threads\":1,\"duration_s\":2.0,\"tps\":0.0},"
		   "{\"context\":\"service\",\"repeat\":2,\"threads\":1,\"duration_s\":2.0,\"tps\":50.0},"
		   "{\"context\":\"service\",\"repeat\":3,\"threads\":1,\"duration_s\":2.0,\"tps\":52.0},"
		   "{\"context\":\"raw\",\"repeat\":1,\"threads\":1,\"duration_s\":2.0,\"tps\":100.0},"
		   "{\"context\":\"raw\",\"repeat\":2,\"threads\":1,\"duration_s\":2.0,\"tps\":110.0},"
		   "{\"context\":\"raw\",\"repeat\":3,\"threads\":1,\"duration_s\":2.0,\"tps\":90.0}]}");
	s = render(doc, REPORT_TEXT, false, false, NULL, &r);
	is_int(r, 0, "a repeat at 0 TPS renders");
	ok(has(line_with_prefix(s, "1 "), "51.0 (50.0..52.0) n=2") && !has(line_with_prefix(s, "1 "), "(0.0..") &&
		   has(line_with_prefix(s, "1 "), "no ratio") &&
		   has(s, "service at 1 thread: 1 of 3 starts failed (33%") && has(s, "more than a fifth, so no ratio"),
	   "the zero step is a failed start, more than a fifth of them: no ratio (%s)", line_with_prefix(s, "1 "));
	ok(has(s, "it completed no transaction"), "and the failure says why");
	free(s);
	json_decref(doc);

	/* One repeat: a ratio of one start each, no interval, and no verdict
	 * either way (it once said "Holm-adjusted across the 0 ratios" and
	 * "n.s."). */
	doc = sim_json("{\"format_version\":1,\"experiment\":{\"name\":\"once\",\"baseline\":\"raw\","
		   "\"contexts\":[\"service\",\"raw\"],\"threads\":[1]},\"steps\":["
		   "{\"context\":\"service\",\"repeat\":1,\"threads\":1,\"duration_s\":2.0,\"tps\":80.0},"
		   "{\"context\":\"raw\",\"repeat\":1,\"threads\":1,\"duration_s\":2.0,\"tps\":100.0}]}");
	s = render(doc, REPORT_TEXT, false, false, NULL, &r);
	ok(r == 0 && has(s, "of one start each: with one repeat there is no spread between starts to") &&
		   !has(s, "across the 0") && !has(s, "n.s.") && has(s, "service vs raw at 1 thread: no verdict"),
	   "one repeat: no interval and no verdict, said so");
	free(s);
	json_decref(doc);

	bad = sim_json("{\"format_version\":2,\"steps\":[]}");
	is_int(report_render(bad, &o, stdout), -EPROTONOSUPPORT, "format_version 2 is refused");
	json_decref(bad);
	bad = sim_json("[1]");
	is_int(report_render(bad, &o, stdout), -EINVAL, "not a document");
	json_decref(bad);
	is_int(report_format_from_string("md", &f), 0, "md is a format");
	is_int(f, REPORT_MARKDOWN, "md is markdown");
	is_int(report_format_from_string("html", &f), -EINVAL, "html is not");
}

/* Two sources of noise apart: service's first start varies 67% from second
 * to second (130, 0, 130, 140: sample SD 66.8 over a mean of 100; the
 * silent second too short for a stall, which the report says), its
 * other two 2.2% and 1.8% (median of the three 2.2%); across its three
 * starts TPS varies 9.5% (100, 110, 91). */
static void check_noisy(void)
{
	json_t *doc = sim_json("{\"format_version\":1,\"experiment\":{\"name\":\"noisy\",\"baseline\":\"raw\","
			   "\"contexts\":[\"service\",\"raw\"],\"threads\":[1]},\"steps\":["
			   "{\"context\":\"service\",\"repeat\":1,\"threads\":1,\"tps\":100.0,"
			   "\"intervals_tps\":[130,0,130,140],\"stalled_s\":1},"
			   "{\"context\":\"service\",\"repeat\":2,\"threads\":1,\"tps\":110.0,"
			   "\"intervals_tps\":[110,113,107,110]},"
			   "{\"context\":\"service\",\"repeat\":3,\"threads\":1,\"tps\":91.0,"
			   "\"intervals_tps\":[91,93,89,91]},"
			   "{\"context\":\"raw\",\"repeat\":1,\"threads\":1,\"tps\":100.0},"
			   "{\"context\":\"raw\",\"repeat\":2,\"threads\":1,\"tps\":101.0},"
			   "{\"context\":\"raw\",\"repeat\":3,\"threads\":1,\"tps\":99.0}]}");
	json_t *j, *cell, *n;
	const char *l;
	char *s;
	int r;

	s = render(doc, REPORT_TEXT, false, false, NULL, &r);
	is_int(r, 0, "a document with a noisy step renders");
	l = line_with_prefix(strstr(s, "noise: ") ?: "", "1 ");
	ok(has(l, "2.2% | 9.5% !"), "noise within a start (median of the starts) and across starts apart, flagged (%s)",
	   l);
	ok(has(s, "! 1 step vary more than 10% from second to second: service r1 t1 (67%, 1 s without a transaction)."),
	   "the noisy step is named with its CV and its silent second");
	ok(has(s, "The published taskset study found that pinning client and server removed most"),
	   "the report says what the taskset study found");
	ok(has(s, "pin the server with CPUAffinity= in its [context NAME]") && has(s, "the client with cpus = in [client]"),
	   "and names the experiment keys that pin server and client");
	free(s);

	s = render(doc, REPORT_JSON, false, false, NULL, &r);
	j = json_loads(s ? s : "", 0, NULL);
	cell = json_array_get(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "cells"), 0);
	n = json_array_get(json_object_get(j, "noisy_steps"), 0);
	ok(json_integer_value(json_object_get(cell, "noisy_steps")) == 1 && json_array_size(json_object_get(j, "noisy_steps")) == 1,
	   "json: one noisy step in the cell and in the list");
	ok(streq(json_string_value(json_object_get(n, "context")) ?: "", "service") &&
		   json_integer_value(json_object_get(n, "repeat")) == 1 &&
		   fabs(json_number_value(json_object_get(n, "cv")) - 0.6683) < 1e-3 &&
		   json_integer_value(json_object_get(n, "stalled_s")) == 1,
	   "json: the noisy step's context, repeat, CV and silent second");
	cmp_ok(json_number_value(json_object_get(j, "noisy_cv")), "==", 0.10, "json: the threshold");
	json_decref(j);
	free(s);
	json_decref(doc);
}

/* Noise as a result: pinned's ten starts vary 0.9% (SD of log TPS), raw's
 * 4.8%, pinned has an eleventh that failed; every step has four seconds,
 * its CV 4.1% and 8.2% by turns.  The figures are SciPy's
 * (levene(center="median") on the logarithms, chi2 and t quantiles) and
 * Fieller's set for the ratio of the mean absolute deviations solved by
 * hand from the same sums: pinned 0.88% (0.60-1.60%), raw 4.76%
 * (3.28-8.69%), the ratio 0.185 (0.0900-0.376), p 0.00167; within 6.12%
 * (4.58-7.66%). */
static json_t *noise_doc(void)
{
	static const double raw[] = { 960, 1040, 1000, 930, 1075, 985, 1020, 950, 1060, 1010 };
	static const double pinned[] = { 1000, 1010, 995, 1005, 990, 1012, 1003, 998, 1008, 985 };
	json_t *doc = sim_json("{\"format_version\":1,\"experiment\":{\"name\":\"pinning\",\"baseline\":\"raw\","
			   "\"contexts\":[\"pinned\",\"raw\"],\"threads\":[1]},\"steps\":[]}");
	json_t *steps = json_object_get(doc, "steps");

	for (size_t i = 0; i < 20; i++) {
		double tps = i < 10 ? pinned[i] : raw[i - 10], d = i % 2 ? 0.10 : 0.05;

		json_array_append_new(steps, json_pack("{s:s, s:i, s:i, s:f, s:b, s:[f,f,f,f]}", "context",
						       i < 10 ? "pinned" : "raw", "repeat", (int)(i % 10) + 1, "threads", 1,
						       "tps", tps, "failed", 0, "intervals_tps", tps * (1 - d), tps * (1 + d),
						       tps, tps));
	}
	json_array_append_new(steps, json_pack("{s:s, s:i, s:i, s:n, s:b}", "context", "pinned", "repeat", 11,
					       "threads", 1, "tps", "failed", 1));
	return doc;
}

static bool near(const json_t *o, const char *key, double want, double tol)
{
	double got = json_number_value(json_object_get(o, key));

	if (fabs(got - want) <= tol)
		return true;
	diag("%s: got %.6g, want %.6g", key, got, want);
	return false;
}

static void check_noise_verdict(void)
{
	json_t *doc = noise_doc(), *j, *cell, *v;
	const char *l;
	char *s;
	int r;

	s = render(doc, REPORT_TEXT, false, false, NULL, &r);
	is_int(r, 0, "a document of ten starts a side renders");
	l = line_with_prefix(strstr(s, "noise with 95% intervals") ?: "", "1 ");
	ok(has(l, "0.9% (0.6-1.6%) n=10, 1 failed | 6.1% (4.6-7.7%)") && has(l, "4.8% (3.3-8.7%) n=10 | 6.1% (4.6-7.7%)"),
	   "the CVs across starts and within a step with their intervals, the failed start counted (%s)", l);
	ok(has(s, "assumes log TPS normal"), "the caption says the chi-square interval assumes normal log TPS");
	ok(has(s, "  at 1 thread: pinned's starts vary 0.18x as much as raw's (CV 0.9% (0.6-1.6%) against 4.8% "
		  "(3.3-8.7%)), 0.18x (0.09-0.38), Brown-Forsythe p=0.00167 (Holm, 1 comparison)"),
	   "the noise verdict, its ratio, interval and Holm-adjusted p");
	free(s);

	s = render(doc, REPORT_JSON, false, false, NULL, &r);
	j = json_loads(s ? s : "", 0, NULL);
	cell = json_array_get(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "cells"), 0);
	v = json_object_get(json_object_get(cell, "noise"), "cv_starts");
	ok(near(v, "cv", 0.0087814, 1e-6) && near(v, "lo", 0.0060401, 1e-6) && near(v, "hi", 0.0160313, 1e-6) &&
		   json_integer_value(json_object_get(v, "n")) == 10 && json_integer_value(json_object_get(v, "failed")) == 1,
	   "json: pinned's cv_starts, its interval, n and failed");
	v = json_object_get(json_object_get(cell, "noise"), "cv_within");
	ok(near(v, "cv", 0.0612372, 1e-6) && near(v, "lo", 0.0458452, 1e-6) && near(v, "hi", 0.0766293, 1e-6),
	   "json: pinned's cv_within and its t interval");
	v = json_array_get(json_object_get(j, "noise_verdicts"), 0);
	ok(json_array_size(json_object_get(j, "noise_verdicts")) == 1 && near(v, "ratio", 0.1845427, 1e-6) &&
		   near(v, "ratio_lo", 0.0900366, 1e-6) && near(v, "ratio_hi", 0.3760373, 1e-6) &&
		   near(v, "p", 0.0016686, 1e-6) && json_is_true(json_object_get(v, "significant")) &&
		   streq(json_string_value(json_object_get(v, "against")) ?: "", "raw"),
	   "json: the noise verdict against raw, its ratio, interval and p as SciPy has them");
	json_decref(j);
	free(s);
	json_decref(doc);
}

/* Each vary value's TPS against its context's first value, in every format. */
static void check_vary(void)
{
	json_t *doc = sim_json(doc_vary), *j, *cells, *v;
	const char *part, *l;
	char *s;
	int r;

	s = render(doc, REPORT_TEXT, false, false, NULL, &r);
	is_int(r, 0, "a vary renders");
	diag("vary report:\n%s", s);
	part = strstr(s, "TPS against the first CPUWeight value (100), per context: ratio with its interval (at its Holm "
			 "step's level, 95% for the table) and p\n");
	ok(part != NULL, "vary: a table of ratios to the first value, named");
	l = line_with_prefix(part ?: "", "threads");
	ok(has(l, "service CPUWeight=400") && has(l, "raw CPUWeight=400") && !has(l, "=100"),
	   "vary: a column per context and later value (%s)", l);
	l = line_with_prefix(part ?: "", "4 ");
	ok(has(l, "1.30x (1.29-1.31) p<0.001") && has(l, "1.07x (1.01-1.12) p=0.0339") && !has(l, "n.s."),
	   "vary: service 400 over 100 1.30x, raw 1.07x, each from its pair's rounds with its interval (%s)", l);
	ok(has(part ?: "", "ratio: to the context's first value, from one model of log TPS") &&
		   has(part ?: "", "Holm-adjusted across the 2 ratios of this table"),
	   "vary: the method under it");
	ok(has(s, "\n    affinity: 0-1 | 0\n    setting.CPUAffinity: not set | core:0 -> 0 -> affinity=0: in force\n"),
	   "placement differences: a setting whole, as written -> resolved -> read back, after the keys");
	ok(!has(s, "setting.CPUAffinity.written") && !has(s, "in_force.CPUAffinity"), "and not key by key");
	free(s);

	s = render(doc, REPORT_CSV, false, false, NULL, &r);
	is_int(r, 0, "vary: csv renders");
	ok(has(line_with_prefix(s, "column,"), ",failed,zero_tps,vary_first,vary_ratio,vary_ratio_lo,vary_ratio_hi,vary_p,"
					      "vary_df,vary_level,vary_significant,vary_p_raw,vary_family,vary_mde,vary_sigma"),
	   "vary csv: the verdict against the first value after the other fields (%s)", line_with_prefix(s, "column,"));
	l = line_with_prefix(s, "service CPUWeight=400,4,");
	ok(has(l, ",service CPUWeight=100,1.3000,1.2893,1.3108,0.000052,2.00,0.9500,true"), "vary csv: service 400 (%s)", l);
	l = line_with_prefix(s, "raw CPUWeight=400,4,");
	ok(has(l, ",raw CPUWeight=100,1.0653,1.0119,1.1216,0.033896,2.00,0.9500,true"), "vary csv: raw 400 (%s)", l);
	l = line_with_prefix(s, "service CPUWeight=100,4,");
	ok(strlen(l) > 12 && streq(l + strlen(l) - 12, ",,,,,,,,,,,,"), "vary csv: the first value's record has none (%s)",
	   l);
	free(s);

	s = render(doc, REPORT_JSON, false, false, NULL, &r);
	j = json_loads(s ? s : "", 0, NULL);
	cells = json_object_get(json_array_get(json_object_get(j, "rows"), 0), "cells");
	v = json_object_get(json_array_get(cells, 2), "vs_first");
	ok(streq(json_string_value(json_object_get(v, "column")) ?: "", "service CPUWeight=100") &&
		   fabs(json_number_value(json_object_get(v, "ratio")) - 1.3) < 1e-3 &&
		   fabs(json_number_value(json_object_get(v, "ratio_lo")) - 1.2893) < 1e-4 &&
		   json_is_true(json_object_get(v, "significant")),
	   "vary json: service 400's vs_first against service 100, 1.30x (1.29-), significant");
	ok(json_is_null(json_object_get(json_array_get(cells, 0), "vs_first")), "vary json: none for a first value");
	json_decref(j);
	free(s);
	json_decref(doc);

	doc = sim_json(doc_amd);
	s = render(doc, REPORT_TEXT, false, false, NULL, &r);
	ok(!has(s, "TPS against the first"), "without a vary, no such table");
	free(s);
	json_decref(doc);
}

static char *compare(json_t *const *docs, enum report_format f, int *ret_r)
{
	static const char *const labels[] = { "amd", "intel" };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		bail_out("open_memstream: %m");
	struct report_options o = { .format = f };

	*ret_r = compare_render(docs, labels, 2, &o, out);
	fclose(out);
	return buf;
}

static void check_compare(json_t *amd, json_t *intel)
{
	json_t *docs[] = { amd, intel }, *j, *h;
	const char *l;
	char *s;
	int r;

	s = compare(docs, REPORT_TEXT, &r);
	is_int(r, 0, "compare renders text");
	diag("compare:\n%s", s);
	l = line_with_prefix(s, "cpu.vendor");
	ok(has(l, "AuthenticAMD") && has(l, "GenuineIntel"), "compare: cpu.vendor with both values (%s)", l);
	l = line_with_prefix(s, "kernel.release");
	ok(l && !has(l, "differs") && !has(s, "cpu.count"),
	   "compare: equal facts are not marked, equal keys outside the facts table not listed (%s)", l);
	l = line_with_prefix(s, "1 ");
	ok(has(l, "service") && has(l, "1.07x (1.01-1.12) p=0.0339") && has(l, "1.30x (1.29-1.31) p<0.001"),
	   "compare: ratios side by side (%s)", l);
	l = has(s, "median TPS") ? line_with_prefix(strstr(s, "median TPS"), "1 ") : NULL;
	ok(has(l, "service") && has(l, "105.0") && has(l, "130.0"), "compare: medians side by side (%s)", l);
	l = line_with_prefix(s, "threads");
	ok(has(l, "amd") && has(l, "intel") && !has(l, "ratio"), "compare: one column per document (%s)", l);
	l = line_with_prefix(s, "2 ");
	ok(has(l, "failed"), "compare: a failed cell says so (%s)", l);
	free(s);

	s = compare(docs, REPORT_MARKDOWN, &r);
	is_int(r, 0, "compare renders markdown");
	ok(has(s, "\n|---") && has(s, "| cpu.vendor | AuthenticAMD | GenuineIntel |"), "compare markdown host table");
	free(s);

	s = compare(docs, REPORT_CSV, &r);
	is_int(r, 0, "compare renders csv");
	ok(has(s, "fact,amd,,,,,,,,,,,cpu.vendor,AuthenticAMD\n") &&
		   has(s, "fact,intel,,,,,,,,,,,cpu.vendor,GenuineIntel\n"),
	   "compare csv fact records");
	ok(has(s, "tps,intel,1,service,130.000,1.3000,1.2893,1.3108,0.000052,2.00,0.9500,true,0.000026,2,"),
	   "compare csv tps record (%s)", line_with_prefix(s, "tps,intel,1,service"));
	free(s);

	s = compare(docs, REPORT_JSON, &r);
	is_int(r, 0, "compare renders json");
	j = json_loads(s ? s : "", 0, NULL);
	h = json_object_get(j, "host_diffs");
	is_int(json_integer_value(json_object_get(j, "format_version")), 3, "compare json format_version 3");
	ok(json_is_true(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "values"), 1),
					"significant")),
	   "compare json: intel's service at 1 thread is significant");
	is_int((long long)json_object_size(h), 1, "compare json: one differing host key");
	is_str(json_string_value(json_array_get(json_object_get(json_object_get(j, "host_facts"), "kernel.release"), 1)),
	       "6.1.0", "compare json: host_facts holds the equal facts too");
	is_str(json_string_value(json_array_get(json_object_get(h, "cpu.vendor"), 1)), "GenuineIntel",
	       "compare json: the second document's value");
	json_decref(j);
	free(s);

	s = compare(docs, REPORT_SVG, &r);
	is_int(r, -EOPNOTSUPP, "compare has no plot");
	free(s);
}

int main(int argc, char **argv)
{
	json_t *amd = sim_json(doc_amd), *intel = sim_json(doc_intel);

	/* The text's content, laid out wide, so that a sentence is one line;
	 * t/141 holds the layout at 100 columns. */
	table_set_width(1000);

	/* With a file name: write the plot there, to look at. */
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");
		struct report_options o = { .format = strstr(argv[1], ".svg") ? REPORT_SVG : REPORT_PNG };

		if (f) {
			report_render(amd, &o, f);
			fclose(f);
		}
	}
	check_text(amd, intel);
	check_formats(amd);
	check_sparse();
	check_noisy();
	check_noise_verdict();
	check_vary();
	check_compare(amd, intel);
	json_decref(amd);
	json_decref(intel);
	return done_testing();
}

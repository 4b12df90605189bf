/* libFuzzer target for every parser of outside input.  The first byte picks
 * the parser: 0 an experiment file, 1 a sysbench report, 2 a placement
 * snapshot in JSON, 3 the small value parsers (durations, lists, CPU masks,
 * NAME=VALUE properties), 4 a pgbench report, 5 a results file (a step, a
 * placement, experiment.json, host.json) as report reads it, rendered in
 * every text format when it passes, 6 experiment.json as explain and --resume
 * read it back, 7 a whole results directory (its files, parts of the input
 * between 0x1e bytes) as report, explain RESULTS and explain's report read
 * it, 8 a step's folded stacks (profiles/, each line as profile_read()
 * checks it, then the shares of those that pass).  `make fuzz` builds and
 * runs it. */
#include <libgen.h>
#include <stdio.h>
#include <sys/stat.h>

#include "experiment/experiment.h"
#include "explain/code.h"
#include "explain/factors.h"
#include "explain/record.h"
#include "store/results.h"
#include "profile/shares.h"
#include "report/report.h"
#include "oltp/oltp.h"
#include "oltp/pg.h"
#include "slices/attr/props.h"
#include "slices/attr/snapshot.h"
#include "common/util.h"

static char scratch_path[64];

static void remove_scratch(void)
{
	char *slash = strrchr(scratch_path, '/');

	unlink(scratch_path);
	*slash = 0;
	rmdir(scratch_path);
}

static const char *scratch_file(void)
{
	if (!scratch_path[0]) {
		snprintf(scratch_path, sizeof(scratch_path), "/tmp/slicebench-fuzz-%d", (int)getpid());
		mkdir(scratch_path, 0700);
		strcat(scratch_path, "/fuzz.ini");
		atexit(remove_scratch);
	}
	return scratch_path;
}

static void fuzz_experiment(const uint8_t *data, size_t len)
{
	const char *path = scratch_file();
	_cleanup_free_ char *msg = NULL;
	struct experiment e;
	FILE *f = fopen(path, "we");

	if (!f)
		return;
	fwrite(data, 1, len, f);
	fclose(f);
	if (experiment_load(path, CGROUP_HYBRID, &e, &msg) >= 0) {
		json_decref(experiment_to_json(&e));
		experiment_done(&e);
	}
}

static void fuzz_sysbench_report(const char *text)
{
	struct step_result r = {};

	sysbench_parse_report(text, &r);
	step_result_done(&r);
}

static void fuzz_pgbench_report(const char *text)
{
	struct step_result r = {};

	pgbench_parse_report(text, &r);
	step_result_done(&r);
}

static void fuzz_placement(const char *text, size_t len)
{
	json_t *j = json_loadb(text, len, 0, NULL);
	struct placement p = {};

	if (j && placement_from_json(j, &p) >= 0) {
		json_decref(placement_to_json(&p));
		placement_done(&p);
	}
	json_decref(j);
}

/* The report of a document holding the text as one step (and as its
 * experiment.json), in each text format: a file that passes the check must
 * render. */
static void fuzz_results_file(const char *text, size_t len)
{
	/* Not the plots: cairo's fontconfig keeps what it allocates. */
	static const enum report_format formats[] = { REPORT_TEXT, REPORT_MARKDOWN, REPORT_CSV, REPORT_JSON };
	json_t *j = json_loadb(text, len, 0, NULL), *steps = json_array(), *places = json_object(), *doc = NULL;
	_cleanup_free_ char *why = NULL;
	bool exp = false;
	FILE *null;

	if (j && steps && places) {
		if (results_check(RESULTS_FILE_STEP, j, &why) >= 0)
			json_array_append(steps, j);
		free(why);
		if (results_check(RESULTS_FILE_PLACEMENT, j, &why) >= 0)
			json_object_set(places, "x-v1-r1", j);
		free(why);
		exp = results_check(RESULTS_FILE_EXPERIMENT, j, &why) >= 0;
		doc = json_pack("{s:i, s:O, s:n, s:O, s:O}", "format_version", RESULTS_FORMAT_VERSION, "experiment",
				exp ? j : json_null(), "host", "placements", places, "steps", steps);
	}
	null = fopen("/dev/null", "we");
	for (size_t i = 0; doc && null && (exp || json_array_size(steps)) && i < ELEMENTSOF(formats); i++) {
		struct report_options o = { .format = formats[i], .latency = true, .telemetry = true };

		report_render(doc, &o, null);
	}
	if (null)
		fclose(null);
	json_decref(doc);
	json_decref(steps);
	json_decref(places);
	json_decref(j);
}

/* experiment.json as explain RESULTS and run --resume read it back. */
static void fuzz_experiment_json(const uint8_t *data, size_t len)
{
	const char *path = scratch_file();
	_cleanup_free_ char *dir = strdup(path), *exp_path = NULL, *msg = NULL;
	struct experiment e;
	FILE *f;

	if (!dir || xasprintf(&exp_path, "%s/experiment.json", dirname(dir)) < 0 || !(f = fopen(exp_path, "we")))
		return;
	fwrite(data, 1, len, f);
	fclose(f);
	if (experiment_from_results(dir, false, &e, &msg) >= 0) {
		json_decref(experiment_to_json(&e));
		experiment_done(&e);
	}
	unlink(exp_path);
}

/* The files of a results directory, in the order of the input's parts. */
static const char *const dir_files[] = { "experiment.json", "steps/a-v1-r1-t1.json", "placements/a-v1-r1.json",
					 "host.json", "schedule.json", "steps/a-v1-r2-t1.json", "placements/b-v1-r1.json",
					 "explain.json" };

/* dir made from the input's parts (files missing where it has fewer). */
static int write_dir(const char *dir, const uint8_t *data, size_t len)
{
	_cleanup_free_ char *steps = NULL, *places = NULL;

	if (xasprintf(&steps, "%s/steps", dir) < 0 || xasprintf(&places, "%s/placements", dir) < 0)
		return -ENOMEM;
	mkdir(dir, 0700);
	mkdir(steps, 0700);
	mkdir(places, 0700);
	for (size_t i = 0; i < ELEMENTSOF(dir_files) && len > 0; i++) {
		const uint8_t *end = memchr(data, 0x1e, len);
		size_t n = end ? (size_t)(end - data) : len;
		_cleanup_free_ char *path = NULL;
		FILE *f;

		if (xasprintf(&path, "%s/%s", dir, dir_files[i]) < 0 || !(f = fopen(path, "we")))
			return -ENOMEM;
		fwrite(data, 1, n, f);
		fclose(f);
		data += end ? n + 1 : n;
		len -= end ? n + 1 : n;
	}
	return 0;
}

static void remove_dir(const char *dir)
{
	char path[128];

	for (size_t i = 0; i < ELEMENTSOF(dir_files); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dir_files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/steps", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/placements", dir);
	rmdir(path);
	rmdir(dir);
}

/* The directory as report reads it (rendered when it loads), as explain
 * RESULTS --from a --to b reads its experiment and placements and checks
 * the code they name, and as explain's report reads explain.json. */
static void fuzz_results_dir(const uint8_t *data, size_t len)
{
	_cleanup_free_ char *base = strdup(scratch_file()), *dir = NULL, *why = NULL, *msg = NULL, *pa_path = NULL,
			    *pb_path = NULL;
	struct placement pa = {}, pb = {};
	struct explain_record rec;
	struct experiment e;
	json_t *doc = NULL;
	FILE *null = fopen("/dev/null", "we");

	if (!base || !null || xasprintf(&dir, "%s/results", dirname(base)) < 0 || write_dir(dir, data, len) < 0)
		goto out;
	if (results_load(dir, &doc, &why) >= 0) {
		struct report_options o = { .format = REPORT_TEXT, .latency = true, .telemetry = true };

		report_render(doc, &o, null);
		json_decref(doc);
	}
	if (experiment_from_results(dir, false, &e, &msg) >= 0) {
		if (factors_load_placement(dir, "a", &pa, &pa_path) >= 0 && factors_load_placement(dir, "b", &pb, &pb_path) >= 0)
			(void)explain_check_code(dir, &e, &pa, pa_path, &pb, pb_path, false);
		placement_done(&pa);
		placement_done(&pb);
		experiment_done(&e);
	}
	free(why);
	why = NULL;
	(void)explain_record_read(dir, &rec, &why);
out:
	if (null)
		fclose(null);
	if (dir)
		remove_dir(dir);
}

static void fuzz_values(const char *text)
{
	long list[CPU_LIST_MAX];
	uint8_t mask[CPUSET_BYTES];
	struct prop_value v = {};
	const char *eq = strchr(text, '=');
	size_t n, bytes;
	uint64_t ns;

	parse_duration_ns(text, &ns);
	parse_int_list(text, 0, CPU_LIST_MAX - 1, list, ELEMENTSOF(list), &n);
	cpumask_parse(text, mask, &bytes);
	if (eq) {
		_cleanup_free_ char *name = strndup(text, (size_t)(eq - text));

		if (name && prop_parse(name, eq + 1, &v) >= 0)
			prop_value_done(&v);
	}
}

/* Folded stacks, a line at a time, and the shares of the lines that pass. */
static void fuzz_profile(char *text)
{
	struct profile p = { .lines = calloc(strlen(text) / 2 + 2, sizeof(struct profile_line)) };
	struct profile_shares *sh = NULL;
	char *save = NULL;

	if (!p.lines)
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (profile_parse_line(line, &p.lines[p.n]) >= 0)
			p.n++;
	if (profile_shares_of(&p, 1.0, &sh) >= 0)
		profile_shares_free(sh);
	free(p.lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = NULL;

	if (size < 1 || size > 65536)
		return 0;
	text = strndup((const char *)data + 1, size - 1); /* NUL-terminated, stops at an inner NUL */
	if (!text)
		return 0;
	switch (data[0] % 9) {
	case 0:
		fuzz_experiment(data + 1, size - 1);
		break;
	case 1:
		fuzz_sysbench_report(text);
		break;
	case 2:
		fuzz_placement(text, strlen(text));
		break;
	case 4:
		fuzz_pgbench_report(text);
		break;
	case 5:
		fuzz_results_file(text, strlen(text));
		break;
	case 6:
		fuzz_experiment_json(data + 1, size - 1);
		break;
	case 7:
		fuzz_results_dir(data + 1, size - 1);
		break;
	case 8:
		fuzz_profile(text);
		break;
	default:
		fuzz_values(text);
		break;
	}
	return 0;
}

/* libFuzzer target for every parser of outside input.  The first byte picks
 * the parser: 0 an experiment file, 1 a sysbench report, 2 a placement
 * snapshot in JSON, 3 the small value parsers (durations, lists, CPU masks,
 * NAME=VALUE properties), 4 a pgbench report.  `make fuzz` builds and runs it. */
#include <stdio.h>
#include <sys/stat.h>

#include "run/experiment.h"
#include "oltp/oltp.h"
#include "oltp/pg.h"
#include "slices/props.h"
#include "slices/snapshot.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *text = NULL;

	if (size < 1 || size > 65536)
		return 0;
	text = strndup((const char *)data + 1, size - 1); /* NUL-terminated, stops at an inner NUL */
	if (!text)
		return 0;
	switch (data[0] % 5) {
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
	default:
		fuzz_values(text);
		break;
	}
	return 0;
}

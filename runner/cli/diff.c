/* slicebench diff: what differs between two placements, taken from files
 * written by place --json, or from a results directory of run. */
#include <stdio.h>

#include "store/results.h"
#include "slices/attr/capture.h"
#include "slices/attr/snapshot.h"
#include "common/input.h"
#include "common/text.h"
#include "common/util.h"
#include "cli/verbs.h"

/* A placement file, read as every input is (common/input.c): a regular
 * file, no link, no FIFO, bounded, duplicate keys refused. */
static int load_placement(const char *path, struct placement *ret)
{
	_cleanup_free_ char *why = NULL;
	json_t *j = input_load_json(path, INPUT_JSON_MAX, &why);
	int r;

	if (!j)
	{
		r = errno == ENOMEM ? -ENOMEM : -EINVAL;
		return log_error_errno(r, "diff: %s", why ? why : strerror(errno));
	}
	r = placement_from_json(j, ret);
	json_decref(j);
	if (r < 0)
		log_error("diff: %s is not a placement (an object of strings, as place --json prints)", path);
	return r;
}

/* The first repeat of the first vary value of the context, as run names it. */
static int placement_path(const char *dir, const char *context, char **ret)
{
	if (!name_is_valid(context))
		return log_error_errno(-EINVAL, "diff: bad context name '%s'", context);
	return results_first_placement_path(dir, context, ret);
}

const struct cli_verb cli_diff = {
	.name = "diff",
	.usage = (const char *const[]){ "A.json B.json", "RESULTS-DIR CONTEXT-A CONTEXT-B", NULL },
	.about = "Shows the attributes in which two placements differ, counters left out, then each setting\n"
		 "that differs or is not in force, as written, as resolved on the host and as read back: two\n"
		 "files that place --json wrote, or two contexts of a results directory (their first unit's\n"
		 "placement).",
};

/* The two placements of the operands; -EINVAL (logged) for bad input. */
static int load_both(char **operands, int n, struct placement *a, struct placement *b)
{
	_cleanup_free_ char *pa = NULL, *pb = NULL;
	int r;

	if (n != 2 && n != 3)
		return cli_usage_error(&cli_diff, "give two placement files, or a results directory and two contexts");
	if (n == 2) {
		pa = strdup(operands[0]);
		pb = strdup(operands[1]);
		if (!pa || !pb)
			return log_error_errno(-ENOMEM, "diff: %m");
	} else if (placement_path(operands[0], operands[1], &pa) < 0 ||
		   placement_path(operands[0], operands[2], &pb) < 0)
		return -EINVAL;
	r = load_placement(pa, a);
	return r < 0 ? r : load_placement(pb, b);
}

/* The settings either side records that differ, or that are not in
 * force, as written -> as resolved -> as read back on each side. */
static int print_settings_diff(const struct placement *a, const struct placement *b, const char *la, const char *lb)
{
	const char *names[PLACEMENT_SETTINGS_MAX];
	size_t n = 0;
	bool said = false;

	placement_setting_names(a, names, &n);
	placement_setting_names(b, names, &n);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *ta_raw = NULL, *tb_raw = NULL, *ta = NULL, *tb = NULL, *name = NULL;

		if (!placement_setting_differs(a, b, names[i]))
			continue;
		if (placement_setting_text(a, names[i], &ta_raw) < 0 || placement_setting_text(b, names[i], &tb_raw) < 0)
			return log_error_errno(-ENOMEM, "diff: %m");
		if (!said)
			printf("settings that differ or are not in force, as written -> as resolved -> as read back:\n");
		said = true;
		ta = text_escape(ta_raw);
		tb = text_escape(tb_raw);
		name = text_escape(names[i]);
		if (!ta || !tb || !name)
			return log_error_errno(-ENOMEM, "diff: %m");
		printf("  %s\n    %s: %s\n    %s: %s\n", name, la, ta, lb, tb);
	}
	return said;
}

static int print_diff(const struct placement *a, const struct placement *b, const char *la, const char *lb)
{
	_cleanup_free_ const char **keys = NULL;
	size_t n, shown = 0;
	int r;

	if (placement_diff(a, b, &keys, &n) < 0)
		return log_error_errno(-ENOMEM, "diff: %m");
	/* A capture says where it came from once, not as attributes. */
	for (int side = 0; side < 2; side++)
		if (placement_get(side ? b : a, CAPTURE_PREFIX "pid")) {
			_cleanup_free_ char *exe = text_escape(strempty(placement_get(side ? b : a, CAPTURE_PREFIX "exe")));

			printf("%s: a capture of PID %s (%s), which ran as %s\n", side ? lb : la,
			       placement_get(side ? b : a, CAPTURE_PREFIX "pid"), strempty(exe),
			       strempty(placement_get(side ? b : a, CAPTURE_PREFIX "kind")));
		}
	for (size_t i = 0; i < n; i++)
		if (!placement_key_is_setting(keys[i]) && !capture_key_is_own(keys[i]))
			keys[shown++] = keys[i];
	if (shown)
		printf("%-28s %-36s %s\n", "attribute", la, lb);
	for (size_t i = 0; i < shown; i++) {
		/* A captured process's names and values, escaped for the terminal. */
		_cleanup_free_ char *key = text_escape(keys[i]), *va = text_escape(placement_get(a, keys[i]) ?: "(none)"),
				    *vb = text_escape(placement_get(b, keys[i]) ?: "(none)");

		if (!key || !va || !vb)
			return log_error_errno(-ENOMEM, "diff: %m");
		printf("%-28s %-36s %s\n", key, va, vb);
	}
	r = print_settings_diff(a, b, la, lb);
	if (r == 0 && !shown)
		printf("the placements of %s and %s do not differ (counters aside), and their settings are in force\n", la,
		       lb);
	return r < 0 ? r : 0;
}

int verb_diff(int argc, char **argv)
{
	_cleanup_(placement_done) struct placement a = {}, b = {};
	int first, n, r;

	r = cli_parse(&cli_diff, argc, argv, NULL, &first);
	if (r <= 0)
		return verb_parse_exit_status(r);
	n = argc - first;
	r = load_both(argv + first, n, &a, &b);
	if (r < 0)
		return r == -ENOMEM ? verb_exit_status(r) : EXIT_USAGE;
	/* The labels: the files, or the contexts. */
	return verb_exit_status(print_diff(&a, &b, argv[argc - 2], argv[argc - 1]));
}

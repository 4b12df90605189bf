/* The shape a results file must have to be read back.  report, compare,
 * explain and --resume read directories that anyone may have written (or
 * copied from another host): each file is checked against one table of
 * rules before its values are used, so that a wrong type or an absurd value
 * is refused with its file and JSON path rather than printed as a number. */
#include <math.h>
#include <stdio.h>

#include "oltp/record.h"
#include "store/check.h"
#include "store/names.h"
#include "store/provenance.h"
#include "common/text.h"
#include "common/util.h"

enum shape {
	SHAPE_INT,	/* an integer from min to max */
	SHAPE_NUM,	/* a number from min to max */
	SHAPE_BOOL,
	SHAPE_STR,
	SHAPE_WORD,	/* a version or a commit (store/provenance.h) */
	SHAPE_NAME,	/* a context's or an experiment's name */
	SHAPE_SCALAR,	/* a string, number or boolean (a vary value) */
	SHAPE_OBJ,	/* an object, checked by sub when given */
	SHAPE_NUMS,	/* an array of numbers from min to max (or null) */
	SHAPE_INTS,	/* an array of integers from min to max */
	SHAPE_NAMES,	/* an array of names */
	SHAPE_SCALARS,	/* an array of scalars */
	SHAPE_STRS,	/* an array of strings */
	SHAPE_NUM_MEMBERS, /* an object of numbers from min to max (or null) */
	SHAPE_OBJS,	/* an array of objects, each checked by sub */
};

struct rule {
	const char *key;
	enum shape shape;
	double min, max;
	bool required;
	const struct rule *sub; /* SHAPE_OBJ, SHAPE_OBJS: ended by a rule without key */
};

/* Far above any server's (a billion transactions a second, a step of
 * four months), far below where a sum or a product of them overflows. */
#define RATE_MAX 1e9
#define MS_MAX 1e10
#define S_MAX 1e7
#define COUNT_MAX 1e15

static const struct rule telemetry_rules[] = {
	{ "t_s", SHAPE_NUM, 0, S_MAX },
	{ "cpu_idle_pct", SHAPE_NUM, 0, 100 },
	{ "nr_throttled", SHAPE_NUM, 0, COUNT_MAX },
	{},
};

static const struct rule saturation_rules[] = {
	{ "client_threads", SHAPE_INT, 0, OLTP_STEP_THREADS_MAX }, /* 0: pinned apart from the server's CPUs */
	{ "server_threads", SHAPE_INT, 0, COUNT_MAX },
	{ "cpus", SHAPE_NUM, 0, 1e6 },
	{ "saturated", SHAPE_BOOL },
	{},
};

/* The build that measured a step. */
static const struct rule build_rules[] = {
	{ "version", SHAPE_WORD, .required = true },
	{ "commit", SHAPE_WORD, .required = true },
	{},
};

/* What the profile's sampler counted (its stacks: profiles/, profile/folded.h). */
static const struct rule profile_rules[] = {
	{ "hz", SHAPE_INT, 1, 10000 },
	{ "off_cpu_stacks", SHAPE_BOOL },
	{ "seconds", SHAPE_NUM, 0, S_MAX },
	{ "samples", SHAPE_INT, 0, COUNT_MAX },
	{ "server_samples", SHAPE_INT, 0, COUNT_MAX },
	{ "lost", SHAPE_INT, 0, COUNT_MAX },
	{ "switches", SHAPE_INT, 0, COUNT_MAX },
	{ "throttled_ms", SHAPE_NUM, 0, MS_MAX },
	{ "why", SHAPE_STR },
	{},
};

/* An open-loop step's arrivals and what its driver said of them. */
static const struct rule open_loop_rules[] = {
	{ "rate", SHAPE_INT, 1, OLTP_RATE_MAX, true },
	{ "arrivals", SHAPE_STR },
	{ "latency_from", SHAPE_STR },
	{ "service_ms", SHAPE_NUM_MEMBERS, 0, MS_MAX },
	{ "lag_ms", SHAPE_NUM_MEMBERS, 0, MS_MAX },
	{ "backlog_at_end", SHAPE_INT, 0, COUNT_MAX },
	{ "latency_limit_ms", SHAPE_NUM, 0, MS_MAX },
	{ "late", SHAPE_INT, 0, COUNT_MAX },
	{ "skipped", SHAPE_INT, 0, COUNT_MAX },
	{},
};

static const struct rule step_rules[] = {
	{ "context", SHAPE_NAME, .required = true },
	{ "threads", SHAPE_INT, 1, OLTP_STEP_THREADS_MAX, true },
	{ "repeat", SHAPE_INT, 1, 1000 },
	{ "slot", SHAPE_INT, 1, 100000 },
	{ "started_at", SHAPE_NUM, 0, 1e11 },
	{ "vary_value", SHAPE_SCALAR },
	{ "unit", SHAPE_STR },
	{ "driver", SHAPE_STR },
	{ "failed", SHAPE_BOOL },
	{ "reason", SHAPE_STR },
	{ "duration_s", SHAPE_NUM, 0, S_MAX },
	{ "transactions", SHAPE_INT, 0, COUNT_MAX },
	{ "queries", SHAPE_INT, 0, COUNT_MAX },
	{ "tps", SHAPE_NUM, 0, RATE_MAX },
	{ "qps", SHAPE_NUM, 0, 100 * RATE_MAX },
	{ "latency_ms", SHAPE_NUM_MEMBERS, 0, MS_MAX },
	{ "reconnects", SHAPE_INT, 0, COUNT_MAX },
	{ "connect_s", SHAPE_NUM, 0, S_MAX },
	{ "stalled_s", SHAPE_INT, 0, S_MAX },
	{ "in_flight_at_end", SHAPE_INT, 0, COUNT_MAX },
	{ "intervals_tps", SHAPE_NUMS, 0, RATE_MAX },
	{ "telemetry", SHAPE_OBJS, .sub = telemetry_rules },
	{ "saturation", SHAPE_OBJ, .sub = saturation_rules },
	{ "profile", SHAPE_OBJ, .sub = profile_rules },
	{ "open_loop", SHAPE_OBJ, .sub = open_loop_rules },
	{ "slicebench", SHAPE_OBJ, .sub = build_rules },
	{},
};

static const struct rule vary_rules[] = {
	{ "property", SHAPE_STR },
	{ "values", SHAPE_SCALARS },
	{},
};

static const struct rule round_rules[] = {
	{ "round", SHAPE_INT, 1, 1000, true },
	{ "units", SHAPE_STRS, .required = true },
	{},
};

/* repeat = decide: the design, and each look. */
static const struct rule sequential_rules[] = {
	{ "margin", SHAPE_NUM, 1e-6, 0.99, true },
	{ "max_rounds", SHAPE_INT, 1, 1000, true },
	{ "look_every", SHAPE_INT, 1, 1000, true },
	{ "planned_sigma", SHAPE_NUM, 0, 100 },
	{ "planned_from", SHAPE_STR },
	{},
};

static const struct rule look_rules[] = {
	{ "round", SHAPE_INT, 1, 1000, true },
	{ "final", SHAPE_BOOL },
	{ "open", SHAPE_NAMES, .required = true },
	{},
};

/* schedule.json: how the rounds' orders were drawn, and each round's. */
static const struct rule schedule_rules[] = {
	{ "sequential", SHAPE_OBJ, .sub = sequential_rules },
	{ "looks", SHAPE_OBJS, .sub = look_rules },
	{ "order", SHAPE_STR, .required = true },
	{ "seed", SHAPE_INT, 0, 9007199254740991.0 },
	{ "pilot", SHAPE_INT, 0, 1000 },
	{ "rounds", SHAPE_OBJS, .sub = round_rules },
	{ "command", SHAPE_STR },
	{ "only", SHAPE_STR },
	{},
};

/* What report and compare take from experiment.json; explain and --resume
 * read it again with the experiment file's own rules. */
static const struct rule experiment_rules[] = {
	{ "name", SHAPE_NAME },
	{ "threads", SHAPE_INTS, 1, OLTP_STEP_THREADS_MAX },
	{ "contexts", SHAPE_NAMES },
	{ "baseline", SHAPE_NAME },
	{ "vary", SHAPE_OBJ, .sub = vary_rules },
	{},
};

static int refuse(char **ret_why, const char *path, const char *key, const char *want, const json_t *v)
{
	_cleanup_free_ char *got = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	/* What was found, cut short: a hostile file may hold megabytes there. */
	xasprintf(ret_why, "%s%s%s: %s%s%.40s%s", path, key ? "." : "", strempty(key), want, got ? ", not " : "",
		  strempty(got), got && strlen(got) > 40 ? "..." : "");
	return -EBADMSG;
}

static bool in_range(const json_t *v, const struct rule *r)
{
	double x = json_number_value(v);

	return json_is_number(v) && isfinite(x) && x >= r->min && x <= r->max;
}

static const char *range_text(const struct rule *r, const char *what, char *buf, size_t len)
{
	snprintf(buf, len, "%s from %.10g to %.10g", what, r->min, r->max);
	return buf;
}

static int check_object(const json_t *o, const struct rule *rules, const char *path, char **ret_why);

/* The shape of each element of an array shape. */
static enum shape element_shape(enum shape array)
{
	static const enum shape of[] = {
		[SHAPE_NUMS] = SHAPE_NUM,     [SHAPE_INTS] = SHAPE_INT, [SHAPE_NAMES] = SHAPE_NAME,
		[SHAPE_SCALARS] = SHAPE_SCALAR, [SHAPE_STRS] = SHAPE_STR, [SHAPE_OBJS] = SHAPE_OBJ,
	};

	return of[array];
}

static int check_value(const json_t *v, const struct rule *r, const char *path, char **ret_why);

/* An array shape: each element checked with the element's shape, each
 * named by its index. */
static int check_array(const json_t *v, const struct rule *r, const char *path, char **ret_why)
{
	const json_t *x;
	size_t i;

	if (!json_is_array(v))
		return refuse(ret_why, path, r->key, "an array", v);
	json_array_foreach(v, i, x) {
		_cleanup_free_ char *sub = NULL;
		struct rule each = *r;
		int e;

		each.key = NULL;
		each.shape = element_shape(r->shape);
		if (r->shape == SHAPE_NUMS && json_is_null(x))
			continue;
		if (xasprintf(&sub, "%s.%s[%zu]", path, r->key, i) < 0)
			return -ENOMEM;
		if (each.shape == SHAPE_OBJ) {
			if (!json_is_object(x))
				return refuse(ret_why, sub, NULL, "an object", x);
			e = check_object(x, r->sub, sub, ret_why);
		} else
			e = check_value(x, &each, sub, ret_why);
		if (e < 0)
			return e;
	}
	return 0;
}

/* SHAPE_NUM_MEMBERS: an object whose every member is a number in range
 * or null. */
static int check_members(const json_t *v, const struct rule *r, const char *path, char **ret_why)
{
	const json_t *x;
	const char *k;

	if (!json_is_object(v))
		return refuse(ret_why, path, r->key, "an object", v);
	json_object_foreach((json_t *)v, k, x) {
		_cleanup_free_ char *sub = NULL;
		struct rule each = { .key = k, .shape = SHAPE_NUM, .min = r->min, .max = r->max };

		if (xasprintf(&sub, "%s.%s", path, r->key) < 0)
			return -ENOMEM;
		if (!json_is_null(x) && check_value(x, &each, sub, ret_why) < 0)
			return -EBADMSG;
	}
	return 0;
}

/* The one switch over the shapes, a short case each. */
static int check_value(const json_t *v, const struct rule *r, const char *path, char **ret_why)
{
	_cleanup_free_ char *sub = NULL;
	char buf[96];

	switch (r->shape) {
	case SHAPE_INT:
		if (!json_is_integer(v) || !in_range(v, r))
			return refuse(ret_why, path, r->key, range_text(r, "an integer", buf, sizeof(buf)), v);
		return 0;
	case SHAPE_NUM:
		if (!in_range(v, r))
			return refuse(ret_why, path, r->key, range_text(r, "a number", buf, sizeof(buf)), v);
		return 0;
	case SHAPE_BOOL:
		return json_is_boolean(v) ? 0 : refuse(ret_why, path, r->key, "true or false", v);
	case SHAPE_STR:
		return json_is_string(v) ? 0 : refuse(ret_why, path, r->key, "a string", v);
	case SHAPE_WORD:
		if (!json_is_string(v) || !provenance_word_is_valid(json_string_value(v)))
			return refuse(ret_why, path, r->key, "a version or commit, [A-Za-z0-9.+~_-]{1,64}", v);
		return 0;
	case SHAPE_NAME:
		if (!json_is_string(v) || !name_is_valid(json_string_value(v)))
			return refuse(ret_why, path, r->key, "a name, [a-z0-9][a-z0-9_-]{0,39}", v);
		return 0;
	case SHAPE_SCALAR:
		if (!json_is_string(v) && !json_is_number(v) && !json_is_boolean(v))
			return refuse(ret_why, path, r->key, "a string, a number or a boolean", v);
		return 0;
	case SHAPE_OBJ:
		if (!json_is_object(v))
			return refuse(ret_why, path, r->key, "an object", v);
		if (xasprintf(&sub, "%s.%s", path, r->key) < 0)
			return -ENOMEM;
		return r->sub ? check_object(v, r->sub, sub, ret_why) : 0;
	case SHAPE_NUMS:
	case SHAPE_INTS:
	case SHAPE_NAMES:
	case SHAPE_SCALARS:
	case SHAPE_STRS:
	case SHAPE_OBJS:
		return check_array(v, r, path, ret_why);
	case SHAPE_NUM_MEMBERS:
		return check_members(v, r, path, ret_why);
	}
	return -EINVAL;
}

static int check_object(const json_t *o, const struct rule *rules, const char *path, char **ret_why)
{
	for (const struct rule *r = rules; r->key; r++) {
		const json_t *v = json_object_get(o, r->key);
		int e;

		if (!v || json_is_null(v)) {
			if (r->required)
				return refuse(ret_why, path, r->key, "required", NULL);
			continue;
		}
		e = check_value(v, r, path, ret_why);
		if (e < 0)
			return e;
	}
	return 0;
}

/* Is name one of the strings of array a (or, live, its NAME-live)? */
static bool in_names(const json_t *a, const char *name)
{
	size_t i, len;
	const json_t *v;

	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);

		len = s ? strlen(s) : 0;
		if (s && (streq(s, name) || (strncmp(s, name, len) == 0 && streq(name + len, "-live"))))
			return true;
	}
	return false;
}

static bool in_integers(const json_t *a, json_int_t n)
{
	size_t i;
	const json_t *v;

	json_array_foreach(a, i, v)
		if (json_integer_value(v) == n)
			return true;
	return false;
}

bool results_step_counted(const json_t *step)
{
	return oltp_step_rule_of_json(step) == OLTP_RULE_KEPT;
}

int results_check_step(const json_t *exp, const json_t *step, const char *file, char **ret_why)
{
	const char *context = json_string_value(json_object_get(step, "context"));
	const char *unit = json_string_value(json_object_get(step, "unit"));
	json_int_t threads = json_integer_value(json_object_get(step, "threads"));
	json_int_t repeat = json_integer_value(json_object_get(step, "repeat"));
	const json_t *most = json_object_get(exp, json_is_string(json_object_get(exp, "repeat")) ? "repeat_max" : "repeat");
	char want[160], unit_start[80];
	const char *slash = strrchr(file, '/');

	*ret_why = NULL;
	if (!context || !unit)
		return 0; /* the rules required them: a step of another shape has had its say */
	snprintf(unit_start, sizeof(unit_start), "%s-v", context);
	if (results_step_file(unit, (long)threads, want, sizeof(want)) < 0 || !slash || !streq(slash + 1, strchr(want, '/') + 1))
		return xasprintf(ret_why, "%s: holds the step of %s at %lld threads, which only %s may hold", file, unit,
				 (long long)threads, want) < 0 ? -ENOMEM : -EBADMSG;
	snprintf(want, sizeof(want), "-r%lld", (long long)repeat);
	if (strncmp(unit, unit_start, strlen(unit_start)) != 0 || strlen(unit) < strlen(want) ||
	    !streq(unit + strlen(unit) - strlen(want), want))
		return xasprintf(ret_why, "%s: $.unit %s is not a unit of context %s at repeat %lld", file, unit, context,
				 (long long)repeat) < 0 ? -ENOMEM : -EBADMSG;
	if (!json_is_object(exp))
		return 0;
	if (!in_names(json_object_get(exp, "contexts"), context))
		return xasprintf(ret_why, "%s: $.context %s is no context of experiment.json", file, context) < 0 ? -ENOMEM
														  : -EBADMSG;
	if (!in_integers(json_object_get(exp, "threads"), threads))
		return xasprintf(ret_why, "%s: $.threads %lld is no thread count of experiment.json", file,
				 (long long)threads) < 0 ? -ENOMEM : -EBADMSG;
	if (json_is_integer(most) && repeat > json_integer_value(most))
		return xasprintf(ret_why, "%s: $.repeat %lld is past experiment.json's %lld repeats", file,
				 (long long)repeat, (long long)json_integer_value(most)) < 0 ? -ENOMEM : -EBADMSG;
	return 0;
}

/* Every string of j, at path, shown as it is: no control character (an
 * escape sequence would act on the terminal), valid UTF-8. */
static int check_text(const json_t *j, const char *path, char **ret_why)
{
	char sub[256];
	const char *key;
	json_t *v;
	size_t i;
	int r = 0;

	if (json_is_string(j))
		return text_is_printable(json_string_value(j)) ? 0 : refuse(ret_why, path, NULL, "text without a control character", NULL);
	json_object_foreach((json_t *)j, key, v) {
		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if ((r = check_text(v, sub, ret_why)) < 0)
			return r;
	}
	json_array_foreach(j, i, v) {
		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if ((r = check_text(v, sub, ret_why)) < 0)
			return r;
	}
	return 0;
}

int results_check(enum results_file kind, const json_t *j, char **ret_why)
{
	static const struct rule *const rules[] = {
		[RESULTS_FILE_STEP] = step_rules,
		[RESULTS_FILE_EXPERIMENT] = experiment_rules,
		[RESULTS_FILE_HOST] = NULL, /* its shape is the host's; sized so that rules[kind] is in bounds */
		[RESULTS_FILE_SCHEDULE] = schedule_rules,
	};

	*ret_why = NULL;
	/* experiment.json and host.json may be missing (null), as in a run
	 * interrupted before it wrote them. */
	if ((kind == RESULTS_FILE_EXPERIMENT || kind == RESULTS_FILE_HOST || kind == RESULTS_FILE_SCHEDULE) &&
	    json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return refuse(ret_why, "$", NULL, "an object", j);
	/* What the reports print as text; a placement's environment is the
	 * server's, any bytes, and reaches the pages escaped. */
	if ((kind == RESULTS_FILE_HOST || kind == RESULTS_FILE_EXPERIMENT) && check_text(j, "$", ret_why) < 0)
		return -EBADMSG;
	return rules[kind] ? check_object(j, rules[kind], "$", ret_why) : 0;
}

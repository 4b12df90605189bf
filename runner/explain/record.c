/* explain.json and the stages' results directories (explain/record.h). */
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "explain/record.h"
#include "explain/profile.h"
#include "report/report.h"
#include "store/provenance.h"
#include "store/results.h"
#include "common/input.h"
#include "common/util.h"

static const char *const stage_names[_STAGE_MAX] = {
	[STAGE_FRACTION] = "fraction",
	[STAGE_SCREEN] = "screen",
	[STAGE_CONFIRM] = "confirm",
};

const char *explain_stage_dir(enum explain_stage s)
{
	return stage_names[s];
}

static json_t *factors_json(const struct explain_record *r)
{
	json_t *a = json_array();

	for (size_t k = 0; a && k < r->n_factors; k++)
		if (json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:b}", "label", r->labels[k], "detail", r->details[k],
						       "position", (json_int_t)k, "proxy", r->proxy[k])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *stages_json(const struct explain_record *r)
{
	json_t *a = json_array();

	for (size_t s = 0; a && s < _STAGE_MAX; s++) {
		const struct stage_record *st = &r->stage[s];

		if (st->present && json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:I, s:b}", "name", stage_names[s],
								      "dir", stage_names[s], "factors", (json_int_t)st->factors,
								      "set", (json_int_t)st->set, "rounds_wanted",
								      (json_int_t)st->rounds_wanted, "cut", st->cut)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int explain_record_write(const char *dir, const struct explain_record *r)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	json_t *j;

	j = json_pack("{s:i, s:[o], s:s, s:s, s:s, s:I, s:f, s:f, s:o, s:s, s:b, s:s, s:I, s:o}", "format_version",
		      EXPLAIN_RECORD_VERSION, "slicebench", provenance_this_build(), "experiment", r->experiment, "a", r->a, "b", r->b, "threads",
		      (json_int_t)r->threads, "confidence", r->level, "width", r->width, "factors", factors_json(r),
		      "hybrids", r->hybrids, "closure_is_a", r->closure_is_a, "unmovable", r->unmovable, "seed",
		      (json_int_t)r->seed, "stages", stages_json(r));
	if (j && *r->proxy_hybrids && json_object_set_new(j, "proxy_hybrids", json_string(r->proxy_hybrids)) < 0)
		json_decref(j), j = NULL;
	if (j && *r->allocator_a &&
	    json_object_set_new(j, "allocator", json_pack("{s:s, s:s}", "a", r->allocator_a, "b", r->allocator_b)) < 0)
		json_decref(j), j = NULL;
	if (j && *r->command && json_object_set_new(j, "command", json_string(r->command)) < 0)
		json_decref(j), j = NULL;
	if (!j)
		return -ENOMEM;
	text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(j);
	if (!text || xasprintf(&path, "%s/" EXPLAIN_RECORD, dir) < 0)
		return -ENOMEM;
	return write_file_atomic(path, text, strlen(text));
}

/* A string member into buf, refused when missing or too long. */
static bool copy_string(const json_t *j, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s && text_copy(buf, len, s) == 0;
}

/* The JSON path of what is wrong, into bad (the caller's message names it). */
static int _printf_(3, 4) refuse_at(char *bad, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(bad, len, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static int read_factors(const json_t *j, struct explain_record *r, char *bad, size_t len)
{
	const json_t *a = json_object_get(j, "factors"), *f;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > FACTORS_MAX)
		return refuse_at(bad, len, "$.factors (an array of 1 to %d)", FACTORS_MAX);
	r->n_factors = json_array_size(a);
	json_array_foreach(a, i, f) {
		if (!copy_string(f, "label", r->labels[i], sizeof(r->labels[i])))
			return refuse_at(bad, len, "$.factors[%zu].%s", i, "label");
		if (!copy_string(f, "detail", r->details[i], sizeof(r->details[i])))
			return refuse_at(bad, len, "$.factors[%zu].%s", i, "detail");
		if (json_integer_value(json_object_get(f, "position")) != (json_int_t)i)
			return refuse_at(bad, len, "$.factors[%zu].%s", i, "position");
		r->proxy[i] = json_is_true(json_object_get(f, "proxy")); /* absent before the chain: the server's */
	}
	return 0;
}

static int read_stages(const json_t *j, struct explain_record *r, char *bad, size_t len)
{
	const json_t *a = json_object_get(j, "stages"), *st;
	unsigned all = (1u << r->n_factors) - 1;
	size_t i;

	if (!json_is_array(a))
		return refuse_at(bad, len, "$.stages (an array)");
	json_array_foreach(a, i, st) {
		const char *name = json_string_value(json_object_get(st, "name"));
		json_int_t f = json_integer_value(json_object_get(st, "factors")),
			   set = json_integer_value(json_object_get(st, "set")),
			   wanted = json_integer_value(json_object_get(st, "rounds_wanted"));
		size_t s = 0;

		while (s < _STAGE_MAX && !streq_ptr(name, stage_names[s]))
			s++;
		if (s == _STAGE_MAX)
			return refuse_at(bad, len, "$.stages[%zu].%s", i, "name");
		if (f <= 0 || (f & ~(json_int_t)all))
			return refuse_at(bad, len, "$.stages[%zu].%s", i, "factors");
		if (set < 0 || (set & ~f))
			return refuse_at(bad, len, "$.stages[%zu].%s", i, "set");
		if (wanted < 0 || wanted > 1000)
			return refuse_at(bad, len, "$.stages[%zu].%s", i, "rounds_wanted");
		r->stage[s] = (struct stage_record){ .present = true, .factors = (unsigned)f, .set = (unsigned)set,
						     .rounds_wanted = (unsigned)wanted,
						     .cut = s == STAGE_CONFIRM && json_is_true(json_object_get(st, "cut")) };
	}
	return r->stage[STAGE_SCREEN].present || r->stage[STAGE_FRACTION].present
		       ? 0
		       : refuse_at(bad, len, "$.stages (a screen or a fraction among them)");
}

/* The top-level members, each refused by its JSON path. */
static int read_members(const json_t *j, struct explain_record *r, char *bad, size_t len)
{
	const json_t *proxy = json_object_get(j, "proxy_hybrids"), *command = json_object_get(j, "command");
	const json_t *allocator = json_object_get(j, "allocator");
	const char *key = NULL;

	r->level = json_number_value(json_object_get(j, "confidence"));
	r->width = json_number_value(json_object_get(j, "width"));
	if (json_integer_value(json_object_get(j, "format_version")) != EXPLAIN_RECORD_VERSION)
		key = "format_version (" STRINGIFY(EXPLAIN_RECORD_VERSION) ")";
	else if (!copy_string(j, "experiment", r->experiment, sizeof(r->experiment)))
		key = "experiment";
	else if (!copy_string(j, "a", r->a, sizeof(r->a)))
		key = "a";
	else if (!copy_string(j, "b", r->b, sizeof(r->b)))
		key = "b";
	else if (!copy_string(j, "hybrids", r->hybrids, sizeof(r->hybrids)))
		key = "hybrids";
	else if (!copy_string(j, "unmovable", r->unmovable, sizeof(r->unmovable)))
		key = "unmovable";
	else if (!(r->level > 0 && r->level < 1))
		key = "confidence (above 0 and below 1)";
	else if (!(r->width > 0 && r->width <= 1))
		key = "width (above 0, at most 1)";
	else if (!json_is_boolean(json_object_get(j, "closure_is_a")))
		key = "closure_is_a (true or false)";
	else if (proxy && !copy_string(j, "proxy_hybrids", r->proxy_hybrids, sizeof(r->proxy_hybrids)))
		key = "proxy_hybrids";
	else if (command && !copy_string(j, "command", r->command, sizeof(r->command)))
		key = "command";
	else if (allocator && (!copy_string(allocator, "a", r->allocator_a, sizeof(r->allocator_a)) ||
			       !copy_string(allocator, "b", r->allocator_b, sizeof(r->allocator_b))))
		key = "allocator (a and b, the allocators moved)";
	return key ? refuse_at(bad, len, "$.%s", key) : 0;
}

int explain_record_read(const char *dir, struct explain_record *ret, char **ret_why)
{
	_cleanup_free_ char *path = NULL;
	char bad[96] = "";
	json_t *j;
	int r;

	*ret = (struct explain_record){};
	if (xasprintf(&path, "%s/" EXPLAIN_RECORD, dir) < 0)
		return -ENOMEM;
	j = input_load_json(path, INPUT_JSON_MAX, ret_why);
	if (!j && errno == ENOENT) {
		free(*ret_why);
		*ret_why = NULL;
		return -ENOENT;
	}
	if (!j)
		return -EBADMSG;
	r = read_members(j, ret, bad, sizeof(bad));
	ret->threads = (long)json_integer_value(json_object_get(j, "threads"));
	ret->closure_is_a = json_is_true(json_object_get(j, "closure_is_a"));
	ret->seed = (uint64_t)json_integer_value(json_object_get(j, "seed"));
	if (r >= 0)
		r = read_factors(j, ret, bad, sizeof(bad));
	if (r >= 0)
		r = read_stages(j, ret, bad, sizeof(bad));
	json_decref(j);
	if (r < 0)
		xasprintf(ret_why, "%s: %s: not as explain writes it", path, bad);
	return r;
}

/* The mask of a mix from its name; -EINVAL for a name no mix has. */
static int mask_of(const char *name, const struct explain_record *r, unsigned *ret)
{
	unsigned all = (1u << r->n_factors) - 1, m = 0;

	if (streq(name, "b") || streq(name, "a") || streq(name, "closure")) {
		*ret = streq(name, "b") ? 0 : streq(name, "closure") || r->closure_is_a ? all : EXPLAIN_A;
		return 0;
	}
	if (strncmp(name, "mix-", 4) != 0 || strlen(name + 4) != r->n_factors)
		return -EINVAL;
	for (size_t k = 0; k < r->n_factors; k++) {
		if (name[4 + k] != 'a' && name[4 + k] != 'b')
			return -EINVAL;
		m |= (unsigned)(name[4 + k] == 'a') << k;
	}
	*ret = m;
	return 0;
}

static struct stage_mix *mix_for(struct stage *s, unsigned mask)
{
	for (size_t i = 0; i < s->n_mix; i++)
		if (s->mix[i].mask == mask)
			return &s->mix[i];
	if (s->n_mix == DESIGN_MIXES_MAX)
		return NULL;
	s->mix[s->n_mix] = (struct stage_mix){ .mask = mask, .med = NAN };
	for (size_t k = 0; k < OLTP_MECHANISM_MAX; k++)
		s->mix[s->n_mix].mech[k] = NAN;
	return &s->mix[s->n_mix++];
}

/* The medians of each mix's TPS and figures of mechanism. */
static void stage_medians(struct stage *s, const json_t *steps, const struct explain_record *r)
{
	size_t n_rows, i;
	const struct oltp_mechanism_def *rows = oltp_mechanism_table(&n_rows);
	double x[STAGE_STARTS_MAX];
	const json_t *st;

	for (size_t m = 0; m < s->n_mix; m++) {
		struct stage_mix *mx = &s->mix[m];

		memcpy(x, mx->tps, mx->n * sizeof(double));
		mx->med = stats_median(x, mx->n);
		for (size_t k = 0; k < n_rows; k++) {
			size_t n = 0;
			unsigned mask;

			json_array_foreach(steps, i, st) {
				const json_t *v = json_object_get(json_object_get(st, "mechanism"), rows[k].key);

				if (n < STAGE_STARTS_MAX && json_is_number(v) && !isnan(report_step_tps(st)) &&
				    mask_of(json_string_value(json_object_get(st, "context")) ?: "", r, &mask) >= 0 &&
				    mask == mx->mask)
					x[n++] = json_number_value(v);
			}
			mx->mech[k] = stats_median(x, n);
		}
	}
}

/* Long because each step of a stage is checked as it is taken in. */
int explain_stage_load(const char *dir, enum explain_stage s, const struct explain_record *r, struct stage *ret,
		       char **ret_why)
{
	_cleanup_free_ char *path = NULL, *why = NULL;
	json_t *doc = NULL, *st;
	size_t i;
	int e;

	*ret = (struct stage){};
	if (xasprintf(&path, "%s/%s", dir, stage_names[s]) < 0)
		return -ENOMEM;
	e = results_load(path, &doc, &why);
	if (e < 0)
		return xasprintf(ret_why, "%s: %s", path, why ? why : strerror(-e)), e == -ENOMEM ? e : -EBADMSG;
	json_array_foreach(json_object_get(doc, "steps"), i, st) {
		const char *name = json_string_value(json_object_get(st, "context"));
		json_int_t round = json_integer_value(json_object_get(st, "repeat"));
		struct stage_mix *mx;
		unsigned mask;
		double tps = report_step_tps(st);

		if (!name || mask_of(name, r, &mask) < 0 || round < 1 || round > STAGE_STARTS_MAX ||
		    !(mx = mix_for(ret, mask))) {
			e = -EBADMSG;
			xasprintf(ret_why, "%s: a step of '%s' in round %lld, which is no mix of %s", path, strempty(name),
				  (long long)round, EXPLAIN_RECORD);
			break;
		}
		ret->n_rounds = MAX(ret->n_rounds, (unsigned)round);
		if (isnan(tps) || mx->n == STAGE_STARTS_MAX) {
			mx->n_failed++;
			mx->n_zero += !json_is_true(json_object_get(st, "failed"));
			continue;
		}
		mx->tps[mx->n] = tps;
		mx->slot[mx->n] = (unsigned)MAX(0, json_integer_value(json_object_get(st, "slot")));
		mx->round[mx->n++] = (unsigned)round;
	}
	if (e >= 0)
		stage_medians(ret, json_object_get(doc, "steps"), r);
	if (e >= 0)
		e = explain_profile_paragraph(json_object_get(doc, "steps"),
					      &(struct explain_sides){ .a = r->a, .b = r->b, .closure_is_a = r->closure_is_a,
								       .level = r->level },
					      ret->profile, sizeof(ret->profile));
	json_decref(doc);
	return e;
}

json_t *explain_builds(const char *dir)
{
	_cleanup_free_ char *path = NULL;
	json_t *rec = xasprintf(&path, "%s/" EXPLAIN_RECORD, dir) < 0 ? NULL : json_load_file(path, 0, NULL);
	json_t *builds = json_incref(json_object_get(rec, "slicebench"));

	json_decref(rec);
	if (!provenance_builds_valid(builds)) {
		json_decref(builds);
		builds = json_array();
	}
	return builds;
}

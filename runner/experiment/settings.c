/* The settings of an experiment (the rows of [experiment], [server] and
 * [client] but the file's own, key_is_setting()), walked by the key table:
 * copied from one experiment to another, written into experiment.json
 * and read back from it, each by its row's type, so that a new key is its
 * row and nothing more here. */
#include "experiment/parse.h"
#include "experiment/settings.h"

/* A copy of src (NULL: none) in place of *dst's string. */
static int copy_string(const char *src, char **dst)
{
	char *s = src ? strdup(src) : NULL;

	if (src && !s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* One piece: a case per type of the key table, as setting_json()'s. */
int experiment_copy_settings(const struct experiment *from, struct experiment *to)
{
	/* The engine's options whole, with what no key sets (the user, the
	 * tools, the timeouts): none of them is owned. */
	to->oltp = from->oltp;
	for (size_t i = 0; i < _KEY_MAX; i++) {
		const struct key_def *k = &key_table[i];
		const void *src = (const char *)from + k->offset;
		void *dst = (char *)to + k->offset;

		if (!key_is_setting(k))
			continue;
		switch (k->type) {
		case TYPE_STRING:
		case TYPE_SIZE:
			if (copy_string(*(char *const *)src, dst) < 0)
				return -ENOMEM;
			break;
		case TYPE_UINT:
		case TYPE_REPEAT: /* the count; whether it is auto is the run's, not a setting */
			*(unsigned *)dst = *(const unsigned *)src;
			break;
		case TYPE_PERCENT:
			*(double *)dst = *(const double *)src;
			break;
		case TYPE_DURATION:
			*(uint64_t *)dst = *(const uint64_t *)src;
			break;
		case TYPE_WORKLOAD: /* its scripts: after the loop */
		case TYPE_WORD:
			*(int *)dst = *(const int *)src;
			break;
		case TYPE_BOOL:
			*(bool *)dst = *(const bool *)src;
			break;
		case TYPE_THREADS:
			memcpy(to->threads, from->threads, sizeof(from->threads));
			to->n_threads = from->n_threads;
			break;
		case TYPE_CPUS:
			memcpy(to->client_cpus_list, from->client_cpus_list, sizeof(from->client_cpus_list));
			to->n_client_cpus = from->n_client_cpus;
			break;
		case TYPE_UNIT: /* the types of keys of the file's own or of other sections */
		case TYPE_FILE:
		case TYPE_CPUS_TEXT:
		case TYPE_FLAGS:
		case TYPE_KIND:
		case TYPE_BASELINE:
		case TYPE_WHOLE_PERCENT:
		case TYPE_SLICE:
		case TYPE_NAME:
		case TYPE_COMMAND:
		case TYPE_PROPERTY:
		case TYPE_PROPERTY_VALUES:
			break;
		}
	}
	/* the scripts are each experiment's own; its engine's options point at them */
	if (copy_string(from->workload_scripts, &to->workload_scripts) < 0)
		return -ENOMEM;
	to->oltp.scripts = to->workload_scripts;
	return 0;
}

/* An array of n longs. */
static json_t *longs_json(const long *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_integer(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* k's value in e as experiment.json has always held it: durations in
 * seconds, until as a fraction, repeat = auto as
 * "auto"; NULL for a type that is no setting's. */
static json_t *setting_json(const struct experiment *e, const struct key_def *k)
{
	const void *v = (const char *)e + k->offset;

	switch (k->type) {
	case TYPE_STRING:
	case TYPE_SIZE:
		return *(char *const *)v ? json_string(*(char *const *)v) : json_null();
	case TYPE_REPEAT:
		return e->repeat_auto	 ? json_string("auto")
		       : e->repeat_decide ? json_string("decide")
					  : json_integer(*(const unsigned *)v);
	case TYPE_UINT:
		return json_integer(*(const unsigned *)v);
	case TYPE_DURATION:
		return json_real((double)*(const uint64_t *)v / 1e9);
	case TYPE_PERCENT:
		return json_real(*(const double *)v);
	case TYPE_WORKLOAD:
		if (e->workload_scripts)
			return json_string(e->workload_scripts);
		/* fall through */
	case TYPE_WORD:
		return json_string(word_name(k->words, *(const int *)v));
	case TYPE_BOOL:
		return json_boolean(*(const bool *)v);
	case TYPE_THREADS:
		return longs_json(e->threads, e->n_threads);
	case TYPE_CPUS:
		return longs_json(e->client_cpus_list, e->n_client_cpus);
	default:
		return NULL;
	}
}

int settings_to_json(const struct experiment *e, json_t *j)
{
	for (size_t i = 0; i < _KEY_MAX; i++) {
		const struct key_def *k = &key_table[i];
		json_t *in = j, *v;
		char name[64];

		if (!key_is_setting(k) || (k->recorded && !k->recorded(e)))
			continue;
		if (k->section != SECTION_EXPERIMENT) {
			in = json_object_get(j, section_table[k->section].name);
			if (!in && json_object_set_new(j, section_table[k->section].name, in = json_object()) < 0)
				return -ENOMEM;
		}
		v = setting_json(e, k);
		if (!v || json_object_set_new(in, setting_json_name(k, name, sizeof(name)), v) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A setting of experiment.json as the experiment file would write it, so
 * that the key table's own parser checks it: numbers as digits, durations
 * in seconds, until as a percentage, lists joined with commas. */
static int setting_text(const struct key_def *k, const json_t *v, char *buf, size_t len)
{
	const json_t *x;
	size_t i, n = 0;
	int w;

	if (json_is_string(v))
		w = snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_boolean(v))
		w = snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	else if (json_is_number(v) && k->type == TYPE_DURATION)
		w = snprintf(buf, len, "%.9gs", json_number_value(v));
	else if (json_is_number(v) && k->type == TYPE_PERCENT)
		w = snprintf(buf, len, "%.9g%%", json_number_value(v) * 100);
	else if (json_is_integer(v))
		w = snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_array(v)) {
		*buf = 0;
		w = 0;
		json_array_foreach(v, i, x) {
			if (!json_is_integer(x))
				return -EINVAL;
			w = snprintf(buf + n, len - n, "%s%" JSON_INTEGER_FORMAT, i ? "," : "", json_integer_value(x));
			if (w < 0 || (size_t)w >= len - n)
				return -EINVAL;
			n += (size_t)w;
		}
	} else
		return -EINVAL;
	/* A real number where a count goes, an object, a value too long for
	 * any key: not as run writes it. */
	if (json_is_real(v) && k->type != TYPE_DURATION && k->type != TYPE_PERCENT)
		return -EINVAL;
	return w < 0 || (size_t)w >= len ? -EINVAL : 0;
}

/* The key table's settings out of experiment.json, each through set_key()
 * as if it came from a file: the same ranges, words and checks. */
/* Whether key i is read back beside experiment.json's repeat (a string
 * for auto and decide): the keys of one mode only with it. */
static bool recorded_with(size_t i, const char *repeat)
{
	if (i == KEY_UNTIL)
		return streq_ptr(repeat, "auto");
	if (i == KEY_REPEAT_MAX)
		return streq_ptr(repeat, "auto") || streq_ptr(repeat, "decide");
	if (i == KEY_LOOK_EVERY)
		return streq_ptr(repeat, "decide");
	return true;
}

int settings_from_json(struct parser *p, const json_t *j)
{
	for (size_t i = 0; i < _KEY_MAX && !p->msg; i++) {
		const struct key_def *k = &key_table[i];
		const json_t *in = k->section == SECTION_EXPERIMENT ? j : json_object_get(j, section_table[k->section].name);
		char name[64], text[512];
		const json_t *v;

		if (!key_is_setting(k))
			continue;
		v = json_object_get(in, setting_json_name(k, name, sizeof(name)));
		/* Absent: the default; client cpus [] is none given. */
		if (!v || json_is_null(v) || (k->type == TYPE_CPUS && json_array_size(v) == 0))
			continue;
		/* repeat_max, until: only with repeat = auto, which puts them
		 * there; repeat_max and look_every with decide. */
		if (!recorded_with(i, json_string_value(json_object_get(j, "repeat"))))
			continue;
		p->key_line[0][i] = 1; /* given; fail_at() names no line in experiment.json */
		if (setting_text(k, v, text, sizeof(text)) < 0)
			return fail_at(p, 1, k->name, "not a value of the key's type");
		if (set_key(p, k, text) < 0)
			return -EINVAL;
	}
	return p->msg ? -EINVAL : 0;
}

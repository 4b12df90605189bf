/* The report's small helpers for host and placement values (report/model/model.h):
 * a scalar as text, a value as an owned string, qsort's comparisons, and
 * a step named in a note. */
#include <stdio.h>
#include <string.h>

#include "report/model/model.h"
#include "common/util.h"

const char *scalar_str(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.10g", json_real_value(v));
	else if (json_is_boolean(v))
		(void)text_copy(buf, len, json_is_true(v) ? "true" : "false");
	else
		return NULL;
	return buf;
}

int value_dup(const json_t *v, char **ret)
{
	char buf[64];
	const char *s;
	char *d;

	if (!v || json_is_null(v)) {
		*ret = NULL;
		return 0;
	}
	s = scalar_str(v, buf, sizeof(buf));
	d = s ? strdup(s) : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	if (!d)
		return -ENOMEM;
	*ret = d;
	return 0;
}
int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool model_step_in_cell(const struct model *m, const json_t *s, size_t row, size_t col)
{
	const json_t *t = json_object_get(s, "threads");
	char buf[64];

	return json_is_number(t) && (long long)json_number_value(t) == m->threads[row] &&
	       streq_ptr(json_string_value(json_object_get(s, "context")), m->cols[col].context) &&
	       streq_ptr(scalar_str(json_object_get(s, "vary_value"), buf, sizeof(buf)), m->cols[col].vary);
}

int model_step_note(json_t *list, const json_t *s, const char *key, json_t *value)
{
	char buf[64];
	json_t *f;

	f = json_pack("{s:s?, s:s?, s:O?, s:O?, s:o}", "context", json_string_value(json_object_get(s, "context")),
		      "vary_value", scalar_str(json_object_get(s, "vary_value"), buf, sizeof(buf)), "threads",
		      json_object_get(s, "threads"), "repeat", json_object_get(s, "repeat"), key, value);
	return f && json_array_append_new(list, f) == 0 ? 0 : -ENOMEM;
}

/* The text renderer of the host facts: aligned "key: value" lines with
 * dotted keys. */
#include <stdio.h>

#include "host/facts.h"
#include "common/util.h"

/* Walk the tree as dotted keys; measure the widest key when f is NULL. */
static void text_walk(json_t *o, const char *prefix, FILE *f, int width, int *ret_width)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v) {
		char name[256];
		int n;

		n = snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", key);
		if (n < 0 || (size_t)n >= sizeof(name))
			n = (int)strlen(name); /* truncated key: still printed, just shorter */
		if (json_is_object(v) && json_object_size(v) > 0) {
			text_walk(v, name, f, width, ret_width);
			continue;
		}
		if (!f) {
			if (n > *ret_width)
				*ret_width = n;
			continue;
		}
		fprintf(f, "%-*s ", width + 1, strcat(name, ":"));
		if (json_is_string(v))
			fputs(json_string_value(v), f);
		else if (json_is_null(v))
			fputs("-", f);
		else if (json_is_true(v) || json_is_false(v))
			fputs(json_is_true(v) ? "yes" : "no", f);
		else if (json_is_integer(v))
			fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		else if (json_is_object(v))
			fputs("(none)", f);
		else if (json_is_array(v)) {
			size_t i;
			json_t *e;

			if (json_array_size(v) == 0)
				fputs("(none)", f);
			json_array_foreach(v, i, e) {
				if (i > 0)
					fputs(" ", f);
				if (json_is_string(e))
					fputs(json_string_value(e), f);
				else {
					_cleanup_free_ char *s = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY);
					fputs(strempty(s), f);
				}
			}
		} else {
			_cleanup_free_ char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			fputs(strempty(s), f);
		}
		fputc('\n', f);
	}
}

int host_facts_print_text(json_t *facts, FILE *f)
{
	int width = 0;

	if (!json_is_object(facts))
		return -EINVAL;
	text_walk(facts, "", NULL, 0, &width);
	text_walk(facts, "", f, width, &width);
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}

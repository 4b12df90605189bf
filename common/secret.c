#include <ctype.h>
#include <stdio.h>
#include <strings.h>

#include "common/secret.h"
#include "common/util.h"

/* Parts of a name that mark it secret wherever they appear... */
static const char *const secret_parts[] = { "PASS", "PWD", "SECRET", "TOKEN", "KEY", "CRED", "AUTH", "PRIVATE",
					    "COOKIE", "SIGNATURE" };
/* ...and short ones only as a word of their own (GITHUB_PAT, not PATH). */
static const char *const secret_words[] = { "PAT", "PW", "PIN", "OTP", "PSK", "SALT", "DSN" };

bool secret_name(const char *name)
{
	const char *w = name;

	if (strcasecmp(name, "PWD") == 0 || strcasecmp(name, "OLDPWD") == 0)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(secret_parts); i++)
		if (strcasestr(name, secret_parts[i]))
			return true;
	while (*w) {
		size_t n = 0;

		while (isalnum((unsigned char)w[n]))
			n++;
		for (size_t i = 0; n && i < ELEMENTSOF(secret_words); i++)
			if (strlen(secret_words[i]) == n && strncasecmp(w, secret_words[i], n) == 0)
				return true;
		w += n ? n : 1;
	}
	return false;
}

/* Appends s[0..n) to the growing buffer. */
static int put(FILE *f, const char *s, size_t n)
{
	return fwrite(s, 1, n, f) == n ? 0 : -ENOMEM;
}

/* The end of the URL credentials starting at userinfo (just after ://):
 * the last '@' before the authority ends, or NULL if there is none. */
static const char *userinfo_end(const char *userinfo)
{
	size_t n = strcspn(userinfo, "/?# \t\n\"'");
	const char *at = memrchr(userinfo, '@', n);

	return at && at > userinfo ? at : NULL;
}

/* Copies text[0..len) into f with URL credentials withheld. */
static int mask_urls(FILE *f, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;

	while (p < end && (s = memmem(p, (size_t)(end - p), "://", 3))) {
		const char *u = s + 3, *at = u < end ? userinfo_end(u) : NULL;

		if (!at || at >= end) {
			if (put(f, p, (size_t)(u - p)) < 0)
				return -ENOMEM;
			p = u;
			continue;
		}
		if (put(f, p, (size_t)(u - p)) < 0 || fputs(SECRET_WITHHELD_PART, f) < 0)
			return -ENOMEM;
		p = at;
	}
	return put(f, p, (size_t)(end - p));
}

/* A parameter of a connection string (a JDBC URL's ?user=a&password=b,
 * SQL Server's and ODBC's ;Pwd=b;) whose value is secret: a secret name,
 * and ODBC's PWD, which only the environment's PWD is not. */
static bool secret_param(const char *name, size_t n)
{
	_cleanup_free_ char *copy = strndup(name, n);

	return copy && (secret_name(copy) || strcasecmp(copy, "pwd") == 0);
}

/* Copies word[0..len) into f with URL credentials and the values of secret
 * parameters (after ?, & or ;) withheld. */
static int mask_word(FILE *f, const char *word, size_t len)
{
	const char *p = word, *end = word + len;

	for (const char *c = word; c < end; c++) {
		size_t n = (c + 1 < end && strchr("?&;", *c)) ? strspn(c + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") : 0;
		const char *name = c + 1, *v = name + n, *stop;

		if (!n || v >= end || *v != '=' || !secret_param(name, n))
			continue;
		stop = v + 1 + strcspn(v + 1, "&;");
		if (stop > end)
			stop = end;
		if (mask_urls(f, p, (size_t)(v + 1 - p)) < 0 || fputs(SECRET_WITHHELD_PART, f) < 0)
			return -ENOMEM;
		p = c = stop;
		c--;
	}
	return mask_urls(f, p, (size_t)(end - p));
}

static bool env_name_char(char c, bool first)
{
	return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

char *secret_mask_text(const char *text)
{
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	const char *p = text;
	int r = 0;

	if (!f)
		return NULL;
	while (*p && r >= 0) {
		size_t ws = strspn(p, " \t\n"), n;
		const char *w, *eq;

		r = put(f, p, ws);
		w = p + ws;
		n = strcspn(w, " \t\n");
		eq = memchr(w, '=', n);
		if (r >= 0 && eq && eq > w && env_name_char(*w, true)) {
			_cleanup_free_ char *name = strndup(w, (size_t)(eq - w));
			bool valid = name != NULL;

			for (const char *c = w + 1; valid && c < eq; c++)
				valid = env_name_char(*c, false);
			if (!name)
				r = -ENOMEM;
			else if (valid && secret_name(name)) {
				/* A quoted value may hold spaces: withhold to its closing quote. */
				const char *v = eq + 1, *close = (*v == '"' || *v == '\'') ? strchr(v + 1, *v) : NULL;

				if (close)
					n = (size_t)(close + 1 - w);
				r = put(f, w, (size_t)(eq + 1 - w));
				if (r >= 0 && fputs(SECRET_WITHHELD_PART, f) < 0)
					r = -ENOMEM;
				p = w + n;
				continue;
			}
		}
		if (r >= 0)
			r = mask_word(f, w, n);
		p = w + n;
	}
	if (fclose(f) != 0 || r < 0) {
		free(out);
		return NULL;
	}
	return out;
}

char *secret_mask_value(const char *name, const char *value)
{
	/* A value that is a connection string (host=db password=x, a JDBC
	 * URL) is masked as text is. */
	return secret_name(name) ? strdup(SECRET_WITHHELD) : secret_mask_text(value);
}

int secret_mask_json(json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		_cleanup_free_ char *m = secret_mask_text(json_string_value(j));

		if (!m)
			return -ENOMEM;
		return streq(m, json_string_value(j)) || json_string_set(j, m) == 0 ? 0 : -ENOMEM;
	}
	if (json_is_array(j))
		json_array_foreach(j, i, v)
			if (secret_mask_json(v) < 0)
				return -ENOMEM;
	if (json_is_object(j))
		json_object_foreach(j, key, v) {
			/* A proxy's placement is the server's beside it, under proxy. */
			const char *own = strncmp(key, "proxy.", 6) == 0 ? key + 6 : key;

			if (strncmp(own, "env.", 4) == 0 && secret_name(own + 4) && json_is_string(v)) {
				if (json_string_set(v, SECRET_WITHHELD) < 0)
					return -ENOMEM;
			} else if (secret_mask_json(v) < 0)
				return -ENOMEM;
		}
	return 0;
}

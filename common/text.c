/* Text from files, before it reaches a terminal or another file (see text.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/util.h"

/* The length of the UTF-8 sequence at s (up to end), 0 if it is not a
 * valid one (RFC 3629's table). */
static size_t utf8_sequence(const unsigned char *s, const unsigned char *end)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if ((size_t)(end - s) < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

size_t utf8_valid_prefix(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = utf8_sequence(p, end);

		if (!n)
			break;
		p += n;
	}
	return (size_t)(p - (const unsigned char *)s);
}

int text_first_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return *p;
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return p[1];
	}
	return -1;
}

char *text_escape(const char *s)
{
	size_t len = strlen(s), n = 0;
	char *out = malloc(4 * len + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t seq = utf8_valid_prefix(s + i, MIN(len - i, (size_t)4));
		unsigned char c = (unsigned char)s[i];
		bool plain = c >= 0x20 && c != 0x7f && c != '\\' && !(c == 0xc2 && (unsigned char)s[i + 1] <= 0x9f);

		/* One character: a valid sequence at i, as long as its lead byte says. */
		size_t one = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		if (plain && seq >= one) {
			memcpy(out + n, s + i, one);
			n += one;
			i += one;
		} else {
			n += (size_t)sprintf(out + n, "\\x%02x", c);
			i++;
		}
	}
	out[n] = 0;
	return out;
}

int text_print_pair(FILE *f, const char *key, const char *value)
{
	char *k = text_escape(key), *v = text_escape(value);
	int r = k && v ? fprintf(f, "%s: %s\n", k, v) : EOF;

	free(k);
	free(v);
	return r < 0 ? EOF : 0;
}

/* A cell a spreadsheet would take for a formula: one that begins with =,
 * +, -, @, a tab or a carriage return, and is not a number (-3.5). */
static bool csv_formula(const char *s)
{
	char *end;

	if (!*s || !strchr("=+-@\t\r", *s))
		return false;
	(void)strtod(s, &end);
	return end == s || *end;
}

void csv_field(FILE *out, const char *s)
{
	bool formula = csv_formula(s);

	if (!formula && !strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	/* OWASP's way: a quote first, so the cell is text, not a formula. */
	if (formula)
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

bool text_is_printable(const char *s)
{
	size_t len = strlen(s);

	return utf8_valid_prefix(s, len) == len && text_first_control(s) < 0;
}

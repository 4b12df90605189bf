/* Text that slicebench takes from a file and shows on a terminal or writes
 * into another file: whether it is UTF-8, and whether it holds a control
 * character (an escape sequence, a carriage return) that would act on the
 * terminal instead of showing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The offset of the first byte of s[0..len) that is not part of valid
 * UTF-8 (overlong forms, surrogates and code points past U+10FFFF are
 * not), or len if all of it is. */
size_t utf8_valid_prefix(const char *s, size_t len);

/* The first control character of s (C0 but tab, DEL, and C1 U+0080 to
 * U+009F), or -1 if none; s is valid UTF-8. */
int text_first_control(const char *s);

/* Valid UTF-8 without a control character: what may reach a terminal as it is. */
bool text_is_printable(const char *s);

/* One CSV field, RFC 4180's way: quoted when it holds a comma, a quote or
 * a line break, a quote in it doubled; a cell a spreadsheet would run as a
 * formula (beginning with = + - @, a tab or a CR, and not a number) begins
 * with ' inside its quotes.  The one writer of CSV fields (the reports'
 * and results.csv). */
void csv_field(FILE *out, const char *s);

/* s for a message: what is not printable (a control character, a byte
 * that is not UTF-8, a backslash) as \xNN, the rest as it is.  NULL: out
 * of memory. */
char *text_escape(const char *s);
/* "KEY: VALUE\n" on f, both as text_escape() shows them: a captured
 * process's names and values reach no terminal as they are.  EOF if the
 * write (or the memory) failed. */
int text_print_pair(FILE *f, const char *key, const char *value);

/* A table of strings, shared by the text, Markdown and HTML renderers and
 * by compare: cells added row by row, printed aligned for a terminal or
 * piped for Markdown.  Text fits the output's width: a table wider is
 * turned (rows for columns) when that fits, else split into groups of
 * columns, each under the key columns again; a line of prose wider is
 * wrapped at its spaces.  Nothing is cut. */
#include <stdarg.h>
#include <stdio.h>

#include "report/render/render.h"
#include "common/util.h"

void table_add(struct table *t, const char *fmt, ...)
{
	char **p, *s = NULL;
	va_list ap;

	if (t->error)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	p = s ? realloc(t->cells, (t->n + 1) * sizeof(*p)) : NULL;
	if (!p) {
		free(s);
		t->error = -ENOMEM;
		return;
	}
	t->cells = p;
	t->cells[t->n++] = s;
}

void table_done(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
}

/* Terminal columns of UTF-8 text (no wide characters here). */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Each column's widest cell, into w[0..t->ncols) (at most 64). */
static void column_widths(const struct table *t, size_t *w)
{
	for (size_t c = 0; c < t->ncols; c++)
		w[c] = 0;
	for (size_t i = 0; i < t->n; i++)
		w[i % t->ncols] = MAX(w[i % t->ncols], text_width(t->cells[i]));
}

size_t table_text_width(const struct table *t)
{
	size_t w[TABLE_COLS_MAX], sum = 0;

	/* More columns than a text table takes (33 contexts with their
	 * ratios): too wide, and no widths measured past w[]. */
	if (t->ncols > TABLE_COLS_MAX)
		return SIZE_MAX;
	column_widths(t, w);
	for (size_t c = 0; c < t->ncols; c++)
		sum += w[c] + (c ? 2 : 0);
	return sum;
}

static size_t width_set;

void table_set_width(size_t width)
{
	width_set = width;
}

size_t table_width(void)
{
	size_t cols = terminal_columns(STDOUT_FILENO);

	if (width_set)
		return width_set;
	return cols >= TABLE_WIDTH_MIN ? cols : TABLE_WIDTH_PIPE;
}

/* The columns cols[0..n) of t, aligned, under a rule after the header. */
static void print_columns(const struct table *t, const size_t *w, const size_t *cols, size_t n, FILE *out)
{
	for (size_t row = 0; row * t->ncols < t->n; row++) {
		for (size_t j = 0; j < n; j++) {
			const char *cell = t->cells[row * t->ncols + cols[j]];
			size_t c = cols[j], pad = w[c] - text_width(cell);

			/* The first column (threads, keys) reads left to right; numbers align right. */
			if (c < MAX(t->left, 1))
				fprintf(out, "%s%s%*s", j ? "  " : "", cell, j + 1 < n ? (int)pad : 0, "");
			else
				fprintf(out, "  %*s%s", (int)pad, "", cell);
		}
		fputc('\n', out);
		for (size_t j = 0; row == 0 && j < n; j++)
			fprintf(out, "%s%.*s%s", j ? "  " : "", (int)MIN(w[cols[j]], 64),
				"----------------------------------------------------------------", j + 1 < n ? "" : "\n");
	}
}

/* t with its rows and columns swapped: the header row becomes the first
 * column, each column a row. */
static int table_turn(const struct table *t, struct table *ret)
{
	size_t rows = t->n / t->ncols;

	*ret = (struct table){ .ncols = rows, .left = 1 };
	if (rows > TABLE_COLS_MAX)
		return -E2BIG;
	for (size_t c = 0; c < t->ncols; c++)
		for (size_t row = 0; row < rows; row++)
			table_add(ret, "%s", t->cells[row * t->ncols + c]);
	return ret->error;
}

/* The columns of the span that begins at column c, with their separators. */
static size_t span_width(const struct table *t, const size_t *w, size_t c)
{
	size_t sum = 0;

	for (size_t k = 0; k < MAX(t->span, 1) && c + k < t->ncols; k++)
		sum += 2 + w[c + k];
	return sum;
}

size_t table_turned_width(const struct table *t)
{
	struct table turned;
	size_t w = table_turn(t, &turned) >= 0 ? table_text_width(&turned) : SIZE_MAX;

	table_done(&turned);
	return w;
}

/* The key columns (the leading words) with as many of the others as fit
 * in width, group after group; a column wider than width alone gets a
 * group of its own. */
static void print_split(const struct table *t, const size_t *w, size_t width, FILE *out)
{
	size_t keys = MIN(t->keys ? t->keys : MAX(t->left, 1), t->ncols - 1), cols[TABLE_COLS_MAX], key_w = 0;

	for (size_t c = 0; c < keys; c++) {
		cols[c] = c;
		key_w += w[c] + (c ? 2 : 0);
	}
	for (size_t c = keys; c < t->ncols;) {
		size_t n = keys, used = key_w;

		/* span columns at a time: a value and its ratio stay together. */
		while (c < t->ncols && (n == keys || used + span_width(t, w, c) <= width)) {
			used += span_width(t, w, c);
			for (size_t k = 0; k < MAX(t->span, 1) && c < t->ncols; k++)
				cols[n++] = c++;
		}
		print_columns(t, w, cols, n, out);
		if (c < t->ncols)
			fputc('\n', out);
	}
}

void table_print_text(const struct table *t, FILE *out)
{
	size_t w[TABLE_COLS_MAX], all[TABLE_COLS_MAX], width = table_width();
	struct table turned;

	if (t->ncols == 0 || t->ncols > TABLE_COLS_MAX)
		return;
	column_widths(t, w);
	for (size_t c = 0; c < t->ncols; c++)
		all[c] = c;
	if (table_text_width(t) <= width) {
		print_columns(t, w, all, t->ncols, out);
		return;
	}
	/* Turned, when it has one column of keys and then fits. */
	if (t->left <= 1) {
		bool fits = table_turn(t, &turned) >= 0 && table_text_width(&turned) <= width;

		if (fits)
			table_print_text(&turned, out);
		table_done(&turned);
		if (fits)
			return;
	}
	print_split(t, w, width, out);
}

/* One line of at most width columns, broken at spaces after the first
 * word; the lines after it indented by hang. */
static void wrap_line(const char *line, size_t len, size_t width, FILE *out)
{
	size_t indent = strspn(line, " "), hang = MIN(indent + 2, width / 2), start = 0;

	while (start < len) {
		size_t room = width - (start ? hang : 0), end = start, space = 0, other = 0, w = 0;

		/* The longest run of words that fits; a word longer than the
		 * line (a cgroup path) is broken after a '/' or ',', else
		 * where the line ends. */
		while (end < len && w < room) {
			if (line[end] == ' ' && end > start + (start ? 0 : indent))
				space = end;
			else if (line[end] == '/' || line[end] == ',')
				other = end + 1;
			w += ((unsigned char)line[end] & 0xC0) != 0x80;
			end++;
		}
		while (end < len && ((unsigned char)line[end] & 0xC0) == 0x80)
			end++;
		if (end < len && line[end] != ' ')
			end = space > start ? space : other > start ? other : end;
		fprintf(out, "%*s%.*s\n", start ? (int)hang : 0, "", (int)(end - start), line + start);
		start = end;
		while (start < len && line[start] == ' ')
			start++;
	}
}

int text_wrap_open(struct text_wrap *tw, FILE *out)
{
	*tw = (struct text_wrap){ .out = out };
	tw->mem = open_memstream(&tw->buf, &tw->len);
	return tw->mem ? 0 : -ENOMEM;
}

int text_wrap_close(struct text_wrap *tw, int r)
{
	size_t width = table_width();

	if (fclose(tw->mem) != 0 && r >= 0)
		r = -ENOMEM;
	for (const char *p = tw->buf; r >= 0 && p && p < tw->buf + tw->len;) {
		const char *nl = memchr(p, '\n', (size_t)(tw->buf + tw->len - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(tw->buf + tw->len - p);
		_cleanup_free_ char *line = strndup(p, len);

		if (!line)
			r = -ENOMEM;
		else if (text_width(line) <= width)
			fprintf(tw->out, "%s%s", line, nl ? "\n" : "");
		else
			wrap_line(line, len, width, tw->out);
		p += len + 1;
	}
	free(tw->buf);
	return r;
}

static void md_cell(const char *s, FILE *out)
{
	fputs("| ", out);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc(' ', out);
}

void table_print_markdown(const struct table *t, FILE *out)
{
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncols;

		md_cell(t->cells[i], out);
		if (c + 1 == t->ncols) {
			fputs("|\n", out);
			if (i + 1 == t->ncols)
				for (size_t k = 0; k < t->ncols; k++)
					fputs(k == 0 ? "|---" : "|---:", out);
			if (i + 1 == t->ncols)
				fputs("|\n", out);
		}
	}
}


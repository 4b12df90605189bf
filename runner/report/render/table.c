/* A table of strings, shared by the text, Markdown and HTML renderers and
 * by compare: cells added row by row, printed aligned for a terminal or
 * piped for Markdown. */
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

size_t table_text_width(const struct table *t)
{
	size_t w[64] = {}, nc = MIN(t->ncols, ELEMENTSOF(w)), sum = 0;

	for (size_t i = 0; i < t->n; i++)
		if (i % t->ncols < nc)
			w[i % t->ncols] = MAX(w[i % t->ncols], text_width(t->cells[i]));
	for (size_t c = 0; c < nc; c++)
		sum += w[c] + (c ? 2 : 0);
	/* Beyond the 64 measured, each column at least its separator. */
	return sum + 2 * (t->ncols - nc);
}

void table_print_text(const struct table *t, FILE *out)
{
	size_t w[64] = {}, nc = MIN(t->ncols, ELEMENTSOF(w));

	for (size_t i = 0; i < t->n; i++)
		if (i % t->ncols < nc)
			w[i % t->ncols] = MAX(w[i % t->ncols], text_width(t->cells[i]));
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncols, pad = c < nc ? w[c] - text_width(t->cells[i]) : 0;

		/* The first column (threads, keys) reads left to right; numbers align right. */
		if (c < MAX(t->left, 1))
			fprintf(out, "%s%s%*s", c ? "  " : "", t->cells[i], (int)pad, "");
		else
			fprintf(out, "  %*s%s", (int)pad, "", t->cells[i]);
		if (c + 1 == t->ncols) {
			fputc('\n', out);
			if (i + 1 == t->ncols)
				for (size_t k = 0; k < t->ncols; k++)
					fprintf(out, "%s%.*s", k ? "  " : "", (int)w[k],
						"----------------------------------------------------------------");
			if (i + 1 == t->ncols)
				fputc('\n', out);
		}
	}
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


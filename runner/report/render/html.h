/* The pieces of the HTML pages (render/page.c, explain/page.c): one file
 * that opens from disk without a network, its style and a small script
 * inline, every figure SVG written here by hand, and nothing outside the
 * file referred to (no URL, no src, no href but to the page's own
 * anchors).  Every string from a results directory goes through
 * html_text(): a directory from elsewhere may hold markup in a name.  The
 * page reads the same with scripting off: the script only sorts tables. */
#pragma once

#include <stdio.h>

#include "report/render/render.h"

/* The figures' style, which a standalone SVG carries too. */
extern const char html_svg_style[];

/* s with &, <, >, " and ' as entities; NULL prints nothing. */
void html_text(FILE *out, const char *s);
/* printf's result, escaped. */
void html_printf(FILE *out, const char *fmt, ...) _printf_(2, 3);

/* The document's head (title escaped), its style, and the body opened. */
void html_begin(FILE *out, const char *title);
/* The script that sorts the tables of class "sortable", and the end. */
void html_end(FILE *out);

/* t as a sortable <table id="id">, its first row the header. */
void html_table(FILE *out, const struct table *t, const char *id);
/* Where a figure would be, why there is none: <p class="nofig">. */
void html_no_figure(FILE *out, const char *why);

/* The colour of series k, "#1f77b4" and on; dashed (ret) beyond the palette. */
const char *html_colour(size_t k, bool *ret_dashed);
/* A round step for about five grid lines over range. */
double html_nice_step(double range);

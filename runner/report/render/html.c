/* The pieces of the HTML pages (report/render/html.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "report/render/html.h"
#include "common/util.h"

void html_text(FILE *out, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
		}
}

void html_printf(FILE *out, const char *fmt, ...)
{
	_cleanup_free_ char *s = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r >= 0)
		html_text(out, s);
}

const char html_svg_style[] =
	"svg text{font:11px sans-serif;fill:#222}svg .grid line{stroke:#e3e3e3}"
	"svg .axis{stroke:#444;fill:none}svg .stall{fill:#d62728;fill-opacity:.25}"
	"svg .series{fill:none;stroke-width:1.5}";

/* Readable from a phone's 390 pixels up: figures shrink to the width and
 * their text grows back; table cells wrap below 900 pixels, and a table
 * still too wide scrolls in its own box, never the page. */
static const char page_style[] =
	"body{font:14px/1.45 sans-serif;color:#222;background:#fff;margin:1.5em auto;max-width:1240px;padding:0 1em}"
	"h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}"
	"h3{font-size:1em;margin:1.2em 0 .3em}"
	"table{border-collapse:collapse;margin:.5em 0}th,td{padding:2px 8px;border-bottom:1px solid #e6e6e6;"
	"text-align:right;white-space:nowrap;vertical-align:top}th{background:#f3f3f3;cursor:default}"
	"td:first-child,th:first-child,td.l,th.l{text-align:left}td.wrap{white-space:normal}"
	"tr.sig td.v{color:#06743a;font-weight:bold}tr.ns td.v{color:#777}tr.base td{background:#f7f7ff}"
	"tr.fail td{background:#fff0f0}.scroll{overflow-x:auto}"
	".grid{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:6px}figure{margin:0}"
	"figure.step{border:1px solid #ddd;padding:3px;width:212px}"
	"figcaption{font-size:11px;color:#444}figcaption .bad{color:#b00}"
	"p.nofig{border:1px dashed #bbb;color:#666;padding:1em;margin:.3em 0;background:#fafafa}"
	"figure.step p.nofig{height:38px;padding:6px;font-size:12px}"
	"pre{background:#f5f5f5;padding:.6em;overflow-x:auto;white-space:pre-wrap}.note{color:#555;font-size:13px}"
	"span.sw{display:inline-block;width:10px;height:10px;margin-right:4px}"
	"svg.figure{max-width:100%;height:auto}ul.legend{list-style:none;padding:0;margin:.2em 0;display:flex;"
	"flex-wrap:wrap;gap:2px 14px}"
	"@media (max-width:900px){td,th{white-space:normal;padding:2px 4px}}"
	"@media (max-width:600px){body{margin:.5em auto;padding:0 .5em}svg#tps text{font-size:19px}"
	"table.cards thead{display:none}table.cards,table.cards tbody,table.cards tr,table.cards td{display:block}"
	"table.cards tr{border-bottom:1px solid #bbb;padding:.3em 0}table.cards td{border:0;text-align:left}"
	"table.cards td::before{content:attr(data-h) \": \";color:#666}}";

/* Sorting on a header's click; without a script the tables read the same. */
static const char script[] =
	"document.querySelectorAll('table.sortable').forEach(function(t){"
	"t.querySelectorAll('thead th').forEach(function(th){th.title='click to sort';"
	"th.addEventListener('click',function(){var b=t.tBodies[0],i=th.cellIndex,"
	"d=th.getAttribute('data-dir')==='a'?'d':'a',rows=Array.prototype.slice.call(b.rows);"
	"th.setAttribute('data-dir',d);rows.sort(function(x,y){var p=x.cells[i]?x.cells[i].textContent:'',"
	"q=y.cells[i]?y.cells[i].textContent:'',m=parseFloat(p),n=parseFloat(q),"
	"c=isNaN(m)||isNaN(n)?p.localeCompare(q):m-n;return d==='a'?c:-c;});"
	"rows.forEach(function(r){b.appendChild(r);});});});});";

void html_begin(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      out);
	html_text(out, title);
	fprintf(out, "</title>\n<style>%s%s</style>\n</head>\n<body>\n", page_style, html_svg_style);
}

void html_end(FILE *out)
{
	fprintf(out, "<script>%s</script>\n</body>\n</html>\n", script);
}

void html_table(FILE *out, const struct table *t, const char *id)
{
	fprintf(out, "<div class=\"scroll\"><table class=\"sortable\" id=\"%s\">\n<thead><tr>", id);
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncols;

		if (i == t->ncols)
			fputs("</tr></thead>\n<tbody><tr>", out);
		else if (c == 0 && i > 0)
			fputs("<tr>", out);
		fputs(i < t->ncols ? "<th>" : "<td>", out);
		html_text(out, t->cells[i]);
		fputs(i < t->ncols ? "</th>" : "</td>", out);
		if (c + 1 == t->ncols)
			fputs("</tr>\n", out);
	}
	fputs(t->n > t->ncols ? "</tbody></table></div>\n" : "</thead><tbody></tbody></table></div>\n", out);
}

void html_no_figure(FILE *out, const char *why)
{
	fputs("<p class=\"nofig\">", out);
	html_text(out, why);
	fputs("</p>\n", out);
}

const char *html_colour(size_t k, bool *ret_dashed)
{
	static const char *const palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
					       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

	if (ret_dashed)
		*ret_dashed = k >= ELEMENTSOF(palette);
	return palette[k % ELEMENTSOF(palette)];
}

double html_nice_step(double range)
{
	double raw, mag, f;

	if (!(range > 0) || !isfinite(range))
		return 1;
	raw = range / 5;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

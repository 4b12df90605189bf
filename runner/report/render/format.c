/* The output formats' names and the options' level (report/render/format.h). */
#include "report/render/format.h"
#include "stats/stats.h"
#include "common/util.h"

const struct word report_format_words[] = {
	{ "text", REPORT_TEXT }, { "markdown", REPORT_MARKDOWN }, { "csv", REPORT_CSV }, { "json", REPORT_JSON },
	{ "svg", REPORT_SVG },	 { "png", REPORT_PNG },		  { "md", REPORT_MARKDOWN }, {},
};

const struct word report_page_format_words[] = {
	{ "text", REPORT_TEXT }, { "markdown", REPORT_MARKDOWN }, { "csv", REPORT_CSV }, { "json", REPORT_JSON },
	{ "svg", REPORT_SVG },	 { "png", REPORT_PNG },		  { "html", REPORT_HTML },   { "md", REPORT_MARKDOWN },
	{},
};

int report_format_from_string(const char *s, enum report_format *ret)
{
	int v, r = word_lookup(report_format_words, s, &v);

	if (r >= 0)
		*ret = (enum report_format)v;
	return r;
}

const char *report_format_to_string(enum report_format f)
{
	return word_name(report_page_format_words, (int)f);
}

double report_level(const struct report_options *o)
{
	return o->confidence ? o->confidence : STATS_CONFIDENCE_DEFAULT;
}

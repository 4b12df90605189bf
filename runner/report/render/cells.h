/* The numbers as every document prints them (render/cells.c): a verdict,
 * a p-value, a bound, a percentage; explain's sentences print theirs so
 * too. */
#pragma once

#include <stddef.h>

#include "stats/stats.h"

/* A verdict as the tables print it: "0.27x (0.19-0.38) p=0.001",
 * "1.02x (0.95-1.10) p=0.45 n.s.", "1.02x (one repeat: no interval)". */
#define REPORT_RATIO_MAX 96
const char *report_format_ratio(const struct stats_ratio *r, char *buf, size_t len);
/* "3.1%", or a gap for NAN. */
const char *report_percent(double v, char *buf, size_t len);
/* A bound of an interval: two decimals, or two digits below 0.1x and three
 * beyond 10x, so that no bound prints as 0.00; "<0.001" and ">1000" beyond
 * a thousandfold either way. */
#define REPORT_BOUND_MIN 0.001
void report_print_bound(char *buf, size_t len, double v);
/* "p=0.0497", "p=0.41", "p<0.001". */
const char *report_format_p(double p, char *buf, size_t len);

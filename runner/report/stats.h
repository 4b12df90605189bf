/* The statistics the report and explain share.  Small and pure: no JSON, no
 * formatting, no logging. */
#pragma once

#include <stddef.h>

/* qsort's comparison of two doubles, ascending. */
int stats_cmp_double(const void *a, const void *b);
/* The median of v[0..n), NAN for n == 0.  Sorts v in place. */
double stats_median(double *v, size_t n);

/* The parts of a run's page (render/page.c) drawn in files of their own. */
#pragma once

#include <stdio.h>

#include <jansson.h>

#include "report/render/html.h"

/* ---- report/figures.c ---- */

/* TPS against threads per column: each repeat a point, the median a
 * line, the interval of the column's mean TPS (the model's residual
 * sigma and degrees of freedom) a band. */
void page_tps(FILE *out, const struct model *m);

/* ---- report/steps.c ---- */

/* A small figure of the per-second TPS of every step of doc, a column's
 * together, on one scale per thread count; silent seconds, failures and
 * reconnects marked, and where a step has no per-second data, says so. */
int page_steps(FILE *out, const struct model *m, const json_t *doc);

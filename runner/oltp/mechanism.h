/* The mechanism figures (mechanism.c): what a step carries beside its TPS
 * as evidence of why, a row each. */
#pragma once

#include <stddef.h>

#include "oltp/sample.h"

/* The evidence of mechanism a step carries beside its TPS (its
 * "mechanism" object): a row per figure, derived from the first and last
 * telemetry samples, so that a step's record, report and explain say the
 * same thing in the same words. */
enum oltp_mechanism_per {
	OLTP_PER_TRANSACTION, /* the counter's growth per second over the step's TPS */
	OLTP_PER_COUNTER,     /* a share: the counter's growth over another's, in % */
};

struct oltp_mechanism_def {
	const char *key;   /* in the step's "mechanism" object */
	const char *label; /* "server run-queue wait per transaction" */
	const char *unit;  /* "us", "%", or "" for a count */
	double scale;      /* counter units per unit shown */
	size_t counter;    /* offsetof(struct oltp_telemetry_sample, the cumulative counter) */
	enum oltp_mechanism_per per;
	size_t of;         /* OLTP_PER_COUNTER: offsetof the denominator */
};

#define OLTP_MECHANISM_MAX 12
/* The rows; *ret_n of them. */
const struct oltp_mechanism_def *oltp_mechanism_table(size_t *ret_n);
/* The figure of row d over a step's n samples at tps; NAN without two
 * samples, a transaction or a denominator that grew. */
double oltp_mechanism_value(const struct oltp_mechanism_def *d, const struct oltp_telemetry_sample *samples, size_t n,
			    double tps);

/* This host's calibration: what `slicebench calibrate` measured of the
 * spread between server starts (an A/A test, calibrate/calibrate.h), kept
 * beside the host's other state as STATE/calibration.json, so that later
 * plans (run --dry-run, explain) can quote the host's own sigma instead of
 * an assumed one.  One record: the latest calibration.  It holds the host
 * it was taken on (name, kernel release, CPU model); a record of another
 * host, kernel or CPU, or of another thread count, is not quoted.
 * Pure file handling, no logging; errors are -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define CALIBRATION_FILE "calibration.json"
#define CALIBRATION_FORMAT_VERSION 1

struct calibration {
	/* the host it was taken on */
	char hostname[256], kernel[128], cpu_model[128];
	/* what was measured: the context of the experiment, twice, pairs rounds */
	char experiment[48], context[48];
	long threads;
	double duration_s;
	unsigned pairs;
	char date[32]; /* UTC, "2026-12-06 02:40" */
	/* sigma of ln TPS between starts, its interval at level, and its df */
	double level, sigma, sigma_lo, sigma_hi, df;
	/* the A/A tests: groups of group_rounds rounds, how many called significant */
	unsigned group_rounds, groups, false_positives;
	double fp_lo, fp_hi; /* Wilson's interval of the rate at level */
};

/* This host's name, kernel release and CPU model into c.  -ENOMEM. */
int calibration_identify(struct calibration *c);
/* Does c describe this host as calibration_identify() sees it? */
bool calibration_same_host(const struct calibration *c, const struct calibration *here);

json_t *calibration_to_json(const struct calibration *c);
/* -EBADMSG: j has not the shape of a calibration (a key missing or of the
 * wrong type, a sigma not positive and finite). */
int calibration_from_json(const json_t *j, struct calibration *ret);

/* STATE/calibration.json, replaced atomically (the directory made).
 * -EDOM: a number of c is not finite. */
int calibration_write(const char *state_dir, const struct calibration *c);
/* -ENOENT: none; -EBADMSG: not a calibration. */
int calibration_read(const char *state_dir, struct calibration *ret);

/* The stored calibration when it was taken on this host, at any thread
 * count: 1 and *ret; 0 when there is none or it is another host's, with
 * why in why[0..len); -ENOMEM. */
int calibration_of_this_host(const char *state_dir, struct calibration *ret, char *why, size_t len);
/* The stored calibration when it was taken on this host at threads: 1 and
 * *ret; 0 when there is none or it does not match, with why (a phrase:
 * "none stored", "the one stored was taken at 4 threads", "taken on another host", ...) in
 * why[0..len); -ENOMEM. */
int calibration_for_host(const char *state_dir, long threads, struct calibration *ret, char *why, size_t len);

/* The sigma a plan at threads states what it can see at, into *ret: the
 * stored calibration's when calibration_for_host() quotes it (true), else
 * 5% (false); and where
 * it comes from, as a phrase ("slicebench calibrate's figure for service of
 * quickstart, measured 2026-12-06 02:40 UTC" or "assumed: slicebench
 * calibrate measures this host's; none stored") in source[0..len). */
#define CALIBRATION_ASSUMED_SIGMA 0.05
bool calibration_sigma_for_plan(const char *state_dir, long threads, double *ret, char *source, size_t len);

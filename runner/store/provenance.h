/* Which slicebench measured a results directory.  Every step file records
 * the build that ran it (a run resumed by another build has two), and
 * results.json gathers them, so that a report, a page or a plot made
 * later, by any build, says which one measured and which one reports. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* The longest version or commit a results file may hold. */
#define PROVENANCE_WORD_MAX 64
/* Room for provenance_text() with a few builds. */
#define PROVENANCE_TEXT_MAX 320

/* This build: {"version": "0.1", "commit": "948fe19abc12"}; NULL: no memory. */
json_t *provenance_this_build(void);
/* Whether s may stand as a version or a commit in a results file: 1 to
 * PROVENANCE_WORD_MAX letters, digits and . + ~ _ -. */
bool provenance_word_is_valid(const char *s);
/* The builds that measured steps (an array of step records, each with its
 * "slicebench"), each once, in the order first met, with how many steps
 * it measured: [{"version", "commit", "steps"}]; steps without one (from a
 * slicebench before the record) count under a build whose version and
 * commit are null.  NULL: no memory. */
json_t *provenance_of_steps(const json_t *steps);
/* Whether builds is an array of {"version", "commit"} whose words are
 * valid (or both null): what a file from elsewhere must hold before its
 * builds are shown. */
bool provenance_builds_valid(const json_t *builds);
/* "measured by slicebench 0.1 (948fe19abc12); reported by slicebench 0.1
 * (948fe19abc12)" from results.json's "slicebench" (NULL or empty: "by a
 * slicebench that recorded no version", as before 0.1's recording). */
const char *provenance_text(const json_t *builds, char *buf, size_t len);

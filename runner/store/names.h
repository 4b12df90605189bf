/* The names in a results directory (names.c). */
#pragma once

#include <stddef.h>

#include <jansson.h>

/* Its steps' and its placements' directories. */
#define RESULTS_STEPS "steps"
#define RESULTS_PLACEMENTS "placements"
/* Its steps' profiles, when they were taken. */
#define RESULTS_PROFILES "profiles"

/* The names in a results directory, made here and nowhere else.  A unit is
 * a context at vary value v (0-based, named from 1) and repeat (from 1):
 * "raw-v1-r2".  Its steps are "steps/UNIT-tTHREADS.json", its placement
 * "placements/UNIT.json", both relative to the directory.  -ENAMETOOLONG
 * if buf is too small. */
int results_unit_name(const char *context, size_t v, unsigned repeat, char *buf, size_t len);
int results_step_file(const char *unit, long threads, char *buf, size_t len);
/* A step's profile, when it has one (its record's "profile" object):
 * "profiles/UNIT-tTHREADS.folded.gz" (profile/folded.h). */
int results_profile_file(const char *unit, long threads, char *buf, size_t len);
int results_placement_file(const char *unit, char *buf, size_t len);
/* The placement of context that diff and explain compare, the first vary
 * value's first repeat, as a path under dir. */
int results_first_placement_path(const char *dir, const char *context, char **ret);
/* The same in a document of record's placements (keyed by unit): repeat 1
 * of the first vary value, else its lowest repeat, else NULL. */
json_t *results_find_placement(const json_t *placements, const char *context);

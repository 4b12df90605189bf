/* A results directory: one file per finished step, written atomically, so
 * that a crash keeps every finished step and --resume knows what is left;
 * and the document of record (results.json, results.csv) rebuilt from them
 * after every step. */
#pragma once

#include <stdbool.h>

#include <sys/types.h>

#include <jansson.h>

#include "oltp/record.h"
#include "store/check.h"
#include "store/names.h"

#define RESULTS_FORMAT_VERSION 1

struct results;

/* 0 if dir may take results: missing, empty, or a results directory of
 * slicebench's (experiment.json, results.json, steps/ or explain's
 * explain.json in it); never
 * /etc, /, or the state directory.  -ENOTEMPTY if not; -ELOOP: see
 * path_check_links(). */
int results_dir_check(const char *dir);
/* Creates (or, with resume, reopens) dir, takes its lock and proves that it
 * can write there, before any work starts.  -EBUSY: another run holds the
 * lock; -EEXIST: dir holds results and resume was not asked for;
 * -ENOTEMPTY: dir holds other files (results_dir_check()); -ENOENT:
 * there is no dir to resume; -ELOOP: see path_check_links().  On failure a
 * directory made here is removed again. */
int results_open(const char *dir, bool resume, struct results **ret);
void results_close(struct results *r);
/* In the container sandbox (store/reach.c): 0 if dir, once made, is on
 * the host at that path (a bind from it); -EXDEV with *ret_why if it would
 * stay in the container's overlay or tmpfs and vanish with it.  0 outside
 * the sandbox. */
int results_reaches_host(const char *dir, char **ret_why);
/* results_close(), and the directory removed if results_open() made it:
 * for a run that failed before its first step. */
void results_discard(struct results *r);
const char *results_dir(const struct results *r);

/* Writes name (a relative path such as "host.json") atomically. */
int results_put(struct results *r, const char *name, const json_t *j);
bool results_have(const struct results *r, const char *name);

/* Where a step stands in its run: the names it is recorded under and its
 * place in the schedule. */
struct results_step_place {
	const char *context, *unit;
	const char *vary_value; /* NULL: the experiment has no [vary] */
	pid_t server_pid;	/* 0: none ran */
	unsigned repeat;	/* its round, from 1 */
	unsigned slot;		/* its unit's place in the round's order, from 1 */
	double started_at;	/* when the step began, in seconds since the epoch */
};
/* Writes step s to its file under steps/ (its name into name); -errno. */
int results_put_step(struct results *r, const struct results_step_place *p, const struct step_result *s, char *name,
		     size_t len);

/* The order of the rounds, schedule.json: how it was drawn and, per
 * round, its units in the order they ran. */
#define RESULTS_SCHEDULE "schedule.json"

/* Rebuilds results.json and results.csv from the step files under steps/,
 * with host.json and placements/ alongside. */
int results_rebuild(struct results *r);

/* The document of record of a finished or interrupted run, every file
 * checked by results_check().  -ENOENT, -ENOTDIR: dir is no results
 * directory; -EBADMSG: a file in it does not parse or has not the shape of
 * its kind; ret_why then names the file and the JSON path. */
int results_load(const char *dir, json_t **ret, char **ret_why);

/* Each step's folded stacks (profiles/) into its record's "profile" as
 * "stacks" (store/profiles.c), as results_load() does; -EBADMSG with
 * *ret_why naming the file and line of one that is not folded stacks. */
int results_load_profiles(const char *dir, json_t *doc, char **ret_why);

/* Whether a step's TPS counts as a start's: the rule of oltp/record.h
 * keeps it (it did not fail, completed transactions: 0 TPS has no
 * logarithm, and did not stall).  The one rule of run's count of failed
 * steps, of report's and of explain's. */
bool results_step_counted(const json_t *step);

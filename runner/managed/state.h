/* What slicebench has running, on disk: one lock per state directory (one
 * run at a time) and one record per started context under STATE/live/, so
 * that after a SIGKILL the next run or `slicebench cleanup` can find the
 * server, unit and cgroup it left and remove them, and nothing else. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "slices/kinds/context.h"
#include "slices/around/neighbour.h"
#include "slices/around/slice.h"

/* Takes STATE/lock for the life of the process.  -EBUSY: another slicebench
 * holds it (its PID in *ret_holder when known). */
int state_lock(const char *state_dir, int *ret_holder);

/* After a context started / before its record is no longer true. */
int state_record(const char *state_dir, const struct context *c);
void state_forget(const char *state_dir, const struct context *c);

/* After a slice tree was made / before it is removed: its units (with
 * their invocations) or its cgroups, which cleanup removes children first,
 * after the contexts that ran in them. */
int state_record_slices(const char *state_dir, const struct slice_tree *t);
void state_forget_slices(const char *state_dir);

/* After a neighbour started / once it is stopped: its scope (with its
 * invocation) or cgroup, and its PID with its start time. */
int state_record_neighbour(const char *state_dir, const struct neighbour *n);
void state_forget_neighbour(const char *state_dir, const struct neighbour *n);

/* Removes what the records under STATE/live/ name and is still there; the
 * lock must be held.  Says one line per thing removed to said (stdout for
 * the cleanup verb; stderr for the cleanup at a verb's start, whose stdout
 * is its own, place --json's); returns how many records it cleared. */
int state_cleanup(const char *state_dir, FILE *said);
/* STATE/live, made if missing (0700): -EPERM unless it is a directory that
 * root alone can write, since cleanup acts on the records in it.  *ret
 * (if not NULL): its path. */
int state_live_dir(const char *state_dir, char **ret);

/* A step's profile as folded stacks, the form flame graphs are drawn
 * from: one line per distinct stack, its frames from the root to the leaf
 * joined by ';', then a blank and its weight.  The first frame says what
 * the line is: "on-cpu" (the weight: samples), or "off-cpu:REASON" (the
 * weight: microseconds away), the reason one of profile_reasons[]; every
 * other frame is "DSO`FUNCTION" ("libc.so.6`malloc",
 * "[kernel]`__schedule").  Stored gzip-compressed in the results
 * directory beside the step's record, so that the report re-derives every
 * share from it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/sampler.h"

struct profile_line {
	char *stack;
	uint64_t weight;
};

struct profile {
	size_t n;
	struct profile_line *lines;
};

void profile_free(struct profile *p);

/* Why a task was off its CPU: a row per reason, the kernel functions of a
 * blocked task's stack that name it (the first row any of whose prefixes
 * begins a frame wins, rows in order), and its words. */
struct profile_reason {
	const char *key;   /* "futex": the line's "off-cpu:futex" */
	const char *label; /* "futex waits (locks, condition variables)" */
	const char *const *prefixes; /* of kernel functions; NULL: not by the stack */
};
enum {
	PROFILE_REASON_RUN_QUEUE, PROFILE_REASON_THROTTLED, PROFILE_REASON_IO, PROFILE_REASON_FUTEX,
	PROFILE_REASON_SOCKET, PROFILE_REASON_SLEEP, PROFILE_REASON_BLOCKED, _PROFILE_REASON_MAX,
};
extern const struct profile_reason profile_reasons[_PROFILE_REASON_MAX];

/* The sampler's stacks named (profile/symbols.h): user frames below the
 * leaf are return addresses, named at the call (one byte back). */
int profile_fold(struct profile_raw *raw, struct profile **ret);

/* Written to path (gzip), atomically; read back, each line checked:
 * -EBADMSG with *ret_why (to free()) naming the line. */
#define PROFILE_LINES_MAX 2000000
#define PROFILE_LINE_MAX 65536
int profile_write(const struct profile *p, const char *path);
int profile_read(const char *path, struct profile **ret, char **ret_why);
/* One line checked as profile_read() checks it: 0, or -EBADMSG. */
int profile_parse_line(char *line, struct profile_line *ret);

/* The leaf frame of a line, and its DSO and function as parts of it. */
const char *profile_leaf(const char *stack);
/* Whether a line is on-CPU; else *ret_reason (an index of profile_reasons[]). */
bool profile_line_on_cpu(const char *stack, size_t *ret_reason);

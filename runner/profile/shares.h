/* One start's profile as figures: the share of the server's on-CPU
 * samples whose leaf (the function running when sampled: self time) is
 * each function, each library and each group of functions a reader names
 * at once (the allocator, the scheduler, the kernel), the groups also by
 * the library they ran in ("the allocator" in libjemalloc.so.2); and the
 * server's off-CPU time by reason in milliseconds a second of the step
 * (how many of its threads waited so, on average, times 1000). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "profile/folded.h"

enum profile_item_kind {
	PROFILE_ITEM_GROUP,	    /* a share */
	PROFILE_ITEM_GROUP_LIBRARY, /* a share: a group's samples in one library */
	PROFILE_ITEM_LIBRARY,	    /* a share */
	PROFILE_ITEM_FUNCTION,	    /* a share; its name "DSO`FUNCTION" */
	PROFILE_ITEM_OFF_CPU,	    /* ms a second; its name a reason's key */
	_PROFILE_ITEM_KIND_MAX,
};
/* "group", "group-library", "library", "function", "off-cpu" */
extern const char *const profile_item_kind_names[_PROFILE_ITEM_KIND_MAX];

/* A group of functions: a row, what a leaf must be to belong. */
struct profile_group {
	const char *name; /* "the allocator" */
	const char *const *libraries; /* any function of a library whose name begins so */
	const char *const *functions; /* a function of these names, in libraries of these prefixes */
	const char *const *function_libraries;
	const char *const *kernel_prefixes; /* a kernel function beginning so */
	bool whole_kernel;
};
enum { PROFILE_GROUP_ALLOCATOR, PROFILE_GROUP_SCHEDULER, PROFILE_GROUP_KERNEL, _PROFILE_GROUP_MAX };
extern const struct profile_group profile_groups[_PROFILE_GROUP_MAX];

struct profile_item {
	enum profile_item_kind kind;
	char *name;
	char *library; /* PROFILE_ITEM_GROUP_LIBRARY's; else NULL */
	double value;
};

struct profile_shares {
	double samples; /* the server's on-CPU samples */
	double seconds; /* the step's measured seconds */
	size_t n;
	struct profile_item *items; /* by kind, then name */
};

/* The figures of one start; seconds > 0. */
int profile_shares_of(const struct profile *p, double seconds, struct profile_shares **ret);
void profile_shares_free(struct profile_shares *s);
/* The item of that kind and name (and library), or NULL: a share of 0. */
const struct profile_item *profile_shares_find(const struct profile_shares *s, enum profile_item_kind kind,
					       const char *name, const char *library);
/* Whether the item's value is a share (else ms a second). */
static inline bool profile_item_is_share(enum profile_item_kind k)
{
	return k != PROFILE_ITEM_OFF_CPU;
}

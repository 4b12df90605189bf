#include <stdio.h>

#include "profile/shares.h"
#include "profile/symbols.h"
#include "common/util.h"

const char *const profile_item_kind_names[_PROFILE_ITEM_KIND_MAX] = {
	[PROFILE_ITEM_GROUP] = "group", [PROFILE_ITEM_GROUP_LIBRARY] = "group-library",
	[PROFILE_ITEM_LIBRARY] = "library", [PROFILE_ITEM_FUNCTION] = "function", [PROFILE_ITEM_OFF_CPU] = "off-cpu",
};

static const char *const allocator_libraries[] = { "libjemalloc.so", "libtcmalloc", "libmimalloc.so", NULL };
/* glibc's allocator: its entry points, and its static functions, which
 * have names where libc6-dbg is installed (profile/symbols.h); C++'s
 * operator new and delete, which call it.  A name is compared up to a
 * '.' or '@' ("unlink_chunk.constprop.0", "cfree@GLIBC_2.2.5"). */
static const char *const allocator_functions[] = {
	"malloc", "free", "calloc", "realloc", "reallocarray", "cfree", "posix_memalign", "aligned_alloc",
	"memalign", "valloc", "pvalloc", "malloc_usable_size", "malloc_trim", "__libc_malloc", "__libc_free",
	"__libc_calloc", "__libc_realloc", "__libc_memalign", "_int_malloc", "_int_free", "_int_realloc",
	"_int_memalign", "malloc_consolidate", "unlink_chunk", "sysmalloc", "systrim", "tcache_init",
	"tcache_get", "tcache_put", "arena_get2", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm",
	"_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", NULL
};
static const char *const allocator_function_libraries[] = { "libc.so", "libstdc++.so", NULL };
static const char *const scheduler_prefixes[] = {
	"__schedule", "schedule", "pick_next_", "finish_task_switch", "__switch_to", "switch_mm", "enqueue_",
	"dequeue_", "try_to_wake_up", "ttwu_", "select_task_rq", "update_curr", "update_load_avg", "update_cfs",
	"psi_", "set_next_entity", "put_prev_", "load_balance", "newidle_balance", "sched_", "context_switch",
	"check_preempt", "resched_", "reweight_", "__update_load", "prepare_task_switch", "activate_task",
	"wake_up_", "__wake_up", NULL
};

const struct profile_group profile_groups[_PROFILE_GROUP_MAX] = {
	[PROFILE_GROUP_ALLOCATOR] = { .name = "the allocator", .libraries = allocator_libraries,
				      .functions = allocator_functions,
				      .function_libraries = allocator_function_libraries },
	[PROFILE_GROUP_SCHEDULER] = { .name = "the scheduler", .kernel_prefixes = scheduler_prefixes },
	[PROFILE_GROUP_KERNEL] = { .name = "the kernel", .whole_kernel = true },
};

static bool begins_with_any(const char *s, size_t len, const char *const *prefixes)
{
	for (size_t i = 0; prefixes && prefixes[i]; i++)
		if (strlen(prefixes[i]) <= len && strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Whether s, up to a '.' or '@', is one of words. */
static bool is_any(const char *s, const char *const *words)
{
	size_t len = strcspn(s, ".@");

	for (size_t i = 0; words && words[i]; i++)
		if (strlen(words[i]) == len && strncmp(s, words[i], len) == 0)
			return true;
	return false;
}

static bool in_group(const struct profile_group *g, const char *dso, size_t dso_len, const char *fn)
{
	bool kernel = dso_len == strlen(PROFILE_KERNEL_DSO) && strncmp(dso, PROFILE_KERNEL_DSO, dso_len) == 0;

	if (kernel)
		return g->whole_kernel || begins_with_any(fn, strlen(fn), g->kernel_prefixes);
	return begins_with_any(dso, dso_len, g->libraries) ||
	       (is_any(fn, g->functions) && begins_with_any(dso, dso_len, g->function_libraries));
}

void profile_shares_free(struct profile_shares *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].name);
		free(s->items[i].library);
	}
	free(s->items);
	free(s);
}

/* A part of a string: a name within a frame. */
struct span {
	const char *s;
	size_t len;
};

static bool span_is(struct span a, const char *b)
{
	return strlen(b) == a.len && strncmp(b, a.s, a.len) == 0;
}

/* weight more to the item (kind, name, library: .s NULL for none), added if new. */
static int add_item(struct profile_shares *s, enum profile_item_kind kind, struct span name, struct span library,
		    double weight)
{
	struct profile_item *n;

	for (size_t i = s->n; i-- > 0;)
		if (s->items[i].kind == kind && span_is(name, s->items[i].name) &&
		    (!library.s || span_is(library, s->items[i].library))) {
			s->items[i].value += weight;
			return 0;
		}
	n = realloc(s->items, (s->n + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->items = n;
	n[s->n] = (struct profile_item){ .kind = kind, .name = strndup(name.s, name.len), .value = weight,
					 .library = library.s ? strndup(library.s, library.len) : NULL };
	if (!n[s->n].name || (library.s && !n[s->n].library)) {
		free(n[s->n].name);
		free(n[s->n].library);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

/* One on-CPU line's weight to its function, library and groups. */
static int add_on_cpu(struct profile_shares *s, const struct profile_line *l)
{
	const char *leaf = profile_leaf(l->stack), *tick = strchr(leaf, '`');
	size_t dso_len = tick ? (size_t)(tick - leaf) : 0;
	const char *fn = tick ? tick + 1 : leaf;
	double w = (double)l->weight;
	int r = 0;

	s->samples += w;
	if (!tick)
		return 0; /* a stack of no frame: counted in the whole only */
	r = add_item(s, PROFILE_ITEM_FUNCTION, (struct span){ leaf, strlen(leaf) }, (struct span){}, w);
	if (r >= 0)
		r = add_item(s, PROFILE_ITEM_LIBRARY, (struct span){ leaf, dso_len }, (struct span){}, w);
	for (size_t g = 0; g < _PROFILE_GROUP_MAX && r >= 0; g++)
		if (in_group(&profile_groups[g], leaf, dso_len, fn)) {
			struct span name = { profile_groups[g].name, strlen(profile_groups[g].name) };

			r = add_item(s, PROFILE_ITEM_GROUP, name, (struct span){}, w);
			if (r >= 0)
				r = add_item(s, PROFILE_ITEM_GROUP_LIBRARY, name, (struct span){ leaf, dso_len }, w);
		}
	return r;
}

static int cmp_item(const void *a, const void *b)
{
	const struct profile_item *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name) ? strcmp(x->name, y->name) : strcmp(strempty(x->library), strempty(y->library));
}

int profile_shares_of(const struct profile *p, double seconds, struct profile_shares **ret)
{
	struct profile_shares *s = calloc(1, sizeof(*s));
	int r = s && seconds > 0 ? 0 : s ? -EINVAL : -ENOMEM;

	for (size_t k = 0; r >= 0 && k < _PROFILE_REASON_MAX; k++)
		r = add_item(s, PROFILE_ITEM_OFF_CPU, (struct span){ profile_reasons[k].key, strlen(profile_reasons[k].key) },
			     (struct span){}, 0);
	for (size_t i = 0; r >= 0 && i < p->n; i++) {
		size_t reason;

		if (profile_line_on_cpu(p->lines[i].stack, &reason))
			r = add_on_cpu(s, &p->lines[i]);
		else if (reason < _PROFILE_REASON_MAX)
			s->items[reason].value += (double)p->lines[i].weight;
	}
	if (r < 0) {
		profile_shares_free(s);
		return r;
	}
	s->seconds = seconds;
	for (size_t i = 0; i < s->n; i++)
		s->items[i].value /= s->items[i].kind == PROFILE_ITEM_OFF_CPU ? seconds * 1000.0 : MAX(s->samples, 1.0);
	qsort(s->items, s->n, sizeof(*s->items), cmp_item);
	*ret = s;
	return 0;
}

const struct profile_item *profile_shares_find(const struct profile_shares *s, enum profile_item_kind kind,
					       const char *name, const char *library)
{
	struct profile_item key = { .kind = kind, .name = (char *)name, .library = (char *)library };

	return bsearch(&key, s->items, s->n, sizeof(*s->items), cmp_item);
}

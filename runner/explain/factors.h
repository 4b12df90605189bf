/* The factors of explain: every attribute in which A and B differ that a
 * context can take from A, whether the file writes it (a setting, the
 * session, the client's CPUs) or only the placements show it (what a
 * shell's server inherits, what systemd gives a service); and the hybrid
 * contexts that take a set of them from A and the rest from B. */
#pragma once

#include <stdbool.h>

#include "experiment/experiment.h"
#include "slices/attr/snapshot.h"

#define FACTORS_MAX 12

struct factor {
	/* The attribute table's row that moves it; NULL: the client's CPUs. */
	const struct prop_def *row;
	/* The setting as A's and B's sections write it; NULL: not written
	 * (the placement's value is taken). */
	const struct prop_value *in_a, *in_b;
	/* A factor of the proxy's context, A's and B's [proxy] and the proxy.*
	 * keys of their placements, not of the server's. */
	bool proxy;
	char label[48];	  /* "CPUQuota=", "environment", "the client's CPUs", "the proxy's CPUQuota=" */
	char detail[128]; /* what the placements show: "affinity 0-1 against 0"; "": written */
};

struct factor_set {
	struct factor f[FACTORS_MAX];
	size_t n;
	/* The kind of the hybrids: B's if it can take every factor, else a
	 * scope, else raw. */
	enum context_kind kind;
	/* The kind of the hybrids' proxy, chosen as kind among the proxy's
	 * factors: B's proxy's, else a scope, else raw (B going through a
	 * proxy); CONTEXT_KIND_INVALID when B goes straight to the server. */
	enum context_kind proxy_kind;
	/* A and B differ in the chain itself: one goes through a proxy and the
	 * other not, or their proxies' engines differ (fs->unmovable says it);
	 * the hybrids go as B does. */
	bool chain_differs;
	/* Without placements: A and B (or their proxies) are of two kinds,
	 * whose attributes the placements will show. */
	bool kinds_differ;
	/* A is of the hybrids' kind: taking every factor from A is A itself,
	 * so the closure is not measured apart. */
	bool closure_is_a;
	/* The allocators A's and B's servers map ("jemalloc", "glibc") when
	 * they differ and a factor moves them (LD_PRELOAD): the mechanism
	 * lines name them; "" otherwise. */
	char allocator_a[32], allocator_b[32];
	/* What differs and no factor moves ("seccomp.filters, tasks.max"),
	 * or the kind when the placements are not known yet. */
	char unmovable[1024];
};

/* The pair explained: contexts ia (A) and ib (B) of e, and their
 * placements (pa and pb, NULL when not known yet). */
struct factor_pair {
	const struct experiment *e;
	size_t ia, ib;
	const struct placement *pa, *pb;
};

/* The factors of pair p: their settings, and with placements every
 * attribute of the diff that the table can take, identity left out; when
 * both go through a proxy, the same of their proxies (struct
 * factor.proxy).  -E2BIG over FACTORS_MAX; -ENOMEM. */
int factors_find(const struct factor_pair *p, struct factor_set *ret);

/* The mask that stands for A itself (of its own kind, with what no
 * hybrid can take). */
#define FACTORS_A (1u << 31)

/* The hybrid that takes the factors whose bit is set in mask from A, the
 * rest from B, appended to x's contexts under name; mask 0 is B itself,
 * FACTORS_A (or the full mask with closure_is_a) A itself.  Where that
 * side (B, for a hybrid) goes through a proxy, so does the mix: one
 * appended to x's [proxy] sections under the same name, or shared with a
 * mix whose proxy is the same.  Returns 0 or -errno. */
int factors_add_mix(const struct factor_pair *p, const struct factor_set *fs, unsigned mask, const char *name,
		    struct experiment *x);

/* Reads the placement of context name in results directory dir (its first
 * unit's).  -errno, with *ret_path set to the file it tried. */
int factors_load_placement(const char *dir, const char *name, struct placement *ret, char **ret_path);

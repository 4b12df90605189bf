/* An explain directory: explain.json, what was asked and designed (the
 * pair, the factors and the letter each owns in the mix names, each stage
 * and its directory, the set the hold-out measured, the seeds), beside a
 * results directory per stage.  What explain printed can be made again
 * from it alone (explain_report()), with no server and no root. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "explain/analysis.h"

#define EXPLAIN_RECORD "explain.json"
#define EXPLAIN_RECORD_VERSION 1

enum explain_stage {
	STAGE_FRACTION, /* the resolution IV screen, beyond DESIGN_FULL_MAX factors */
	STAGE_SCREEN,	/* every mix of the factors shared out */
	STAGE_CONFIRM,	/* the hold-out: the set named, measured afresh */
	_STAGE_MAX,
};

struct stage_record {
	bool present;
	unsigned factors;	/* the factors its mixes vary (a mask) */
	unsigned set;		/* STAGE_CONFIRM: the set it measured */
	unsigned rounds_wanted; /* STAGE_CONFIRM: for --width */
	/* STAGE_CONFIRM: a signal ended it before its rounds were done; the
	 * set is named from the screen until explain --resume DIR finishes it. */
	bool cut;
};

struct explain_record {
	char experiment[48], a[48], b[48];
	long threads;
	double level, width;
	size_t n_factors;
	char labels[FACTORS_MAX][48], details[FACTORS_MAX][128];
	bool proxy[FACTORS_MAX]; /* a factor of the proxy's context */
	char hybrids[16];
	char proxy_hybrids[16]; /* the kind of the hybrids' proxy; "": none */
	bool closure_is_a;
	char unmovable[1024];
	/* The allocators of A's and B's servers when a factor moves them
	 * (factor_set.allocator_a); "": none moved. */
	char allocator_a[32], allocator_b[32];
	uint64_t seed; /* of the rounds' orders */
	struct stage_record stage[_STAGE_MAX];
	char command[2048]; /* the command line that explains it again; "": not recorded (an older explain) */
};

/* The directory of stage s under an explain directory's. */
const char *explain_stage_dir(enum explain_stage s);

/* Stage s of in; NULL: not measured. */
static inline const struct stage *explain_stage_of(const struct analysis_inputs *in, enum explain_stage s)
{
	return s == STAGE_FRACTION ? in->fraction : s == STAGE_SCREEN ? in->screen : in->confirm;
}

int explain_record_write(const char *dir, const struct explain_record *r);
/* -ENOENT: dir has no explain.json; -EBADMSG with *ret_why: not as
 * explain writes it. */
int explain_record_read(const char *dir, struct explain_record *ret, char **ret_why);

/* The starts of stage s of dir into *ret (mix names as
 * design_mix_name() makes them).  -EBADMSG with *ret_why: a step of a mix
 * the record does not know, or a results directory not as run writes it. */
int explain_stage_load(const char *dir, enum explain_stage s, const struct explain_record *r, struct stage *ret,
		       char **ret_why);

/* The builds explain.json says measured dir (store/provenance.h): a new
 * reference, an empty array for a record that names none. */
json_t *explain_builds(const char *dir);

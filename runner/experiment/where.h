/* Where the experiment being read is: struct parser, what has been read
 * and where in the file (or on the command line) each thing of it was
 * written, so that every step's message names its line, and the one
 * function that fails there.  The parser (parse.c), the key table's
 * checks (key_table.c), the checks across keys (check.c), the mirror,
 * the replay and the proxies all report through it. */
#pragma once

#include <stdio.h>

#include "experiment/keys.h"
#include "common/util.h"

struct parser {
	struct experiment *e;
	const char *path;
	FILE *f;
	enum cgroup_mode mode;
	unsigned line;
	bool at_line_start;
	enum section section;
	size_t instance; /* the section's context, slice or neighbour: its index */
	/* Each key's line, per context, slice or neighbour (0 for a section of
	 * its own); 0: not given. */
	unsigned key_line[EXP_INSTANCES_MAX][_KEY_MAX];
	unsigned header_line[_SECTION_MAX][EXP_INSTANCES_MAX];
	unsigned prop_line[EXP_CONTEXTS_MAX][CONTEXT_PROPS_MAX], slice_prop_line[EXP_SLICES_MAX][SLICE_PROPS_MAX];
	unsigned proxy_prop_line[EXP_PROXIES_MAX][CONTEXT_PROPS_MAX];
	/* Where a context's property came from when not the file's own line
	 * (the snapshot of from =, the unit of unit =), for the gate's
	 * message; NULL: the line's own. */
	const char *prop_source[EXP_CONTEXTS_MAX][CONTEXT_PROPS_MAX];
	/* proxy = NAME of a context: which proxy that is is known at the end. */
	char ctx_proxy[EXP_CONTEXTS_MAX][48];
	/* Slice = NAME of a context or a neighbour, [vary] slice: which slice
	 * that is is known at the end of the file. */
	char ctx_slice[EXP_CONTEXTS_MAX][SLICE_NAME_MAX], nb_slice[EXP_NEIGHBOURS_MAX][SLICE_NAME_MAX];
	char vary_slice[SLICE_NAME_MAX];
	char *unit[EXP_CONTEXTS_MAX]; /* unit = NAME.service: the installed unit a context mirrors */
	char *from[EXP_CONTEXTS_MAX]; /* from = FILE: the snapshot a context replays */
	size_t user_from;	      /* the context + 1 whose unit's User= is the server's user; 0: none */
	char *msg;		      /* the first error */
	bool from_json;		      /* experiment.json read back: no lines */
	/* The command line (experiment_set_option()): each option given is
	 * a line of its own, numbered from 1, and a message names the
	 * option, "--time: why", not a line. */
	bool options;
	/* The server is the user's, at a socket (sweep --socket, prepare):
	 * not checked as installed, its connections not known. */
	bool server_given;
	/* explain --trust-results-code: code not root's is taken (the gate). */
	bool trust_code;
};

static inline unsigned line_of(const struct parser *p, enum key_id k)
{
	return p->key_line[0][k];
}

/* The first error, "FILE:LINE: KEY: why" (on the command line
 * "--option: why"), into p->msg; returns -EINVAL. */
int fail_at(struct parser *p, unsigned line, const char *key, const char *fmt, ...) _printf_(4, 5);
/* "[context NAME]" or "[vary]": where the parser is. */
const char *section_where(const struct parser *p, char *buf, size_t len);
/* The name of section s's i-th instance (a context's, a slice's, ...),
 * inside e. */
char *section_instance_name(struct experiment *e, const struct section_def *s, size_t i);
/* A path the file names (from = FILE), relative to the experiment file's
 * directory. */
int where_path(const struct parser *p, const char *path, char **ret);

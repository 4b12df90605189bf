/* The experiment file parser (parse.c): inih reads the INI, and each key
 * goes through its row of the key table into struct experiment; the
 * command line's settings go through the same rows. */
#pragma once

#include "experiment/where.h"

<<<<<<< HEAD
=======
#include "experiment/experiment.h"
#include "common/util.h"

enum section {
	SECTION_NONE,
	SECTION_EXPERIMENT,
	SECTION_SERVER,
	SECTION_CLIENT,
	SECTION_CONTEXT,
	SECTION_SLICE,
	SECTION_NEIGHBOUR,
	SECTION_VARY,
	SECTION_PROXY,
	_SECTION_MAX,
};

/* A section: [name], or [name NAME] for one of many (a context, a slice, a
 * neighbour), whose names are in struct experiment at names + i * stride,
 * their count at count. */
struct section_def {
	const char *name;
	bool named;
	size_t names, stride, count, max;
	bool (*valid)(const char *name, const char **ret_why); /* ret_why NULL: rule says why */
	const char *rule;				      /* what a NAME is */
	bool settings; /* the experiment's settings: in experiment.json and in a copy (experiment_copy_settings) */
	/* The messages of its keys, as they have always read: an unknown key's
	 * lists the section's keys, a key given twice names the first line. */
	bool unknown_lists_keys, twice_names_line;
};
extern const struct section_def section_table[_SECTION_MAX];

enum key_type {
	TYPE_STRING, /* not empty; with words: one of them */
	TYPE_UNIT,   /* any text: a unit the mirror step looks for */
	TYPE_FILE,   /* any text: a file a later step reads (from = SNAPSHOT.json) */
	TYPE_UINT,
	TYPE_DURATION,
	TYPE_THREADS,
	TYPE_CPUS,	/* into [client]'s list */
	TYPE_CPUS_TEXT, /* kept as text, a topological one as the CPUs it names here */
	TYPE_WORD,	/* an enum, one of words */
	TYPE_FLAGS,	/* one of two words or both, into a bitmask */
	TYPE_KIND,	/* a kind of context */
	TYPE_BASELINE,
	TYPE_NAME, /* one of the file's sections, by name (proxy = NAME): looked for by the checks */
	TYPE_BOOL, /* yes or no (true, false, 1, 0) */
	TYPE_REPEAT,
	TYPE_PERCENT,	    /* a fraction, above 0% and below 100% */
	TYPE_WHOLE_PERCENT, /* a whole number of percent, from min to max */
	TYPE_SIZE, /* bytes with K, M, G or T, at least min and at most this machine's memory; kept as written */
	TYPE_SLICE,	/* a slice's name, looked for among the file's slices by the checks */
	TYPE_COMMAND,	/* a program and its words */
	TYPE_PROPERTY,	/* the key is any property of the attribute table (the row's name a placeholder) */
	TYPE_PROPERTY_VALUES, /* the same, with values separated by blanks */
};

/* The rows of key_table[], in the order of the documentation: the checks
 * name a key's row (its line) by these, not by its name. */
enum key_id {
	KEY_DESCRIPTION, KEY_THREADS, KEY_WARMUP, KEY_DURATION, KEY_REPEAT, KEY_REPEAT_MAX, KEY_UNTIL, KEY_MARGIN, KEY_LOOK_EVERY, KEY_WORKLOAD,
	KEY_SCALE, KEY_TABLES, KEY_TABLE_SIZE, KEY_RANGE_SIZE, KEY_DRIVER, KEY_RAND_TYPE, KEY_BASELINE, KEY_ON_ERROR,
	KEY_ENGINE, KEY_FLAVOR, KEY_BINARY, KEY_BUFFER_POOL, KEY_USER, KEY_GROUPS, KEY_MAX_CONNECTIONS,
	KEY_CLIENT_CPUS, KEY_PIN, KEY_SCOPE, KEY_CLIENT_THREADS, KEY_WAKEUPS, KEY_PROFILE, KEY_PROFILE_HZ,
	KEY_PROFILE_OFF_CPU,
	KEY_CONTEXT_KIND, KEY_CONTEXT_SESSION, KEY_CONTEXT_SLICE, KEY_CONTEXT_UNIT, KEY_CONTEXT_FROM, KEY_CONTEXT_CLIENT_CPUS,
	KEY_CONTEXT_PROXY, KEY_CONTEXT_PROPERTY,
	KEY_SLICE_PROPERTY,
	KEY_NEIGHBOUR_KIND, KEY_NEIGHBOUR_THREADS, KEY_NEIGHBOUR_DUTY, KEY_NEIGHBOUR_COMMAND, KEY_NEIGHBOUR_SLICE,
	KEY_VARY_MODE, KEY_VARY_SLICE, KEY_VARY_PROPERTY,
	KEY_PROXY_ENGINE, KEY_PROXY_BINARY, KEY_PROXY_KIND, KEY_PROXY_SESSION, KEY_PROXY_PROPERTY,
	_KEY_MAX,
};

struct parser;
/* A section's list of properties: n of at most max in v, what they are
 * called in a message ("properties", "settings"). */
struct prop_list {
	struct prop_value *v;
	size_t *n;
	size_t max;
	const char *what;
};
#define PROP_LIST(spec, most, word) (&(struct prop_list){ (spec)->props, &(spec)->n_props, (most), (word) })

/* A key: where it goes, how it is parsed and checked, its default (as it
 * would be written in the file, so that the same parser applies it) and
 * its help.  The value goes to struct experiment (or, in_parser, to the
 * parser's own state) at offset, plus stride times the index of the
 * section's context, slice or neighbour. */
struct key_def {
	enum section section;
	const char *name;
	enum key_type type;
	size_t offset, stride;
	bool in_parser;
	long min, max;		  /* numbers; TYPE_DURATION in seconds; TYPE_SIZE in bytes */
	const struct word *words; /* TYPE_WORD, TYPE_FLAGS, TYPE_BOOL, TYPE_STRING */
	const char *def;	  /* NULL: none, or the help says what stands in */
	const char *help;
	bool own; /* the file's own, not carried into an experiment made from it */
	/* A check of the value that its type alone does not make. */
	int (*check)(struct parser *p, const struct key_def *k, const char *value);
	/* A property row's (TYPE_PROPERTY, TYPE_PROPERTY_VALUES): takes any
	 * property named, into the section's own list. */
	int (*add)(struct parser *p, const char *name, const char *value);
	/* Another name of another row's setting (flavor of engine): read,
	 * never recorded or copied on its own. */
	bool alias;
	/* A setting experiment.json carries only when this says so (NULL:
	 * always), so that runs made before the key resume. */
	bool (*recorded)(const struct experiment *e);
	/* The same setting on the command line of sweep, prepare and place
	 * (cli/args.c): --option (and -short_option), parsed and checked by
	 * this row as in a file; what --help says of it.  NULL: a file's
	 * only.  A property row's takes NAME=VALUE. */
	const char *option;
	char short_option;
	const char *option_help;
	/* The trust gate's column (slices/attr/gate.h, gate.c): what the
	 * key's value can do (POWER_* of common/trust.h; every row says), and
	 * for a key that can do anything, its allow-list, run by
	 * experiment_gate() on instance i's value when it is set: 0, or
	 * fail_at() with why. */
	unsigned power;
	int (*allow)(struct parser *p, const struct key_def *k, size_t i);
};
extern const struct key_def key_table[_KEY_MAX];

/* A setting of the experiment, as experiment.json carries it and a copy
 * of the settings takes it. */
static inline bool key_is_setting(const struct key_def *k)
{
	return section_table[k->section].settings && !k->own && !k->alias;
}
/* The row of key name in section s: a named one, else the section's
 * property row; NULL if neither. */
const struct key_def *key_find(enum section s, const char *name);
/* The names of s's keys but its property row, "a, b" + last_sep + "c". */
const char *key_list(enum section s, const char *last_sep, char *buf, size_t len);

/* The most contexts, slices or neighbours (each section's max). */
#define EXP_INSTANCES_MAX 40
_Static_assert(EXP_CONTEXTS_MAX <= EXP_INSTANCES_MAX && EXP_SLICES_MAX <= EXP_INSTANCES_MAX &&
		       EXP_NEIGHBOURS_MAX <= EXP_INSTANCES_MAX && EXP_PROXIES_MAX <= EXP_INSTANCES_MAX,
	       "a section has more instances than the parser keeps lines for");

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

/* parse.c: the first error, "FILE:LINE: KEY: why", into p->msg;
 * returns -EINVAL. */
int fail_at(struct parser *p, unsigned line, const char *key, const char *fmt, ...) _printf_(4, 5);
/* "[context NAME]" or "[vary]": where the parser is. */
const char *section_where(const struct parser *p, char *buf, size_t len);
/* Words split on blanks, no quoting (a neighbour's command, [server]
 * groups): a NULL-terminated strv, maybe empty. */
int split_words(const char *value, char ***ret);
>>>>>>> main
/* Parses and checks one value of k, through its type, into its place. */
int set_key(struct parser *p, const struct key_def *k, const char *value);
/* Every key's default, through the parser that reads the file. */
int experiment_defaults(struct experiment *e);
/* Reads the file at p->path; -errno with *ret_msg if it cannot be opened,
 * else p->msg says what was wrong with it. */
int parse_file(struct parser *p, char **ret_msg);

/* The command line's settings, as fio's options serve its job files and
 * its command line: a parser of e with its defaults (to free()), each
 * option a row's (experiment_set_option()), then the file's checks
 * across keys (experiment_check_options()).  -EINVAL with p->msg, as
 * "--option: why". */
int experiment_options_start(struct experiment *e, struct parser **ret);
int experiment_set_option(struct parser *p, const struct key_def *k, const char *value);

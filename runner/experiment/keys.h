/* The key table's types (its rows are key_table.c's): the sections of an
 * experiment file, the types of values, the rows' ids and what a row
 * holds.  A header of types alone, so that the parser's position
 * (where.h) and the table's own checks can both include it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "experiment/experiment.h"
#include "common/words.h"

struct parser;

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
	TYPE_WORKLOAD,	/* a workload's word, or the user's scripts (experiment/script.h) */
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
	KEY_SCALE, KEY_TABLES, KEY_TABLE_SIZE, KEY_RANGE_SIZE, KEY_RATE, KEY_LATENCY_LIMIT, KEY_ARRIVALS, KEY_DRIVER, KEY_RAND_TYPE, KEY_BASELINE, KEY_ON_ERROR,
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
	 * this row as in a file; what --help says of it (NULL: .help).
	 * option NULL: a file's only.  A property row's takes NAME=VALUE. */
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
/* The most contexts, slices or neighbours (each section's max). */
#define EXP_INSTANCES_MAX 40
_Static_assert(EXP_CONTEXTS_MAX <= EXP_INSTANCES_MAX && EXP_SLICES_MAX <= EXP_INSTANCES_MAX &&
		       EXP_NEIGHBOURS_MAX <= EXP_INSTANCES_MAX && EXP_PROXIES_MAX <= EXP_INSTANCES_MAX,
	       "a section has more instances than the parser keeps lines for");

/* k's member in experiment.json: its name with _ for -, durations with
 * _s, into buf. */
static inline const char *setting_json_name(const struct key_def *k, char *buf, size_t len)
{
	/* One of the key table's names, all far shorter than buf. */
	snprintf(buf, len, "%s%s", k->name, k->type == TYPE_DURATION ? "_s" : "");
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
	return buf;
}

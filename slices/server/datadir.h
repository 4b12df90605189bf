/* The dataset's template datadir and the pristine copy each start takes:
 * a dataset is prepared once per server binary, the datadir the server
 * left after a clean stop is kept under STATE/templates/NAME with a
 * manifest of its files and their checksums, and before every start the
 * managed server's datadir is replaced by a copy of it (a reflink where
 * the filesystem has them, else copy_file_range with the holes kept), so
 * that a start costs the server's start and warm-up only, and a write
 * workload starts from the same rows every time.
 *
 * STATE/templates is root's alone (0700) and made by slicebench, marked
 * by a file of root's; anything in it is slicebench's: a template whose
 * manifest is missing, does not match its files or was made from another
 * binary or dataset is removed and built again.  A STATE/templates that
 * slicebench did not make is refused and never touched. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct server;

#define DATADIR_TEMPLATES "templates"

struct datadir_entry {
	char *path;	/* relative to the datadir */
	bool dir;
	unsigned mode;	/* permission bits */
	uint64_t size;	/* a file's */
	uint64_t sum;	/* a file's checksum (datadir_checksum()) */
};

struct datadir_template {
	char *name; /* ENGINE-DATASET-HASH */
	char *dir;  /* STATE/templates/NAME */
	char *key;  /* what it was made from: engine, binary, dataset */
	struct datadir_entry *entries; /* directories before what they hold */
	size_t n_entries;
	uint64_t bytes; /* the files' sizes added */
};

/* What one copy took. */
struct datadir_copy {
	const char *how; /* "reflink", or "copy" where a file could not be cloned */
	uint64_t bytes;	 /* the files' sizes added */
	uint64_t files;
	double seconds;	 /* the copy, synced to disk, and the swap into place */
};

/* The key of the template of dataset (the workload's database, then
 * after a blank the settings its rows depend on) for server s: its
 * engine, the binary's path, size, modification time and inode (a package
 * upgrade makes another), and dataset; the template's name in *ret_name:
 * ENGINE-DATABASE-HASH. */
int datadir_template_key(const struct server *s, const char *dataset, char **ret_key, char **ret_name);

/* The template of that key and name in s's state directory, checked file
 * by file against its manifest: 1 with *ret set; 0 when there is none
 * usable (*ret_why, to free(), says why one there was removed: corrupt,
 * or made from another binary or dataset; NULL: there was none); -EPERM:
 * STATE/templates is not slicebench's (nothing touched); -errno. */
int datadir_template_find(const struct server *s, const char *key, const char *name, struct datadir_template **ret,
			  char **ret_why);

/* The managed server's datadir (stopped cleanly, just prepared) becomes
 * the template: moved to STATE/templates/NAME with its manifest written
 * last, so that a half-made one is NAME.new.  The datadir is gone after
 * this: the next start takes a copy. */
int datadir_template_save(const struct server *s, const char *key, const char *name, struct datadir_template **ret);

/* The managed server's datadir replaced by a pristine copy of t: built as
 * DATADIR.new (root's until whole, then the server user's), each file
 * written back to disk (not under the steps that follow), marked
 * as slicebench's, and swapped in for the old one.  *ret (if not NULL)
 * says how long it took. */
int datadir_template_copy(const struct datadir_template *t, const struct server *s, struct datadir_copy *ret);

void datadir_template_free(struct datadir_template *t);
static inline void datadir_template_freep(struct datadir_template **t)
{
	datadir_template_free(*t);
}

/* What cleanup removes under state_dir: the half-made templates
 * (STATE/templates/NAME.new), and with all every template (a copy cut
 * short is DATADIR.new, which server_remove_half_made() removes).  Prints one line per thing removed
 * and returns how many; -EPERM if STATE/templates is not slicebench's. */
int datadir_templates_cleanup(const char *state_dir, bool all);

/* The checksum of a file's content (64 bits, four lanes of 8-byte words,
 * each multiplied and rotated, then mixed): a bit flipped anywhere
 * changes it.  For the manifest and its test. */
uint64_t datadir_checksum(const void *data, size_t len, uint64_t seed);

/* The template datadir (slices/server/datadir.c) on files made here, no
 * server needed: a datadir saved as a template has a manifest of its files;
 * found again it is checked file by file; a copy is the same bytes with the
 * holes of a sparse file kept, the server user's, marked as slicebench's,
 * and a second copy replaces the first whatever the server wrote into it;
 * a flipped byte, a changed size, a torn manifest or another key gets the
 * template removed (to be built anew) with the reason; a templates
 * directory slicebench did not make is refused and left as it was;
 * cleanup removes a half-made template, and with all every one.  The
 * checksum changes with any bit.
 * Prerequisites: ROOT. */
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>

#include "slices/server/datadir.h"
#include "slices/server/server.h"
#include "common/util.h"
#include "tap.h"

static char state[512], datadir[600];
static struct server srv;

static void put(const char *rel, const char *text)
{
	_cleanup_free_ char *p = NULL;

	xasprintf(&p, "%s/%s", datadir, rel);
	if (write_file_atomic(p, text, strlen(text)) < 0)
		bail_out("cannot write %s", p);
}

/* A datadir of the server user's: a marker, a log, a database directory
 * and a 64 MiB file with 4 KiB of data at each end and a hole between. */
static void make_datadir(void)
{
	_cleanup_free_ char *db = NULL, *big = NULL;
	int fd;

	mkdir(datadir, 0700);
	xasprintf(&db, "%s/sbtest", datadir);
	mkdir(db, 0750);
	put(SERVER_DATADIR_MARKER, "slicebench\n");
	put("mysqld.err", "a log line\n");
	put("ibdata1", "the system tablespace\n");
	put("sbtest/sbtest1.ibd", "rows of sbtest1\n");
	xasprintf(&big, "%s/sbtest/sparse.ibd", datadir);
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0660);
	if (fd < 0 || pwrite(fd, "head", 4, 0) != 4 || pwrite(fd, "tail", 4, (64 << 20) - 4) != 4)
		bail_out("cannot write %s", big);
	close(fd);
}

static long long blocks_of(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? -1 : (long long)st.st_blocks;
}

static void check_checksum(void)
{
	char a[100] = "slicebench template", b[100];
	uint64_t h = datadir_checksum(a, sizeof(a), 0);
	bool all = true;

	for (size_t bit = 0; bit < sizeof(a) * 8; bit++) {
		memcpy(b, a, sizeof(a));
		b[bit / 8] ^= (char)(1 << (bit % 8));
		all &= datadir_checksum(b, sizeof(b), 0) != h;
	}
	ok(all, "the checksum changes with each of the %zu bits of a block", sizeof(a) * 8);
	ok(datadir_checksum(a, sizeof(a), 1) != h, "and with the seed a chunk is chained to");
}

int main(void)
{
	_cleanup_free_ char *key = NULL, *name = NULL, *why = NULL, *path = NULL;
	struct datadir_template *t = NULL, *found = NULL;
	struct datadir_copy copy = {};
	struct passwd *pw;

	require("ROOT");
	plan(25);
	check_checksum();
	pw = getpwnam("nobody");
	if (!pw)
		bail_out("no user nobody");
	chmod(scratch_dir(), 0755);
	snprintf(state, sizeof(state), "%s/state", scratch_dir());
	snprintf(datadir, sizeof(datadir), "%s/datadir", state);
	mkdir(state, 0755);
	srv = (struct server){ .engine = &server_engine_mariadb, .binary = "sh", .user = pw->pw_name, .datadir = datadir };
	make_datadir();

	is_int(datadir_template_key(&srv, "sbtest_1x10 rand=special", &key, &name), 0, "the key of a dataset");
	ok(strncmp(name, "mariadb-sbtest_1x10-", 20) == 0 && strlen(name) == 36, "its name: engine, database, hash (%s)", name);
	is_int(datadir_template_find(&srv, key, name, &found, &why), 0, "no template yet");
	is_int(datadir_template_save(&srv, key, name, &t), 0, "the datadir saved as the template");
	ok(t && t->n_entries == 4 && access(datadir, F_OK) < 0,
	   "its manifest lists a directory and 3 files (no marker, no log), and the datadir moved (%zu)",
	   t ? t->n_entries : 0);
	is_int(datadir_template_find(&srv, key, name, &found, &why), 1, "found again, checked file by file");
	datadir_template_free(found);
	found = NULL;

	is_int(datadir_template_copy(t, &srv, &copy), 0, "a copy");
	xasprintf(&path, "%s/sbtest/sparse.ibd", datadir);
	ok(copy.files == 3 && copy.bytes == t->bytes && (streq(copy.how, "copy") || streq(copy.how, "reflink")),
	   "3 files, %llu bytes, by %s", (unsigned long long)copy.bytes, copy.how);
	ok(blocks_of(path) >= 0 && blocks_of(path) < 1024, "the sparse file's hole kept: %lld blocks of 512 bytes for 64 MiB",
	   blocks_of(path));
	{
		struct stat st, m, orig;
		_cleanup_free_ char *marker = NULL, *in_template = NULL;

		xasprintf(&marker, "%s/" SERVER_DATADIR_MARKER, datadir);
		xasprintf(&in_template, "%s/data/sbtest/sparse.ibd", t->dir);
		ok(stat(datadir, &st) == 0 && st.st_uid == pw->pw_uid && (st.st_mode & 0777) == 0700 &&
			   stat(path, &m) == 0 && m.st_uid == pw->pw_uid && stat(in_template, &orig) == 0 &&
			   m.st_mode == orig.st_mode,
		   "the copy is the server user's, with the template's modes");
		ok(lstat(marker, &m) == 0 && m.st_uid == 0, "and marked by root as slicebench's");
	}
	put("sbtest/sbtest1.ibd", "rows the server changed\n");
	put("sbtest/new.ibd", "a table the server made\n");
	is_int(datadir_template_copy(t, &srv, NULL), 0, "a second copy over the first");
	{
		_cleanup_free_ char *text = NULL, *p1 = NULL, *p2 = NULL;

		xasprintf(&p1, "%s/sbtest/sbtest1.ibd", datadir);
		xasprintf(&p2, "%s/sbtest/new.ibd", datadir);
		ok(read_file_str(p1, &text) >= 0 && streq(text, "rows of sbtest1") && access(p2, F_OK) < 0,
		   "is pristine: the changed rows as they were, the new table gone");
	}
	{
		_cleanup_free_ char *ibd = NULL;
		int fd;

		xasprintf(&ibd, "%s/data/sbtest/sbtest1.ibd", t->dir);
		fd = open(ibd, O_WRONLY);
		if (fd < 0 || pwrite(fd, "R", 1, 0) != 1)
			bail_out("cannot change %s", ibd);
		close(fd);
	}
	free(why);
	why = NULL;
	is_int(datadir_template_find(&srv, key, name, &found, &why), 0, "a byte changed: not used");
	ok(why && strstr(why, "sbtest/sbtest1.ibd does not have the checksum"), "the reason names the file: %s", strempty(why));
	ok(access(t->dir, F_OK) < 0, "and the template is removed, to be built anew");

	/* Another key: made from another binary. */
	make_datadir();
	datadir_template_free(t);
	t = NULL;
	is_int(datadir_template_save(&srv, "another key", name, &t), 0, "a template saved under another key");
	free(why);
	why = NULL;
	is_int(datadir_template_find(&srv, key, name, &found, &why), 0, "not used for the key asked");
	ok(why && strstr(why, "another server binary or dataset") && access(t->dir, F_OK) < 0,
	   "but removed, and why: %s", strempty(why));

	/* cleanup: a half-made template, then all of them. */
	{
		_cleanup_free_ char *half = NULL, *tdir = NULL;

		make_datadir();
		datadir_template_free(t);
		t = NULL;
		datadir_template_save(&srv, key, name, &t);
		xasprintf(&half, "%s/templates/%s.new", state, name);
		mkdir(half, 0700);
		is_int(datadir_templates_cleanup(state, false), 1, "cleanup removes the half-made template");
		ok(access(half, F_OK) < 0 && access(t->dir, F_OK) == 0, "and keeps the whole one");
		is_int(datadir_templates_cleanup(state, true), 1, "cleanup --templates removes it too");

		/* A templates directory slicebench did not make. */
		xasprintf(&tdir, "%s/templates/" ".slicebench-templates", state);
		unlink(tdir);
		is_int(datadir_template_find(&srv, key, name, &found, &why), -EPERM,
		       "a templates directory without slicebench's mark is refused");
	}
	datadir_template_free(t);
	return done_testing();
}

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "store/check.h"
#include "store/names.h"
#include "store/provenance.h"
#include "store/results.h"
#include "common/input.h"
#include "common/text.h"
#include "common/secret.h"
#include "common/util.h"


struct results {
	char *dir;
	int lock_fd;
	bool made; /* by this run: results_discard() may remove it */
};

/* dir's lock taken, without waiting: -EBUSY if another run holds it. */
static int results_lock(const char *dir)
{
	_cleanup_free_ char *lock = NULL;
	int fd;

	if (xasprintf(&lock, "%s/lock", dir) < 0)
		return -ENOMEM;
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* steps/ and placements/ made, and a file written and removed: a full
 * disk or a read-only mount shows now, not after an hour. */
static int results_make_parts(const char *dir)
{
	_cleanup_free_ char *steps = NULL, *places = NULL, *profiles = NULL, *probe = NULL;
	int e;

	if (xasprintf(&steps, "%s/" RESULTS_STEPS, dir) < 0 || xasprintf(&places, "%s/" RESULTS_PLACEMENTS, dir) < 0 ||
	    xasprintf(&profiles, "%s/" RESULTS_PROFILES, dir) < 0 || xasprintf(&probe, "%s/.probe", dir) < 0)
		return -ENOMEM;
	e = mkdir_new(steps, 0755);
	if (e >= 0)
		e = mkdir_new(places, 0755);
	if (e >= 0)
		e = mkdir_new(profiles, 0755);
	if (e >= 0)
		e = write_file_atomic(probe, "probe\n", 6);
	if (e >= 0 && unlink(probe) < 0)
		e = -errno;
	return e;
}

/* What only a results directory of slicebench's holds. */
static const char *const results_marks[] = { "experiment.json", "results.json", RESULTS_STEPS, "explain.json", NULL };

int results_dir_check(const char *dir)
{
	_cleanup_free_ char *mark = NULL;
	struct dirent *d;
	DIR *dp;
	bool empty = true;
	int e = path_check_links(dir);

	if (e < 0)
		return e;
	dp = opendir(dir);
	if (!dp)
		return errno == ENOENT ? 0 : -errno;
	while (empty && (d = readdir(dp)))
		empty = streq(d->d_name, ".") || streq(d->d_name, "..");
	closedir(dp);
	if (empty)
		return 0;
	for (size_t i = 0; results_marks[i]; i++) {
		free(mark);
		if (xasprintf(&mark, "%s/%s", dir, results_marks[i]) < 0)
			return -ENOMEM;
		if (access(mark, F_OK) == 0)
			return 0;
	}
	return -ENOTEMPTY;
}

int results_open(const char *dir, bool resume, struct results **ret)
{
	_cleanup_free_ char *record = NULL;
	struct results *r = NULL;
	struct stat st;
	int fd = -EBADF, e;
	bool made;

	/* Never write through a symbolic link: --out pointing at /etc, or at
	 * a directory under a link another user planted, would put the lock,
	 * steps/ and the JSON files there. */
	e = results_dir_check(dir);
	if (e < 0)
		return e;
	made = lstat(dir, &st) < 0 && errno == ENOENT;
	if (made && resume)
		return -ENOENT;
	if (xasprintf(&record, "%s/results.json", dir) < 0)
		return -ENOMEM;
	e = mkdir_p(dir, 0755);
	if (e >= 0)
		e = mkdir_new(dir, 0755);
	if (e >= 0)
		e = fd = results_lock(dir);
	if (e >= 0 && !resume && access(record, F_OK) == 0)
		e = -EEXIST;
	if (e >= 0)
		e = results_make_parts(dir);
	if (e >= 0 && (!(r = calloc(1, sizeof(*r))) || !(r->dir = strdup(dir))))
		e = -ENOMEM;
	if (e < 0)
		goto fail;
	r->lock_fd = fd;
	r->made = made;
	*ret = r;
	return 0;
fail:
	if (r)
		free(r);
	if (fd >= 0)
		close(fd);
	/* Refused or failed before any work: nothing of this run stays. */
	if (made)
		(void)remove_tree(dir);
	return e;
}

void results_discard(struct results *r)
{
	if (r && r->made)
		(void)remove_tree(r->dir);
	results_close(r);
}

void results_close(struct results *r)
{
	if (!r)
		return;
	close(r->lock_fd);
	free(r->dir);
	free(r);
}

const char *results_dir(const struct results *r)
{
	return r->dir;
}

int results_put(struct results *r, const char *name, const json_t *j)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	json_t *masked;
	int e;

	if (xasprintf(&path, "%s/%s", r->dir, name) < 0)
		return -ENOMEM;
	/* Every file of a results directory goes through here, and no secret
	 * goes into one. */
	masked = json_deep_copy(j);
	if (!masked)
		return -ENOMEM;
	e = secret_mask_json(masked);
	if (e >= 0)
		text = json_dumps(masked, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(masked);
	if (e < 0 || !text)
		return -ENOMEM;
	return write_file_atomic(path, text, strlen(text));
}

bool results_have(const struct results *r, const char *name)
{
	_cleanup_free_ char *path = NULL;

	return xasprintf(&path, "%s/%s", r->dir, name) >= 0 && access(path, F_OK) == 0;
}

static int put_profile(struct results *r, const char *unit, const struct step_result *s)
{
	_cleanup_free_ char *path = NULL;
	char name[256];
	int e = results_profile_file(unit, (long)s->threads, name, sizeof(name));

	if (e < 0 || xasprintf(&path, "%s/%s", r->dir, name) < 0)
		return e < 0 ? e : -ENOMEM;
	return profile_write(s->profile.folded, path);
}

int results_put_step(struct results *r, const struct results_step_place *p, const struct step_result *s, char *name,
		     size_t len)
{
	json_t *j = NULL;
	int e;

	e = step_result_to_json(s, &j);
	if (e < 0)
		return e;
	e = json_object_set_new(j, "context", json_string(p->context)) ||
		    json_object_set_new(j, "server_pid", p->server_pid > 0 ? json_integer(p->server_pid) : json_null()) ||
		    json_object_set_new(j, "vary_value", p->vary_value ? json_string(p->vary_value) : json_null()) ||
		    json_object_set_new(j, "repeat", json_integer(p->repeat)) ||
		    json_object_set_new(j, "slot", json_integer(p->slot)) ||
		    json_object_set_new(j, "started_at", json_real(p->started_at)) ||
		    json_object_set_new(j, "unit", json_string(p->unit)) ||
		    json_object_set_new(j, "slicebench", provenance_this_build())
		? -ENOMEM
		: 0;
	if (e >= 0)
		e = results_step_file(p->unit, (long)s->threads, name, len);
	/* The profile first: a step's record names no profile that is not there. */
	if (e >= 0 && s->profile.folded)
		e = put_profile(r, p->unit, s);
	if (e >= 0)
		e = results_put(r, name, j);
	json_decref(j);
	return e;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* path, parsed and checked as a file of its kind; NULL and ret_why (naming
 * path) if it does not parse or has not the shape. */
static json_t *load_checked(const char *path, enum results_file kind, char **ret_why)
{
	_cleanup_free_ char *why = NULL;
	json_t *j;

	j = input_load_json(path, INPUT_JSON_MAX, ret_why);
	if (!j)
		return NULL;
	if (results_check(kind, j, &why) < 0) {
		json_decref(j);
		xasprintf(ret_why, "%s: %s", path, why ? why : "out of memory");
		return NULL;
	}
	return j;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The names of the *.json files in d (NULL: none), in name order; d is
 * closed. */
static int json_names(DIR *d, char ***ret_names, size_t *ret_n)
{
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	int r = 0;

	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **p;

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		p = realloc(names, (n + 1) * sizeof(*names));
		if (!p || !(p[n] = strdup(de->d_name))) {
			names = p ? p : names;
			r = -ENOMEM;
			break;
		}
		names = p;
		n++;
	}
	if (d)
		closedir(d);
	if (r < 0) {
		names_free(names, n);
		return r;
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), name_cmp);
	*ret_names = names;
	*ret_n = n;
	return 0;
}

/* Every *.json of dir/sub, in name order, as an object keyed by file stem
 * (placements) or an array (steps, each checked against the others and exp:
 * results_check_step()). */
static int load_dir(const char *dir, const char *sub, bool as_object, const json_t *exp, json_t **ret, char **ret_why)
{
	_cleanup_free_ char *path = NULL;
	json_t *out = as_object ? json_object() : json_array();
	char **names = NULL;
	size_t n = 0;
	DIR *d;
	int r;

	if (!out || xasprintf(&path, "%s/%s", dir, sub) < 0) {
		json_decref(out);
		return -ENOMEM;
	}
	d = opendir(path);
	/* Every run makes steps/ first: a directory without is none of slicebench's. */
	if (!d && !as_object) {
		r = -errno;
		json_decref(out);
		return xasprintf(ret_why, "%s: %s", path, strerror(-r)), r == -ENOENT ? -ENOENT : -EBADMSG;
	}
	r = json_names(d, &names, &n);
	for (size_t i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *file = NULL;
		json_t *j;

		if (xasprintf(&file, "%s/%s", path, names[i]) < 0) {
			r = -ENOMEM;
			break;
		}
		/* A torn write cannot be here (rename is atomic); a file that does
		 * not parse was put there by someone else. */
		j = load_checked(file, as_object ? RESULTS_FILE_PLACEMENT : RESULTS_FILE_STEP, ret_why);
		if (j && !as_object && (r = results_check_step(exp, j, file, ret_why)) < 0) {
			json_decref(j);
			break;
		}
		if (!j) {
			r = -EBADMSG;
			break;
		}
		names[i][strlen(names[i]) - 5] = 0;
		r = as_object ? json_object_set_new(out, names[i], j) : json_array_append_new(out, j);
		if (r < 0)
			r = -ENOMEM;
	}
	names_free(names, n);
	if (r < 0) {
		json_decref(out);
		return r;
	}
	*ret = out;
	return 0;
}

/* dir/name checked as its kind, null if there is none. */
static int load_optional(const char *dir, const char *name, enum results_file kind, json_t **ret, char **ret_why)
{
	_cleanup_free_ char *path = NULL;

	if (xasprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
		*ret = json_null();
		return 0;
	}
	*ret = load_checked(path, kind, ret_why);
	return *ret ? 0 : -EBADMSG;
}

static int assemble(const char *dir, json_t **ret, char **ret_why)
{
	json_t *doc, *steps = NULL, *places = NULL, *exp = NULL, *host = NULL, *schedule = NULL;
	int r;

	r = load_optional(dir, "experiment.json", RESULTS_FILE_EXPERIMENT, &exp, ret_why);
	if (r >= 0)
		r = load_dir(dir, RESULTS_STEPS, false, exp, &steps, ret_why);
	if (r >= 0)
		r = load_dir(dir, RESULTS_PLACEMENTS, true, NULL, &places, ret_why);
	if (r >= 0)
		r = load_optional(dir, "host.json", RESULTS_FILE_HOST, &host, ret_why);
	if (r >= 0)
		r = load_optional(dir, RESULTS_SCHEDULE, RESULTS_FILE_SCHEDULE, &schedule, ret_why);
	if (r < 0) {
		json_decref(steps);
		json_decref(places);
		json_decref(exp);
		json_decref(host);
		return r;
	}
	doc = json_pack("{s:i, s:o*, s:o, s:o, s:o, s:o, s:o}", "format_version", RESULTS_FORMAT_VERSION, "slicebench",
			provenance_of_steps(steps), "experiment", exp, "host", host, "schedule", schedule, "placements", places,
			"steps", steps);
	if (!doc)
		return -ENOMEM;
	*ret = doc;
	return 0;
}

static json_t *get_path(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	return b ? json_object_get(v, b) : v;
}

/* One row per step; the columns a spreadsheet needs, nothing nested. */
static int write_csv(const char *dir, json_t *steps)
{
	static const struct {
		const char *name, *key, *sub;
	} cols[] = {
		{ "context", "context", NULL },	    { "vary", "vary_value", NULL },   { "repeat", "repeat", NULL },
		{ "threads", "threads", NULL },	    { "driver", "driver", NULL },     { "tps", "tps", NULL },
		{ "qps", "qps", NULL },		    { "lat_avg_ms", "latency_ms", "avg" },
		{ "lat_p95_ms", "latency_ms", "p95" }, { "lat_p99_ms", "latency_ms", "p99" },
		{ "errors", "errors", "fatal" },    { "reconnects", "reconnects", NULL }, { "failed", "failed", NULL },
		{ "connect_s", "connect_s", NULL },
	};
	_cleanup_free_ char *path = NULL, *text = NULL;
	size_t len = 0;
	FILE *f;
	size_t i;
	json_t *s;

	if (xasprintf(&path, "%s/results.csv", dir) < 0)
		return -ENOMEM;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	for (size_t c = 0; c < ELEMENTSOF(cols); c++)
		fprintf(f, "%s%s", c ? "," : "", cols[c].name);
	fputc('\n', f);
	json_array_foreach(steps, i, s) {
		for (size_t c = 0; c < ELEMENTSOF(cols); c++) {
			json_t *v = get_path(s, cols[c].key, cols[c].sub);

			fputs(c ? "," : "", f);
			if (json_is_string(v))
				csv_field(f, json_string_value(v));
			else if (json_is_integer(v))
				fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
			else if (json_is_real(v))
				fprintf(f, "%.3f", json_real_value(v));
			else if (json_is_boolean(v))
				fputs(json_is_true(v) ? "true" : "false", f);
		}
		fputc('\n', f);
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	return write_file_atomic(path, text, len);
}

int results_rebuild(struct results *r)
{
	_cleanup_free_ char *why = NULL;
	json_t *doc = NULL;
	int e;

	e = assemble(r->dir, &doc, &why);
	if (e < 0)
		return e;
	e = results_put(r, "results.json", doc);
	if (e >= 0)
		e = write_csv(r->dir, json_object_get(doc, "steps"));
	json_decref(doc);
	return e;
}

int results_load(const char *dir, json_t **ret, char **ret_why)
{
	struct stat st;
	int r;

	*ret_why = NULL;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* Built from the step files, so that an interrupted run reports too. */
	r = assemble(dir, ret, ret_why);
	if (r >= 0 && (r = results_load_profiles(dir, *ret, ret_why)) < 0) {
		json_decref(*ret);
		*ret = NULL;
	}
	return r;
}


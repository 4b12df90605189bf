/* The lock and the live records.  A record names only what slicebench made
 * (units and cgroups with its prefix, a server PID with its start time, so
 * that a recycled PID is never killed), and cleanup refuses anything else. */
#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <jansson.h>

#include "slices/sys/bus.h"
#include "slices/sys/cgfs.h"
#include "slices/server/server.h"
#include "slices/server/datadir.h"
#include "managed/state.h"
#include "common/util.h"

/* Before this layout, slicebench gave its state directory to the server's
 * user.  Such a directory is taken back if slicebench's making of it shows:
 * its datadir belongs to the same user and carries the marker that root
 * wrote, which that user cannot forge.  Then it is root's again, and
 * whatever else that user owned or planted in it goes. */
static bool old_layout(const char *state_dir, int dfd)
{
	_cleanup_free_ char *marker = NULL;
	struct stat st, dd, mk;

	return fstat(dfd, &st) == 0 && xasprintf(&marker, "%s/datadir/.slicebench-datadir", state_dir) >= 0 &&
	       st.st_uid != 0 && !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
	       fstatat(dfd, "datadir", &dd, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(dd.st_mode) && dd.st_uid == st.st_uid &&
	       lstat(marker, &mk) == 0 && S_ISREG(mk.st_mode) && mk.st_uid == 0;
}

static int take_back(const char *state_dir, int dfd)
{
	struct stat st;
	struct dirent *e;
	DIR *d;

	if (!old_layout(state_dir, dfd))
		return -EPERM;
	if (fchown(dfd, 0, 0) < 0 || fchmod(dfd, 0755) < 0)
		return -errno;
	d = fdopendir(dup(dfd));
	while (d && (e = readdir(d))) {
		_cleanup_free_ char *path = NULL;

		if (streq(e->d_name, ".") || streq(e->d_name, "..") || streq(e->d_name, "datadir") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid == 0)
			continue;
		if (!S_ISDIR(st.st_mode))
			(void)unlinkat(dirfd(d), e->d_name, 0);
		else if (xasprintf(&path, "%s/%s", state_dir, e->d_name) >= 0)
			(void)remove_tree(path);
	}
	if (d)
		closedir(d);
	log_info("took %s back from the server's user: slicebench keeps its state in a directory of root's", state_dir);
	return 0;
}

/* The PID the lock's holder wrote into it, "%d\n"; 0 when it names no one. */
static int lock_holder(int fd)
{
	char pid[32];
	ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
	long holder;

	if (n <= 0)
		return 0;
	pid[n] = 0;
	pid[strcspn(pid, "\n")] = 0;
	return parse_int_range(pid, 1, INT32_MAX, &holder) >= 0 ? (int)holder : 0;
}

/* Long because every check of the state directory's ownership is its own
 * step with its own errno. */
int state_lock(const char *state_dir, int *ret_holder)
{
	/* flock() is per open file: a second open in this process would
	 * conflict with the first, so the lock is taken once per directory. */
	static char *held_dir;
	_cleanup_close_ int dfd = -EBADF;
	char pid[32];
	struct stat st;
	int fd, r;

	*ret_holder = 0;
	if (held_dir && streq(held_dir, state_dir))
		return 0;
	r = mkdir_p(state_dir, 0755);
	if (r < 0)
		return r;
	dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	/* Nothing is written in a directory that is not root's alone, unless it
	 * is slicebench's own of the layout before, taken back once locked. */
	r = dir_check_trusted(state_dir);
	if (r < 0 && !(r == -EPERM && old_layout(state_dir, dfd)))
		return r;
	/* Kept open (and locked) until exit; close-on-exec keeps it from servers.
	 * Not through a link, and only a file of root's: the directory may not
	 * be trusted yet. */
	fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		*ret_holder = lock_holder(fd);
		close(fd);
		return r == -EWOULDBLOCK ? -EBUSY : r;
	}
	if (r < 0 && take_back(state_dir, dfd) >= 0)
		r = dir_check_trusted(state_dir);
	if (r < 0) {
		close(fd);
		return r;
	}
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || write(fd, pid, strlen(pid)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	free(held_dir);
	held_dir = strdup(state_dir); /* NULL only costs a second flock() */
	return 0;
}

/* A name no context can have ([a-z0-9] first), sorted after theirs, so
 * that cleanup stops what runs in the slices before the slices. */
#define SLICES_RECORD "~slices"

/* Only root may have written what cleanup acts on: a directory and files
 * owned by root that no one else can write. */
static bool root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int state_live_dir(const char *state_dir, char **ret)
{
	_cleanup_free_ char *dir = NULL;
	struct stat st;
	int r;

	if (xasprintf(&dir, "%s/live", state_dir) < 0)
		return -ENOMEM;
	r = mkdir_new(dir, 0700);
	if (r < 0)
		return r;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || !root_only(&st))
		return -EPERM;
	if (ret) {
		*ret = dir;
		dir = NULL;
	}
	return 0;
}

static int record_path(const char *state_dir, const char *name, char **ret)
{
	return xasprintf(ret, "%s/live/%s.json", state_dir, name);
}


/* The InvocationID of the unit just started, which cleanup later compares
 * with the unit of that name it finds: a unit that came back under the same
 * name is not ours. */
static int unit_invocation(const char *unit, int uid, char ret[static 33])
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r;

	r = uid >= 0 ? bus_open_user_manager((uid_t)uid, &bus) : bus_open_system(&bus);
	if (r >= 0)
		r = bus_unit_get_invocation_id(bus, unit, ret, NULL);
	return r;
}

/* Writes j (taken, NULL for a failed json_pack) to path, atomically. */
static int write_record(const char *path, json_t *j)
{
	_cleanup_free_ char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	return text ? write_file_atomic(path, text, strlen(text)) : -ENOMEM;
}

int state_record(const char *state_dir, const struct context *c)
{
	_cleanup_free_ char *path = NULL, *unit = NULL;
	struct passwd *pw = c->ops->manager == MANAGER_USER ? getpwnam(c->server->user) : NULL;
	int uid = pw ? (int)pw->pw_uid : -1;
	char invocation[33] = "";
	json_t *j;
	int r;

	r = context_unit_name(c, &unit);
	if (r >= 0 && unit)
		r = unit_invocation(unit, uid, invocation);
	if (r < 0)
		return r;
	if (record_path(state_dir, c->spec->name, &path) < 0)
		return -ENOMEM;
	r = state_live_dir(state_dir, NULL);
	if (r < 0)
		return r;
	j = json_pack("{s:s, s:s?, s:s?, s:i, s:b, s:s?, s:i, s:I, s:i, s:s, s:s}", "kind", c->ops->name, "unit", unit,
		      "invocation", *invocation ? invocation : NULL, "uid", uid, "linger", c->linger_set, "cgroup",
		      c->cgroup_name, "server_pid", (int)c->pid, "server_start", (json_int_t)proc_start_time(c->pid),
		      "owner_pid", (int)getpid(), "engine", c->server->engine->name, "socket", c->server->socket);
	return write_record(path, j);
}

int state_record_slices(const char *state_dir, const struct slice_tree *t)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	json_t *units = json_array(), *invocations = json_array(), *cgroups = json_array(), *j;
	int r = 0;

	/* Children first: the order cleanup removes them in. */
	for (size_t i = t->n_made; i-- > 0 && r >= 0;) {
		char invocation[33] = "";

		if (t->by_systemd) {
			r = unit_invocation(t->units[i], -1, invocation);
			json_array_append_new(units, json_string(t->units[i]));
			json_array_append_new(invocations, json_string(invocation));
		} else
			json_array_append_new(cgroups, json_string(t->cgroups[i]));
	}
	j = json_pack("{s:s, s:o, s:o, s:o, s:i}", "kind", "slices", "units", units, "invocations", invocations,
		      "cgroups", cgroups, "owner_pid", (int)getpid());
	if (r < 0 || !j) {
		json_decref(j);
		return r < 0 ? r : -ENOMEM;
	}
	if (record_path(state_dir, SLICES_RECORD, &path) < 0) {
		json_decref(j);
		return -ENOMEM;
	}
	text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!text)
		return -ENOMEM;
	r = state_live_dir(state_dir, NULL);
	return r < 0 ? r : write_file_atomic(path, text, strlen(text));
}

/* Sorted before the contexts' records ([a-z0-9] first) and the slices':
 * cleanup stops a neighbour before the slices it ran in. */
static int neighbour_record_path(const char *state_dir, const struct neighbour *n, char **ret)
{
	return xasprintf(ret, "%s/live/_neighbour-%s.json", state_dir, n->spec->name);
}

int state_record_neighbour(const char *state_dir, const struct neighbour *n)
{
	_cleanup_free_ char *path = NULL;
	char invocation[33] = "";
	json_t *j;
	int r;

	if (n->unit && (r = unit_invocation(n->unit, -1, invocation)) < 0)
		return r;
	if (neighbour_record_path(state_dir, n, &path) < 0)
		return -ENOMEM;
	r = state_live_dir(state_dir, NULL);
	if (r < 0)
		return r;
	/* An oltp neighbour's server leaves its socket when killed. */
	j = json_pack("{s:s, s:s?, s:s?, s:i, s:s?, s:i, s:I, s:i, s:s?}", "kind", "neighbour", "unit", n->unit,
		      "invocation", *invocation ? invocation : NULL, "uid", -1, "cgroup", n->cgroup, "pid", (int)n->pid,
		      "pid_start", (json_int_t)proc_start_time(n->pid), "owner_pid", (int)getpid(), "socket",
		      n->server && n->spec->kind == NEIGHBOUR_OLTP ? n->server->socket : NULL);
	return write_record(path, j);
}

void state_forget_neighbour(const char *state_dir, const struct neighbour *n)
{
	_cleanup_free_ char *path = NULL;

	if (neighbour_record_path(state_dir, n, &path) >= 0)
		(void)unlink(path);
}

void state_forget_slices(const char *state_dir)
{
	_cleanup_free_ char *path = NULL;

	if (record_path(state_dir, SLICES_RECORD, &path) >= 0)
		(void)unlink(path);
}

void state_forget(const char *state_dir, const struct context *c)
{
	_cleanup_free_ char *path = NULL;

	if (record_path(state_dir, c->spec->name, &path) >= 0)
		(void)unlink(path);
}

static bool ours(const char *name, const char *prefix)
{
	return name && strncmp(name, prefix, strlen(prefix)) == 0 && !strchr(name, '/');
}

/* what: "the server", "the neighbour" */
static void kill_process(const char *what, pid_t pid, unsigned long long start, FILE *said)
{
	if (pid <= 1 || !start || proc_start_time(pid) != start)
		return; /* gone, or the PID now names another process */
	if (kill(pid, SIGKILL) == 0)
		fprintf(said, "killed %s, PID %d\n", what, (int)pid);
}

static void stop_unit(const char *unit, int uid, const char *invocation, FILE *said)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	char now[33];
	int r;

	/* slicebench-NAME.service, or a slice of an experiment's, slicebench_NAME.slice */
	if (!ours(unit, "slicebench"))
		return;
	r = uid >= 0 ? bus_open_user_manager((uid_t)uid, &bus) : bus_open_system(&bus);
	if (r < 0)
		return; /* no manager, no unit */
	if (bus_unit_exists(bus, unit, NULL) <= 0)
		return;
	/* The name alone proves nothing: after the run was killed, the unit may
	 * have gone and someone else's come back under the same name. */
	if (!invocation || bus_unit_get_invocation_id(bus, unit, now, NULL) < 0 || !streq(now, invocation)) {
		fprintf(said, "left unit %s alone: it is not the one slicebench started (%s)\n", unit,
		       invocation ? "another invocation" : "the record names no invocation");
		return;
	}
	/* A clean stop first (the server shuts down on SIGTERM); a unit that
	 * does not go is killed. */
	r = bus_stop_unit(bus, unit, 60 * USEC_PER_SEC, NULL);
	if (r < 0 && bus_unit_exists(bus, unit, NULL) > 0) {
		bus_kill_unit(bus, unit, SIGKILL, NULL);
		bus_wait_unit_gone(bus, unit, 10 * USEC_PER_SEC);
	}
	bus_reset_failed_unit(bus, unit);
	if (bus_unit_exists(bus, unit, NULL) == 0)
		fprintf(said, "stopped unit %s%s\n", unit, uid >= 0 ? " (user manager)" : "");
	else
		log_error("cleanup: could not stop unit %s", unit);
}

/* rmdir of the raw context's cgroup in every hierarchy it was made in. */
static void remove_cgroup(const char *name, FILE *said)
{
	DIR *d;
	struct dirent *e;
	char path[512];

	/* The raw context's, or one level of a raw slice tree (a/b/c). */
	if (!cgfs_path_is_ours(name, "slicebench-raw-"))
		return;
	if (snprintf_whole(path, sizeof(path), "/sys/fs/cgroup/%s", name) < 0)
		return;
	if (rmdir(path) == 0)
		fprintf(said, "removed cgroup %s\n", path);
	d = opendir("/sys/fs/cgroup");
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf_whole(path, sizeof(path), "/sys/fs/cgroup/%s/%s", e->d_name, name) < 0 || access(path, F_OK) < 0)
			continue;
		/* A cgroup still holding a dying process is busy for a moment. */
		for (int i = 0; i < 50 && rmdir(path) < 0 && errno == EBUSY; i++)
			usleep(20000);
		if (access(path, F_OK) < 0)
			fprintf(said, "removed cgroup %s\n", path);
		else
			log_error_errno(-errno, "cleanup: could not remove cgroup %s: %m", path);
	}
	if (d)
		closedir(d);
}

static bool cgroup_gone(const char *name)
{
	DIR *d = opendir("/sys/fs/cgroup");
	struct dirent *e;
	char path[512];
	bool gone = true;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			/* A path too long for any cgroup names none. */
			gone &= snprintf_whole(path, sizeof(path), "/sys/fs/cgroup/%s/%s", e->d_name, name) < 0 ||
				access(path, F_OK) < 0;
		}
	if (d)
		closedir(d);
	return gone;
}

static int record_load(const char *path, json_t **ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || !root_only(&st) || st.st_size > 65536)
		return -EPERM;
	*ret = json_loadfd(fd, 0, NULL);
	return *ret ? 0 : -EBADMSG;
}

/* What the engine's server leaves after a SIGKILL besides its process
 * (PostgreSQL: a System V segment, the socket and its lock). */
static void clear_engine_stale(const char *dir, const json_t *j)
{
	const struct server_engine *engine = server_engine_named(json_string_value(json_object_get(j, "engine")));
	const char *socket = json_string_value(json_object_get(j, "socket"));
	_cleanup_free_ char *datadir = NULL;

	if (!engine || !engine->clear_stale || !socket || !strstr(dir, "/live"))
		return;
	if (xasprintf(&datadir, "%.*s/%s", (int)(strlen(dir) - strlen("/live")), dir, engine->datadir_name) < 0)
		return;
	engine->clear_stale(datadir, socket);
}

/* The socket a killed server left, the run's or a neighbour's: only a
 * socket, in a socket directory of slicebench's under the run directory,
 * and the state's lock keeps any other run of this state directory away.
 * (PostgreSQL's, with its lock, clear_engine_stale() removed first.) */
static void remove_socket(const json_t *j, FILE *said)
{
	const char *socket = json_string_value(json_object_get(j, "socket"));
	struct stat st;

	if (!socket || lstat(socket, &st) < 0 || !S_ISSOCK(st.st_mode))
		return;
	if (unlink(socket) == 0)
		fprintf(said, "removed the socket %s\n", socket);
}

static bool clean_one(const char *dir, const char *name, FILE *said)
{
	_cleanup_free_ char *path = NULL;
	const char *unit, *cgroup, *invocation;
	json_t *j = NULL, *v;
	bool gone;
	size_t i;
	int r;

	if (xasprintf(&path, "%s/%s", dir, name) < 0)
		return false;
	r = record_load(path, &j);
	if (r < 0) {
		fprintf(said, "ignored %s: %s\n", path,
		       r == -EPERM ? "not a file that root alone wrote" : r == -EBADMSG ? "not a record" : strerror(-r));
		return false;
	}
	unit = json_string_value(json_object_get(j, "unit"));
	cgroup = json_string_value(json_object_get(j, "cgroup"));
	invocation = json_string_value(json_object_get(j, "invocation"));
	fprintf(said, "stale: %s (%s, left by PID %d)\n", name, strempty(json_string_value(json_object_get(j, "kind"))),
	       (int)json_integer_value(json_object_get(j, "owner_pid")));
	/* The unit first: systemd then stops the server it holds. */
	stop_unit(unit, (int)json_integer_value(json_object_get(j, "uid")), invocation, said);
	/* The user manager and linger its start brought. */
	if (json_is_true(json_object_get(j, "linger")) && json_integer_value(json_object_get(j, "uid")) > 0 &&
	    user_manager_release((uid_t)json_integer_value(json_object_get(j, "uid"))) >= 0)
		fprintf(said, "turned linger off for uid %d and stopped its manager\n",
		       (int)json_integer_value(json_object_get(j, "uid")));
	kill_process("the server", (pid_t)json_integer_value(json_object_get(j, "server_pid")),
		     (unsigned long long)json_integer_value(json_object_get(j, "server_start")), said);
	kill_process("the neighbour", (pid_t)json_integer_value(json_object_get(j, "pid")),
		     (unsigned long long)json_integer_value(json_object_get(j, "pid_start")), said);
	clear_engine_stale(dir, j);
	remove_socket(j, said);
	remove_cgroup(cgroup, said);
	gone = !cgroup || cgroup_gone(cgroup);
	/* A slice tree: its units or cgroups, children first (the record lists
	 * them so), after the records of what ran in it (sorted before it). */
	json_array_foreach(json_object_get(j, "units"), i, v)
		stop_unit(json_string_value(v), -1, json_string_value(json_array_get(json_object_get(j, "invocations"), i)), said);
	json_array_foreach(json_object_get(j, "cgroups"), i, v) {
		remove_cgroup(json_string_value(v), said);
		gone &= !json_is_string(v) || cgroup_gone(json_string_value(v));
	}
	json_decref(j);
	if (!gone)
		return false;
	unlink(path);
	return true;
}

/* An oltp neighbour's first setup cut short leaves its half-made datadir
 * in STATE/slicebench-neighbour-NAME (managed/managed.h). */
static int remove_neighbours_half_made(const char *state_dir, FILE *said)
{
	struct dirent **names = NULL;
	int n, cleared = 0;

	n = scandir(state_dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *sub = NULL;

		if (strncmp(names[i]->d_name, "slicebench-neighbour-", 21) == 0 && names[i]->d_type == DT_DIR &&
		    xasprintf(&sub, "%s/%s", state_dir, names[i]->d_name) >= 0 &&
		    server_remove_half_made(sub, &server_engine_mariadb) > 0) {
			fprintf(said, "removed the half-made datadir %s/%s.new\n", sub, server_engine_mariadb.datadir_name);
			cleared++;
		}
		free(names[i]);
	}
	free(names);
	return cleared;
}

int state_cleanup(const char *state_dir, FILE *said)
{
	_cleanup_free_ char *dir = NULL;
	struct dirent **names = NULL;
	struct stat st;
	int n, cleared = 0;

	/* A first setup cut short leaves its half-made datadir. */
	for (size_t e = 0; server_engines[e]; e++)
		if (server_remove_half_made(state_dir, server_engines[e]) > 0) {
			fprintf(said, "removed the half-made datadir %s/%s.new\n", state_dir, server_engines[e]->datadir_name);
			cleared++;
		}
	cleared += remove_neighbours_half_made(state_dir, said);
	/* A template cut short while it was saved. */
	n = datadir_templates_cleanup(state_dir, false);
	if (n == -EPERM)
		fprintf(said, "ignored %s/" DATADIR_TEMPLATES ": not a directory that slicebench made and root alone can write\n",
		       state_dir);
	cleared += MAX(n, 0);
	if (xasprintf(&dir, "%s/live", state_dir) < 0)
		return -ENOMEM;
	if (lstat(dir, &st) < 0)
		return cleared;
	if (!S_ISDIR(st.st_mode) || !root_only(&st)) {
		fprintf(said, "ignored %s: not a directory that root alone can write\n", dir);
		return cleared;
	}
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);

		if (names[i]->d_name[0] != '.' && len > 5 && streq(names[i]->d_name + len - 5, ".json") &&
		    clean_one(dir, names[i]->d_name, said))
			cleared++;
		free(names[i]);
	}
	free(names);
	return cleared;
}

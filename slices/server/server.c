#include "slices/server/server.h"

#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "common/interrupt.h"
#include "common/spawn.h"
#include "common/util.h"

#define MARKER SERVER_DATADIR_MARKER

int server_drop_privileges(const struct passwd *pw)
{
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
		return -errno;
	return 0;
}

struct installer {
	const struct passwd *as_user;
	int out_fd;
};

/* In the child: a process group of its own, which a signal caught
 * meanwhile kills as a whole (mariadb-install-db starts a bootstrap
 * mariadbd of its own), the server's user; the installers' chatter and
 * the bootstrap server's warnings go to the run's log (or nowhere, their
 * errors then on stderr), never to the terminal of a run that has a log. */
static int installer_setup(void *userdata)
{
	const struct installer *in = userdata;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	(void)setpgid(0, 0);
	/* The datadir is the server's account's alone, whatever umask root had. */
	umask(077);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(in->out_fd > 2 ? in->out_fd : fd, 1);
	}
	if (in->out_fd > 2)
		dup2(in->out_fd, 2);
	return server_drop_privileges(in->as_user) < 0 ? 125 : 0;
}

/* DATADIR.installer: the installer's process group and its leader's start
 * time, so that after a SIGKILL of slicebench the next setup or cleanup
 * can kill what it left, and nothing else. */
static int installer_path(const char *datadir, char **ret)
{
	return xasprintf(ret, "%s.installer", datadir);
}

static void installer_kill(const char *datadir)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	unsigned long long start;
	int pgid;

	if (installer_path(datadir, &path) < 0)
		return;
	if (read_file_str(path, &text) >= 0 && sscanf(text, "%d %llu", &pgid, &start) == 2 && pgid > 1 &&
	    proc_start_time(pgid) == start) {
		kill(-pgid, SIGKILL);
		for (int i = 0; i < 100 && kill(-pgid, 0) == 0; i++)
			usleep(20000);
	}
	(void)unlink(path);
}

/* Runs the installer to its end; nothing it started outlives an interruption. */
int server_run_installer(const struct server *s, char **argv, const char *datadir, const struct passwd *as_user)
{
	struct installer in = { as_user, s->out_fd };
	_cleanup_free_ char *path = NULL, *text = NULL;
	int status, r;
	pid_t pid, w;

	if (!as_user || as_user->pw_uid == 0)
		return -EPERM;
	r = installer_path(datadir, &path);
	if (r < 0)
		return r;
	r = spawn(argv, installer_setup, &in, &pid);
	if (r < 0)
		return r;
	(void)setpgid(pid, pid); /* the child's own call may come later */
	if (xasprintf(&text, "%d %llu\n", (int)pid, proc_start_time(pid)) >= 0)
		(void)write_file_atomic(path, text, strlen(text));
	while ((w = waitpid(pid, &status, WNOHANG)) == 0) {
		if (interrupt_signal) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		usleep(50000);
	}
	/* What the installer started and left behind goes with its group. */
	kill(-pid, SIGKILL);
	(void)unlink(path);
	if (interrupt_signal)
		return -EINTR;
	if (w < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

const struct server_engine *const server_engines[] = { &server_engine_mariadb, &server_engine_mysql,
						       &server_engine_postgresql, NULL };
const struct word server_engine_words[] = {
	{ "mariadb", 0 },
	{ "mysql", 1 },
	{ "percona", 1 }, /* Percona Server, the study's server, is a mysqld */
	{ "postgresql", 2 },
	{},
};

const struct server_engine *server_engine_named(const char *name)
{
	int i;

	return name && word_lookup(server_engine_words, name, &i) >= 0 ? server_engines[i] : NULL;
}

void server_config_fill(struct server_config *cfg)
{
	if (!cfg->engine)
		cfg->engine = SERVER_DEFAULT_ENGINE;
	if (!cfg->binary && server_engine_named(cfg->engine))
		cfg->binary = server_engine_named(cfg->engine)->binary;
	if (!cfg->user)
		cfg->user = SERVER_DEFAULT_USER;
	if (!cfg->buffer_pool)
		cfg->buffer_pool = SERVER_DEFAULT_BUFFER_POOL;
	if (!cfg->max_connections)
		cfg->max_connections = SERVER_DEFAULT_MAX_CONNECTIONS;
}

/* The socket's directory, one per state directory and server user (two
 * state directories never share a socket, and a user never takes over
 * another's directory): RUN/s-HASH, made here and given to the server's
 * user, who must create the socket in it.  Only the server's user and root
 * reach it; a symbolic link or another owner there is refused. */
static int socket_dir_setup(const char *run_dir, const char *state_dir, const struct passwd *pw, char **ret)
{
	_cleanup_free_ char *real = realpath(state_dir, NULL), *dir = NULL;
	_cleanup_close_ int fd = -EBADF;
	uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
	struct stat st;
	int r;

	if (!real)
		return -errno;
	for (const char *c = real; *c; c++)
		h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
	/* The default user's directory keeps the name it had before. */
	if (!streq(pw->pw_name, SERVER_DEFAULT_USER))
		for (const char *c = pw->pw_name; *c; c++)
			h = (h ^ (unsigned char)*c) * UINT64_C(1099511628211);
	if (xasprintf(&dir, "%s/s-%016" PRIx64, run_dir, h) < 0)
		return -ENOMEM;
	r = mkdir_p(run_dir, 0755);
	if (r >= 0)
		r = mkdir_new(dir, 0700);
	if (r < 0)
		return r;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != 0 && st.st_uid != pw->pw_uid)
		return -EPERM;
	if (fchown(fd, pw->pw_uid, pw->pw_gid) < 0 || fchmod(fd, 0700) < 0)
		return -errno;
	*ret = dir;
	dir = NULL;
	return 0;
}

/* Every directory above path must be searchable by the server's user, or
 * the server fails later with an error about some file in its datadir. */
static int reachable_by(const char *path, const struct passwd *pw)
{
	_cleanup_free_ char *p = strdup(path);
	char *slash;
	struct stat st;

	if (!p)
		return -ENOMEM;
	while ((slash = strrchr(p, '/'))) {
		*slash = 0;
		if (stat(*p ? p : "/", &st) < 0)
			return -errno;
		if (!(st.st_mode & S_IXOTH) && !(st.st_uid == pw->pw_uid && (st.st_mode & S_IXUSR)) &&
		    !(st.st_gid == pw->pw_gid && (st.st_mode & S_IXGRP)))
			return -EACCES;
	}
	return 0;
}

/* Whose the datadir is: slicebench's if its marker is a file that root
 * wrote (the datadir itself belongs to the server's user, who could write
 * anything else there). */
static bool datadir_is_ours(const char *marker)
{
	struct stat st;

	return lstat(marker, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0;
}

/* An empty directory of the user's, which initdb wants (it cannot make one
 * in root's state directory) and the others take. */
static int datadir_make_empty(const char *path, const char *user)
{
	_cleanup_close_ int fd = -EBADF;
	struct passwd *pw = getpwnam(user);
	int r;

	if (!pw)
		return -ESRCH;
	r = mkdir_new(path, 0700);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchown(fd, pw->pw_uid, pw->pw_gid) < 0)
		return -errno;
	return 0;
}

/* The datadir is built as STATE/DATADIR.new and renamed into place only
 * once marked, so that STATE/DATADIR is always whole.  A DATADIR.new is
 * always a half-made one of slicebench's (no one else writes in STATE, and
 * the caller holds STATE's lock); it is removed before a new attempt. */
static int datadir_create(const struct server *s, const char *state_dir)
{
	_cleanup_free_ char *tmp = NULL, *marker = NULL;
	int r;

	if (xasprintf(&tmp, "%s.new", s->datadir) < 0 || xasprintf(&marker, "%s/" MARKER, tmp) < 0)
		return -ENOMEM;
	r = server_remove_half_made(state_dir, s->engine);
	if (r < 0)
		return r;
	r = datadir_make_empty(tmp, s->user);
	if (r >= 0)
		r = s->engine->init_datadir(s, tmp);
	if (r >= 0)
		r = write_file_atomic(marker, "slicebench\n", 11);
	if (r >= 0 && rename(tmp, s->datadir) < 0)
		r = -errno;
	if (r < 0)
		(void)remove_tree(tmp);
	return r;
}

bool server_datadir_is_ours(const struct server *s)
{
	_cleanup_free_ char *marker = NULL;

	return xasprintf(&marker, "%s/" MARKER, s->datadir) >= 0 && datadir_is_ours(marker);
}

int server_datadir_renew(const struct server *s)
{
	_cleanup_free_ char *state_dir = NULL;
	const char *slash = strrchr(s->datadir, '/');
	int r;

	if (!slash || !(state_dir = strndup(s->datadir, (size_t)(slash - s->datadir))))
		return -ENOMEM;
	if (access(s->datadir, F_OK) == 0 && !server_datadir_is_ours(s))
		return -EEXIST;
	r = remove_tree(s->datadir);
	if (r < 0 && r != -ENOENT)
		return r;
	return datadir_create(s, state_dir);
}

int server_remove_half_made(const char *state_dir, const struct server_engine *engine)
{
	_cleanup_free_ char *tmp = NULL;
	int r;

	if (xasprintf(&tmp, "%s/%s.new", state_dir, engine->datadir_name) < 0)
		return -ENOMEM;
	/* An installer that outlived a SIGKILL of slicebench goes first. */
	installer_kill(tmp);
	r = remove_tree(tmp);
	return r == -ENOENT ? 0 : r < 0 ? r : 1;
}

/* The server's paths: its option file in STATE, its datadir and the log in it. */
static int server_paths(const struct server_config *cfg, struct server *s)
{
	/* Its absolute path, found before any context's environment applies:
	 * a replayed PATH= never chooses the server's program. */
	if (!executable_in_path(cfg->binary, &s->binary))
		return -ENOENT;
	s->user = strdup(cfg->user);
	if (!s->binary || !s->user || xasprintf(&s->datadir, "%s/%s", cfg->state_dir, s->engine->datadir_name) < 0 ||
	    xasprintf(&s->cnf, "%s/%s", cfg->state_dir, s->engine->option_file) < 0 ||
	    xasprintf(&s->log, "%s/%s", s->datadir, s->engine->log_name) < 0)
		return -ENOMEM;
	return 0;
}

/* The datadir adopted only if slicebench made it, else made. */
static int datadir_adopt_or_create(const struct server *s, const struct passwd *pw, const char *state_dir)
{
	_cleanup_free_ char *marker = NULL;
	struct stat st;

	if (xasprintf(&marker, "%s/" MARKER, s->datadir) < 0)
		return -ENOMEM;
	if (lstat(s->datadir, &st) < 0)
		return datadir_create(s, state_dir);
	/* Never adopt a datadir that slicebench did not make. */
	if (!S_ISDIR(st.st_mode) || !datadir_is_ours(marker))
		return -EEXIST;
	/* Made for another user ([server] user = mysql after the
	 * default's runs): that user's files become this one's. */
	if (st.st_uid != pw->pw_uid)
		return chown_tree(s->datadir, st.st_uid, pw->pw_uid, pw->pw_gid);
	return 0;
}

/* What goes into the option file and the installer's arguments: no blank
 * and no control character, which would split an argument or add a line. */
static bool path_is_plain(const char *path)
{
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c == 0x7f)
			return false;
	return *path == '/';
}

/* One sequence, each step relying on the one before: the paths, the user
 * (never root), the trusted state directory, the socket's, the datadir,
 * the option file; one failure label undoes them. */
int server_setup(const struct server_config *config, struct server *ret)
{
	struct server_config filled = *config, *cfg = &filled;
	struct server s = {};
	_cleanup_free_ char *socket_dir = NULL;
	struct passwd *pw;
	int r;

	server_config_fill(cfg);
	s.engine = server_engine_named(cfg->engine);
	if (!s.engine || !cfg->binary || !path_is_plain(cfg->state_dir) || !path_is_plain(cfg->run_dir))
		return -EINVAL;
	r = server_paths(cfg, &s);
	if (r < 0)
		goto fail;
	s.out_fd = cfg->out_fd;
	pw = getpwnam(s.user);
	if (!pw) {
		r = -ESRCH;
		goto fail;
	}
	/* A server running as root would leave files of root's in the datadir. */
	if (pw->pw_uid == 0) {
		r = -EPERM;
		goto fail;
	}
	/* What root writes and later trusts (the option file, the lock, the
	 * live records) lives here: root alone may write in it.  Only the
	 * datadir below belongs to the server's user. */
	r = mkdir_p(cfg->state_dir, 0755);
	if (r >= 0)
		r = dir_check_trusted(cfg->state_dir);
	if (r < 0)
		goto fail;
	r = socket_dir_setup(cfg->run_dir, cfg->state_dir, pw, &socket_dir);
	if (r < 0)
		goto fail;
	if (xasprintf(&s.socket, "%s/%s", socket_dir, s.engine->socket_name) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	r = reachable_by(s.datadir, pw);
	if (r >= 0)
		r = reachable_by(s.socket, pw);
	if (r >= 0)
		r = datadir_adopt_or_create(&s, pw, cfg->state_dir);
	if (r >= 0)
		r = s.engine->write_options(cfg, &s);
	if (r < 0)
		goto fail;
	*ret = s;
	return 0;
fail:
	server_done(&s);
	return r;
}

void server_done(struct server *s)
{
	if (!s)
		return;
	free(s->binary);
	free(s->user);
	free(s->datadir);
	free(s->cnf);
	free(s->socket);
	free(s->log);
	if (s->password)
		explicit_bzero(s->password, strlen(s->password));
	free(s->password);
	memset(s, 0, sizeof(*s));
}

int server_argv(const struct server *s, char ***ret)
{
	char **argv;

	if (s->engine->argv)
		return s->engine->argv(s, ret);
	argv = calloc(3, sizeof(char *));
	if (!argv)
		return -ENOMEM;
	argv[0] = strdup(s->binary);
	if (!argv[0] || xasprintf(&argv[1], "%s=%s", s->engine->option_flag, s->cnf) < 0) {
		strv_free(argv);
		return -ENOMEM;
	}
	*ret = argv;
	return 0;
}

int server_sql_names(const char *const *names, char **ret)
{
	_cleanup_free_ char *in = NULL;

	for (size_t i = 0; names[i]; i++) {
		char *more;

		if (xasprintf(&more, "%s%s'%s'", strempty(in), in ? ", " : "", names[i]) < 0)
			return -ENOMEM;
		free(in);
		in = more;
	}
	*ret = in;
	in = NULL;
	return 0;
}

bool server_fact_known(const char *name)
{
	if (streq(name, "read") || streq(name, "missing"))
		return true;
	for (size_t i = 0; server_engines[i]; i++)
		for (size_t k = 0; server_engines[i]->fact_names && server_engines[i]->fact_names[k]; k++)
			if (streq(server_engines[i]->fact_names[k], name))
				return true;
	return false;
}

int server_facts(const struct server *s, struct placement *p)
{
	return s->engine->facts ? s->engine->facts(s, p) : 0;
}

int server_peer_of(int fd, pid_t *ret)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	*ret = cred.pid;
	return 0;
}

/* The PID that listens on the socket, from the peer credentials. */
static int socket_peer(const char *path, pid_t *ret)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -EBADF;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return server_peer_of(fd, ret);
}

int process_alive(pid_t *pid)
{
	pid_t w;

	if (*pid <= 0)
		return 0;
	/* A child of ours that exited is a zombie until reaped, and kill(pid, 0)
	 * would count it as alive. */
	w = waitpid(*pid, NULL, WNOHANG);
	if (w == *pid) {
		*pid = 0;
		return 0;
	}
	if (w == 0)
		return 1;
	return kill(*pid, 0) == 0 || errno == EPERM;
}

int server_wait_ready(const struct server *s, pid_t *pid, uint64_t timeout_ns, pid_t *ret_other)
{
	uint64_t deadline = now_ns() + timeout_ns;
	pid_t other = 0;

	for (;;) {
		pid_t peer = 0;

		if (interrupt_signal)
			return -EINTR;
		/* Ours only if the process listening is the one just started, or
		 * (where a manager or a wrapper forks) one of its descendants: a
		 * socket can be answered by another server. */
		if (s->engine->ping(s) && socket_peer(s->socket, &peer) >= 0) {
			if (*pid <= 0 || proc_descends_from(peer, *pid))
				return 0;
			other = peer;
		}
		if (*pid > 0 && !process_alive(pid))
			break;
		if (now_ns() >= deadline)
			break;
		usleep(50000);
	}
	if (other) {
		if (ret_other)
			*ret_other = other;
		return -EADDRINUSE;
	}
	return *pid > 0 ? -ETIMEDOUT : -ECHILD;
}

/* The log lives in the datadir, which belongs to the server's user: never
 * follow a symbolic link there, never block on a FIFO. */
static int log_open(const struct server *s, FILE **ret)
{
	struct stat st;
	int fd = open(s->log, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EBADF;
	}
	*ret = fdopen(fd, "r");
	if (!*ret) {
		close(fd);
		return -ENOMEM;
	}
	return 0;
}

long server_log_size(const struct server *s)
{
	_cleanup_fclose_ FILE *f = NULL;
	struct stat st;

	return log_open(s, &f) >= 0 && fstat(fileno(f), &st) == 0 ? (long)st.st_size : 0;
}

int server_log_tail(const struct server *s, long since, unsigned n, char **ret)
{
	_cleanup_fclose_ FILE *f = NULL;
	char buf[16384], *p;
	long size;
	size_t len;
	int r;

	*ret = NULL;
	r = log_open(s, &f);
	if (r < 0)
		return r;
	/* Only what this start wrote, and of that the end: the log is kept
	 * across starts and may be large. */
	if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0)
		return -errno;
	since = MAX(since, size - (long)sizeof(buf) + 1);
	if (since >= size)
		return 0;
	if (fseek(f, since, SEEK_SET) < 0)
		return -errno;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	while (len > 0 && buf[len - 1] == '\n')
		len--;
	buf[len] = 0;
	p = buf + len;
	while (p > buf && n > 0)
		if (*--p == '\n')
			n--;
	*ret = strdup(p == buf ? p : p + 1);
	return *ret ? 0 : -ENOMEM;
}

int process_stop(pid_t pid, int sig, uint64_t timeout_ns, int *ret_status)
{
	uint64_t deadline = now_ns() + timeout_ns;
	int status = 0;
	pid_t w;

	if (kill(pid, sig) < 0 && errno != ESRCH)
		return -errno;
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0)
			return -errno;
		if (now_ns() >= deadline) {
			kill(pid, SIGKILL);
			if (waitpid(pid, &status, 0) < 0)
				return -errno;
			break;
		}
		usleep(20000);
	}
	if (ret_status)
		*ret_status = status;
	return 0;
}

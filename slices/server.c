#include "slices/server.h"

#include <fcntl.h>
#include <mysql.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common/spawn.h"
#include "common/util.h"

#define MARKER ".slicebench-datadir"

/* The installers' chatter goes nowhere; their errors stay on stderr. */
static int quiet(void *userdata _unused_)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
	}
	return 0;
}

static int run_wait(char **argv)
{
	return spawn_wait(argv, quiet, NULL);
}

static int mariadb_init_datadir(const char *binary, const char *datadir, const char *user)
{
	_cleanup_free_ char *d = NULL, *u = NULL;
	(void)binary;
	if (xasprintf(&d, "--datadir=%s", datadir) < 0 || xasprintf(&u, "--user=%s", user) < 0)
		return -ENOMEM;
	char *argv[] = { "mariadb-install-db", "--no-defaults", d, u, "--auth-root-authentication-method=socket",
			 "--skip-test-db", NULL };
	return run_wait(argv);
}

static int mysql_init_datadir(const char *binary, const char *datadir, const char *user)
{
	_cleanup_free_ char *d = NULL, *u = NULL;
	if (xasprintf(&d, "--datadir=%s", datadir) < 0 || xasprintf(&u, "--user=%s", user) < 0)
		return -ENOMEM;
	char *argv[] = { (char *)binary, "--no-defaults", "--initialize-insecure", d, u, NULL };
	return run_wait(argv);
}

const struct server_flavor server_flavor_mariadb = { "mariadb", mariadb_init_datadir };
const struct server_flavor server_flavor_mysql = { "mysql", mysql_init_datadir };

static int chown_to(const char *path, const char *user)
{
	struct passwd *pw = getpwnam(user);
	if (!pw)
		return -ESRCH;
	return chown(path, pw->pw_uid, pw->pw_gid) < 0 ? -errno : 0;
}

/* Every directory above path must be searchable by the server's user, or
 * the server fails later with an error about some file in its datadir. */
static int reachable_by(const char *path, const char *user)
{
	struct passwd *pw = getpwnam(user);
	_cleanup_free_ char *p = strdup(path);
	char *slash;
	struct stat st;

	if (!pw)
		return -ESRCH;
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

static int write_option_file(const struct server_config *cfg, const struct server *s)
{
	_cleanup_free_ char *text = NULL;
	int r;

	r = xasprintf(&text,
		      "# Written by slicebench; rewritten at every setup.\n"
		      "[mysqld]\n"
		      "datadir=%s\n"
		      "socket=%s\n"
		      "log-error=%s\n"
		      "user=%s\n"
		      "skip-networking\n"
		      "innodb_buffer_pool_size=%s\n"
		      "max_connections=%u\n"
		      "max_prepared_stmt_count=1048576\n",
		      s->datadir, s->socket, s->log, s->user, cfg->buffer_pool ? cfg->buffer_pool : "1G",
		      cfg->max_connections ? cfg->max_connections : 1100);
	if (r < 0)
		return r;
	return write_file_atomic(s->cnf, text, strlen(text));
}

int server_setup(const struct server_config *cfg, struct server *ret)
{
	struct server s = {};
	_cleanup_free_ char *marker = NULL;
	struct stat st;
	int r;

	s.flavor = streq_ptr(cfg->flavor, "mysql") ? &server_flavor_mysql : &server_flavor_mariadb;
	s.binary = strdup(cfg->binary ? cfg->binary : "mariadbd");
	s.user = strdup(cfg->user ? cfg->user : "mysql");
	if (!s.binary || !s.user || xasprintf(&s.datadir, "%s/datadir", cfg->state_dir) < 0 ||
	    xasprintf(&s.cnf, "%s/my.cnf", cfg->state_dir) < 0 || xasprintf(&s.socket, "%s/mysqld.sock", cfg->run_dir) < 0 ||
	    xasprintf(&s.log, "%s/mysqld.err", cfg->state_dir) < 0 || xasprintf(&marker, "%s/" MARKER, s.datadir) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	r = mkdir_p(cfg->state_dir, 0755);
	if (r < 0)
		goto fail;
	/* The socket's directory is the only way to the root account. */
	r = mkdir_p(cfg->run_dir, 0700);
	if (r < 0)
		goto fail;
	if (chmod(cfg->run_dir, 0700) < 0) {
		r = -errno;
		goto fail;
	}
	r = chown_to(cfg->run_dir, s.user);
	if (r >= 0)
		r = chown_to(cfg->state_dir, s.user);
	if (r >= 0)
		r = reachable_by(s.datadir, s.user);
	if (r >= 0)
		r = reachable_by(s.socket, s.user);
	if (r < 0)
		goto fail;
	if (stat(s.datadir, &st) == 0) {
		/* Never adopt a datadir that slicebench did not make. */
		if (access(marker, F_OK) < 0) {
			r = -EEXIST;
			goto fail;
		}
	} else {
		r = s.flavor->init_datadir(s.binary, s.datadir, s.user);
		if (r >= 0)
			r = write_file_atomic(marker, "slicebench\n", 11);
		if (r < 0) {
			/* Half a datadir without the marker would be refused next time. */
			remove_tree(s.datadir);
			goto fail;
		}
	}
	r = write_option_file(cfg, &s);
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
	memset(s, 0, sizeof(*s));
}

void strv_free(char **l)
{
	if (!l)
		return;
	for (char **p = l; *p; p++)
		free(*p);
	free(l);
}

int server_argv(const struct server *s, char ***ret)
{
	char **argv = calloc(3, sizeof(char *));

	if (!argv)
		return -ENOMEM;
	argv[0] = strdup(s->binary);
	if (!argv[0] || xasprintf(&argv[1], "--defaults-file=%s", s->cnf) < 0) {
		strv_free(argv);
		return -ENOMEM;
	}
	*ret = argv;
	return 0;
}

static bool ping(const struct server *s)
{
	MYSQL *m = mysql_init(NULL);
	unsigned timeout = 1;
	bool ok;

	if (!m)
		return false;
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	ok = mysql_real_connect(m, NULL, "root", NULL, NULL, 0, s->socket, 0) && mysql_ping(m) == 0;
	mysql_close(m);
	return ok;
}

int server_wait_ready(const struct server *s, pid_t pid, uint64_t timeout_ns)
{
	uint64_t deadline = now_ns() + timeout_ns;

	while (now_ns() < deadline) {
		if (ping(s))
			return 0;
		if (pid > 0 && kill(pid, 0) < 0)
			return -ECHILD;
		usleep(50000);
	}
	return -ETIMEDOUT;
}

long server_log_size(const struct server *s)
{
	struct stat st;

	return stat(s->log, &st) == 0 ? (long)st.st_size : 0;
}

int server_log_tail(const struct server *s, long since, unsigned n, char **ret)
{
	_cleanup_fclose_ FILE *f = fopen(s->log, "re");
	char buf[16384], *p;
	long size;
	size_t len;

	*ret = NULL;
	if (!f)
		return -errno;
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

int process_stop(pid_t pid, uint64_t timeout_ns, int *ret_status)
{
	uint64_t deadline = now_ns() + timeout_ns;
	int status = 0;
	pid_t w;

	if (kill(pid, SIGTERM) < 0 && errno != ESRCH)
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

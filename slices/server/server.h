/* The managed server: one datadir, option file and socket directory that
 * slicebench owns, started with the same binary, options and user in every
 * context so that only the placement differs. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/words.h"

struct server;
struct server_config;
struct placement;

/* An engine is its row: everything in which the managed MariaDB, MySQL 8
 * (and Percona) and PostgreSQL differ.  The rest of the managed server
 * (the state and socket directories, the marked datadir made under a
 * temporary name, readiness tied to the process started, the log's tail)
 * is the same for all, in server.c. */
struct server_engine {
	const char *name;	 /* as [server] engine spells it */
	const char *protocol;	 /* the workloads it runs: "mysql" or "postgresql" */
	const char *binary;	 /* the server's binary, unless [server] binary names another */
	const char *datadir_name; /* in the state directory: one datadir per engine */
	const char *socket_name; /* the socket, in the socket's directory */
	const char *option_file; /* in the state directory */
	const char *log_name;	 /* in the datadir */
	int stop_signal;	 /* the clean and prompt stop (PostgreSQL's fast shutdown is SIGINT) */
	/* 0 if what makes a datadir is there, else -ENOENT with the missing
	 * program in *ret_missing (to free()); -ENOMEM. */
	int (*installed)(const char *binary, char **ret_missing);
	/* Creates an empty datadir (the directory exists, empty, the user's)
	 * whose superuser "root" authenticates over the socket only. */
	int (*init_datadir)(const struct server *s, const char *datadir);
	/* The option file (and what else the state directory holds for it),
	 * rewritten at every setup. */
	int (*write_options)(const struct server_config *cfg, const struct server *s);
	const char *option_flag; /* how the binary is told its option file: --defaults-file, --config-file */
	/* How the binary is told one of its variables on its command line,
	 * after the option file, over which it wins (a printf format of name
	 * and value: mariadbd's and postgres's --NAME=VALUE); NULL: it takes
	 * none (a proxy). */
	const char *set_variable;
	/* Does the server answer root over the socket? */
	bool (*ping)(const struct server *s);
	/* The server's own view of its limits and settings over SQL, as
	 * server.* attributes (open_files_limit, max_connections, ...). */
	int (*facts)(const struct server *s, struct placement *p);
	/* The variables facts reads, each as server.NAME (NULL-terminated). */
	const char *const *fact_names;
	/* What a server killed with SIGKILL leaves that the next start would
	 * not clear (PostgreSQL's System V segment, its socket's lock), removed
	 * once the server's processes are gone; NULL: nothing. */
	void (*clear_stale)(const char *datadir, const char *socket);
	/* argv to exec, where binary and option_flag=FILE are not enough (a
	 * proxy's); NULL: those two. */
	int (*argv)(const struct server *s, char ***ret);
	/* The service kind's Type=: NULL is notify (mysqld and postgres tell
	 * systemd READY=1); readiness is the ping's either way. */
	const char *service_type;
	/* The account a proxy's connections log in as (slices/server/proxy.h),
	 * the server's user known by the socket's peer, and with password
	 * (not NULL) by that password too; NULL: the options carry it. */
	int (*proxy_account)(const struct server *s, const char *password);
};

extern const struct server_engine server_engine_mariadb, server_engine_mysql, server_engine_postgresql;
/* mariadb, mysql, postgresql: the engines' names, a word's value its index
 * in server_engines[] (which ends with NULL). */
extern const struct word server_engine_words[];
extern const struct server_engine *const server_engines[];
/* The engine of that name, NULL if none. */
const struct server_engine *server_engine_named(const char *name);

/* The mysql engines' datadir installers and PostgreSQL's initdb run as a
 * process group of their own that a signal kills as a whole (see
 * server.c), as as_user (never root: the server's user), dropped to in the
 * child before the exec. */
struct passwd;
struct server;
/* Its chatter (and the bootstrap server's warnings) goes to s->out_fd when
 * one is set (a results directory's log), else nowhere; its errors then
 * stay on stderr. */
int server_run_installer(const struct server *s, char **argv, const char *datadir, const struct passwd *as_user);
/* Drops to pw's user and groups (in a child, before the exec). */
int server_drop_privileges(const struct passwd *pw);

/* The server's defaults, here and nowhere else. */
#define SERVER_DEFAULT_ENGINE "mariadb"
#define SERVER_DEFAULT_USER "slicebench"
#define SERVER_DEFAULT_BUFFER_POOL "1G"
#define SERVER_DEFAULT_MAX_CONNECTIONS 1100

/* The file of root's in a datadir that says slicebench made it. */
#define SERVER_DATADIR_MARKER ".slicebench-datadir"

/* Does the managed server's datadir carry slicebench's mark (a file of
 * root's: the datadir itself is the server user's)? */
bool server_datadir_is_ours(const struct server *s);
/* The managed server's datadir made anew, empty (the engine's installer),
 * the old one (slicebench's) removed: where a dataset's template is
 * prepared. */
int server_datadir_renew(const struct server *s);

struct server_config {
	const char *engine;    /* "mariadb", "mysql" or "postgresql" */
	const char *binary;    /* NULL: the engine's */
	const char *state_dir; /* root's: the option file and the datadir live here */
	const char *run_dir;   /* holds one 0700 socket directory per state directory */
	const char *user;      /* the server's own user */
	const char *buffer_pool;
	unsigned max_connections;
	/* Above 2: where the datadir's installer writes (the results
	 * directory's log, struct server's out_fd); else nowhere. */
	int out_fd;
};

struct server {
	const struct server_engine *engine;
	char *binary, *user, *datadir, *cnf, *socket, *log;
	char *password; /* a proxy's that logs in with one (ProxySQL); NULL: none */
	/* Above 2: where a server slicebench forks (raw, scope, login) writes
	 * its standard output and error, the start-up warnings before its own
	 * log opens (a results directory's log); else they are inherited. */
	int out_fd;
	/* A server slicebench did not start (server_facts_of()): its answers
	 * count only from this process, the connection's peer; 0: any. */
	pid_t peer;
};

/* Sets the fields of cfg that are not set (NULL, 0) to the defaults above;
 * the directories stay the caller's. */
void server_config_fill(struct server_config *cfg);

/* Creates (once) or checks the datadir, writes the option file, with
 * server_config_fill()'s defaults for what cfg leaves unset.  -EPERM:
 * the state directory is not root's alone (see dir_check_trusted()), the
 * socket directory belongs to someone else, or the user is root; -EINVAL:
 * a directory not absolute, or with a blank or a control character;
 * -EEXIST: a datadir there that slicebench did not make. */
int server_setup(const struct server_config *cfg, struct server *ret);
/* Removes the half-made datadir of engine that an interrupted setup left
 * in state_dir; 1 if there was one.  The caller holds the state's lock. */
int server_remove_half_made(const char *state_dir, const struct server_engine *engine);
void server_done(struct server *s);
/* argv to exec the server: binary and its option file, as the engine says. */
int server_argv(const struct server *s, char ***ret);
/* The server's view of its limits over SQL (the engine's facts). */
int server_facts(const struct server *s, struct placement *p);
/* The PID at the other end of a connected unix socket (SO_PEERCRED). */
int server_peer_of(int fd, pid_t *ret);
/* A server slicebench did not start, read and never changed (place
 * --pid): its engine by the name of its binary exe, its settings (the
 * engine's facts) over socket as root, counted only when the logged-in
 * connection's peer is pid (no bare probe: a connection that does not log
 * in is written to the server's error log).  server.read says "yes: ..." or "no: why";
 * only -ENOMEM is an error. */
int server_facts_of(pid_t pid, const char *exe, const char *socket, struct placement *p);
/* Is server.NAME a key some engine's facts read (or the capture's own
 * server.read and server.missing)?  A snapshot's other server.* keys are
 * none of slicebench's. */
bool server_fact_known(const char *name);
/* "'a', 'b', ...": names quoted for an SQL IN list. */
int server_sql_names(const char *const *names, char **ret);
/* Pings over the socket until the server answers, *pid dies (a child of
 * ours is reaped and *pid set to 0), a signal is caught (-EINTR) or the
 * timeout runs out.  The answer counts only if the process listening on the
 * socket (SO_PEERCRED) is *pid or its descendant; -EADDRINUSE if only
 * another one answered (its PID in *ret_other).  *pid 0: any server. */
int server_wait_ready(const struct server *s, pid_t *pid, uint64_t timeout_ns, pid_t *ret_other);
/* 1 if *pid runs; a child of ours that exited is reaped and *pid set to 0. */
int process_alive(pid_t *pid);
/* The error log's size now, and the last n lines written after that
 * offset (0: from the start), for messages; *ret is NULL if none. */
long server_log_size(const struct server *s);
int server_log_tail(const struct server *s, long since, unsigned n, char **ret);
/* sig (the engine's stop_signal), wait up to timeout, then SIGKILL;
 * reaps the child. */
int process_stop(pid_t pid, int sig, uint64_t timeout_ns, int *ret_status);

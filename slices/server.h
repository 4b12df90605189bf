/* The managed server: one datadir, option file and socket directory that
 * slicebench owns, started with the same binary, options and user in every
 * context so that only the placement differs. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "common/words.h"

struct server_flavor {
	const char *name;
	/* Creates an empty datadir whose root account authenticates over the
	 * socket only.  The one place where MariaDB, MySQL 8 and Percona differ. */
	int (*init_datadir)(const char *binary, const char *datadir, const char *user);
};

extern const struct server_flavor server_flavor_mariadb;
extern const struct server_flavor server_flavor_mysql;
/* mariadb, mysql: the flavors' names, a word's value its index in
 * server_flavors[]. */
extern const struct word server_flavor_words[];
extern const struct server_flavor *const server_flavors[];

/* The server's defaults, here and nowhere else. */
#define SERVER_DEFAULT_BINARY "mariadbd"
#define SERVER_DEFAULT_FLAVOR "mariadb"
#define SERVER_DEFAULT_USER "slicebench"
#define SERVER_DEFAULT_BUFFER_POOL "1G"
#define SERVER_DEFAULT_MAX_CONNECTIONS 1100

struct server_config {
	const char *binary;    /* mariadbd or mysqld */
	const char *flavor;    /* "mariadb" or "mysql" */
	const char *state_dir; /* root's: the option file and the datadir live here */
	const char *run_dir;   /* holds one 0700 socket directory per state directory */
	const char *user;      /* the server's own user */
	const char *buffer_pool;
	unsigned max_connections;
};

struct server {
	const struct server_flavor *flavor;
	char *binary, *user, *datadir, *cnf, *socket, *log;
};

/* Sets the fields of cfg that are not set (NULL, 0) to the defaults above;
 * the directories stay the caller's. */
void server_config_fill(struct server_config *cfg);

/* Creates (once) or checks the datadir, writes the option file, with
 * server_config_fill()'s defaults for what cfg leaves unset.  -EPERM:
 * the state directory is not root's alone (see dir_check_trusted()), the
 * socket directory belongs to someone else, or the user is root;
 * -EEXIST: a datadir there that slicebench did not make. */
int server_setup(const struct server_config *cfg, struct server *ret);
/* Removes the half-made datadir that an interrupted setup left in
 * state_dir; 1 if there was one.  The caller holds the state's lock. */
int server_remove_half_made(const char *state_dir);
void server_done(struct server *s);
/* argv to exec the server: binary --defaults-file=CNF. */
int server_argv(const struct server *s, char ***ret);
void strv_free(char **l);
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
/* SIGTERM, wait up to timeout, then SIGKILL; reaps the child. */
int process_stop(pid_t pid, uint64_t timeout_ns, int *ret_status);

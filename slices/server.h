/* The managed server: one datadir, option file and socket directory that
 * slicebench owns, started with the same binary, options and user in every
 * context so that only the placement differs. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

struct server_flavor {
	const char *name;
	/* Creates an empty datadir whose root account authenticates over the
	 * socket only.  The one place where MariaDB, MySQL 8 and Percona differ. */
	int (*init_datadir)(const char *binary, const char *datadir, const char *user);
};

extern const struct server_flavor server_flavor_mariadb;
extern const struct server_flavor server_flavor_mysql;

struct server_config {
	const char *binary;    /* mariadbd or mysqld */
	const char *flavor;    /* "mariadb" or "mysql" */
	const char *state_dir; /* datadir and option file live here */
	const char *run_dir;   /* the socket's 0700 directory */
	const char *user;      /* the server's own user */
	const char *buffer_pool;
	unsigned max_connections;
};

struct server {
	const struct server_flavor *flavor;
	char *binary, *user, *datadir, *cnf, *socket, *log;
};

/* Creates (once) or checks the datadir, writes the option file. */
int server_setup(const struct server_config *cfg, struct server *ret);
void server_done(struct server *s);
/* argv to exec the server: binary --defaults-file=CNF. */
int server_argv(const struct server *s, char ***ret);
void strv_free(char **l);
/* Pings over the socket until it answers, pid dies or the timeout runs out. */
int server_wait_ready(const struct server *s, pid_t pid, uint64_t timeout_ns);
/* The error log's size now, and the last n lines written after that
 * offset (0: from the start), for messages; *ret is NULL if none. */
long server_log_size(const struct server *s);
int server_log_tail(const struct server *s, long since, unsigned n, char **ret);
/* SIGTERM, wait up to timeout, then SIGKILL; reaps the child. */
int process_stop(pid_t pid, uint64_t timeout_ns, int *ret_status);

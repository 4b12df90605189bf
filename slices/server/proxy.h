/* A proxy between the client and the managed server, as in the published
 * chain sysbench -> ProxySQL -> MySQL.  A proxy engine is its row: what
 * it carries, how it is configured, how it answers.  To the contexts a
 * proxy is one more server (struct server, its engine the row's
 * as_server): they start it, place it, read it back and stop it as they do
 * the database, so that the proxy takes the attribute table whole. */
#pragma once

#include <stdbool.h>

#include "common/words.h"
#include "slices/server/server.h"

struct proxy_engine {
	const char *name;     /* as [proxy NAME] engine spells it */
	const char *protocol; /* the servers it carries: "mysql" or "postgresql" */
	const char *install;  /* how to install it, for the message of one that is missing */
	/* The client logs in through it as the server's user, whose account
	 * the server knows by the proxy's socket peer (haproxy passes bytes;
	 * the server sees the proxy's process); else as itself. */
	bool client_as_server_user;
	/* Its users have passwords (ProxySQL's mysql_users): one is drawn at
	 * every setup, kept in its configuration (the server's user's alone)
	 * and in the account, and the client logs in with it. */
	bool password;
	/* Its configuration for backend, written (by root) at path. */
	int (*write_config)(const struct server *proxy, const struct server *backend, unsigned max_connections,
			    const char *path);
	/* The contexts' view: binary, argv, stop signal, ping, no datadir. */
	struct server_engine as_server;
};

/* haproxy, pgbouncer, proxysql: a word's value its index in proxy_engines[]. */
extern const struct word proxy_engine_words[];
extern const struct proxy_engine *const proxy_engines[];
const struct proxy_engine *proxy_engine_named(const char *name);
/* The row whose as_server is engine, NULL for a database's engine. */
const struct proxy_engine *proxy_engine_of(const struct server_engine *engine);

/* 0 if binary (NULL: the engine's) is installed here, else -ENOENT with
 * *ret_why (to free()) saying what is missing and how to get it; -ENOMEM. */
int proxy_installed(const struct proxy_engine *pe, const char *binary, char **ret_why);

/* The proxy `name` (the index-th of its experiment) in front of backend:
 * STATE/slicebench-proxy for its log (the server's user's), its
 * configuration STATE/slicebench-proxy-NAME.conf (root's), its socket in
 * the server's socket directory; rewritten at every setup.  ret is freed
 * with server_done(). */
int proxy_setup(const struct proxy_engine *pe, const char *binary, const char *name, unsigned index,
		const struct server *backend, unsigned max_connections, struct server *ret);

/* The account the proxy's connections log in as, made afresh on the
 * running backend (the mysql engines'), with the proxy's password if it
 * has one; nothing for PostgreSQL, whose peer map the server's options
 * carry. */
int proxy_account(const struct server *proxy, const struct server *backend);

/* "slicebench -> haproxy -> mariadb": the chain the client's queries
 * take, for results and messages. */
int proxy_chain(const struct proxy_engine *pe, const struct server *backend, char **ret);

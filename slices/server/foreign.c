/* A server slicebench did not start (place --pid): its own settings read
 * over its socket as root, where root's credentials connect (MariaDB's
 * unix_socket, PostgreSQL's peer authentication), and nothing changed.
 * Whether they were read, and why not, is part of the capture. */
#include <stdio.h>

#include "slices/server/server.h"
#include "slices/attr/placement.h"
#include "common/util.h"

/* The engine whose binary has exe's name (Debian's mysqld resolves to
 * mariadbd); NULL: no server slicebench knows. */
static const struct server_engine *engine_of(const char *exe)
{
	const char *name = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;

	for (size_t i = 0; server_engines[i]; i++) {
		const char *b = server_engines[i]->binary, *base = strrchr(b, '/') ? strrchr(b, '/') + 1 : b;

		if (streq(base, name))
			return server_engines[i];
	}
	return NULL;
}

/* The socket as slicebench reaches it: through the process's own root
 * (/proc/PID/root), so that a server in a mount namespace of its own
 * (PrivateTmp=) is reached where it listens, if the path fits, else as
 * it is; -ENAMETOOLONG if neither fits. */
static int reachable(pid_t pid, const char *socket, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/proc/%d/root%s", (int)pid, socket);

	if (n < 0 || (size_t)n >= MIN(len, (size_t)108))
		return text_copy(buf, len, socket);
	return 0;
}

int server_facts_of(pid_t pid, const char *exe, const char *socket, struct placement *p)
{
	const struct server_engine *engine = engine_of(exe);
	char path[4200];
	struct server s = {};
	int r;

	if (!engine)
		return placement_setf(p, "server.read", "no: %s is not a server slicebench knows (%s, %s, %s)", exe,
				      server_engine_mariadb.binary, server_engine_mysql.binary,
				      server_engine_postgresql.binary);
	if (!socket)
		return placement_setf(p, "server.read", "no: PID %d listens on no unix socket", (int)pid);
	if (reachable(pid, socket, path, sizeof(path)) < 0)
		return placement_setf(p, "server.read", "no: its socket's path %s is longer than a socket's", socket);
	s = (struct server){ .engine = engine, .socket = path, .peer = pid };
	r = server_facts(&s, p);
	if (r == -ENOMEM)
		return r;
	if (r == -ESRCH)
		return placement_setf(p, "server.read", "no: the process answering on %s is not PID %d", socket, (int)pid);
	if (r < 0)
		return placement_setf(p, "server.read", "no: root cannot log in over %s (%s); give the server's "
				      "settings by hand", socket, strerror(-r));
	return placement_setf(p, "server.read", "yes: as root over %s", socket);
}

/* A context that mirrors an installed unit (`unit = mariadb.service`):
 * the settings of its unit file that the attribute table knows, read over
 * D-Bus as the manager resolved them, as NAME=VALUE texts that the table's
 * parsers take; the unit file's other settings listed by name. */
#pragma once

#include <systemd/sd-bus.h>

struct mirror {
	char **names, **values; /* NULL-terminated, in the table's order */
	char **unknown;		/* [Service] keys no row reproduces */
	/* What runs before the server: each ExecStartPre= command line, and
	 * the lines of those helpers (scripts) that change the host for every
	 * process (THP, sysctls), "HELPER:LINE: text"; listed, never run by
	 * the mirror.  NULL-terminated; NULL: none. */
	char **exec_pre, **host_writes;
};

/* -ENOENT: no such unit loaded; -EMEDIUMTYPE: not a service. */
int mirror_unit(sd_bus *bus, const char *unit, struct mirror *ret, sd_bus_error *error);
void mirror_done(struct mirror *m);

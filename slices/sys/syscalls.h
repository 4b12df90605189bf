/* Named syscall groups as systemd's SystemCallFilter= knows them (the data
 * is systemd 252's), for the raw kind's libseccomp reproduction. */
#pragma once

struct syscall_group {
	const char *name;		/* "@system-service" */
	const char *const *syscalls;	/* NULL-terminated names */
};

/* NULL if slicebench does not carry that group. */
const struct syscall_group *syscall_group_lookup(const char *name);

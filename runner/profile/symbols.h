/* The names of a sampled address: the DSO it lies in (from the process's
 * /proc/PID/maps, read while it runs) and the function of that DSO's ELF
 * symbol table (.symtab, else .dynsym, read here: every ELF file is
 * checked against its size before a table is walked, for it is the
 * server's and may be anything), or the kernel's from /proc/kallsyms.
 * An address no symbol covers is "[unknown]" in its DSO: Debian strips
 * the .symtab of its libraries and binaries, so a static function
 * (glibc's _int_malloc) has no name, only its library. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PROFILE_KERNEL_DSO "[kernel]"
#define PROFILE_UNKNOWN "[unknown]"

struct profile_symbols;
int profile_symbols_new(struct profile_symbols **ret);
void profile_symbols_free(struct profile_symbols *s);

/* Reads pid's memory maps now (a process that has exited cannot be read:
 * read it as it is first seen).  0, or -errno. */
int profile_symbols_add_process(struct profile_symbols *s, pid_t pid);
/* Whether pid's maps were read. */
bool profile_symbols_have_process(const struct profile_symbols *s, pid_t pid);

/* The DSO ("libc.so.6", PROFILE_KERNEL_DSO) and the function of ip in pid,
 * both owned by s. */
void profile_symbols_frame(struct profile_symbols *s, pid_t pid, uint64_t ip, bool kernel, const char **ret_dso,
			   const char **ret_sym);

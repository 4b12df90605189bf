/* Small helpers shared by every module: cleanup attributes, logging, strict parsing. */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x) /* a macro's value as a string literal */
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define NSEC_PER_SEC UINT64_C(1000000000)
#define NSEC_PER_MSEC UINT64_C(1000000)
#define NSEC_PER_USEC UINT64_C(1000)
#define USEC_PER_SEC UINT64_C(1000000)

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#include <stdio.h>
static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static inline bool streq_ptr(const char *a, const char *b)
{
	return a && b ? streq(a, b) : a == b;
}
static inline const char *strempty(const char *s) { return s ? s : ""; }

/* Logging: the layer that decides logs once.  log_error_errno returns r so
 * that "return log_error_errno(r, ...)" works, and %m means strerror(-r). */
void log_msg(int level, const char *fmt, ...) _printf_(2, 3);
int log_errno(int level, int r, const char *fmt, ...) _printf_(3, 4);
#define LOG_ERR_ 3
#define LOG_WARN_ 4
#define LOG_INFO_ 6
#define log_error(...) log_msg(LOG_ERR_, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARN_, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO_, __VA_ARGS__)
#define log_error_errno(r, ...) log_errno(LOG_ERR_, (r), __VA_ARGS__)
#define log_warning_errno(r, ...) log_errno(LOG_WARN_, (r), __VA_ARGS__)

/* Every message logged (and log_copy_line()'s) also goes, with the wall
 * clock, to fd (a results directory's log); -EBADF: nowhere else. */
void log_copy_to(int fd);
void log_copy_line(const char *line);
/* The one status line on a terminal (stderr): shown in place of the last,
 * cut to the width; cleared before any message logged. */
void status_show(const char *text);
void status_clear(void);
/* fd's terminal's columns; 0: fd is no terminal. */
size_t terminal_columns(int fd);

/* Monotonic time in nanoseconds. */
uint64_t now_ns(void);
/* The wall clock in seconds since the epoch: when a step began, for the
 * record (now_ns() measures, this dates). */
double wall_clock_s(void);

/* Strict parsers: the whole string must be consumed, ranges are checked.
 * Return 0 or -EINVAL / -ERANGE. */
int parse_u64(const char *s, uint64_t *ret);
int parse_int_range(const char *s, long min, long max, long *ret);
/* "10s", "500ms", "2m", "1h", or a bare number of seconds: decimal, at most
 * a year (-ERANGE beyond). */
int parse_duration_ns(const char *s, uint64_t *ret);
/* "1G", "512M", "131072K" or bytes, as innodb_buffer_pool_size takes them
 * (K, M, G, T: powers of 1024). */
int parse_size_bytes(const char *s, uint64_t *ret);
/* "95", "97.5", "2%": a decimal number of percent, the sign required when
 * sign_required.  -EINVAL: anything else. */
int parse_percent(const char *s, bool sign_required, double *ret);
/* "1,2,4" or "1-4" or "0,2-3": a CPU list into a bitmask of up to 1024 CPUs. */
#define CPU_LIST_MAX 1024
int parse_int_list(const char *s, long min, long max, long *ret, size_t cap, size_t *ret_n);

/* Read a whole small file (at most cap bytes) without a trailing newline. */
int read_file_str(const char *path, char **ret);
/* Write a string to a kernel file: open, write, close, checking each step,
 * since cgroupfs reports EINVAL/EBUSY on write or on close. */
int write_file_str(const char *path, const char *s);
/* Atomic replace: write to a temporary file of a random name made with
 * O_EXCL (mkostemp), fsync, rename, fsync the directory.  Mode 0644. */
int write_file_atomic(const char *path, const char *data, size_t len);
/* All of buf to fd, through short writes and EINTR: 0 or -errno. */
int loop_write(int fd, const void *buf, size_t len);
/* Up to len bytes from fd, until EOF, through short reads and EINTR: how
 * many, or -errno. */
ssize_t loop_read(int fd, void *buf, size_t len);
/* 0 if path is no symbolic link and no directory on the way to it is one
 * that someone other than root made (root's own, as /var/run, are fine);
 * -ELOOP if not.  The part of path that does not exist yet is not looked at. */
int path_check_links(const char *path);
int mkdir_p(const char *path, mode_t mode);
/* mkdir: 1 if made now, 0 if a directory (not a symbolic link) is there
 * already, -ELOOP for a symbolic link, -ENOTDIR for anything else. */
int mkdir_new(const char *path, mode_t mode);
/* 0 if root alone can change what path holds: path is a directory owned by
 * root and not writable by group or others, and so is every directory above
 * it (or sticky, as /tmp).  -EPERM if not, -ELOOP if path is a symbolic
 * link that root did not make. */
int dir_check_trusted(const char *path);
/* rm -rf of a directory slicebench made; through file descriptors opened
 * with O_NOFOLLOW, so that it never follows a symbolic link (even one
 * swapped in while it works) or crosses into another filesystem. */
int remove_tree(const char *path);
/* chown -R of what from owns in a tree slicebench made, the same careful
 * way: nothing of another owner changes hands. */
int chown_tree(const char *path, uid_t from, uid_t uid, gid_t gid);

/* Field 22 of /proc/PID/stat, 0 if there is no such process: with the
 * PID, it names one process for good (a recycled PID has another). */
unsigned long long proc_start_time(pid_t pid);
/* Field 4 of /proc/PID/stat, 0 if there is no such process. */
pid_t proc_parent(pid_t pid);
/* Is pid ancestor itself, or one of its descendants (64 generations at
 * most), by the parents /proc gives? */
bool proc_descends_from(pid_t pid, pid_t ancestor);

/* Is name (a path, or a word looked up in $PATH as execvp() would) an
 * executable?  Its path in *ret if ret is not NULL. */
bool executable_in_path(const char *name, char **ret);

/* Names from experiment files reach unit names, paths and SQL: they must match
 * [a-z0-9][a-z0-9_-]{0,39}. */
bool name_is_valid(const char *s);

/* Why name may not be the server's account, or NULL if it may: a portable
 * name ([a-z_][a-z0-9_-], at most 32: never numeric, which useradd, chown
 * and User= would take as a uid), neither root nor an account of uid 0. */
const char *user_name_refusal(const char *name);

/* src copied into buf (len bytes), always ended: 0, or -ENAMETOOLONG when
 * it did not fit and was cut.  The one form of a "%s" copy: a name or a
 * path that must be whole checks the result; a reason or a message cut to
 * its field's size says so with (void). */
int text_copy(char *buf, size_t len, const char *src);
/* asprintf that returns -ENOMEM on failure and sets *ret only on success. */
int xasprintf(char **ret, const char *fmt, ...) _printf_(2, 3);
/* snprintf into buf that holds the whole or fails: -ENAMETOOLONG where it
 * would be cut, since a path or a value cut short names another one. */
int snprintf_whole(char *buf, size_t len, const char *fmt, ...) _printf_(3, 4);

/* Frees a NULL-terminated array of strings and the strings; NULL is fine. */
void strv_free(char **l);
/* Words split on blanks, no quoting (a neighbour's command, [server]
 * groups): a NULL-terminated strv, maybe empty. */
int strv_split_words(const char *value, char ***ret);
static inline void strv_freep(char ***l) { strv_free(*l); }

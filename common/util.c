#include "common/util.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

double wall_clock_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int parse_u64(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_int_range(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int parse_duration_ns(const char *s, uint64_t *ret)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "ms", NSEC_PER_MSEC }, { "us", NSEC_PER_USEC }, { "s", NSEC_PER_SEC },
		{ "m", 60 * NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC }, { "h", 3600 * NSEC_PER_SEC }, { "", NSEC_PER_SEC },
	};
	size_t digits = s ? strspn(s, "0123456789") : 0, n = digits;
	double v, ns;

	/* Decimal digits with at most one point, then a unit: strtod alone
	 * would take 0x10s as 16 s and 1e3s as 1000 s. */
	if (digits == 0)
		return -EINVAL;
	if (s[n] == '.')
		n += 1 + strspn(s + n + 1, "0123456789");
	v = strtod(s, NULL);
	for (size_t i = 0; i < ELEMENTSOF(units); i++)
		if (streq(s + n, units[i].suffix)) {
			ns = v * (double)units[i].ns;
			/* A year at most: 9999999h would wrap a uint64_t to 0. */
			if (!(ns <= 366.0 * 24 * 3600 * NSEC_PER_SEC))
				return -ERANGE;
			*ret = (uint64_t)ns;
			return 0;
		}
	return -EINVAL;
}

int parse_size_bytes(const char *s, uint64_t *ret)
{
	size_t digits = s ? strspn(s, "0123456789") : 0;
	uint64_t v, mult = 1;
	_cleanup_free_ char *number = NULL;

	if (digits == 0 || digits > 19)
		return -EINVAL;
	switch (s[digits]) {
	case 0: break;
	case 'K': case 'k': mult = UINT64_C(1) << 10; break;
	case 'M': case 'm': mult = UINT64_C(1) << 20; break;
	case 'G': case 'g': mult = UINT64_C(1) << 30; break;
	case 'T': case 't': mult = UINT64_C(1) << 40; break;
	default: return -EINVAL;
	}
	if (s[digits] && s[digits + 1])
		return -EINVAL;
	number = strndup(s, digits);
	if (!number)
		return -ENOMEM;
	if (parse_u64(number, &v) < 0 || v > UINT64_MAX / mult)
		return -ERANGE;
	*ret = v * mult;
	return 0;
}

int parse_percent(const char *s, bool sign_required, double *ret)
{
	size_t len = s ? strlen(s) : 0, digits;
	char *end;
	double v;

	if (len && s[len - 1] == '%')
		len--;
	else if (sign_required)
		return -EINVAL;
	/* Digits with at most one point: no sign, exponent, hex or inf. */
	digits = strspn(s, "0123456789");
	if (digits == 0 || (digits < len && (s[digits] != '.' || strspn(s + digits + 1, "0123456789") != len - digits - 1)))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || (size_t)(end - s) != len)
		return -EINVAL;
	*ret = v;
	return 0;
}

int parse_int_list(const char *s, long min, long max, long *ret, size_t cap, size_t *ret_n)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL, *tok;
	size_t n = 0;
	int r;

	if (!s || !*s)
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		char *dash = strchr(tok, '-');
		long lo, hi;

		if (dash)
			*dash = 0;
		r = parse_int_range(tok, min, max, &lo);
		if (r < 0)
			return r;
		hi = lo;
		if (dash) {
			r = parse_int_range(dash + 1, min, max, &hi);
			if (r < 0)
				return r;
			if (hi < lo)
				return -EINVAL;
		}
		for (long v = lo; v <= hi; v++) {
			if (n >= cap)
				return -E2BIG;
			ret[n++] = v;
		}
	}
	if (n == 0)
		return -EINVAL;
	*ret_n = n;
	return 0;
}

int read_file_str(const char *path, char **ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	if (fd < 0)
		return -errno;
	/* Kernel files are small; cap at 1 MiB to refuse anything else.  A
	 * read() a page at a time: the telemetry reads thousands a second. */
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *p;

			if (cap >= (1u << 20))
				return -EFBIG;
			cap = cap ? cap * 2 : 4096;
			p = realloc(buf, cap);
			if (!p)
				return -ENOMEM;
			buf = p;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -EIO;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	while (len > 0 && buf[len - 1] == '\n')
		buf[--len] = 0;
	*ret = buf;
	buf = NULL;
	return 0;
}

int write_file_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	if ((size_t)n != len) {
		close(fd);
		return -EIO;
	}
	if (close(fd) < 0)
		return -errno;
	return 0;
}

int loop_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

ssize_t loop_read(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	_cleanup_free_ char *tmp = NULL, *dir = NULL;
	_cleanup_close_ int fd = -EBADF, dfd = -EBADF;
	char *slash;
	int r;

	/* A random name made with O_EXCL: whoever else can write in the
	 * directory cannot have planted a symbolic link there in advance. */
	r = xasprintf(&tmp, "%s.tmp.XXXXXX", path);
	if (r < 0)
		return r;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644) < 0) {
		r = -errno;
		goto fail;
	}
	r = loop_write(fd, data, len);
	if (r < 0)
		goto fail;
	if (fsync(fd) < 0) {
		r = -errno;
		goto fail;
	}
	r = close(fd);
	fd = -EBADF;
	if (r < 0) {
		r = -errno;
		goto fail;
	}
	/* rename() replaces a symbolic link at path; it never follows one. */
	if (rename(tmp, path) < 0) {
		r = -errno;
		goto fail;
	}
	dir = strdup(path);
	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	dfd = open(slash ? (*dir ? dir : "/") : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0 && fsync(dfd) < 0)
		return -errno;
	return 0;
fail:
	unlink(tmp);
	return r;
}

int mkdir_new(const char *path, mode_t mode)
{
	struct stat st;

	if (mkdir(path, mode) == 0)
		return 1;
	if (errno != EEXIST)
		return -errno;
	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* Owned by root and writable by root alone, or (for the directories above)
 * sticky, where others cannot rename what root made. */
static int check_owner_mode(const struct stat *st, bool self)
{
	if (!S_ISDIR(st->st_mode))
		return -ENOTDIR;
	if (st->st_uid != 0)
		return -EPERM;
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && (self || !(st->st_mode & S_ISVTX)))
		return -EPERM;
	return 0;
}

int dir_check_trusted(const char *path)
{
	_cleanup_free_ char *real = NULL;
	struct stat st;
	char *slash;
	int r;

	/* The name itself may be a symbolic link only if root made it. */
	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode) && st.st_uid != 0)
		return -ELOOP;
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	if (stat(real, &st) < 0)
		return -errno;
	r = check_owner_mode(&st, true);
	if (r < 0)
		return r;
	while ((slash = strrchr(real, '/'))) {
		*slash = 0;
		if (stat(*real ? real : "/", &st) < 0)
			return -errno;
		r = check_owner_mode(&st, false);
		if (r < 0)
			return r;
		if (!*real)
			break;
	}
	return 0;
}

int path_check_links(const char *path)
{
	_cleanup_free_ char *p = strdup(path);
	struct stat st;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (lstat(p, &st) < 0) {
			if (errno == ENOENT)
				return 0; /* the rest is made by the caller */
			return -errno;
		}
		if (S_ISLNK(st.st_mode) && st.st_uid != 0)
			return -ELOOP;
		*s = '/';
	}
	if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
		return -ELOOP;
	return 0;
}

int mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

unsigned long long proc_start_time(pid_t pid)
{
	_cleanup_free_ char *s = NULL;
	char path[64];
	const char *p;
	unsigned long long t = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file_str(path, &s) < 0 || !(p = strrchr(s, ')')))
		return 0;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &t) != 1)
		return 0;
	return t;
}

pid_t proc_parent(pid_t pid)
{
	_cleanup_free_ char *s = NULL;
	char path[64];
	const char *p;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file_str(path, &s) < 0 || !(p = strrchr(s, ')')) || sscanf(p + 2, "%*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

bool proc_descends_from(pid_t pid, pid_t ancestor)
{
	for (unsigned i = 0; i < 64 && pid > 1; i++, pid = proc_parent(pid))
		if (pid == ancestor)
			return true;
	return false;
}

bool name_is_valid(const char *s)
{
	size_t n;

	if (!s || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
		return false;
	for (n = 0; s[n]; n++)
		if (!(islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) || s[n] == '-' || s[n] == '_'))
			return false;
	return n <= 40;
}

int snprintf_whole(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 ? -EINVAL : (size_t)n >= len ? -ENAMETOOLONG : 0;
}

const char *user_name_refusal(const char *name)
{
	struct passwd *pw;
	size_t n;

	if (!(islower((unsigned char)name[0]) || name[0] == '_'))
		return "a user name starts with a lowercase letter or _ (a number would be taken as a uid)";
	for (n = 0; name[n]; n++)
		if (!(islower((unsigned char)name[n]) || isdigit((unsigned char)name[n]) || name[n] == '-' || name[n] == '_'))
			return "a user name is lowercase letters, digits, - and _";
	if (n > 32)
		return "a user name is at most 32 characters";
	if (streq(name, "root") || ((pw = getpwnam(name)) && pw->pw_uid == 0))
		return "the server's account is never root: a server running as root writes files of root's in the "
		       "datadir, and every program it starts runs as root";
	return NULL;
}

int xasprintf(char **ret, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	*ret = s;
	return 0;
}

void strv_free(char **l)
{
	if (!l)
		return;
	for (char **p = l; *p; p++)
		free(*p);
	free(l);
}

typedef int (*tree_visit_fn)(int dirfd, const char *name, const struct stat *st, void *userdata);

/* Visits what dfd holds, children before their directory, entry by entry
 * through file descriptors opened with O_NOFOLLOW, so that a directory
 * swapped for a symbolic link while we work (the tree may belong to the
 * server's user) is never followed, nor another filesystem entered. */
static int walk_children(int dfd, dev_t dev, unsigned depth, tree_visit_fn visit, void *userdata)
{
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > 64) {
		close(dfd);
		return -ELOOP;
	}
	d = fdopendir(dfd);
	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	while ((e = readdir(d))) {
		struct stat st;
		int fd, k;

		if (streq(e->d_name, ".") || streq(e->d_name, "..") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (st.st_dev != dev)
				continue; /* another filesystem: not ours */
			fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
			if (fd < 0)
				fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				if (errno != ENOENT && r == 0)
					r = -errno;
				continue;
			}
			if (fstat(fd, &st) < 0 || st.st_dev != dev) {
				close(fd);
				continue;
			}
			k = walk_children(fd, dev, depth + 1, visit, userdata);
			if (k < 0 && r == 0)
				r = k;
		}
		k = visit(dirfd(d), e->d_name, &st, userdata);
		if (k < 0 && k != -ENOENT && r == 0)
			r = k;
	}
	closedir(d);
	return r;
}

/* Opens path (not a symbolic link) and walks what it holds; *ret_st is
 * path's once it is open. */
static int walk_tree(const char *path, struct stat *ret_st, tree_visit_fn visit, void *userdata)
{
	int fd, r;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, ret_st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return walk_children(fd, ret_st->st_dev, 0, visit, userdata);
}

static int unlink_entry(int dirfd, const char *name, const struct stat *st, void *userdata _unused_)
{
	return unlinkat(dirfd, name, S_ISDIR(st->st_mode) ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
}

int remove_tree(const char *path)
{
	struct stat st = {};
	int r = walk_tree(path, &st, unlink_entry, NULL);

	if (!st.st_ino)
		return r; /* not opened: nothing to remove */
	if (rmdir(path) < 0 && r == 0)
		r = -errno;
	return r;
}

struct owners {
	uid_t from, uid;
	gid_t gid;
};

static int chown_entry(int dirfd, const char *name, const struct stat *st, void *userdata)
{
	const struct owners *o = userdata;

	if (st->st_uid != o->from)
		return 0;
	return fchownat(dirfd, name, o->uid, o->gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

int chown_tree(const char *path, uid_t from, uid_t uid, gid_t gid)
{
	struct owners o = { from, uid, gid };
	struct stat st = {};
	int r = walk_tree(path, &st, chown_entry, &o);

	if (r >= 0 && st.st_uid == from && lchown(path, uid, gid) < 0)
		r = -errno;
	return r;
}

bool executable_in_path(const char *name, char **ret)
{
	_cleanup_free_ char *path = strdup(getenv("PATH") ?: "/usr/sbin:/usr/bin:/sbin:/bin");
	char *save = NULL;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 && (!ret || (*ret = strdup(name)));
	for (char *d = path ? strtok_r(path, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
		_cleanup_free_ char *p = NULL;

		if (xasprintf(&p, "%s/%s", d, name) >= 0 && access(p, X_OK) == 0) {
			if (ret)
				*ret = p, p = NULL;
			return true;
		}
	}
	return false;
}

int strv_split_words(const char *value, char ***ret)
{
	_cleanup_free_ char *copy = strdup(value);
	char *save = NULL, **argv;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	argv = calloc(strlen(value) / 2 + 2, sizeof(char *));
	if (!argv)
		return -ENOMEM;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (!(argv[n++] = strdup(w))) {
			strv_free(argv);
			return -ENOMEM;
		}
	*ret = argv;
	return 0;
}

int text_copy(char *buf, size_t len, const char *src)
{
	return snprintf_whole(buf, len, "%s", src);
}

/* The template datadir of a dataset and the pristine copy of it that each
 * start takes (see datadir.h). */
#include "slices/server/datadir.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>

#include "slices/server/server.h"
#include "common/util.h"

#define TEMPLATES_MARKER ".slicebench-templates"
#define MANIFEST "manifest"
#define MANIFEST_HEAD "slicebench datadir template 1"
#define MANIFEST_MAX (64u << 20)
#define CHUNK (1u << 20)
#define PATH_DEPTH_MAX 16

static const uint64_t P1 = UINT64_C(0x9E3779B185EBCA87), P2 = UINT64_C(0xC2B2AE3D27D4EB4F);

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t lane(uint64_t acc, uint64_t word)
{
	return rotl64(acc + word * P2, 31) * P1;
}

uint64_t datadir_checksum(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t v[4] = { seed + P1 + P2, seed + P2, seed, seed - P1 }, h, w;
	size_t i = 0;

	for (; i + 32 <= len; i += 32)
		for (unsigned k = 0; k < 4; k++) {
			memcpy(&w, p + i + 8 * k, 8);
			v[k] = lane(v[k], w);
		}
	h = rotl64(v[0], 1) + rotl64(v[1], 7) + rotl64(v[2], 12) + rotl64(v[3], 18) + len;
	for (; i < len; i++)
		h = rotl64(h ^ (p[i] * P1), 11) * P2;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	return h;
}

/* The checksum of what fd holds, read in chunks, each chained to the last. */
static int checksum_fd(int fd, uint64_t *ret)
{
	_cleanup_free_ char *buf = malloc(CHUNK);
	uint64_t h = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	while ((n = loop_read(fd, buf, CHUNK)) > 0)
		h = datadir_checksum(buf, (size_t)n, h);
	if (n < 0)
		return (int)n;
	*ret = h;
	return 0;
}

void datadir_template_free(struct datadir_template *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_entries; i++)
		free(t->entries[i].path);
	free(t->entries);
	free(t->name);
	free(t->dir);
	free(t->key);
	free(t);
}

static char *state_dir_of(const struct server *s)
{
	const char *slash = strrchr(s->datadir, '/');

	return slash ? strndup(s->datadir, (size_t)(slash - s->datadir)) : NULL;
}

int datadir_template_key(const struct server *s, const char *dataset, char **ret_key, char **ret_name)
{
	_cleanup_free_ char *found = NULL, *real = NULL, *key = NULL;
	struct stat st;

	if (!executable_in_path(s->binary, &found) || !(real = realpath(found, NULL)))
		return -ENOENT;
	if (stat(real, &st) < 0)
		return -errno;
	if (xasprintf(&key, "engine=%s binary=%s size=%lld mtime=%lld.%09ld inode=%llu dataset=%s", s->engine->name,
		      real, (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		      (unsigned long long)st.st_ino, dataset) < 0)
		return -ENOMEM;
	if (xasprintf(ret_name, "%s-%.*s-%016" PRIx64, s->engine->name, (int)strcspn(dataset, " /"), dataset,
		      datadir_checksum(key, strlen(key), 0)) < 0)
		return -ENOMEM;
	*ret_key = key;
	key = NULL;
	return 0;
}

/* STATE/templates, made (root's, 0700, marked) if missing; -EPERM if it
 * is there without slicebench's mark or with another owner or mode. */
static int templates_dir(const char *state_dir, bool make, char **ret)
{
	_cleanup_free_ char *dir = NULL, *marker = NULL;
	struct stat st;
	int r;

	if (xasprintf(&dir, "%s/" DATADIR_TEMPLATES, state_dir) < 0 ||
	    xasprintf(&marker, "%s/" TEMPLATES_MARKER, dir) < 0)
		return -ENOMEM;
	if (lstat(dir, &st) < 0) {
		if (errno != ENOENT || !make)
			return -errno;
		r = mkdir_new(dir, 0700);
		if (r == 1)
			r = write_file_atomic(marker, "slicebench\n", 11);
		if (r < 0)
			return r;
		if (lstat(dir, &st) < 0)
			return -errno;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077))
		return -EPERM;
	if (lstat(marker, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0)
		return -EPERM;
	*ret = dir;
	dir = NULL;
	return 0;
}

/* What of the datadir the template leaves out: slicebench's mark (each
 * copy gets its own) and the server's log (each start's own). */
static bool left_out(const struct server *s, const char *rel)
{
	return streq(rel, SERVER_DATADIR_MARKER) || streq(rel, s->engine->log_name);
}

static int entries_add(struct datadir_template *t, const char *rel, const struct stat *st, uint64_t sum)
{
	struct datadir_entry *e = reallocarray(t->entries, t->n_entries + 1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	t->entries = e;
	e = &e[t->n_entries];
	*e = (struct datadir_entry){ .path = strdup(rel), .dir = S_ISDIR(st->st_mode), .mode = st->st_mode & 07777,
				     .size = S_ISDIR(st->st_mode) ? 0 : (uint64_t)st->st_size, .sum = sum };
	if (!e->path)
		return -ENOMEM;
	t->n_entries++;
	t->bytes += e->size;
	return 0;
}

/* Lists (pre-order) and checksums what the directory dfd holds, prefix its
 * path in the datadir; only directories and regular files are taken. */
static int scan(const struct server *s, int dfd, const char *prefix, unsigned depth, struct datadir_template *t)
{
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (depth > PATH_DEPTH_MAX)
		return -ELOOP;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -errno;
	}
	while (r >= 0 && (errno = 0, de = readdir(d))) {
		_cleanup_free_ char *rel = NULL;
		_cleanup_close_ int fd = -EBADF;
		struct stat st;
		uint64_t sum = 0;

		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (strchr(de->d_name, '\n') || xasprintf(&rel, "%s%s", prefix, de->d_name) < 0) {
			r = strchr(de->d_name, '\n') ? -EINVAL : -ENOMEM;
			break;
		}
		if (left_out(s, rel))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			break;
		}
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
			r = -EINVAL; /* a socket, FIFO or device in a datadir is not data */
			break;
		}
		if (S_ISREG(st.st_mode))
			r = checksum_fd(fd, &sum);
		if (r >= 0)
			r = entries_add(t, rel, &st, sum);
		if (r >= 0 && S_ISDIR(st.st_mode)) {
			_cleanup_free_ char *sub = NULL;

			r = xasprintf(&sub, "%s/", rel);
			if (r >= 0)
				r = scan(s, fd, sub, depth + 1, t);
			fd = -EBADF; /* scan() owns it */
		}
	}
	if (r >= 0 && errno)
		r = -errno;
	closedir(d);
	return r;
}

/* The manifest: its head, the key, a line per entry ("d MODE PATH", "f MODE
 * SIZE SUM PATH"), and the checksum of all of it before its last line. */
static int manifest_write(const struct datadir_template *t, const char *path)
{
	_cleanup_free_ char *text = NULL, *whole = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	fprintf(f, MANIFEST_HEAD "\nkey %s\n", t->key);
	for (size_t i = 0; i < t->n_entries; i++) {
		const struct datadir_entry *e = &t->entries[i];

		if (e->dir)
			fprintf(f, "d %04o %s\n", e->mode, e->path);
		else
			fprintf(f, "f %04o %" PRIu64 " %016" PRIx64 " %s\n", e->mode, e->size, e->sum, e->path);
	}
	if (fclose(f) != 0 || !text)
		return -ENOMEM;
	if (xasprintf(&whole, "%ssum %016" PRIx64 "\n", text, datadir_checksum(text, len, 0)) < 0)
		return -ENOMEM;
	return write_file_atomic(path, whole, strlen(whole));
}

/* One line of the manifest into t; -EBADMSG if it is not one. */
static int manifest_line(struct datadir_template *t, const char *line)
{
	struct stat st = {};
	unsigned mode;
	uint64_t size, sum;
	int n = 0;

	if (sscanf(line, "d %o %n", &mode, &n) == 1 && n > 0) {
		st.st_mode = S_IFDIR | mode;
		return line[n] ? entries_add(t, line + n, &st, 0) : -EBADMSG;
	}
	if (sscanf(line, "f %o %" SCNu64 " %" SCNx64 " %n", &mode, &size, &sum, &n) == 3 && n > 0 && line[n]) {
		st.st_mode = S_IFREG | mode;
		st.st_size = (off_t)size;
		return entries_add(t, line + n, &st, sum);
	}
	return -EBADMSG;
}

/* The manifest read back into t (key and entries), its own checksum and
 * every line checked; -EBADMSG for one that is not whole. */
static int manifest_read(struct datadir_template *t, const char *path)
{
	_cleanup_free_ char *text = NULL;
	char *sum_line, *line, *next;
	uint64_t sum;
	struct stat st;
	int r;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0)
		return -EBADMSG;
	r = read_file_str(path, &text);
	if (r < 0)
		return r == -EFBIG ? -EBADMSG : r;
	sum_line = strrchr(text, '\n');
	if (!sum_line || sscanf(sum_line + 1, "sum %" SCNx64, &sum) != 1 ||
	    datadir_checksum(text, (size_t)(sum_line + 1 - text), 0) != sum)
		return -EBADMSG;
	*sum_line = 0;
	if (strncmp(text, MANIFEST_HEAD "\nkey ", strlen(MANIFEST_HEAD) + 5) != 0)
		return -EBADMSG;
	line = text + strlen(MANIFEST_HEAD) + 5;
	next = strchr(line, '\n');
	t->key = strndup(line, next ? (size_t)(next - line) : strlen(line));
	if (!t->key)
		return -ENOMEM;
	for (line = next ? next + 1 : NULL; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		r = manifest_line(t, line);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A path of the manifest: relative, without a ".." or an empty element,
 * so that it stays inside the datadir. */
static bool rel_is_plain(const char *rel)
{
	if (!*rel || *rel == '/')
		return false;
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 2 && p[0] == '.' && p[1] == '.') || (n == 1 && p[0] == '.'))
			return false;
		p += n;
		p += *p == '/';
	}
	return true;
}

/* Every entry of t there under data/ as the manifest has it, each file's
 * content of its size and checksum; a text saying what differs in *ret_why. */
static int template_verify(const struct datadir_template *t, int data_fd, char **ret_why)
{
	for (size_t i = 0; i < t->n_entries; i++) {
		const struct datadir_entry *e = &t->entries[i];
		_cleanup_close_ int fd = -EBADF;
		struct stat st;
		uint64_t sum;
		int r;

		if (!rel_is_plain(e->path))
			return xasprintf(ret_why, "its manifest names %s", e->path) < 0 ? -ENOMEM : -EBADMSG;
		fd = openat(data_fd, e->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0)
			return xasprintf(ret_why, "%s: %s", e->path, strerror(errno)) < 0 ? -ENOMEM : -EBADMSG;
		if (S_ISDIR(st.st_mode) != e->dir || (!e->dir && !S_ISREG(st.st_mode)) || (st.st_mode & 07777) != e->mode ||
		    (!e->dir && (uint64_t)st.st_size != e->size))
			return xasprintf(ret_why, "%s is not the %s its manifest lists", e->path, e->dir ? "directory" : "file") < 0
				       ? -ENOMEM
				       : -EBADMSG;
		if (e->dir)
			continue;
		r = checksum_fd(fd, &sum);
		if (r < 0)
			return r;
		if (sum != e->sum)
			return xasprintf(ret_why, "%s does not have the checksum its manifest lists", e->path) < 0 ? -ENOMEM
														     : -EBADMSG;
	}
	return 0;
}

static int template_new(const char *tdir, const char *name, struct datadir_template **ret)
{
	struct datadir_template *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	if (!(t->name = strdup(name)) || xasprintf(&t->dir, "%s/%s", tdir, name) < 0) {
		datadir_template_free(t);
		return -ENOMEM;
	}
	*ret = t;
	return 0;
}

/* The template at t->dir read and checked; -EBADMSG with *ret_why when it
 * is not whole or not the one of key. */
static int template_load(struct datadir_template *t, const char *key, char **ret_why)
{
	_cleanup_free_ char *manifest = NULL, *data = NULL;
	_cleanup_close_ int fd = -EBADF;
	int r;

	if (xasprintf(&manifest, "%s/" MANIFEST, t->dir) < 0 || xasprintf(&data, "%s/data", t->dir) < 0)
		return -ENOMEM;
	r = manifest_read(t, manifest);
	if (r == -EBADMSG || r == -ENOENT)
		return xasprintf(ret_why, "its manifest is %s", r == -ENOENT ? "missing" : "not whole") < 0 ? -ENOMEM
													  : -EBADMSG;
	if (r < 0)
		return r;
	if (!streq(t->key, key))
		return xasprintf(ret_why, "it was made from another server binary or dataset (%s)", t->key) < 0 ? -ENOMEM
														: -EBADMSG;
	fd = open(data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return xasprintf(ret_why, "its data/ cannot be opened: %s", strerror(errno)) < 0 ? -ENOMEM : -EBADMSG;
	return template_verify(t, fd, ret_why);
}

/* The template of that name in s's state directory (not read): its
 * STATE/templates made if missing, or -EPERM if not slicebench's. */
static int template_of(const struct server *s, const char *name, struct datadir_template **ret)
{
	_cleanup_free_ char *state = state_dir_of(s), *tdir = NULL;
	int r;

	if (!state)
		return -ENOMEM;
	r = templates_dir(state, true, &tdir);
	return r < 0 ? r : template_new(tdir, name, ret);
}

int datadir_template_find(const struct server *s, const char *key, const char *name, struct datadir_template **ret,
			  char **ret_why)
{
	_cleanup_(datadir_template_freep) struct datadir_template *t = NULL;
	_cleanup_free_ char *why = NULL;
	struct stat st;
	int r;

	*ret_why = NULL;
	r = template_of(s, name, &t);
	if (r < 0)
		return r;
	if (lstat(t->dir, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	r = S_ISDIR(st.st_mode) ? template_load(t, key, &why) : -EBADMSG;
	if (r == -EBADMSG) {
		/* Ours (nothing else writes in STATE/templates): built anew. */
		*ret_why = why ? why : strdup("it is not a directory");
		why = NULL;
		r = S_ISDIR(st.st_mode) ? remove_tree(t->dir) : unlink(t->dir) < 0 ? -errno : 0;
		return r < 0 ? r : 0;
	}
	if (r < 0)
		return r;
	*ret = t;
	t = NULL;
	return 1;
}

int datadir_template_save(const struct server *s, const char *key, const char *name, struct datadir_template **ret)
{
	_cleanup_free_ char *tmp = NULL, *data = NULL, *manifest = NULL, *marker = NULL;
	_cleanup_(datadir_template_freep) struct datadir_template *t = NULL;
	int fd, r;

	r = template_of(s, name, &t);
	if (r < 0)
		return r;
	if (!(t->key = strdup(key)) || xasprintf(&tmp, "%s.new", t->dir) < 0 || xasprintf(&data, "%s/data", tmp) < 0 ||
	    xasprintf(&manifest, "%s/" MANIFEST, tmp) < 0 || xasprintf(&marker, "%s/" SERVER_DATADIR_MARKER, data) < 0)
		return -ENOMEM;
	r = remove_tree(tmp);
	if (r < 0 && r != -ENOENT)
		return r;
	r = mkdir_new(tmp, 0700);
	if (r >= 0 && rename(s->datadir, data) < 0)
		r = -errno;
	if (r >= 0 && (fd = open(data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		r = -errno;
	if (r >= 0)
		r = scan(s, fd, "", 0, t);
	if (r >= 0)
		r = manifest_write(t, manifest);
	/* The old one of that name was found wanting or there was none. */
	if (r >= 0 && (r = remove_tree(t->dir)) == -ENOENT)
		r = 0;
	if (r >= 0 && rename(tmp, t->dir) < 0)
		r = -errno;
	if (r < 0) {
		(void)remove_tree(tmp);
		return r;
	}
	(void)unlink(marker);
	*ret = t;
	t = NULL;
	return 0;
}

/* len bytes from in to out at off, in the kernel: copy_file_range, or
 * sendfile where the filesystems or the kernel refuse it. */
static int copy_range(int in, int out, off_t off, uint64_t len, bool *no_cfr)
{
	while (len > 0) {
		size_t chunk = (size_t)MIN(len, (uint64_t)1 << 30);
		off_t in_off = off, out_off = off;
		ssize_t n = -1;

		if (!*no_cfr) {
			n = copy_file_range(in, &in_off, out, &out_off, chunk, 0);
			if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL))
				*no_cfr = true;
		}
		if (*no_cfr && lseek(out, off, SEEK_SET) == off)
			n = sendfile(out, in, &in_off, chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -EIO : -errno;
		off += n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* The data of in (size bytes) into out, its holes left holes: only what
 * SEEK_DATA finds is copied, and the size set at the end.  *no_cfr: the
 * kernel refused copy_file_range() once, sendfile() from then on. */
static int copy_sparse(int in, int out, uint64_t size, bool *no_cfr)
{
	off_t data = 0, hole;
	int r;

	while ((uint64_t)data < size) {
		data = lseek(in, data, SEEK_DATA);
		if (data < 0)
			break; /* ENXIO: no data after it */
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		hole = (off_t)MIN((uint64_t)hole, size);
		r = copy_range(in, out, data, (uint64_t)(hole - data), no_cfr);
		if (r < 0)
			return r;
		data = hole;
	}
	if (data < 0 && errno != ENXIO)
		return -errno;
	return ftruncate(out, (off_t)size) < 0 ? -errno : 0;
}

/* One file of the template into the copy: cloned where the filesystem can
 * (*cloned set), else copied; the server user's, synced. */
static int copy_file(int src_dir, int dst_dir, const struct datadir_entry *e, const struct passwd *pw, bool *cloned,
		     bool *no_cfr)
{
	_cleanup_close_ int in = -EBADF, out = -EBADF;
	int r;

	in = openat(src_dir, e->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (in < 0)
		return -errno;
	out = openat(dst_dir, e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, e->mode);
	if (out < 0)
		return -errno;
	*cloned = ioctl(out, FICLONE, in) == 0;
	r = *cloned ? 0 : copy_sparse(in, out, e->size, no_cfr);
	if (r >= 0 && (fchown(out, pw->pw_uid, pw->pw_gid) < 0 || fchmod(out, e->mode) < 0))
		r = -errno;
	/* Written back now, not under the steps that follow. */
	if (r >= 0 && !*cloned && fdatasync(out) < 0)
		r = -errno;
	return r;
}

static int copy_entries(const struct datadir_template *t, int src, int dst, const struct passwd *pw,
			struct datadir_copy *c)
{
	bool all_cloned = true, no_cfr = false;

	for (size_t i = 0; i < t->n_entries; i++) {
		const struct datadir_entry *e = &t->entries[i];
		bool cloned = false;
		int r;

		if (!rel_is_plain(e->path))
			return -EBADMSG;
		if (e->dir) {
			if (mkdirat(dst, e->path, 0700) < 0 || fchownat(dst, e->path, pw->pw_uid, pw->pw_gid, AT_SYMLINK_NOFOLLOW) < 0 ||
			    fchmodat(dst, e->path, e->mode, 0) < 0)
				return -errno;
			continue;
		}
		r = copy_file(src, dst, e, pw, &cloned, &no_cfr);
		if (r < 0)
			return r;
		all_cloned &= cloned;
		c->bytes += e->size;
		c->files++;
	}
	c->how = all_cloned ? "reflink" : "copy";
	return 0;
}

int datadir_template_copy(const struct datadir_template *t, const struct server *s, struct datadir_copy *ret)
{
	_cleanup_free_ char *data = NULL, *tmp = NULL, *marker = NULL;
	_cleanup_close_ int src = -EBADF, dst = -EBADF;
	struct datadir_copy c = {};
	struct passwd *pw = getpwnam(s->user);
	uint64_t start = now_ns();
	int r;

	if (!pw)
		return -ESRCH;
	if (xasprintf(&data, "%s/data", t->dir) < 0 || xasprintf(&tmp, "%s.new", s->datadir) < 0 ||
	    xasprintf(&marker, "%s/" SERVER_DATADIR_MARKER, tmp) < 0)
		return -ENOMEM;
	r = remove_tree(tmp);
	if (r < 0 && r != -ENOENT)
		return r;
	/* Root's alone until whole: no one reaches into it while it is made. */
	if (mkdir(tmp, 0700) < 0)
		return -errno;
	src = open(data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dst = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	r = src < 0 || dst < 0 ? -errno : copy_entries(t, src, dst, pw, &c);
	if (r >= 0)
		r = write_file_atomic(marker, "slicebench\n", 11);
	if (r >= 0 && fchown(dst, pw->pw_uid, pw->pw_gid) < 0)
		r = -errno;
	/* The old copy goes (never a datadir slicebench did not make), the new one takes its place. */
	if (r >= 0 && access(s->datadir, F_OK) == 0 && !server_datadir_is_ours(s))
		r = -EEXIST;
	if (r >= 0 && (r = remove_tree(s->datadir)) == -ENOENT)
		r = 0;
	if (r >= 0 && rename(tmp, s->datadir) < 0)
		r = -errno;
	if (r < 0) {
		(void)remove_tree(tmp);
		return r;
	}
	c.seconds = (double)(now_ns() - start) / 1e9;
	if (ret)
		*ret = c;
	return 0;
}

/* Removes path (a directory of slicebench's) and says so; 1 if it was there. */
static int remove_said(const char *path, const char *what)
{
	int r = remove_tree(path);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	printf("removed %s %s\n", what, path);
	return 1;
}

int datadir_templates_cleanup(const char *state_dir, bool all)
{
	_cleanup_free_ char *tdir = NULL;
	struct dirent **names = NULL;
	int n, r, cleared = 0;

	/* A copy cut short is DATADIR.new, as a first setup's: server_remove_half_made()'s. */
	r = templates_dir(state_dir, false, &tdir);
	if (r == -ENOENT)
		return cleared;
	if (r < 0)
		return r;
	n = scandir(tdir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		_cleanup_free_ char *path = NULL;

		bool half_made = len > 4 && streq(name + len - 4, ".new");

		if (name[0] != '.' && (all || half_made) && xasprintf(&path, "%s/%s", tdir, name) >= 0 &&
		    remove_said(path, half_made ? "the half-made template" : "the template") > 0)
			cleared++;
		free(names[i]);
	}
	free(names);
	return cleared;
}

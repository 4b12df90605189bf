/* The user's own workload: a sysbench script run by sysbench, or pgbench
 * scripts (each FILE[@WEIGHT]) run by pgbench -f, on the workload's
 * dataset.  The scripts are read twice before anything starts: by the tool
 * itself, which refuses a script it cannot parse with the file and the
 * line, and into the results directory, content and hash, so that a
 * result names exactly what ran. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>

#include "oltp/options.h"
#include "oltp/script.h"
#include "oltp/tool.h"
#include "common/sha256.h"
#include "common/util.h"

/* A script larger than this is no script. */
#define SCRIPT_MAX (1u << 20)

/* The path of a script word: up to a pgbench @WEIGHT. */
static size_t script_path_len(const char *word, size_t len)
{
	const char *at = memrchr(word, '@', len);

	return at ? (size_t)(at - word) : len;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

int oltp_script_workload(const char *value, enum oltp_workload *ret)
{
	size_t n = 0, lua = 0, sql = 0;

	for (const char *s = value + strspn(value, " "); *s; s += strspn(s, " ")) {
		size_t len = strcspn(s, " ");

		n++;
		lua += ends_with(s, script_path_len(s, len), ".lua");
		sql += ends_with(s, script_path_len(s, len), ".sql");
		s += len;
	}
	if (n == 1 && lua == 1)
		*ret = OLTP_WORKLOAD_LUA_SCRIPT;
	else if (n && sql == n)
		*ret = OLTP_WORKLOAD_PGBENCH_SCRIPT;
	else
		return -EINVAL;
	return 0;
}

int oltp_script_args(const struct oltp_options *o, struct tool_argv *a)
{
	const char *s = o->scripts;

	if (!s)
		return -EINVAL;
	if (o->workload == OLTP_WORKLOAD_LUA_SCRIPT) {
		tool_arg(a, "%s", s);
		return 0;
	}
	for (s += strspn(s, " "); *s; s += strspn(s, " ")) {
		size_t len = strcspn(s, " ");

		tool_arg(a, "--file=%.*s", (int)len, s);
		s += len;
	}
	return 0;
}

/* The tool's own reading of the scripts, with no server: sysbench's help
 * command loads the script; pgbench parses every -f before it connects,
 * so a run that got as far as a connection (to a socket that is not
 * there) parsed them all. */
static int tool_parses(const struct oltp_options *o, char **ret_out, bool *ret_ok)
{
	_cleanup_(tool_argv_done) struct tool_argv a = {};
	int status = 0, r;

	if (o->workload == OLTP_WORKLOAD_LUA_SCRIPT) {
		tool_arg(&a, "%s", o->sysbench_path);
		r = oltp_script_args(o, &a);
		tool_arg(&a, "help");
	} else {
		tool_arg(&a, "%s", tool_pgbench(o));
		tool_arg(&a, "--no-vacuum");
		tool_arg(&a, "--host=/nonexistent");
		tool_arg(&a, "--transactions=1");
		r = oltp_script_args(o, &a);
	}
	if (r < 0)
		return r;
	r = tool_run(o, &a, 20, NULL, ret_out, &status);
	if (r < 0)
		return r;
	*ret_ok = o->workload == OLTP_WORKLOAD_LUA_SCRIPT ? WIFEXITED(status) && WEXITSTATUS(status) == 0
							  : strstr(*ret_out, "connection to server") != NULL;
	return 0;
}

int oltp_script_help(const struct oltp_options *o, char **ret_help)
{
	bool ok = false;
	int r = tool_parses(o, ret_help, &ok);

	return r < 0 ? r : ok ? 0 : -EINVAL;
}

int oltp_script_check(const struct oltp_options *o, char **ret_why)
{
	_cleanup_free_ char *out = NULL;
	const char *line;
	bool ok = false;
	int r = tool_parses(o, &out, &ok);

	*ret_why = NULL;
	if (r < 0)
		return r;
	if (ok)
		return 0;
	/* sysbench's "FATAL: FILE:LINE: why", pgbench's "pgbench: error: FILE:LINE: why" */
	line = strstr(out, "FATAL: ");
	line = line ? line + 7 : strstr(out, "error: ") ? strstr(out, "error: ") + 7 : out;
	if (xasprintf(ret_why, "%.*s", (int)MIN(strcspn(line, "\n"), (size_t)300), line) < 0)
		return -ENOMEM;
	return -EINVAL;
}

/* The whole file, at most SCRIPT_MAX bytes, in *ret (NUL-terminated). */
static int read_script(const char *path, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	_cleanup_free_ char *buf = malloc(SCRIPT_MAX + 1);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (!buf)
		return -ENOMEM;
	while (len <= SCRIPT_MAX && (n = read(fd, buf + len, SCRIPT_MAX + 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		len += (size_t)n;
	}
	if (len > SCRIPT_MAX)
		return -EFBIG;
	buf[len] = 0;
	*ret_len = len;
	*ret = buf;
	buf = NULL;
	return 0;
}

/* RFC 4648's base64 of len bytes, NUL-terminated (to free): a results
 * file holds no control character, and a script has newlines and tabs. */
static char *base64(const unsigned char *p, size_t len)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	for (size_t i = 0; out && i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < len ? p[i + 2] : 0);

		*o++ = digits[v >> 18];
		*o++ = digits[(v >> 12) & 63];
		*o++ = i + 1 < len ? digits[(v >> 6) & 63] : '=';
		*o++ = i + 2 < len ? digits[v & 63] : '=';
	}
	if (out)
		*o = 0;
	return out;
}

/* {"file", "weight", "sha256", "bytes", "base64"} of one script word. */
static json_t *script_json(const char *word, size_t len)
{
	size_t path_len = script_path_len(word, len);
	_cleanup_free_ char *path = strndup(word, path_len), *content = NULL, *encoded = NULL;
	char hex[SHA256_HEX_LEN + 1];
	unsigned long weight = 1;
	size_t bytes = 0;

	if (!path || read_script(path, &content, &bytes) < 0)
		return NULL;
	if (path_len < len)
		weight = strtoul(word + path_len + 1, NULL, 10);
	sha256_hex(content, bytes, hex);
	encoded = base64((const unsigned char *)content, bytes);
	if (!encoded)
		return NULL;
	return json_pack("{s:s, s:I, s:s, s:I, s:s}", "file", path, "weight", (json_int_t)weight, "sha256", hex,
			 "bytes", (json_int_t)bytes, "base64", encoded);
}

json_t *oltp_scripts_json(const char *scripts)
{
	json_t *a = json_array();

	for (const char *s = scripts + strspn(scripts, " "); a && *s; s += strspn(s, " ")) {
		size_t len = strcspn(s, " ");

		if (json_array_append_new(a, script_json(s, len)) < 0) {
			json_decref(a);
			return NULL;
		}
		s += len;
	}
	return a;
}

int oltp_scripts_unchanged(const json_t *recorded, char **ret_why)
{
	const json_t *v;
	size_t i;

	*ret_why = NULL;
	json_array_foreach(recorded, i, v) {
		const char *file = json_string_value(json_object_get(v, "file")),
			   *was = json_string_value(json_object_get(v, "sha256"));
		_cleanup_free_ char *content = NULL;
		char now[SHA256_HEX_LEN + 1];
		size_t bytes = 0;
		int r;

		if (!file || !was)
			continue;
		r = read_script(file, &content, &bytes);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return xasprintf(ret_why, "%s: cannot read it again: %s", file, strerror(-r)) < 0 ? -ENOMEM : -ESTALE;
		sha256_hex(content, bytes, now);
		if (!streq(now, was))
			return xasprintf(ret_why, "%s has changed since the run (SHA-256 %.12s... recorded, %.12s... now): "
					 "its steps and the new ones would be two workloads", file, was, now) < 0
				       ? -ENOMEM
				       : -ESTALE;
	}
	return 0;
}

/* Logging (common/util.h): a message to stderr, and a copy with the wall
 * clock in a results directory's log while a run writes one; and the one
 * status line on a terminal that a message clears first. */
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>

#include "common/util.h"

static int log_copy_fd = -EBADF;
static bool status_shown;

void log_copy_to(int fd)
{
	log_copy_fd = fd;
}

/* "2026-12-06 20:19:33.512 " into buf: when a copied line was said. */
static const char *log_stamp(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	n = strftime(buf, len, "%Y-%m-%d %H:%M:%S", localtime_r(&ts.tv_sec, &tm));
	snprintf(buf + n, len - n, ".%03ld", ts.tv_nsec / 1000000);
	return buf;
}

void log_copy_line(const char *line)
{
	char stamp[48];

	if (log_copy_fd >= 0)
		dprintf(log_copy_fd, "%s %s\n", log_stamp(stamp, sizeof(stamp)), line);
}

void status_show(const char *text)
{
	/* One line: cut to the terminal's width, where a wrapped line could
	 * not be taken back by the next. */
	fprintf(stderr, "\r\033[K%.*s", (int)MAX(terminal_columns(STDERR_FILENO), 20) - 1, text);
	fflush(stderr);
	status_shown = true;
}

void status_clear(void)
{
	if (!status_shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	status_shown = false;
}

size_t terminal_columns(int fd)
{
	struct winsize ws;

	return isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

static void log_vmsg(int level, int r, const char *fmt, va_list ap)
{
	_cleanup_free_ char *text = NULL;
	char stamp[48];

	/* %m in our messages means the error passed in, not errno. */
	errno = r < 0 ? -r : r;
	if (vasprintf(&text, fmt, ap) < 0)
		return;
	status_clear();
	fprintf(stderr, "slicebench: %s%s\n", level == LOG_WARN_ ? "warning: " : "", text);
	if (log_copy_fd >= 0)
		dprintf(log_copy_fd, "%s %s%s\n", log_stamp(stamp, sizeof(stamp)),
			level == LOG_WARN_ ? "warning: " : level <= LOG_ERR_ ? "error: " : "", text);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(level, 0, fmt, ap);
	va_end(ap);
}

int log_errno(int level, int r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(level, r, fmt, ap);
	va_end(ap);
	return r < 0 ? r : -r;
}


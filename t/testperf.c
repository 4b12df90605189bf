#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "testperf.h"

bool test_perf_usable(void)
{
	return system("perf stat -e task-clock true >/dev/null 2>&1") == 0;
}

static void command(struct test_perf *p, const char *cmd)
{
	char ack[8] = "";

	if (write(p->ctl, cmd, strlen(cmd)) != (ssize_t)strlen(cmd) || read(p->ack, ack, sizeof(ack) - 1) <= 0)
		bail_out("perf stat's control: %m");
}

void test_perf_open(struct test_perf *p, const char *args)
{
	char ctl[256], ack[256], end[256], cmd[1024];

	snprintf(ctl, sizeof(ctl), "%s/perf-ctl", scratch_dir());
	snprintf(ack, sizeof(ack), "%s/perf-ack", scratch_dir());
	snprintf(end, sizeof(end), "%s/perf-end", scratch_dir());
	unlink(ctl);
	unlink(ack);
	unlink(end);
	if (mkfifo(ctl, 0600) < 0 || mkfifo(ack, 0600) < 0 || mkfifo(end, 0600) < 0)
		bail_out("mkfifo: %m");
	snprintf(cmd, sizeof(cmd), "perf stat -x, -D -1 --control fifo:%s,%s %s -- sh -c 'read x <%s' 2>&1 >/dev/null",
		 ctl, ack, args, end);
	p->out = popen(cmd, "re");
	p->ctl = p->out ? open(ctl, O_WRONLY | O_CLOEXEC) : -1;
	p->ack = p->ctl >= 0 ? open(ack, O_RDONLY | O_CLOEXEC) : -1;
	p->end = p->ack >= 0 ? open(end, O_WRONLY | O_CLOEXEC) : -1;
	if (p->end < 0)
		bail_out("perf stat: %m");
	command(p, "enable\n");
}

void test_perf_close(struct test_perf *p, const char *const *events, double *ret, size_t n)
{
	char line[512];

	command(p, "disable\n");
	if (write(p->end, "\n", 1) != 1)
		bail_out("perf stat's workload: %m");
	close(p->end);
	for (size_t i = 0; i < n; i++)
		ret[i] = NAN;
	/* value,unit,event,...: the event is the third field */
	while (fgets(line, sizeof(line), p->out)) {
		char *f1 = strchr(line, ','), *f2 = f1 ? strchr(f1 + 1, ',') : NULL;

		for (size_t i = 0; f2 && i < n; i++)
			if (strncmp(f2 + 1, events[i], strlen(events[i])) == 0 && f2[1 + strlen(events[i])] == ',')
				ret[i] = strtod(line, NULL);
	}
	pclose(p->out);
	close(p->ctl);
	close(p->ack);
}

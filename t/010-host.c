/* host_facts_collect: the facts match what the test reads on its own. */
#include <linux/magic.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <sys/utsname.h>

#include "host/facts.h"
#include "tap.h"
#include "common/util.h"

/* vendor_id from /proc/cpuinfo, read independently of the code under test. */
static char *cpuinfo_vendor(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512], v[256];

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "vendor_id : %255s", v) == 1)
			return strdup(v);
	return NULL;
}

static const char *expected_cgroup_mode(void)
{
	struct statfs s;

	if (statfs("/sys/fs/cgroup", &s) < 0)
		return NULL;
	if (s.f_type == CGROUP2_SUPER_MAGIC)
		return "unified";
	if (statfs("/sys/fs/cgroup/unified", &s) == 0 && s.f_type == CGROUP2_SUPER_MAGIC)
		return "hybrid";
	return "legacy";
}

static const char *str_at(json_t *facts, const char *section, const char *key)
{
	return json_string_value(json_object_get(json_object_get(facts, section), key));
}

int main(void)
{
	json_auto_t *facts = NULL;
	_cleanup_free_ char *vendor = NULL;
	struct utsname u;
	json_t *threads, *l3, *mode;
	int r;

	plan(10);

	r = host_facts_collect(&facts);
	if (!is_int(r, 0, "host_facts_collect succeeds"))
		bail_out("no facts: %s", strerror(-r));
	ok(json_is_object(facts), "facts are a JSON object");
	is_int(json_integer_value(json_object_get(facts, "format_version")), 1, "format_version is 1");

	vendor = cpuinfo_vendor();
	if (vendor)
		is_str(str_at(facts, "cpu", "vendor"), vendor, "cpu.vendor is vendor_id from /proc/cpuinfo");
	else
		ok(json_is_null(json_object_get(json_object_get(facts, "cpu"), "vendor")),
		   "cpu.vendor is null without vendor_id in /proc/cpuinfo");

	threads = json_object_get(json_object_get(facts, "cpu"), "threads");
	ok(json_is_integer(threads), "cpu.threads is an integer");
	is_int(json_integer_value(threads), sysconf(_SC_NPROCESSORS_ONLN), "cpu.threads is the online CPU count");

	mode = json_object_get(json_object_get(facts, "cgroup"), "mode");
	if (expected_cgroup_mode())
		is_str(json_string_value(mode), expected_cgroup_mode(), "cgroup.mode matches statfs");
	else
		ok(json_is_null(mode), "cgroup.mode is null without /sys/fs/cgroup");
	diag("cgroup mode here: %s", strempty(json_string_value(mode)));

	if (uname(&u) < 0)
		bail_out("uname: %m");
	is_str(str_at(facts, "kernel", "release"), u.release, "kernel.release is uname().release");

	l3 = json_object_get(json_object_get(facts, "cpu"), "l3_groups");
	ok(json_is_array(l3), "cpu.l3_groups is an array (%zu groups)", json_array_size(l3));

	/* systemd.version and systemd.reason: exactly one of them is set. */
	ok(json_is_string(json_object_get(json_object_get(facts, "systemd"), "version")) !=
		   json_is_string(json_object_get(json_object_get(facts, "systemd"), "reason")),
	   "systemd: a version or a reason, not both");

	return done_testing();
}

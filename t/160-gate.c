/* The trust gate's column and its allow-lists (slices/attr/gate.h): every
 * row of the attribute table and of the experiment key table says what
 * its setting can do, and every row that can do anything has an
 * allow-list; then each allow-list on real files, accounts and groups:
 * capabilities beyond the safe list, another account, a group that only
 * gives access, environment names that would split, code-choosing
 * variables naming a file anyone could have put there, EnvironmentFile=
 * of /etc/shadow or of a user's file; and a placement's keys as a replay
 * or explain's hybrids would take them. */
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "experiment/parse.h"
#include "slices/attr/gate.h"
#include "common/trust.h"
#include "common/util.h"

/* gate_prop() of NAME=VALUE under pol: its result, why shown as a diagnostic. */
static int gate(const char *name, const char *value, const struct gate_policy *pol)
{
	_cleanup_free_ char *why = NULL;
	struct prop_value v;
	int r = prop_parse(name, value, &v);

	if (r < 0) {
		diag("%s=%s does not parse: %s", name, value, strerror(-r));
		return r;
	}
	r = gate_prop(&v, pol, &why);
	if (why)
		diag("%s=%s: %s", name, value, why);
	prop_value_done(&v);
	return r;
}

static void walk_tables(void)
{
	size_t n;
	const struct prop_def *t = prop_table(&n);
	unsigned missing = 0, no_allow = 0, keys_missing = 0, keys_no_allow = 0;

	for (size_t i = 0; i < n; i++) {
		if (!t[i].power && ++missing)
			diag("attribute %s: no .power", t[i].name);
		if (t[i].power && t[i].power != POWER_NOTHING && !t[i].allow && ++no_allow)
			diag("attribute %s: can do something, and has no .allow", t[i].name);
	}
	ok(!missing, "every row of the attribute table (%zu) says what its setting can do", n);
	ok(!no_allow, "every attribute that can do anything has an allow-list");
	for (size_t i = 0; i < _KEY_MAX; i++) {
		const struct key_def *k = &key_table[i];

		if (!k->power && ++keys_missing)
			diag("key [%s] %s: no .power", section_table[k->section].name, k->name);
		if (k->power & ~(POWER_NOTHING | POWER_BY_ROW) && !k->allow && ++keys_no_allow)
			diag("key [%s] %s: can do something, and has no .allow", section_table[k->section].name, k->name);
		if ((k->power & POWER_BY_ROW) && !k->add)
			diag("key [%s] %s: by its property's row, and takes no property", section_table[k->section].name,
			     k->name);
	}
	ok(!keys_missing, "every row of the key table (%d) says what its value can do", _KEY_MAX);
	ok(!keys_no_allow, "every key that can do anything has an allow-list");
	ok(prop_lookup("AmbientCapabilities")->power == POWER_PRIVILEGE && prop_lookup("User")->power == POWER_ACCOUNT &&
		   prop_lookup("Environment")->power == POWER_CODE &&
		   prop_lookup("EnvironmentFile")->power == (POWER_CODE | POWER_PATH) &&
		   key_table[KEY_BINARY].power == POWER_CODE && key_table[KEY_CONTEXT_FROM].power == POWER_PATH,
	   "the rows that reached root in the probe say so");
}

static void allow_lists(const char *user, const char *group)
{
	struct gate_policy pol = { .user = user };
	char *groups[] = { "mysql", NULL };
	char planted[256], shared[256], env[300];
	int fd;

	ok(gate("AmbientCapabilities", "CAP_IPC_LOCK", &pol) == 0, "CAP_IPC_LOCK, Debian's unit's, is taken");
	ok(gate("AmbientCapabilities", "CAP_IPC_LOCK CAP_SYS_NICE CAP_NET_BIND_SERVICE", &pol) == 0, "the safe list is");
	ok(gate("AmbientCapabilities", "CAP_SETUID CAP_SETGID", &pol) == -EPERM, "CAP_SETUID CAP_SETGID are refused");
	ok(gate("AmbientCapabilities", "CAP_DAC_READ_SEARCH", &pol) == -EPERM, "CAP_DAC_READ_SEARCH is refused");
	ok(gate("AmbientCapabilities", "~CAP_IPC_LOCK", &pol) == -EPERM, "all but one (~) is refused");
	ok(gate("CapabilityBoundingSet", "CAP_SYS_ADMIN", &pol) == 0, "a bounding set only lowers: taken");
	ok(gate("User", user, &pol) == 0, "User= of the server's account is taken");
	ok(gate("User", "nobody", &pol) == -EPERM, "User=nobody, another account, is refused");
	ok(gate("Group", group, &pol) == 0, "Group= of the account's own group (%s) is taken", group);
	ok(gate("Group", "shadow", &pol) == -EPERM, "Group=shadow is refused");
	ok(gate("Group", "disk", &pol) == -EPERM, "Group=disk is refused");
	ok(gate("Group", "root", &pol) == -EPERM, "Group=root is refused");
	pol.groups = groups;
	ok(gate("Group", "mysql", &pol) == 0, "Group=mysql, which [server] groups lists, is taken");
	ok(gate_group_refusal("mysql") == NULL, "[server] groups may list mysql, the mysql account's own");
	ok(gate_group_refusal("shadow") != NULL, "but not shadow (%s)", strempty(gate_group_refusal("shadow")));
	ok(gate_group_refusal("disk") != NULL && gate_group_refusal("root") != NULL && gate_group_refusal("adm") != NULL,
	   "nor disk, root or adm");
	pol.groups = NULL;

	/* Code: a library anyone could have put there, and the host's. */
	snprintf(planted, sizeof(planted), "%s/planted.so", scratch_dir());
	fd = open(planted, O_CREAT | O_WRONLY, 0666);
	close(fd);
	chmod(planted, 0666);
	snprintf(env, sizeof(env), "LD_PRELOAD=%s", planted);
	ok(gate("Environment", env, &pol) == -EPERM, "Environment=LD_PRELOAD of a file anyone may write is refused");
	ok(gate("environment", env, &pol) == -EPERM, "so is the whole environment= with it");
	ok(gate("Environment", "PATH=/tmp:/usr/bin", &pol) == -EPERM, "Environment=PATH=/tmp:... is refused");
	ok(gate("Environment", "PATH=/usr/sbin:/usr/bin", &pol) == 0, "PATH of root's directories is taken");
	ok(gate("Environment", "GCONV_PATH=.", &pol) == -EPERM, "GCONV_PATH=. is refused");
	snprintf(env, sizeof(env), "MALLOC_CONF=prof_prefix:%s", planted);
	ok(gate("Environment", env, &pol) == -EPERM, "MALLOC_CONF naming a path anyone may write is refused");
	snprintf(env, sizeof(env), "LD_PRELOAD=%s", planted);
	ok(gate("Environment", "MALLOC_CONF=background_thread:true", &pol) == 0, "MALLOC_CONF of no path is taken");
	ok(gate("Environment", "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", &pol) == 0 ||
		   access("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", F_OK) < 0,
	   "the host's libjemalloc is taken");
	pol.trust_code = true;
	ok(gate("Environment", env, &pol) == GATE_TRUSTED, "trusted code is taken, and said (GATE_TRUSTED)");
	pol.trust_code = false;

	/* Names: every source, even where the parser's words would let them by. */
	{
		_cleanup_free_ char *why = NULL;

		ok(gate_env("X=1 LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libc.so.6", &pol, &why) == -EPERM,
		   "a name holding = and a blank is refused (%s)", strempty(why));
	}
	{
		_cleanup_free_ char *why = NULL;

		ok(gate_env("1X", "1", &pol, &why) == -EPERM && gate_env("A-B", "1", &pol, &why) == -EPERM,
		   "a name beginning with a digit, or with a dash, is refused");
	}

	/* EnvironmentFile=: /etc/shadow, a user's file, root's readable one. */
	ok(gate("EnvironmentFile", "/etc/shadow", &pol) == -EPERM, "EnvironmentFile=/etc/shadow is refused");
	snprintf(shared, sizeof(shared), "%s/env", scratch_dir());
	fd = open(shared, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0 && write(fd, "A=1\n", 4) == 4)
		close(fd);
	chown(shared, 65534, 65534);
	ok(gate("EnvironmentFile", shared, &pol) == -EPERM, "EnvironmentFile= of nobody's file is refused");
	ok(gate("EnvironmentFile", "/etc/os-release", &pol) == 0, "EnvironmentFile=/etc/os-release is taken");
	ok(gate("EnvironmentFile", "-/etc/no-such-slicebench-env", &pol) == 0, "a missing -PATH in /etc is taken");
}

static void refused_cb(const char *key, const char *why, bool refused, void *userdata)
{
	diag("%s: %s (%s)", key, why, refused ? "refused" : "taken");
	(*(int *)userdata)++;
}

static void placements(const char *user)
{
	struct gate_policy pol = { .user = user };
	struct placement p = {};
	int said = 0;

	placement_set(&p, "env.HOME", "/root");
	placement_set(&p, "env.LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libc.so.6");
	placement_set(&p, "user", user);
	placement_set(&p, "capture.setting.CPUWeight", "100");
	is_int(gate_placement(&p, &pol, refused_cb, &said), 0, "a placement of root's code and the account's own passes");
	placement_set(&p, "env.X=1 LD_PRELOAD", "/tmp/x.so");
	placement_set(&p, "capture.setting.AmbientCapabilities", "CAP_SETUID CAP_SETGID");
	placement_set(&p, "capture.setting.EnvironmentFile", "/etc/shadow");
	placement_set(&p, "capture.setting.Environment", "PATH=/tmp");
	placement_set(&p, "proxy.env.LD_LIBRARY_PATH", ".");
	placement_set(&p, "user", "nobody");
	placement_set(&p, "group", "shadow");
	is_int(gate_placement(&p, &pol, refused_cb, &said), 7, "each of 7 keys a taker would take is refused, by its key");
	placement_done(&p);
}

int main(void)
{
	const char *user = getpwnam("slicebench") ? "slicebench" : getpwnam("mysql") ? "mysql" : "daemon";
	struct group *gr = getgrgid(getpwnam(user)->pw_gid);

	walk_tables();
	allow_lists(user, gr ? gr->gr_name : user);
	placements(user);
	return done_testing();
}

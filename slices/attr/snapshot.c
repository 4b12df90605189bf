/* Placement snapshots: what a running server's process is given, read
 * from /proc/PID and cgroupfs by the attribute table's readers, one row
 * after another; the CPU settings of a cgroup without a process of its
 * own; and each setting asked for beside what was read back, with the
 * row's verdict on whether it is in force. */
#include <signal.h>
#include <stdio.h>

#include "slices/attr/attrs.h"
#include "slices/attr/props.h"
#include "slices/attr/snapshot.h"
#include "slices/sys/cgfs.h"
#include "common/secret.h"
#include "common/util.h"

struct cgroups {
	struct placement *p;
	char **systemd_path;
};

static int add_cgroup(char *controllers, const char *cg, void *userdata)
{
	struct cgroups *x = userdata;
	char key[128];
	int r = 0;

	if (!*controllers)
		r = placement_set(x->p, "cgroup.unified", cg);
	/* One key per controller, whether or not a hierarchy co-mounts
	 * them (cpu,cpuacct here, cpu and cpuacct there). */
	for (char *c = *controllers ? controllers : NULL, *save = NULL, *tok; c && r >= 0; c = NULL)
		for (tok = strtok_r(c, ",", &save); tok && r >= 0; tok = strtok_r(NULL, ",", &save)) {
			snprintf(key, sizeof(key), "cgroup.%s", strncmp(tok, "name=", 5) ? tok : tok + 5);
			r = placement_set(x->p, key, cg);
		}
	/* The v2 path on unified and hybrid, name=systemd on legacy. */
	if (r >= 0 && (!*controllers || streq(controllers, "name=systemd")) && !*x->systemd_path)
		*x->systemd_path = strdup(cg);
	return r;
}

/* /proc/PID/cgroup: "cgroup.<controllers>" for each hierarchy, and the
 * unit and slice systemd's path names. */
static int read_cgroups(struct placement *p, pid_t pid, char **ret_systemd_path)
{
	struct cgroups x = { .p = p, .systemd_path = ret_systemd_path };

	return cgroup_foreach_of_pid(pid, add_cgroup, &x);
}

static const char *same(const char *a, const char *b)
{
	return a && b && streq(a, b) ? "yes" : "no";
}

/* What the load generator shares with the server. */
static int read_client(struct placement *p, pid_t pid, pid_t client, enum cgroup_mode mode)
{
	_cleanup_(placement_done) struct placement c = {};
	_cleanup_free_ char *systemd_path = NULL;
	struct attr_reader cr = { .pid = client, .mode = mode, .p = &c };
	const char *cpu_key = mode == CGROUP_UNIFIED ? "cgroup.unified" : "cgroup.cpu";
	int r;

	r = read_cgroups(&c, client, &systemd_path);
	if (r >= 0)
		r = read_affinity_attr(&cr, NULL);
	if (r >= 0)
		r = read_session(&cr, NULL);
	attr_reader_done(&cr);
	if (r >= 0)
		r = placement_set(p, "client.same_cpu_cgroup", same(placement_get(p, cpu_key), placement_get(&c, cpu_key)));
	if (r >= 0)
		r = placement_set(p, "client.same_session", getsid(client) == getsid(pid) ? "yes" : "no");
	if (r >= 0)
		r = placement_set(p, "client.same_autogroup", same(placement_get(p, "autogroup"), placement_get(&c, "autogroup")));
	if (r >= 0)
		r = placement_set(p, "client.affinity", strempty(placement_get(&c, "affinity")));
	/* The path systemd keeps units in: the client's own scope shows here
	 * even where v1 gives it no cpu cgroup of its own. */
	if (r >= 0)
		r = placement_set(p, "client.cgroup", strempty(systemd_path));
	return r;
}

/* Has an earlier row the same reader and source?  Then its keys are read. */
static bool read_already(const struct prop_def *table, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (table[j].read == table[i].read && streq_ptr(table[j].src, table[i].src))
			return true;
	return false;
}

int placement_snapshot(pid_t pid, pid_t client, enum cgroup_mode mode, struct placement *ret)
{
	_cleanup_free_ char *systemd_path = NULL;
	struct placement p = {};
	struct attr_reader ar = { .pid = pid, .mode = mode, .p = &p };
	size_t n;
	const struct prop_def *table = prop_table(&n);
	int r;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return -ESRCH;
	/* The cgroups first: the rows' readers look their paths up. */
	r = read_cgroups(&p, pid, &systemd_path);
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (table[i].read && !read_already(table, i)) /* a server variable's: the engine's facts */
			r = table[i].read(&ar, &table[i]);
	attr_reader_done(&ar);
	if (r >= 0 && client > 0)
		r = read_client(&p, pid, client, mode);
	if (r < 0) {
		placement_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}

/* The CPU files of one cgroup (rel to the roots of the hierarchies, as
 * slices/sys/cgfs.h names them) under the keys a process's own are read into,
 * for the in-force checks of a cgroup without a process of its own. */
int placement_read_cgroup(const char *rel, enum cgroup_mode mode, const char *prefix, struct placement *p)
{
	static const char *const v1[][2] = { { "cpu", "cpu.shares" }, { "cpu", "cpu.cfs_quota_us" },
					     { "cpu", "cpu.cfs_period_us" }, { "cpuset", "cpuset.effective_cpus" } };
	static const char *const v2[] = { "cpu.weight", "cpu.max", "cpuset.cpus.effective" };
	char path[4200], key[160];
	int r = 0;

	rel += *rel == '/';
	for (size_t i = 0; r >= 0 && mode == CGROUP_UNIFIED && i < ELEMENTSOF(v2); i++) {
		r = snprintf_whole(path, sizeof(path), "/sys/fs/cgroup/%s/%s", rel, v2[i]);
		if (r >= 0)
			r = snprintf_whole(key, sizeof(key), "%s%s", prefix, v2[i]);
		if (r >= 0)
			r = placement_set_file(p, key, path);
	}
	for (size_t i = 0; r >= 0 && mode != CGROUP_UNIFIED && i < ELEMENTSOF(v1); i++) {
		r = snprintf_whole(path, sizeof(path), "/sys/fs/cgroup/%s/%s/%s", v1[i][0], rel, v1[i][1]);
		/* v1's cpuset.effective_cpus is v2's cpuset.cpus.effective. */
		if (r >= 0)
			r = snprintf_whole(key, sizeof(key), "%s%s", prefix, i == 3 ? "cpuset.cpus.effective" : v1[i][1]);
		if (r >= 0)
			r = placement_set_file(p, key, path);
	}
	return r;
}

/* The setting as written and as resolved on this host (llc:1 and 1),
 * secrets withheld. */
static int record_setting(struct placement *p, const struct prop_value *v)
{
	_cleanup_free_ char *written = secret_mask_text(v->given ? v->given : v->text),
			    *resolved = secret_mask_text(v->text);
	int r;

	if (!written || !resolved)
		return -ENOMEM;
	r = placement_set_setting(p, v->def->name, "written", written);
	return r < 0 ? r : placement_set_setting(p, v->def->name, "resolved", resolved);
}

int placement_verify_props(struct placement *p, const struct prop_value *props, size_t n, enum cgroup_mode mode,
			   unsigned *ret_bad)
{
	struct cgroup_limits l = {};
	char read[1024];
	struct attr_verify vf = { .p = p, .limits = &l, .mode = mode, .read = read, .read_len = sizeof(read),
				  .props = props, .n_props = n };
	unsigned bad = 0;
	int r = 0;

	prop_collect_cgroup_limits(props, n, &l);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct prop_value *v = &props[i];
		_cleanup_free_ char *no = NULL;
		char why[512];
		int in_force;

		r = record_setting(p, v);
		if (r < 0 || !v->def->in_force)
			continue;
		read[0] = 0;
		in_force = r = v->def->in_force(v, &vf, why, sizeof(why));
		if (r >= 0 && read[0])
			r = placement_set_setting(p, v->def->name, "read", read);
		if (r >= 0 && in_force == 0)
			r = placement_set_setting(p, v->def->name, NULL, "yes");
		else if (r >= 0) {
			bad++;
			r = xasprintf(&no, "no: %s", why);
			r = r < 0 ? r : placement_set_setting(p, v->def->name, NULL, no);
		}
	}
	*ret_bad = bad;
	return r;
}

/* CPU lists with topology names, resolved from sysfs. */
#include "common/topology.h"

#include <dirent.h>
#include <stdio.h>

#include "common/util.h"

#define SYS_CPU "/sys/devices/system/cpu"
#define SYS_NODE "/sys/devices/system/node"
/* Cache indexes per CPU that are looked at for the L3 (index0..index9). */
#define CACHE_INDEX_MAX 10

void topology_groups_free(char **groups, size_t n)
{
	for (size_t i = 0; groups && i < n; i++)
		free(groups[i]);
	free(groups);
}

/* Appends list to groups unless it is there already (dedup) or NULL. */
static int groups_add(char ***groups, size_t *n, const char *list, bool dedup)
{
	char **g;

	for (size_t i = 0; dedup && i < *n; i++)
		if (streq((*groups)[i], list))
			return 0;
	g = realloc(*groups, (*n + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	*groups = g;
	g[*n] = strdup(list);
	if (!g[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int online_cpus(long *cpus, size_t cap, size_t *ret_n)
{
	_cleanup_free_ char *s = NULL;

	*ret_n = 0;
	if (read_file_str(SYS_CPU "/online", &s) < 0)
		return 0;
	if (parse_int_list(s, 0, CPU_LIST_MAX - 1, cpus, cap, ret_n) < 0)
		*ret_n = 0;
	return 0;
}

/* The distinct values of a per-CPU file (found by find()), in CPU order. */
static int per_cpu_groups(int (*find)(long cpu, char **ret_list), char ***ret, size_t *ret_n)
{
	long cpus[CPU_LIST_MAX];
	char **groups = NULL;
	size_t n_cpus, n = 0;
	int r;

	r = online_cpus(cpus, ELEMENTSOF(cpus), &n_cpus);
	for (size_t i = 0; r >= 0 && i < n_cpus; i++) {
		_cleanup_free_ char *list = NULL;

		r = find(cpus[i], &list);
		if (r > 0)
			r = groups_add(&groups, &n, list, true);
	}
	if (r < 0) {
		topology_groups_free(groups, n);
		return r;
	}
	*ret = groups;
	*ret_n = n;
	return 0;
}

/* The shared_cpu_list of cpu's level-3 cache: 1 with *ret_list, 0 if none. */
static int find_l3(long cpu, char **ret_list)
{
	for (int idx = 0; idx < CACHE_INDEX_MAX; idx++) {
		_cleanup_free_ char *path = NULL, *level = NULL;

		if (xasprintf(&path, SYS_CPU "/cpu%ld/cache/index%d/level", cpu, idx) < 0)
			return -ENOMEM;
		if (read_file_str(path, &level) < 0 || !streq(level, "3"))
			continue;
		free(path);
		if (xasprintf(&path, SYS_CPU "/cpu%ld/cache/index%d/shared_cpu_list", cpu, idx) < 0)
			return -ENOMEM;
		return read_file_str(path, ret_list) < 0 ? 0 : 1;
	}
	return 0;
}

static int find_core(long cpu, char **ret_list)
{
	_cleanup_free_ char *path = NULL;

	if (xasprintf(&path, SYS_CPU "/cpu%ld/topology/thread_siblings_list", cpu) < 0)
		return -ENOMEM;
	return read_file_str(path, ret_list) < 0 ? 0 : 1;
}

static int l3_groups(char ***ret, size_t *ret_n)
{
	return per_cpu_groups(find_l3, ret, ret_n);
}

static int core_groups(char ***ret, size_t *ret_n)
{
	return per_cpu_groups(find_core, ret, ret_n);
}

/* Node N is group N; a gap in the numbering is an empty group. */
static int node_groups(char ***ret, size_t *ret_n)
{
	DIR *d = opendir(SYS_NODE);
	struct dirent *e;
	char **groups = NULL;
	size_t n = 0;
	long last = -1;
	int r = 0;

	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9')
			last = MAX(last, MIN(atol(e->d_name + 4), (long)CPU_LIST_MAX - 1));
	if (d)
		closedir(d);
	for (long node = 0; r >= 0 && node <= last; node++) {
		_cleanup_free_ char *path = NULL, *list = NULL;

		r = xasprintf(&path, SYS_NODE "/node%ld/cpulist", node);
		if (r >= 0)
			r = groups_add(&groups, &n, read_file_str(path, &list) >= 0 ? list : "", false);
	}
	if (r < 0) {
		topology_groups_free(groups, n);
		return r;
	}
	*ret = groups;
	*ret_n = n;
	return 0;
}

static const struct topology_kind kinds[] = {
	{ .prefix = "llc", .what = "L3 groups", .groups = l3_groups },
	{ .prefix = "node", .what = "NUMA nodes", .groups = node_groups },
	{ .prefix = "core", .what = "cores", .groups = core_groups },
};

static const struct topology_kind *kind_of(const char *token, const char **ret_index)
{
	for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
		size_t len = strlen(kinds[i].prefix);

		if (strncmp(token, kinds[i].prefix, len) == 0 && token[len] == ':') {
			*ret_index = token + len + 1;
			return &kinds[i];
		}
	}
	return NULL;
}

int topology_groups(const char *prefix, char ***ret, size_t *ret_n)
{
	for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
		if (streq(kinds[i].prefix, prefix))
			return kinds[i].groups(ret, ret_n);
	return -ENOENT;
}

bool cpu_list_is_topological(const char *s)
{
	_cleanup_free_ char *copy = s ? strdup(s) : NULL;
	const char *index;
	char *save = NULL;

	for (char *tok = copy ? strtok_r(copy, ", ", &save) : NULL; tok; tok = strtok_r(NULL, ", ", &save))
		if (kind_of(tok, &index))
			return true;
	return false;
}

static int add_cpus(const char *list, long min, long max, long *ret, size_t cap, size_t *n)
{
	long cpus[CPU_LIST_MAX];
	size_t k;
	int r;

	r = parse_int_list(list, min, max, cpus, ELEMENTSOF(cpus), &k);
	if (r < 0)
		return r;
	if (*n + k > cap)
		return -E2BIG;
	memcpy(ret + *n, cpus, k * sizeof(long));
	*n += k;
	return 0;
}

/* One llc:N token: the group's CPUs, or why not. */
static int add_group(const struct topology_kind *k, const char *tok, const char *index, long max, long *ret,
		     size_t cap, size_t *n, char *why, size_t why_len)
{
	char **groups = NULL;
	size_t n_groups = 0;
	long g;
	int r;

	if (parse_int_range(index, 0, CPU_LIST_MAX - 1, &g) < 0) {
		if (why)
			snprintf(why, why_len, "%s: want %s:N with N a number", tok, k->prefix);
		return -EINVAL;
	}
	r = k->groups(&groups, &n_groups);
	if (r < 0)
		return r;
	if ((size_t)g >= n_groups || !*groups[g]) {
		if (why && n_groups)
			snprintf(why, why_len, "%s: this host has %zu %s (%s:0 to %s:%zu)", tok, n_groups, k->what,
				 k->prefix, k->prefix, n_groups - 1);
		else if (why)
			snprintf(why, why_len, "%s: this host shows no %s in sysfs", tok, k->what);
		topology_groups_free(groups, n_groups);
		return -ERANGE;
	}
	r = add_cpus(groups[g], 0, max, ret, cap, n);
	if (r == -ERANGE && why)
		snprintf(why, why_len, "%s: its CPUs %s go beyond CPU %ld", tok, groups[g], max);
	topology_groups_free(groups, n_groups);
	return r;
}

int cpu_list_parse(const char *s, long max, long *ret, size_t cap, size_t *ret_n, char *why, size_t why_len)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;
	size_t n = 0;
	int r;

	if (why && why_len)
		*why = 0;
	if (!s || !*s)
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		const struct topology_kind *k;
		const char *index;

		k = kind_of(tok, &index);
		r = k ? add_group(k, tok, index, max, ret, cap, &n, why, why_len) : add_cpus(tok, 0, max, ret, cap, &n);
		if (r == -ERANGE && !k && why)
			snprintf(why, why_len, "CPU %s does not exist here (CPUs 0-%ld)", tok, max);
		if (r < 0)
			return r;
	}
	if (n == 0)
		return -EINVAL;
	*ret_n = n;
	return 0;
}

int cpu_list_format(const long *cpus, size_t n, char *buf, size_t len)
{
	bool set[CPU_LIST_MAX] = {};
	size_t off = 0;

	if (len == 0)
		return -ENOBUFS;
	buf[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (cpus[i] >= 0 && cpus[i] < CPU_LIST_MAX)
			set[cpus[i]] = true;
	for (long c = 0; c < CPU_LIST_MAX; c++) {
		long lo = c;
		int k;

		if (!set[c])
			continue;
		while (c + 1 < CPU_LIST_MAX && set[c + 1])
			c++;
		k = lo == c ? snprintf(buf + off, len - off, "%s%ld", off ? "," : "", lo)
			    : snprintf(buf + off, len - off, "%s%ld-%ld", off ? "," : "", lo, c);
		if (k < 0 || (size_t)k >= len - off)
			return -ENOBUFS;
		off += (size_t)k;
	}
	return 0;
}

/* slicebench sandbox: hands over to the shell helpers in sandbox/, which
 * boot a real systemd in a container (hybrid cgroups) or a VM (unified). */
#include <limits.h>
#include <stdio.h>

#include "common/util.h"
#include "cli/verbs.h"

/* dir/name, if it is there and executable: 1 with *ret the path, else 0. */
static int executable(const char *dir, const char *name, char **ret)
{
	char *path;

	if (xasprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	if (access(path, X_OK) < 0) {
		free(path);
		return 0;
	}
	*ret = path;
	return 1;
}

/* The helpers sit in sandbox/ beside an in-tree binary, or in LIBEXECDIR. */
int find_helper(const char *name, char **ret)
{
	_cleanup_free_ char *in_tree = NULL;
	char exe[PATH_MAX];
	ssize_t n;
	char *p;
	int r;

	if (xasprintf(&in_tree, "sandbox/%s", name) < 0)
		return -ENOMEM;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		p = strrchr(exe, '/');
		/* build/slicebench and build-asan/slicebench live one level down. */
		for (int up = 0; up < 2 && p; up++) {
			*p = 0;
			r = executable(exe, in_tree, ret);
			if (r != 0)
				return r < 0 ? r : 0;
			p = strrchr(exe, '/');
		}
	}
	r = executable(LIBEXECDIR, name, ret);
	if (r != 0)
		return r < 0 ? r : 0;
	*ret = NULL;
	return -ENOENT;
}

/* For --help only: everything but --kind goes to the helper as it is. */
static const struct cli_option opt_kind = { .name = "kind", .arg = "KIND",
					    .help = "container (default: systemd-nspawn, hybrid cgroups) or vm (qemu, cgroup v2)" };
static const struct cli_option opt_name = { .name = "name", .arg = "NAME", .help = "the sandbox's name (default)" };
static const struct cli_option opt_netns = { .name = "netns", .arg = "PATH",
					     .help = "container: join this network namespace" };
static const struct cli_option opt_cpus = { .name = "cpus", .arg = "N",
					    .help = "vm: N vCPUs, at most twice the host's CPUs (2)" };
static const struct cli_option opt_l3 = { .name = "l3", .arg = "G",
					  .help = "vm: in G L3 groups, a socket each; G divides N (2; 1: one L3 over all)" };

const struct cli_verb cli_sandbox = {
	.name = "sandbox",
	.usage = (const char *const[]){ "[--kind KIND] [--name NAME] up | status | exec -- CMD... | down",
					"--kind vm [--name NAME] [--cpus N] [--l3 G] up | run -- CMD...", NULL },
	.about = "Boots, uses and removes a throwaway real systemd: a container on a read-only bind of / with a\n"
		 "volatile overlay, or a qemu guest; exec runs a command in it with this checkout bound, and\n"
		 "binds from the host each --out DIR of a slicebench verb that takes --out (DIR itself, made\n"
		 "if missing and opened by descriptor, on a path only root can change, never a top-level\n"
		 "directory), so that its results land on the host at the path it prints (a run in the\n"
		 "container refuses one that would stay in its overlay, before anything starts).",
	.options = (const struct cli_option *const[]){ &opt_kind, &opt_name, &opt_netns, &opt_cpus, &opt_l3, NULL },
};

int verb_sandbox(int argc, char **argv)
{
	if (argc == 2 && (streq(argv[1], "--help") || streq(argv[1], "-h"))) {
		cli_help(&cli_sandbox, stdout);
		return 0;
	}

	_cleanup_free_ char *helper = NULL;
	const char *kind = "container";
	char exe[PATH_MAX];
	int shift = 0, r;
	ssize_t n;

	/* --kind is ours; everything after it goes to the helper untouched. */
	if (argc >= 2 && strncmp(argv[1], "--kind=", 7) == 0) {
		kind = argv[1] + 7;
		shift = 1;
	} else if (argc >= 3 && streq(argv[1], "--kind")) {
		kind = argv[2];
		shift = 2;
	}
	if (!streq(kind, "container") && !streq(kind, "vm")) {
		log_error("sandbox: unknown kind '%s' (container or vm)", kind);
		return EXIT_USAGE;
	}
	r = find_helper(streq(kind, "vm") ? "slicebench-vm" : "slicebench-sandbox", &helper);
	if (r < 0) {
		log_error_errno(r, "sandbox: cannot find the %s helper beside the binary or in %s", kind, LIBEXECDIR);
		return 1;
	}
	argv += shift;
	argv[0] = helper;
	/* exec binds a results directory with this binary (__sandbox-bind). */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		(void)setenv("SLICEBENCH_SANDBOX_BIN", exe, 1);
	}
	execv(helper, argv);
	log_error_errno(-errno, "sandbox: cannot run %s: %m", helper);
	return 1;
}

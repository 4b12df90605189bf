/* user: the same transient service, on the user manager of the server's
 * user, so that it lands in user.slice/user-UID.slice/user@UID.service/
 * app.slice/.  logind's SetUserLinger starts that manager if need be. */
#include <pwd.h>
#include <signal.h>
#include <stdio.h>

#include "slices/sys/bus.h"
#include "slices/kinds/context.h"
#include "common/util.h"

static int wait_for_manager(uid_t uid, uint64_t timeout_ns)
{
	_cleanup_free_ char *path = NULL;
	uint64_t deadline = now_ns() + timeout_ns;
	int r;

	r = xasprintf(&path, "/run/user/%u/systemd/private", (unsigned)uid);
	if (r < 0)
		return r;
	while (access(path, F_OK) < 0) {
		if (now_ns() >= deadline)
			return -ETIMEDOUT;
		usleep(50000);
	}
	return 0;
}

static int user_start(struct context *c)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *system_bus = NULL;
	sd_bus *bus = NULL;
	struct passwd *pw;
	int r;

	pw = getpwnam(c->server->user);
	if (!pw)
		return -ESRCH;
	r = bus_open_system(&system_bus);
	if (r < 0)
		return r;
	r = bus_set_user_linger(system_bus, pw->pw_uid, 1, &error);
	if (r < 0) {
		context_note_failure(c, "logind's SetUserLinger", r, &error);
		return r;
	}
	r = wait_for_manager(pw->pw_uid, 30 * NSEC_PER_SEC);
	if (r < 0) {
		context_note_failure(c, "the user manager (no /run/user/UID/systemd/private in 30 s)", r, NULL);
		return r;
	}
	r = bus_open_user_manager(pw->pw_uid, &bus);
	if (r < 0)
		return r;
	return service_start_on(c, bus, "app.slice");
}

const struct context_ops context_user_ops = {
	.name = "user",
	.unit_suffix = "service",
	.exec_by_systemd = true,
	.cgroup = CGROUP_BY_SYSTEMD,
	.manager = MANAGER_USER,
	.start = user_start,
	.stop = service_stop,
	.set = service_set,
	.cleanup = service_cleanup,
};

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

/* logind keeps a lingering user's manager: the flag is this file. */
static bool lingering(const char *user)
{
	_cleanup_free_ char *path = NULL;

	return xasprintf(&path, "/var/lib/systemd/linger/%s", user) >= 0 && access(path, F_OK) == 0;
}

int user_manager_release(uid_t uid)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_free_ char *unit = NULL;
	int r = bus_open_system(&bus);

	if (r >= 0)
		r = bus_set_user_linger(bus, uid, 0, NULL);
	if (r >= 0)
		r = xasprintf(&unit, "user@%u.service", (unsigned)uid);
	if (r >= 0)
		r = bus_stop_unit(bus, unit, 30 * USEC_PER_SEC, NULL);
	return r == -ENOENT ? 0 : r;
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
	if (!lingering(pw->pw_name)) {
		r = bus_set_user_linger(system_bus, pw->pw_uid, 1, &error);
		if (r < 0) {
			context_note_failure(c, "logind's SetUserLinger", r, &error);
			return r;
		}
		c->linger_set = true;
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

static void user_cleanup(struct context *c)
{
	struct passwd *pw = c->linger_set ? getpwnam(c->server->user) : NULL;

	service_cleanup(c);
	if (pw && user_manager_release(pw->pw_uid) >= 0)
		c->linger_set = false;
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
	.cleanup = user_cleanup,
};

#include "slices/sys/bus.h"

#include <signal.h>
#include <stdio.h>

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define SD_UNIT "org.freedesktop.systemd1.Unit"

int bus_open_system(sd_bus **ret)
{
	return sd_bus_open_system(ret);
}

int bus_open_user_manager(uid_t uid, sd_bus **ret)
{
	_cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
	_cleanup_free_ char *address = NULL;
	int r;

	/* Root may talk to any user's manager over its private socket; the
	 * user's dbus-daemon would refuse a connection from another uid. */
	r = xasprintf(&address, "unix:path=/run/user/%u/systemd/private", (unsigned)uid);
	if (r < 0)
		return r;
	r = sd_bus_new(&bus);
	if (r < 0)
		return r;
	r = sd_bus_set_address(bus, address);
	if (r < 0)
		return r;
	r = sd_bus_start(bus);
	if (r < 0)
		return r;
	*ret = bus;
	bus = NULL;
	return 0;
}

struct job_wait {
	const char *job;
	char result[64];
	int done;
};

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct job_wait *w = userdata;
	const char *path, *unit, *result;
	uint32_t id;
	int r;

	(void)error;
	r = sd_bus_message_read(m, "uoss", &id, &path, &unit, &result);
	if (r < 0)
		return 0;
	if (w->job && streq(path, w->job)) {
		(void)text_copy(w->result, sizeof(w->result), result);
		w->done = 1;
	}
	return 0;
}

static int wait_for_job(sd_bus *bus, struct job_wait *w, uint64_t timeout_usec)
{
	uint64_t deadline = now_ns() + timeout_usec * NSEC_PER_USEC;
	int r;

	while (!w->done) {
		uint64_t now = now_ns();
		r = sd_bus_process(bus, NULL);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (now >= deadline)
			return -ETIMEDOUT;
		r = sd_bus_wait(bus, (deadline - now) / NSEC_PER_USEC);
		if (r < 0)
			return r;
	}
	return 0;
}

static int job_result_to_error(const struct job_wait *w, const char *unit, sd_bus_error *error)
{
	if (streq(w->result, "done"))
		return 0;
	sd_bus_error_setf(error, "org.slicebench.JobFailed", "job for %s finished with result '%s'", unit, w->result);
	return -EIO;
}

/* Subscribe before the call: JobRemoved may arrive before the reply. */
static int subscribe_job_removed(sd_bus *bus, struct job_wait *w, sd_bus_slot **ret_slot)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	int r;

	r = sd_bus_match_signal(bus, ret_slot, sd_bus_is_bus_client(bus) ? SD_DEST : NULL, SD_PATH, SD_MANAGER,
				"JobRemoved", on_job_removed, w);
	if (r < 0)
		return r;
	/* Without Subscribe() a manager only signals the job's own client.  A
	 * second Subscribe() on the same connection is refused, and harmless. */
	r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", &error, NULL, "");
	if (r < 0 && !sd_bus_error_has_name(&error, "org.freedesktop.systemd1.AlreadySubscribed"))
		return r;
	return 0;
}

static int read_job_path(sd_bus_message *reply, struct job_wait *w, char **ret_job)
{
	const char *job;
	int r;

	r = sd_bus_message_read(reply, "o", &job);
	if (r < 0)
		return r;
	*ret_job = strdup(job);
	if (!*ret_job)
		return -ENOMEM;
	w->job = *ret_job;
	return 0;
}

/* The job path from a Start/Stop reply, then wait for its JobRemoved. */
static int await_job(sd_bus *bus, sd_bus_message *reply, struct job_wait *w, const char *unit, uint64_t timeout_usec,
		     sd_bus_error *error)
{
	_cleanup_free_ char *job = NULL;
	int r;

	r = read_job_path(reply, w, &job);
	if (r < 0)
		return r;
	r = wait_for_job(bus, w, timeout_usec);
	if (r < 0)
		return r;
	return job_result_to_error(w, unit, error);
}

/* Calls m, a method that queues a job for unit (within call_usec, 0:
 * sd-bus's default), and waits up to job_usec for the job to be removed.
 * JobRemoved is subscribed to first: it may arrive before the reply. */
static int call_job(sd_bus *bus, sd_bus_message *m, const char *unit, uint64_t call_usec, uint64_t job_usec,
		    sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
	struct job_wait w = {};
	int r;

	r = subscribe_job_removed(bus, &w, &slot);
	if (r < 0)
		return r;
	r = sd_bus_call(bus, m, call_usec, error, &reply);
	if (r < 0)
		return r;
	return await_job(bus, reply, &w, unit, job_usec, error);
}

/* The properties a(sv): CollectMode first where collect (a transient
 * unit's), then the caller's. */
static int append_properties(sd_bus_message *m, bool collect, bus_append_fn append, void *userdata)
{
	int r = sd_bus_message_open_container(m, 'a', "(sv)"); /* properties a(sv) */

	/* Failed units are collected too, so that none piles up. */
	if (r >= 0 && collect)
		r = sd_bus_message_append(m, "(sv)", "CollectMode", "s", "inactive-or-failed");
	if (r >= 0)
		r = append(m, userdata);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r;
}

int bus_start_transient_unit(sd_bus *bus, const char *unit, bus_append_fn append, void *userdata,
			     uint64_t timeout_usec, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "StartTransientUnit");
	if (r < 0)
		return r;
	/* Mode "fail": never replace a job that someone else queued. */
	r = sd_bus_message_append(m, "ss", unit, "fail"); /* name s, mode s */
	if (r >= 0)
		r = append_properties(m, true, append, userdata);
	if (r >= 0)
		r = sd_bus_message_append(m, "a(sa(sv))", 0); /* aux a(sa(sv)), unused */
	if (r < 0)
		return r;
	return call_job(bus, m, unit, timeout_usec, timeout_usec, error);
}

int bus_set_unit_properties(sd_bus *bus, const char *unit, bus_append_fn append, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "SetUnitProperties");
	if (r < 0)
		return r;
	/* Runtime only: nothing lands in /etc, and the unit is transient anyway. */
	r = sd_bus_message_append(m, "sb", unit, 1); /* name s, runtime b */
	if (r >= 0)
		r = append_properties(m, false, append, userdata);
	if (r < 0)
		return r;
	return sd_bus_call(bus, m, 30 * USEC_PER_SEC, error, NULL);
}

int bus_stop_unit(sd_bus *bus, const char *unit, uint64_t timeout_usec, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER, "StopUnit");
	if (r >= 0)
		r = sd_bus_message_append(m, "ss", unit, "fail"); /* name s, mode s */
	if (r < 0)
		return r;
	r = call_job(bus, m, unit, 0, timeout_usec, error);
	return r < 0 && sd_bus_error_has_name(error, "org.freedesktop.systemd1.NoSuchUnit") ? -ENOENT : r;
}

int bus_kill_unit(sd_bus *bus, const char *unit, int sig, sd_bus_error *error)
{
	return sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "KillUnit", error, NULL, "ssi", unit, "all", sig);
}

int bus_reset_failed_unit(sd_bus *bus, const char *unit)
{
	return sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "ResetFailedUnit", NULL, NULL, "s", unit);
}

static int unit_path(sd_bus *bus, const char *unit, char **ret, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *path;
	int r;

	r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnit", error, &reply, "s", unit);
	if (r < 0)
		return sd_bus_error_has_name(error, "org.freedesktop.systemd1.NoSuchUnit") ? -ENOENT : r;
	r = sd_bus_message_read(reply, "o", &path);
	if (r < 0)
		return r;
	*ret = strdup(path);
	return *ret ? 0 : -ENOMEM;
}

int bus_unit_exists(sd_bus *bus, const char *unit, sd_bus_error *error)
{
	_cleanup_free_ char *path = NULL;
	int r = unit_path(bus, unit, &path, error);

	if (r == -ENOENT) {
		sd_bus_error_free(error);
		return 0;
	}
	return r < 0 ? r : 1;
}

int bus_wait_unit_gone(sd_bus *bus, const char *unit, uint64_t timeout_usec)
{
	uint64_t deadline = now_ns() + timeout_usec * NSEC_PER_USEC;
	int r;

	for (;;) {
		_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
		r = bus_unit_exists(bus, unit, &error);
		if (r <= 0)
			return r;
		if (now_ns() >= deadline)
			return -ETIMEDOUT;
		usleep(20000);
	}
}

/* A unit's property of D-Bus type 's' (ret a char **, to free()) or of a
 * trivial type (ret a pointer to it), read at the unit's object path. */
static int unit_property(sd_bus *bus, const char *unit, const char *iface, const char *property, char type, void *ret,
			 sd_bus_error *error)
{
	_cleanup_free_ char *path = NULL;
	int r;

	r = unit_path(bus, unit, &path, error);
	if (r < 0)
		return r;
	if (type == 's')
		return sd_bus_get_property_string(bus, SD_DEST, path, iface, property, error, ret);
	return sd_bus_get_property_trivial(bus, SD_DEST, path, iface, property, error, type, ret);
}

int bus_unit_get_string(sd_bus *bus, const char *unit, const char *iface, const char *property, char **ret,
			sd_bus_error *error)
{
	return unit_property(bus, unit, iface, property, 's', ret, error);
}

int bus_unit_get_u32(sd_bus *bus, const char *unit, const char *iface, const char *property, uint32_t *ret,
		     sd_bus_error *error)
{
	return unit_property(bus, unit, iface, property, 'u', ret, error);
}

int bus_unit_get_invocation_id(sd_bus *bus, const char *unit, char ret[static 33], sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_free_ char *path = NULL;
	const void *id;
	size_t len;
	int r;

	r = unit_path(bus, unit, &path, error);
	if (r < 0)
		return r;
	r = sd_bus_get_property(bus, SD_DEST, path, SD_UNIT, "InvocationID", error, &reply, "ay");
	if (r < 0)
		return r;
	r = sd_bus_message_read_array(reply, 'y', &id, &len);
	if (r < 0)
		return r;
	if (len != 16)
		return -EBADMSG;
	for (size_t i = 0; i < 16; i++)
		snprintf(ret + 2 * i, 3, "%02x", ((const uint8_t *)id)[i]);
	return 0;
}

int bus_get_unit_by_pid(sd_bus *bus, pid_t pid, char **ret_unit, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_free_ char *id = NULL;
	const char *path;
	int r;

	r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnitByPID", error, &reply, "u", (uint32_t)pid);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "o", &path);
	if (r < 0)
		return r;
	r = sd_bus_get_property_string(bus, SD_DEST, path, SD_UNIT, "Id", error, &id);
	if (r < 0)
		return r;
	*ret_unit = id;
	id = NULL;
	return 0;
}

int bus_set_user_linger(sd_bus *bus, uid_t uid, int enable, sd_bus_error *error)
{
	return sd_bus_call_method(bus, "org.freedesktop.login1", "/org/freedesktop/login1",
				  "org.freedesktop.login1.Manager", "SetUserLinger", error, NULL, "ubb",
				  (uint32_t)uid, enable, 0);
}

int bus_load_unit(sd_bus *bus, const char *unit, char **ret_path, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_free_ char *state = NULL;
	const char *path;
	int r;

	r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "LoadUnit", error, &reply, "s", unit);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "o", &path);
	if (r >= 0)
		r = sd_bus_get_property_string(bus, SD_DEST, path, SD_UNIT, "LoadState", error, &state);
	if (r < 0)
		return r;
	/* not-found, masked, error, bad-setting: nothing to read. */
	if (!streq(state, "loaded"))
		return -ENOENT;
	*ret_path = strdup(path);
	return *ret_path ? 0 : -ENOMEM;
}

void bus_note_failure(char **failure, int r, const sd_bus_error *error, const char *exists, const char *fmt, ...)
{
	_cleanup_free_ char *subject = NULL;
	va_list ap;
	int n;

	if (*failure)
		return;
	va_start(ap, fmt);
	n = vasprintf(&subject, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (error && sd_bus_error_is_set(error))
		xasprintf(failure, "%s: %s: %s", subject, error->name, strempty(error->message));
	else if (r == -EEXIST)
		xasprintf(failure, "%s already exists and was not %s", subject, exists);
	else
		xasprintf(failure, "%s: %s", subject, strerror(-r));
}

/* STATE/calibration.json (host/calibration.h): written by calibrate, read
 * by the plans that quote it. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "host/calibration.h"
#include "host/facts.h"
#include "common/util.h"

/* The largest calibration.json read (one is a few hundred bytes). */
#define CALIBRATION_FILE_MAX 65536

int calibration_identify(struct calibration *c)
{
	_cleanup_free_ char *vendor = NULL, *model = NULL;
	char host[HOST_NAME_MAX + 1] = "";
	struct utsname u;
	int r;

	if (gethostname(host, sizeof(host)) < 0)
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	(void)text_copy(c->hostname, sizeof(c->hostname), host);
	(void)text_copy(c->kernel, sizeof(c->kernel), uname(&u) == 0 ? u.release : "");
	r = cpuinfo_read(&vendor, &model);
	if (r < 0)
		return r;
	(void)text_copy(c->cpu_model, sizeof(c->cpu_model), strempty(model));
	return 0;
}

bool calibration_same_host(const struct calibration *c, const struct calibration *here)
{
	return streq(c->hostname, here->hostname) && streq(c->kernel, here->kernel) &&
	       streq(c->cpu_model, here->cpu_model);
}

json_t *calibration_to_json(const struct calibration *c)
{
	return json_pack("{s:i, s:{s:s, s:s, s:s}, s:s, s:s, s:I, s:f, s:i, s:s, s:f, s:f, s:f, s:f, s:f, "
			 "s:{s:i, s:i, s:i, s:f, s:f}}",
			 "format_version", CALIBRATION_FORMAT_VERSION, "host", "hostname", c->hostname, "kernel", c->kernel,
			 "cpu_model", c->cpu_model, "experiment", c->experiment, "context", c->context, "threads",
			 (json_int_t)c->threads, "duration_s", c->duration_s, "pairs", (int)c->pairs, "date", c->date,
			 "level", c->level, "sigma", c->sigma, "sigma_lo", c->sigma_lo, "sigma_hi", c->sigma_hi, "df", c->df,
			 "false_positives", "count", (int)c->false_positives, "groups", (int)c->groups, "group_rounds",
			 (int)c->group_rounds, "lo", c->fp_lo, "hi", c->fp_hi);
}

/* A string member into buf: -EBADMSG when absent, not a string or too long. */
static int take_string(const json_t *j, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(j, key));

	if (!s || strlen(s) >= len)
		return -EBADMSG;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

int calibration_from_json(const json_t *j, struct calibration *ret)
{
	struct calibration c = {};
	json_int_t version = 0, threads = 0, count = 0, groups = 0, group_rounds = 0, pairs = 0;
	json_error_t e;
	const json_t *host = json_object_get(j, "host");

	if (json_unpack_ex((json_t *)j, &e, 0, "{s:I, s:I, s:F, s:I, s:F, s:F, s:F, s:F, s:F, s:{s:I, s:I, s:I, s:F, s:F}}",
			   "format_version", &version, "threads", &threads, "duration_s", &c.duration_s, "pairs", &pairs,
			   "level", &c.level, "sigma", &c.sigma, "sigma_lo", &c.sigma_lo, "sigma_hi", &c.sigma_hi, "df", &c.df,
			   "false_positives", "count", &count, "groups", &groups, "group_rounds", &group_rounds, "lo",
			   &c.fp_lo, "hi", &c.fp_hi) < 0)
		return -EBADMSG;
	if (version != CALIBRATION_FORMAT_VERSION || threads < 1 || threads > INT_MAX || pairs < 1 || pairs > 100000 ||
	    count < 0 || groups < count || groups > 100000 || group_rounds < 0 || group_rounds > 100000 ||
	    !(c.sigma > 0 && isfinite(c.sigma)) || !(c.level > 0 && c.level < 1))
		return -EBADMSG;
	if (!json_is_object(host) || take_string(host, "hostname", c.hostname, sizeof(c.hostname)) < 0 ||
	    take_string(host, "kernel", c.kernel, sizeof(c.kernel)) < 0 ||
	    take_string(host, "cpu_model", c.cpu_model, sizeof(c.cpu_model)) < 0 ||
	    take_string(j, "experiment", c.experiment, sizeof(c.experiment)) < 0 ||
	    take_string(j, "context", c.context, sizeof(c.context)) < 0 || take_string(j, "date", c.date, sizeof(c.date)) < 0)
		return -EBADMSG;
	c.threads = (long)threads;
	c.pairs = (unsigned)pairs;
	c.false_positives = (unsigned)count;
	c.groups = (unsigned)groups;
	c.group_rounds = (unsigned)group_rounds;
	*ret = c;
	return 0;
}

int calibration_write(const char *state_dir, const struct calibration *c)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	json_t *j;
	int r;

	/* JSON has no NaN: a calibration without its numbers is none. */
	if (!isfinite(c->sigma) || !isfinite(c->sigma_lo) || !isfinite(c->sigma_hi) || !isfinite(c->df) ||
	    !isfinite(c->fp_lo) || !isfinite(c->fp_hi))
		return -EDOM;
	j = calibration_to_json(c);
	if (!j)
		return -ENOMEM;
	text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(8));
	json_decref(j);
	if (!text || xasprintf(&path, "%s/%s", state_dir, CALIBRATION_FILE) < 0)
		return -ENOMEM;
	r = mkdir_p(state_dir, 0755);
	if (r < 0)
		return r;
	return write_file_atomic(path, text, strlen(text));
}

int calibration_read(const char *state_dir, struct calibration *ret)
{
	_cleanup_free_ char *path = NULL;
	json_error_t e;
	json_t *j;
	int r;

	if (xasprintf(&path, "%s/%s", state_dir, CALIBRATION_FILE) < 0)
		return -ENOMEM;
	if (access(path, F_OK) < 0)
		return -errno;
	j = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
	if (!j)
		return -EBADMSG;
	r = calibration_from_json(j, ret);
	json_decref(j);
	return r;
}

int calibration_of_this_host(const char *state_dir, struct calibration *ret, char *why, size_t len)
{
	struct calibration here = {};
	int r = calibration_read(state_dir, ret);

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		(void)text_copy(why, len, r == -EBADMSG ? "its record is unreadable" : "none stored");
		return 0;
	}
	r = calibration_identify(&here);
	if (r < 0)
		return r;
	if (calibration_same_host(ret, &here))
		return 1;
	snprintf(why, len, "the one stored was taken on %s%s%s", !streq(ret->hostname, here.hostname) ? "another host"
								: !streq(ret->kernel, here.kernel) ? "another kernel"
												  : "another CPU",
		 ", ", ret->date);
	return 0;
}

int calibration_for_host(const char *state_dir, long threads, struct calibration *ret, char *why, size_t len)
{
	int r = calibration_of_this_host(state_dir, ret, why, len);

	if (r <= 0)
		return r;
	if (ret->threads == threads)
		return 1;
	snprintf(why, len, "the one stored was taken at %ld thread%s", ret->threads, ret->threads == 1 ? "" : "s");
	return 0;
}

bool calibration_sigma_for_plan(const char *state_dir, long threads, double *ret, char *source, size_t len)
{
	struct calibration c;
	char why[160] = "none stored";

	if (calibration_for_host(state_dir, threads, &c, why, sizeof(why)) > 0) {
		snprintf(source, len, "slicebench calibrate's figure for %s of %s, %.1f-%.1f%%, measured %s", c.context,
			 c.experiment, 100 * c.sigma_lo, 100 * c.sigma_hi, c.date);
		*ret = c.sigma;
		return true;
	}
	snprintf(source, len, "assumed: slicebench calibrate measures this host's at %ld thread%s; %s", threads,
		 threads == 1 ? "" : "s", why);
	*ret = CALIBRATION_ASSUMED_SIGMA;
	return false;
}

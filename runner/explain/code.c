/* What a results directory may choose when explain re-measures from it
 * (see code.h): its placements through the trust gate. */
#include "explain/code.h"
#include "slices/attr/gate.h"
#include "common/text.h"
#include "common/util.h"

/* A key the gate refused, or took only as --trust-results-code says. */
static void said(const char *key, const char *why, bool refused, void *userdata)
{
	_cleanup_free_ char *shown = text_escape(key);

	if (refused)
		log_error("explain: %s: %s: %s", (const char *)userdata, strempty(shown), why);
	else
		log_warning("explain: %s: %s: %s; taken, as --%s says", (const char *)userdata, strempty(shown), why,
			    EXPLAIN_TRUST_OPTION);
}

/* One placement: 0, or the count of its refusals, or -ENOMEM. */
static int check_placement(const struct placement *p, const char *path, const struct gate_policy *pol)
{
	return gate_placement(p, pol, said, (void *)path);
}

int explain_check_code(const char *dir, const struct experiment *e, const struct placement *pa, const char *pa_path,
		       const struct placement *pb, const char *pb_path, bool trusted)
{
	_cleanup_(experiment_gate_policy_done) struct gate_policy pol = {};
	int a, b;

	if (experiment_gate_policy(e, trusted, &pol) < 0)
		return log_error_errno(-ENOMEM, "explain: %m");
	a = check_placement(pa, pa_path, &pol);
	b = a < 0 ? a : check_placement(pb, pb_path, &pol);
	if (a < 0 || b < 0)
		return log_error_errno(-ENOMEM, "explain: %m");
	if (!a && !b)
		return 0;
	log_error("explain: refused: %s holds %d setting%s above that the hybrids would take and an input may not ask%s",
		  dir, a + b, a + b == 1 ? "" : "s",
		  trusted ? "" : "; what chooses code not root's --" EXPLAIN_TRUST_OPTION " takes it, for a directory you made yourself");
	return -EINVAL;
}

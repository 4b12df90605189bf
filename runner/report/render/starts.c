/* The starts as a whole, in the words every renderer prints: how many the
 * rule of oltp.h left out and by which of its rows, and how many ran while
 * the host was busy (common/load.h). */
#include <stdio.h>

#include "report/render/render.h"

void report_starts_sentence(const struct model *m, char *buf, size_t len)
{
	size_t out = m->n_starts - m->removed[OLTP_RULE_KEPT], k = 0;
	int w;

	if (out)
		w = snprintf(buf, len, "%zu of %zu start%s left out by the rule:", out, m->n_starts, m->n_starts == 1 ? "" : "s");
	else
		w = snprintf(buf, len, "none of %zu start%s left out by the rule", m->n_starts, m->n_starts == 1 ? "" : "s");
	for (size_t r = OLTP_RULE_KEPT + 1; r < _OLTP_RULE_MAX && w > 0 && (size_t)w < len; r++)
		if (m->removed[r])
			w += snprintf(buf + w, len - (size_t)w, "%s %s %zu", k++ ? "," : "", oltp_rules[r].label, m->removed[r]);
}

void report_busy_sentence(const struct model *m, char *buf, size_t len)
{
	if (!m->n_host_known) {
		snprintf(buf, len, "whether the host was busy is not recorded");
		return;
	}
	if (!m->n_busy) {
		snprintf(buf, len, "none of the %zu start%s that say ran while the host was busy", m->n_host_known,
			 m->n_host_known == 1 ? "" : "s");
		return;
	}
	snprintf(buf, len, "%zu of %zu start%s ran while the host was busy (load %.0f on %u CPU%s)", m->n_busy, m->n_starts,
		 m->n_starts == 1 ? "" : "s", m->busy_load_max, m->busy_cpus, m->busy_cpus == 1 ? "" : "s");
}

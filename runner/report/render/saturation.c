/* The saturated steps in words, for report and compare (report/render/render.h):
 * the steps whose client threads and the server threads serving them
 * were more than the CPUs their context may use, where TPS measures the
 * CPUs' sharing as much as the context. */
#include <stdio.h>

#include "report/render/render.h"

/* The saturated steps named in the text; JSON carries all of them. */
#define SATURATED_LISTED 6

void print_saturated(const struct model *m, const char *label, bool markdown, FILE *out)
{
	size_t n = json_array_size(m->saturated), i;
	const json_t *v;

	if (n == 0)
		return;
	fprintf(out, "%ssaturated%s%s: %zu step%s ran more client and server threads (a server thread per "
		     "connection) than the CPUs their context may use, so that their TPS measures the CPUs' sharing as "
		     "much as the context:", markdown ? "\n" : "", label ? " on " : "", label ? label : "", n,
		n == 1 ? "" : "s");
	json_array_foreach(m->saturated, i, v) {
		const json_t *sat = json_object_get(v, "saturation");
		char vb[64], rb[32], tb[32];
		const char *vary = scalar_str(json_object_get(v, "vary_value"), vb, sizeof(vb));

		if (i == SATURATED_LISTED) {
			fprintf(out, " and %zu more (--format json lists them all)", n - i);
			break;
		}
		double cpus = json_number_value(json_object_get(sat, "cpus"));

		fprintf(out, "%s %s%s%s r%s t%s (%lld threads on %.3g CPU%s)", i ? "," : "",
			strempty(json_string_value(json_object_get(v, "context"))), vary ? " " : "", strempty(vary),
			strempty(scalar_str(json_object_get(v, "repeat"), rb, sizeof(rb))),
			strempty(scalar_str(json_object_get(v, "threads"), tb, sizeof(tb))),
			(long long)(json_integer_value(json_object_get(sat, "client_threads")) +
				    json_integer_value(json_object_get(sat, "server_threads"))),
			cpus, cpus == 1 ? "" : "s");
	}
	fputs(".\n\n", out);
}

/* mangen: fills the generated parts of slicebench.experiment(5) from the
 * tables that parse experiment files (the key table and the systemd property
 * table), so that the page cannot drift from the parser.  A build-time tool:
 * it reads the scdoc template on stdin and writes it to stdout with each
 * marker line replaced:
 *
 *   @KEYS SECTION@   the keys of [SECTION], with their form, range and help
 *   @PROPERTIES@     the systemd properties a [context NAME] or [vary] takes
 *   @KINDS@          (anywhere in a line) the kinds of context
 */
#include <stdio.h>

#include "run/experiment.h"
#include "slices/kinds/context.h"
#include "slices/attr/props.h"
#include "common/util.h"

/* scdoc takes * and _ as emphasis and \ as an escape anywhere in a line. */
static void put_escaped(const char *s)
{
	for (; *s; s++) {
		if (*s == '*' || *s == '_' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
}

static int put_keys(const char *section)
{
	struct experiment_key_doc k;
	int n = 0;

	for (size_t i = 0; experiment_key_doc(i, &k) >= 0; i++) {
		if (!streq(k.section, section))
			continue;
		printf("*%s* = _", k.name);
		put_escaped(k.syntax);
		printf("_\n\t");
		put_escaped(k.help);
		if (k.max)
			printf("; from %ld to %ld", k.min, k.max);
		if (k.def) {
			printf("; default _");
			put_escaped(k.def);
			printf("_");
		}
		printf(".\n\n");
		n++;
	}
	return n ? 0 : -ENOENT;
}

static void put_properties(void)
{
	size_t n;
	const struct prop_def *p = prop_table(&n);

	for (size_t i = 0; i < n; i++, p++) {
		if (!prop_settable(p))
			continue; /* recorded only: slicebench properties lists them */
		printf("*%s* = _VALUE_\n\t", p->name);
		put_escaped(p->help);
		printf(". %s property. D-Bus: %s (%s).", p->class == PROP_CGROUP ? "A cgroup" : "An exec", p->dbus_name,
		       p->signature);
		if (p->no_raw) {
			printf(" Not in raw or scope: ");
			put_escaped(p->no_raw);
			putchar('.');
		}
		printf("\n\n");
	}
}

/* A line with @KINDS@ in it: the kinds of context, from their rows. */
static void put_line(const char *line)
{
	const char *at = strstr(line, "@KINDS@");

	if (!at) {
		fputs(line, stdout);
		return;
	}
	printf("%.*s%s%s", (int)(at - line), line, context_kind_list(false), at + strlen("@KINDS@"));
}

int main(void)
{
	char line[4096], section[64];

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "@KEYS %63[a-z]@", section) == 1) {
			if (put_keys(section) < 0) {
				fprintf(stderr, "mangen: no keys in section [%s]\n", section);
				return 1;
			}
		} else if (streq(line, "@PROPERTIES@\n"))
			put_properties();
		else
			put_line(line);
	}
	return ferror(stdin) || fflush(stdout) ? 1 : 0;
}

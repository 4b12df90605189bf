/* mangen: fills the generated parts of slicebench.experiment(5) from the
 * tables that parse experiment files (the key table and the systemd property
 * table), so that the page cannot drift from the parser.  A build-time tool:
 * it reads the scdoc template on stdin and writes it to stdout with each
 * marker line replaced:
 *
 *   @KEYS SECTION@   the keys of [SECTION], with their form, range and help
 *   @PROPERTIES@     the systemd properties a [context NAME] or [vary] takes
 *   @KINDS@          (anywhere in a line) the kinds of context
 *
 * `mangen --keys` lists the key table instead, a "SECTION KEY" line per row,
 * for the test that the page documents exactly the table's keys.  Either
 * fails on a row without its form or its help.
 */
#include <stdio.h>

#include "experiment/experiment.h"
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

/* A row the page cannot say: no section, name, form or help. */
static int check_row(const struct experiment_key_doc *k)
{
	if (k->section && k->name && k->syntax && *k->syntax && k->help && *k->help)
		return 0;
	fprintf(stderr, "mangen: the key table's row [%s] %s lacks its form or its help\n", strempty(k->section),
		strempty(k->name));
	return -EINVAL;
}

static int put_keys(const char *section)
{
	struct experiment_key_doc k;
	int n = 0;

	for (size_t i = 0; experiment_key_doc(i, &k) >= 0; i++) {
		if (!streq(k.section, section))
			continue;
		if (check_row(&k) < 0)
			return -EINVAL;
		/* A property row's name is a placeholder, as its value is. */
		printf(k.property ? "_%s_ = _" : "*%s* = _", k.name);
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
		if (p->class == PROP_SERVER)
			printf(". A variable of the server's own (%s), on its command line in every kind.", p->engines);
		else
			printf(". %s property. D-Bus: %s (%s).", p->class == PROP_CGROUP ? "A cgroup" : "An exec",
			       p->dbus_name, p->signature);
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

static int list_keys(void)
{
	struct experiment_key_doc k;

	for (size_t i = 0; experiment_key_doc(i, &k) >= 0; i++) {
		if (check_row(&k) < 0)
			return 1;
		printf("%s %s\n", k.section, k.name);
	}
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	char line[4096], section[64];
	int r;

	if (argc == 2 && streq(argv[1], "--keys"))
		return list_keys();
	if (argc > 1) {
		fprintf(stderr, "mangen: takes no argument but --keys\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "@KEYS %63[a-z]@", section) == 1) {
			r = put_keys(section);
			if (r == -ENOENT)
				fprintf(stderr, "mangen: no keys in section [%s]\n", section);
			if (r < 0)
				return 1;
		} else if (streq(line, "@PROPERTIES@\n"))
			put_properties();
		else
			put_line(line);
	}
	return ferror(stdin) || fflush(stdout) ? 1 : 0;
}

/* slicebench properties [--json]: the attribute table as the user sees it:
 * each attribute, how systemd sets it, whether raw and scope reproduce it
 * in their fork (or why not), whether explain takes it from a placement,
 * and the placement keys it moves; then the
 * kinds of context. */
#include <stdio.h>

#include <jansson.h>

#include "slices/kinds/context.h"
#include "common/util.h"
#include "cli/verbs.h"

static const char *const class_names[] = {
	[PROP_CGROUP] = "cgroup",
	[PROP_EXEC] = "exec",
	[PROP_SERVER] = "server",
	[PROP_RECORD] = "recorded",
};

static const char *raw_how(const struct prop_def *d)
{
	if (d->class == PROP_RECORD)
		return "-";
	if (d->no_raw)
		return d->no_raw;
	if (d->class == PROP_SERVER)
		return "on the server's command line, in every kind";
	return d->class == PROP_CGROUP ? "raw writes cgroupfs, scope asks systemd" : "applied in the fork before exec";
}

/* How explain's hybrids take it when two placements differ in its keys. */
static const char *take_how(const struct prop_def *d)
{
	return d->take ? "taken from the other context's placement" : "cannot be taken: a difference stays unexplained";
}

static void print_keys(const struct prop_def *d, FILE *f)
{
	for (size_t k = 0; k < ATTR_KEYS_MAX && d->keys[k]; k++)
		fprintf(f, "%s%s", k ? " " : "", d->keys[k]);
}

static const struct cli_option opt_json = { .name = "json", .type = CLI_FLAG, .offset = 0,
					    .help = "the table as JSON" };

const struct cli_verb cli_properties = {
	.name = "properties",
	.usage = (const char *const[]){ "[--json]", NULL },
	.about = "The attributes slicebench reads, sets and reproduces, straight from the property table: each\n"
		 "one's class, D-Bus name (or why systemd cannot set it), what it does, how raw and scope\n"
		 "reproduce it, whether explain's hybrids can take it from a placement, the placement keys it\n"
		 "moves; then the kinds of context.",
	.options = (const struct cli_option *const[]){ &opt_json, NULL },
};

int verb_properties(int argc, char **argv)
{
	size_t n;
	const struct prop_def *table = prop_table(&n);
	bool json = false;
	int r;

	r = cli_parse_options_only(&cli_properties, argc, argv, &json);
	if (r <= 0)
		return verb_parse_exit_status(r);
	if (json) {
		json_t *attrs = json_array(), *kinds = json_array();

		for (size_t i = 0; i < n; i++) {
			json_t *keys = json_array();

			for (size_t k = 0; k < ATTR_KEYS_MAX && table[i].keys[k]; k++)
				json_array_append_new(keys, json_string(table[i].keys[k]));
			json_array_append_new(attrs, json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s, s:b, s:o, s:s, s:s?}", "name",
							       table[i].name, "class", class_names[table[i].class], "dbus",
							       table[i].dbus_name, "signature", table[i].signature, "no_systemd",
							       table[i].no_systemd, "raw", raw_how(&table[i]), "explain_takes",
							       table[i].take != NULL, "keys", keys, "help", table[i].help,
							       "engines", table[i].engines));
		}
		for (enum context_kind k = 0; context_ops_for(k); k++)
			json_array_append_new(kinds, json_pack("{s:s, s:b, s:b}", "name", context_ops_for(k)->name, "session",
							       context_ops_for(k)->session, "exec_by_systemd",
							       context_ops_for(k)->exec_by_systemd));
		json_t *doc = json_pack("{s:o, s:o}", "attributes", attrs, "kinds", kinds);

		if (!doc)
			return log_error_errno(-ENOMEM, "properties: %m"), 1;
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		printf("%s (%s%s%s)\n  %s\n", table[i].name, class_names[table[i].class], table[i].dbus_name ? ", D-Bus " : "",
		       strempty(table[i].dbus_name), table[i].help);
		if (table[i].no_systemd)
			printf("  systemd: %s\n", table[i].no_systemd);
		if (table[i].engines)
			printf("  the server of: %s\n", table[i].engines);
		printf("  raw and scope: %s\n  explain's hybrids: %s\n  keys: ", raw_how(&table[i]), take_how(&table[i]));
		print_keys(&table[i], stdout);
		putchar('\n');
	}
	printf("\nkinds: %s; a session is chosen by %s\n", context_kind_list(false), context_kind_list(true));
	return 0;
}

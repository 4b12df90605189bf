#include <inttypes.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/options.h"
#include "experiment/parse.h"
#include "common/rng.h"
#include "stats/stats.h"
#include "common/util.h"

#define OPTIONS_MAX 64
#define HELP_COLUMN 25

static const struct cli_option help_option = { .name = "help", .short_name = 'h', .help = "print this help" };

static size_t n_options(const struct cli_verb *v)
{
	size_t n = 0;

	while (v->options && v->options[n])
		n++;
	return n;
}

static const struct cli_option *option_at(const struct cli_verb *v, size_t i)
{
	return i < n_options(v) ? v->options[i] : &help_option;
}

/* The key table's row of a setting's option; NULL for the others. */
static const struct key_def *setting_of(const struct cli_option *o)
{
	return o->type == CLI_SETTING ? &key_table[o->key] : NULL;
}

static const char *name_of(const struct cli_option *o)
{
	return setting_of(o) ? setting_of(o)->option : o->name;
}

static char short_of(const struct cli_option *o)
{
	return setting_of(o) ? setting_of(o)->short_option : o->short_name;
}

/* What --help calls a setting's value, by its row's type. */
static const char *const setting_args[] = {
	[TYPE_STRING] = "NAME", [TYPE_UINT] = "N",	  [TYPE_DURATION] = "DURATION", [TYPE_THREADS] = "LIST",
	[TYPE_CPUS] = "LIST",	[TYPE_WORD] = "NAME",	  [TYPE_KIND] = "KIND",		[TYPE_PROPERTY] = "N=V",
};

static const char *arg_of(const struct cli_option *o)
{
	const struct key_def *k = setting_of(o->alias_of ?: o);

	o = o->alias_of ?: o;
	if (!k)
		return o->arg;
	return (size_t)k->type < ELEMENTSOF(setting_args) && setting_args[k->type] ? setting_args[k->type] : "VALUE";
}

static const struct cli_option *find_option(const struct cli_verb *v, const char *name)
{
	for (size_t i = 0; i <= n_options(v); i++)
		if (streq(name_of(option_at(v, i)), name))
			return option_at(v, i);
	return NULL;
}

/* A setting's help: its row's (the option's own, else the key's), the words it takes (the kinds from their
 * table), its default. */
static void print_setting_help(const struct key_def *k, FILE *f)
{
	char list[256] = "";

	if (k->type == TYPE_KIND)
		(void)text_copy(list, sizeof(list), context_kind_list(false));
	else if (k->words && k->type != TYPE_BOOL)
		word_list(k->words, list, sizeof(list));
	fprintf(f, "%s%s%s%s%s%s\n", k->option_help ? k->option_help : k->help, *list ? ": " : "", list, k->def ? " (" : "", strempty(k->def),
		k->def ? ")" : "");
}

void cli_help(const struct cli_verb *v, FILE *f)
{
	char form[256];
	const char *u;

	for (size_t i = 0; (u = v->usage_form ? v->usage_form(i, form, sizeof(form)) : v->usage ? v->usage[i] : NULL); i++)
		fprintf(f, "%s slicebench %s %s\n", i ? "      " : "usage:", v->name, u);
	fprintf(f, "\n%s\n\n", v->about);
	for (size_t i = 0; i <= n_options(v); i++) {
		const struct cli_option *o = option_at(v, i);
		char name[128], letter[8] = "";
		int n;

		if (short_of(o))
			snprintf(letter, sizeof(letter), "-%c, ", short_of(o));
		n = snprintf(name, sizeof(name), "%s--%s%s%s", letter, name_of(o), arg_of(o) ? " " : "", strempty(arg_of(o)));
		fprintf(f, "  %s%*s", name, MAX(HELP_COLUMN - n, 2), "");
		if (o->alias_of)
			fprintf(f, "deprecated: the old name of --%s\n", name_of(o->alias_of));
		else if (setting_of(o))
			print_setting_help(setting_of(o), f);
		else
			fprintf(f, "%s\n", o->help);
	}
	if (v->help_tables) {
		fputc('\n', f);
		v->help_tables(f);
	}
}

static int usage_error(const struct cli_verb *v, const char *fmt, va_list ap)
{
	_cleanup_free_ char *why = NULL;

	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	log_error("%s: %s (slicebench %s --help)", v->name, why ? why : "bad usage", v->name);
	return -EINVAL;
}

int cli_usage_error(const struct cli_verb *v, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = usage_error(v, fmt, ap);
	va_end(ap);
	return r;
}

int cli_bad_value(const struct cli_verb *v, const struct cli_option *o, const char *value, const char *want)
{
	log_error("%s: --%s: bad value '%s' (%s)", v->name, name_of(o), value, want);
	return -EINVAL;
}

/* An integer option's value into its field: CLI_UINT, CLI_LONG, CLI_U64
 * or CLI_SEED, each refused with its range. */
static int take_integer(const struct cli_verb *v, const struct cli_option *o, const char *value, void *field)
{
	char want[128];
	uint64_t u;
	long n;

	switch (o->type) {
	case CLI_UINT:
	case CLI_LONG:
		if (parse_int_range(value, o->min, o->max, &n) < 0) {
			snprintf(want, sizeof(want), "an integer from %ld to %ld", o->min, o->max);
			return cli_bad_value(v, o, value, want);
		}
		if (o->type == CLI_UINT)
			*(unsigned *)field = (unsigned)n;
		else
			*(long *)field = n;
		return 0;
	case CLI_U64:
		if (parse_u64(value, &u) < 0 || u < (uint64_t)o->min) {
			snprintf(want, sizeof(want), "an integer of at least %ld", o->min);
			return cli_bad_value(v, o, value, want);
		}
		*(uint64_t *)field = u;
		return 0;
	case CLI_SEED:
		if (parse_u64(value, &u) < 0 || u > RNG_SEED_MAX) {
			snprintf(want, sizeof(want), "an integer from 0 to %" PRIu64, RNG_SEED_MAX);
			return cli_bad_value(v, o, value, want);
		}
		*(struct cli_seed *)field = (struct cli_seed){ .value = u, .given = true };
		return 0;
	default:
		return -EINVAL;
	}
}

/* A setting's value through its row, as a file's; the row's message. */
static int take_setting(const struct cli_verb *v, const struct cli_option *o, const char *value, struct parser *p)
{
	if (experiment_set_option(p, setting_of(o), value) >= 0)
		return 0;
	log_error("%s: %s", v->name, p->msg ? p->msg : "out of memory");
	free(p->msg);
	p->msg = NULL;
	return -EINVAL;
}

/* A typed option's value into its field. */
static int take_value(const struct cli_verb *v, const struct cli_option *o, const char *value, void *args)
{
	void *field = (char *)args + o->offset;
	char want[128];
	uint64_t u;
	int w;

	switch (o->type) {
	case CLI_STRING:
		*(const char **)field = value;
		return 0;
	case CLI_FLAG:
		*(bool *)field = true;
		return 0;
	case CLI_UINT:
	case CLI_LONG:
	case CLI_U64:
	case CLI_SEED:
		return take_integer(v, o, value, field);
	case CLI_DURATION:
		if (parse_duration_ns(value, &u) < 0 || u < (uint64_t)o->min)
			return cli_bad_value(v, o, value, o->min ? "a duration above 0, such as 10s or 2m" : "a duration such as 10s or 2m");
		*(uint64_t *)field = u;
		return 0;
	case CLI_WORD:
		if (word_lookup(o->words, value, &w) < 0)
			return cli_bad_value(v, o, value, word_list(o->words, want, sizeof(want)));
		*(int *)field = w;
		return 0;
	case CLI_CONFIDENCE:
		if (stats_parse_confidence(value, (double *)field) < 0) {
			snprintf(want, sizeof(want), "a percentage above %g and below %g, such as 95",
				 STATS_CONFIDENCE_MIN_PCT, STATS_CONFIDENCE_MAX_PCT);
			return cli_bad_value(v, o, value, want);
		}
		return 0;
	case CLI_SETTING:
		return take_setting(v, o, value, *(struct parser **)field);
	case CLI_CUSTOM:
		break;
	}
	return -EINVAL;
}

/* An option this verb does not take: the verbs that do take it, if any. */
static int unknown_option(const struct cli_verb *v, const char *arg)
{
	_cleanup_free_ char *name = strndup(arg + 2, strcspn(arg + 2, "="));
	char others[256] = "";
	size_t n = 0, off = 0;

	if (strncmp(arg, "--", 2) == 0 && name)
		for (size_t i = 0; cli_verb_at(i); i++)
			if (cli_verb_at(i) != v && find_option(cli_verb_at(i), name) && off < sizeof(others))
				off += (size_t)snprintf(others + off, sizeof(others) - off, "%s%s", n++ ? " and " : "",
							cli_verb_at(i)->name);
	if (n)
		return cli_usage_error(v, "--%s is an option of %s", name, others);
	return cli_usage_error(v, "unknown option %s", arg);
}

int cli_parse(const struct cli_verb *v, int argc, char **argv, void *userdata, int *ret_first)
{
	struct option table[OPTIONS_MAX + 2] = {};
	char shorts[2 * OPTIONS_MAX + 4] = ":";
	size_t n = MIN(n_options(v), (size_t)OPTIONS_MAX), ns = 1;
	int c, idx, r;

	for (size_t i = 0; i <= n; i++) {
		const struct cli_option *o = option_at(v, i == n ? n_options(v) : i);

		table[i] = (struct option){ name_of(o), arg_of(o) ? required_argument : no_argument, NULL, 0x100 + (int)i };
		if (short_of(o)) {
			shorts[ns++] = short_of(o);
			if (arg_of(o))
				shorts[ns++] = ':';
		}
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, table, &idx)) >= 0) {
		const struct cli_option *o = NULL;

		if (c >= 0x100)
			o = option_at(v, (size_t)(c - 0x100) == n ? n_options(v) : (size_t)(c - 0x100));
		else
			for (size_t i = 0; i <= n_options(v) && !o; i++)
				if (c != ':' && c != '?' && short_of(option_at(v, i)) == c)
					o = option_at(v, i);
		if (c == ':')
			return cli_usage_error(v, "%s needs a value", argv[optind - 1]);
		if (!o)
			return optopt && optopt < 0x100 ? cli_usage_error(v, "unknown option -%c", optopt)
							: unknown_option(v, argv[optind - 1]);
		if (o == &help_option) {
			cli_help(v, stdout);
			return 0;
		}
		if (o->alias_of) {
			log_warning("%s: --%s is deprecated and will go: use --%s", v->name, name_of(o), name_of(o->alias_of));
			o = o->alias_of;
		}
		r = o->type == CLI_CUSTOM ? v->parse(v, o, optarg, userdata) : take_value(v, o, optarg, userdata);
		if (r < 0)
			return r;
	}
	*ret_first = optind;
	return 1;
}

const char *cli_option_name(const struct cli_option *o)
{
	return name_of(o);
}

const char *cli_option_arg(const struct cli_option *o)
{
	return arg_of(o);
}

void cli_option_print_values(const struct cli_option *o, FILE *f)
{
	const struct key_def *k = setting_of(o->alias_of ?: o);
	const struct word *words = k ? (k->type == TYPE_BOOL ? NULL : k->words) : (o->alias_of ?: o)->words;

	if (k && k->type == TYPE_KIND)
		for (int kind = 0; context_ops_for((enum context_kind)kind); kind++)
			fprintf(f, "%s\n", context_kind_to_string((enum context_kind)kind));
	for (const struct word *w = words; w && w->name; w++)
		if (word_name(words, w->value) == w->name)
			fprintf(f, "%s\n", w->name);
}

int cli_parse_options_only(const struct cli_verb *v, int argc, char **argv, void *userdata)
{
	int first, r = cli_parse(v, argc, argv, userdata, &first);

	if (r > 0 && first < argc)
		return cli_usage_error(v, "unexpected argument %s", argv[first]);
	return r;
}

int cli_set_verbosity(const struct cli_verb *v, const struct cli_verbosity *talk)
{
	if (talk->quiet && talk->verbose)
		return cli_usage_error(v, "-q and -v exclude each other");
	run_set_verbosity(talk->quiet ? RUN_QUIET : talk->verbose ? RUN_VERBOSE : RUN_NORMAL);
	return 0;
}

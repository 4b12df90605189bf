/* slicebench __complete: bash completion from the tables the command line
 * is parsed with, read at run time, so that it cannot drift from them.
 * `__complete bash` prints the completion script, which asks
 * `slicebench __complete CWORD WORDS...` for the candidates of word CWORD:
 * the verbs; a verb's options (not their deprecated names); an option's
 * values from its words, or files or directories by its argument's name;
 * a verb's operands by its row's kind of operand.  A line __files__ or
 * __dirs__ asks the script to add the paths that match. */
#include <dirent.h>
#include <stdio.h>

#include "experiment/experiment.h"
#include "slices/kinds/context.h"
#include "common/util.h"
#include "cli/verbs.h"

static const char script[] =
	"# bash completion for slicebench: the candidates come from its own option tables\n"
	"# (slicebench __complete), so they are those of the slicebench on PATH.\n"
	"_slicebench() {\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} line paths= words=()\n"
	"\twhile IFS= read -r line; do\n"
	"\t\tcase $line in\n"
	"\t\t__files__) paths=f ;;\n"
	"\t\t__dirs__) paths=d ;;\n"
	"\t\t*) words+=(\"$line\") ;;\n"
	"\t\tesac\n"
	"\tdone < <(\"${COMP_WORDS[0]}\" __complete \"$COMP_CWORD\" \"${COMP_WORDS[@]}\" 2>/dev/null)\n"
	"\t# Each candidate compared as text: compgen -W would expand a word (a file\n"
	"\t# named $(cmd).ini runs cmd).\n"
	"\tCOMPREPLY=()\n"
	"\tfor line in \"${words[@]}\"; do\n"
	"\t\t[[ $line == \"$cur\"* ]] && COMPREPLY+=(\"$line\")\n"
	"\tdone\n"
	"\tif [ -n \"$paths\" ]; then\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tmapfile -t -O \"${#COMPREPLY[@]}\" COMPREPLY < <(compgen -\"$paths\" -- \"$cur\")\n"
	"\tfi\n"
	"}\n"
	"complete -F _slicebench slicebench\n";

static const struct verb *verb_named(const char *name)
{
	for (size_t i = 0; verbs[i].name; i++)
		if (streq(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

/* The option word names (--name or its letter), NULL if none. */
static const struct cli_option *option_named(const struct cli_verb *v, const char *word)
{
	for (size_t i = 0; v && v->options && v->options[i]; i++) {
		const struct cli_option *o = v->options[i];

		if ((strncmp(word, "--", 2) == 0 && streq(word + 2, cli_option_name(o))) ||
		    (o->short_name && word[0] == '-' && word[1] == o->short_name && !word[2]))
			return o;
	}
	return NULL;
}

/* The value of option o: the values its row lists, or paths by the name
 * of its argument. */
static void complete_value(const struct cli_option *o)
{
	const char *arg = cli_option_arg(o);

	cli_option_print_values(o, stdout);
	if (strstr(arg, "DIR") || strstr(arg, "RESULTS"))
		puts("__dirs__");
	else if (strstr(arg, "PATH") || strstr(arg, "FILE"))
		puts("__files__");
}

/* The named experiments of the first directory that has any, as list
 * shows them (only names an experiment may have: a file named
 * $(cmd).ini is none), and the paths of experiment files. */
static void complete_experiments(void)
{
	bool any = false;

	for (const char *const *d = experiment_dirs(); *d && !any; d++) {
		struct dirent **names = NULL;
		int n = scandir(*d, &names, NULL, alphasort);

		for (int i = 0; i < n; i++) {
			size_t len = strlen(names[i]->d_name);

			char stem[64];

			if (len > 4 && len - 4 < sizeof(stem) && streq(names[i]->d_name + len - 4, ".ini")) {
				snprintf(stem, sizeof(stem), "%.*s", (int)(len - 4), names[i]->d_name);
				if (name_is_valid(stem)) {
					puts(stem);
					any = true;
				}
			}
			free(names[i]);
		}
		free(names);
	}
	puts("__files__");
}

static void complete_operand(const struct verb *v)
{
	switch (v->operand) {
	case OPERAND_NONE:
		break;
	case OPERAND_EXPERIMENT:
		complete_experiments();
		break;
	case OPERAND_DIR:
		puts("__dirs__");
		break;
	case OPERAND_FILE:
		puts("__files__");
		break;
	case OPERAND_KIND:
		for (int k = 0; context_ops_for((enum context_kind)k); k++)
			puts(context_kind_to_string((enum context_kind)k));
		break;
	case OPERAND_WORDS:
		for (size_t i = 0; v->operand_words && v->operand_words[i]; i++)
			puts(v->operand_words[i]);
		break;
	}
}

static void complete_verb(const struct verb *v, char **words, int cword)
{
	const char *cur = words[cword] ? words[cword] : "";
	const struct cli_option *prev = option_named(v->cli, words[cword - 1]);

	for (int i = 2; i < cword; i++)
		if (streq(words[i], "--"))
			return (void)puts("__files__"); /* a command's own words */
	if (prev && cli_option_arg(prev))
		return complete_value(prev);
	if (cur[0] == '-') {
		for (size_t i = 0; v->cli && v->cli->options && v->cli->options[i]; i++)
			if (!v->cli->options[i]->alias_of)
				printf("--%s\n", cli_option_name(v->cli->options[i]));
		puts("--help");
		return;
	}
	complete_operand(v);
}

int verb_complete(int argc, char **argv)
{
	const struct verb *v;
	long cword;

	if (argc == 2 && streq(argv[1], "bash"))
		return fputs(script, stdout) < 0 ? 1 : 0;
	/* __complete CWORD WORD0 WORD1...: WORD0 is slicebench itself. */
	if (argc < 4 || parse_int_range(argv[1], 1, argc - 3, &cword) < 0)
		return EXIT_USAGE;
	argv += 2;
	if (cword == 1 || (cword == 2 && streq(argv[1], "help"))) {
		for (size_t i = 0; verbs[i].name; i++)
			puts(verbs[i].name);
		if (cword == 1)
			printf("help\n--help\n--version\n");
		return 0;
	}
	v = verb_named(argv[1]);
	if (v)
		complete_verb(v, argv, (int)cword);
	return 0;
}

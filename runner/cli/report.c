/* slicebench report DIR and slicebench compare DIR...: the command lines over
 * report/, which only renders. */
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"
#include "stats/stats.h"
#include "store/results.h"
#include "common/text.h"
#include "common/util.h"
#include "explain/explain.h"
#include "explain/record.h"
#include "cli/verbs.h"

struct report_args {
	struct report_options ro;
	const char *output;
	unsigned width; /* an explain directory's: points of the gap; 0: its own */
};

#define R(f) .offset = offsetof(struct report_args, f)
static const struct cli_option opt_compare_format = { .name = "format", .arg = "FORMAT", .type = CLI_WORD,
						      R(ro.format), .words = report_page_format_words,
						      .help = "text by default; each document's formats are in the table below "
							      "(html: one page that opens from disk)" };
static const struct cli_option opt_page_format = { .name = "format", .arg = "FORMAT", .type = CLI_WORD, R(ro.format),
						   .words = report_page_format_words,
						   .help = "text by default; each document's formats are in the table below "
							   "(html: one page that opens from disk)" };
static const struct cli_option opt_latency = { .name = "latency", .type = CLI_FLAG, R(ro.latency),
					       .help = "add the median p95 latency per cell" };
static const struct cli_option opt_telemetry = { .name = "telemetry", .type = CLI_FLAG, R(ro.telemetry),
						 .help = "add per cell the mean cpu idle %, the load average's range, the running "
							 "(R) and uninterruptible (D) tasks, the nr_throttled delta and, per "
							 "transaction, run-queue wait, migrations and involuntary switches" };
static const struct cli_option opt_output = { .name = "output", .short_name = 'o', .arg = "FILE", .type = CLI_STRING,
					      R(output), .help = "write there, not to standard output (-: standard output)" };
static const struct cli_option opt_width = { .name = "width", .arg = "POINTS", .type = CLI_UINT, R(width), .min = 1,
					     .max = 100, .help = "an explain directory: the named share's interval it "
								 "was to reach, in points of the gap (its own, 20)" };
#undef R

/* The table of document x format: what report and compare print, each
 * document a row (report/report.h, explain/explain.h) of its renderer in
 * every format. */
static const struct document *const documents[] = {
	&document_run,
	&document_compare,
	&document_explain,
	&document_explain_compare,
};

/* The table as --help prints it: a row per document, a column per format. */
static void print_documents(FILE *f)
{
	fprintf(f, "The documents and their formats (x: printed; -: not in that format):\n%-17s", "");
	for (int k = 0; k < _REPORT_FORMAT_MAX; k++)
		fprintf(f, " %s", report_format_to_string((enum report_format)k));
	fputc('\n', f);
	for (size_t i = 0; i < ELEMENTSOF(documents); i++) {
		fprintf(f, "  %-15s", documents[i]->name);
		for (int k = 0; k < _REPORT_FORMAT_MAX; k++)
			fprintf(f, " %*s", (int)strlen(report_format_to_string((enum report_format)k)),
				documents[i]->format[k] ? "x" : "-");
		fprintf(f, "  %s\n", documents[i]->of);
	}
}

/* A form of the usage, each document's formats from its row: "DIR
 * [--format text|markdown|...] OPTIONS". */
static const char *usage_form(const struct document *d, const char *operands, const char *options, char *buf,
			      size_t len)
{
	char formats[128];

	if (snprintf_whole(buf, len, "%s [--format %s] %s", operands,
			   document_formats(d, "|", "|", formats, sizeof(formats)), options) < 0)
		return operands; /* cut: the usage's operands alone */
	return buf;
}

static const char *report_usage(size_t i, char *buf, size_t len)
{
	if (i == 0)
		return usage_form(&document_run, "DIR", "[--latency] [--telemetry] [--confidence 95] [-o FILE]", buf, len);
	if (i == 1)
		return usage_form(&document_explain, "EXPLAIN-DIR", "[--confidence 95] [--width 20] [-o FILE]", buf, len);
	return NULL;
}

static const char *compare_usage(size_t i, char *buf, size_t len)
{
	if (i == 0)
		return usage_form(&document_compare, "DIR DIR...", "[--confidence 95] [-o FILE]", buf, len);
	if (i == 1)
		return usage_form(&document_explain_compare, "EXPLAIN-DIR EXPLAIN-DIR...", "[--confidence 95] [-o FILE]",
				  buf, len);
	return NULL;
}

const struct cli_verb cli_report = {
	.name = "report",
	.usage_form = report_usage,
	.about = "The per-context TPS table of a results directory: the median of the repeats, min..max, the\n"
		 "ratio to the baseline from one model of log TPS, context + round, with its interval and p,\n"
		 "Holm-adjusted across the table, n.s. where the interval contains 1 (with the smallest gap the\n"
		 "repeats could have seen); with a [vary], each value's TPS against its context's first value,\n"
		 "by the same method; the failures; then the noise within a start and across starts.  Of an\n"
		 "explain directory, the explanation as explain printed it, from the directory alone.",
	.options = (const struct cli_option *const[]){ &opt_page_format, &opt_latency, &opt_telemetry,
						       CLI_CONFIDENCE_OPTION(struct report_args, ro.confidence), &opt_output,
						       &opt_width, NULL },
	.help_tables = print_documents,
};

const struct cli_verb cli_compare = {
	.name = "compare",
	.usage_form = compare_usage,
	.about = "The same experiment from several hosts, a column per host (named after its directory): the\n"
		 "ratios to each host's baseline; whether the hosts differ, each host's ratio and its ratio over\n"
		 "the first host's from one model of log TPS, host x context + round within host, Holm-adjusted\n"
		 "across the table (compared where the hosts overlap, the rest listed); the median TPS, the host\n"
		 "facts that decide a comparison (vendor, model, L3 groups, kernel, mitigations, systemd, cgroup\n"
		 "mode; differences marked), then the other host facts that differ.  Each directory needs its\n"
		 "host.json, and all must hold the same experiment (name and baseline).  Of explain directories\n"
		 "(one pair from several hosts): each factor's effect on each host, as a ratio and a share, and\n"
		 "which factors' effects differ between the hosts, with the host facts that differ.",
	.options = (const struct cli_option *const[]){ &opt_compare_format,
						       CLI_CONFIDENCE_OPTION(struct report_args, ro.confidence), &opt_output,
						       NULL },
	.help_tables = print_documents,
};

static int load(const char *verb, const char *dir, json_t **ret)
{
	_cleanup_free_ char *why = NULL;
	int r = results_load(dir, ret, &why);

	if (r < 0 && why)
		log_error("%s: %s (%s)", verb, why,
			  r == -EBADMSG ? "not as slicebench run writes it" : "not a results directory of slicebench run");
	else if (r < 0)
		log_error_errno(r, "%s: %s is not a results directory of slicebench run: %m", verb, dir);
	return r;
}

/* -o FILE, before anything is read: a new file or a regular one, replaced
 * through a temporary and a rename; never a symbolic link, whose target
 * root would overwrite, nor a device or a FIFO.  Usage error if not. */
static int output_check(const struct cli_verb *v, const char *output)
{
	struct stat st;

	if (!output || streq(output, "-") || (lstat(output, &st) < 0 && errno == ENOENT))
		return 0;
	if (S_ISLNK(st.st_mode))
		return cli_usage_error(v, "-o %s: a symbolic link (root would write where it points); give the file itself",
				       output);
	if (!S_ISREG(st.st_mode))
		return cli_usage_error(v, "-o %s: not a regular file", output);
	return 0;
}

/* text (len bytes) to output, or standard output when NULL or "-": a page
 * is written whole or not at all. */
static int write_output(const char *verb, const char *output, const char *text, size_t len)
{
	int r;

	if (output && streq(output, "-"))
		output = NULL;
	if (output) {
		r = write_file_atomic(output, text, len);
		return r < 0 ? log_error_errno(r, "%s: cannot write %s: %m", verb, output) : 0;
	}
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
		return log_error_errno(-EIO, "%s: cannot write the output: %m", verb);
	return 0;
}

/* d's cell of in's format, the whole text made before any of it is
 * written to output (NULL: standard output); what says what failed. */
static int render_document(const char *verb, const struct document *d, const struct document_input *in,
			   const char *what, const char *output)
{
	_cleanup_free_ char *why = NULL, *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int r;

	if (!mem)
		return log_error_errno(-ENOMEM, "%s: %m", verb);
	r = d->format[in->o->format](in, mem, &why);
	if (fclose(mem) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0 && why)
		return log_error_errno(r, "%s: %s", verb, why);
	if (r < 0)
		return log_error_errno(r, "%s: %s%m%s", verb, strempty(what),
				       what ? "" : " (the directories must hold the same experiment)");
	return write_output(verb, output, text, len);
}

static bool is_explain_dir(const char *dir)
{
	_cleanup_free_ char *p = NULL;

	return xasprintf(&p, "%s/" EXPLAIN_RECORD, dir) >= 0 && access(p, F_OK) == 0;
}

/* The report of dir, a results or an explain directory, into output
 * (NULL: standard output). */
static int report(char *dir, const struct report_args *a)
{
	struct document_input in = { .dirs = &dir, .n = 1, .o = &a->ro, .width = a->width / 100.0 };
	_cleanup_free_ char *what = NULL;
	char formats[128];
	json_t *doc = NULL;
	int r;

	if (xasprintf(&what, "%s: ", dir) < 0)
		return log_error_errno(-ENOMEM, "report: %m");
	if (is_explain_dir(dir)) {
		if (!document_explain.format[a->ro.format])
			return log_error_errno(-ENOTDIR, "report: %s is an explain directory, which reports as %s", dir,
					 document_formats(&document_explain, ", ", " or ", formats, sizeof(formats)));
		return render_document("report", &document_explain, &in, what, a->output);
	}
	r = load("report", dir, &doc);
	if (r < 0)
		return r;
	in.docs = &doc;
	r = render_document("report", &document_run, &in, what, a->output);
	json_decref(doc);
	return r;
}

int verb_report(int argc, char **argv)
{
	struct report_args a = {};
	int r, first;

	r = cli_parse(&cli_report, argc, argv, &a, &first);
	if (r <= 0)
		return verb_parse_exit_status(r);
	if (argc - first != 1)
		return cli_usage_error(&cli_report, "give one results directory"), EXIT_USAGE;
	a.ro.source = argv[first];
	if (a.ro.format == REPORT_PNG && (!a.output || streq(a.output, "-")) && isatty(STDOUT_FILENO))
		return cli_usage_error(&cli_report, "--format png writes binary; give -o FILE"), EXIT_USAGE;
	if (output_check(&cli_report, a.output) < 0)
		return EXIT_USAGE;
	return verb_input_exit_status(report(argv[first], &a));
}

/* A column is named after its results directory's last component (the
 * playbook fetches each host's as RESULTS/HOST); the paths as given when
 * two of those names are the same.  The names point into dirs, whose
 * trailing slashes are cut. */
static void compare_labels(char **dirs, size_t n, const char **ret)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(dirs[i]);
		const char *slash;

		while (len > 1 && dirs[i][len - 1] == '/')
			dirs[i][--len] = 0;
		slash = strrchr(dirs[i], '/');
		ret[i] = slash && slash[1] ? slash + 1 : dirs[i];
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (streq(ret[i], ret[j])) {
				for (size_t k = 0; k < n; k++)
					ret[k] = dirs[k];
				return;
			}
}

/* The experiment's name or baseline in doc, "(none)" without. */
static const char *experiment_key(const json_t *doc, const char *key)
{
	const char *v = json_string_value(json_object_get(json_object_get(doc, "experiment"), key));

	return v ? v : "(none)";
}

/* Documents compare can put side by side: each with its host's facts, all
 * of one experiment (its name and baseline) as the first.  -EBADMSG, said
 * with the directory and why. */
static int compare_check(char *const *dirs, json_t *const *docs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!json_is_object(json_object_get(docs[i], "host")))
			return log_error_errno(-EBADMSG, "compare: %s has no host facts (host.json): a comparison across hosts needs them",
					 dirs[i]);
		if (i == 0)
			continue;
		if (!streq(experiment_key(docs[i], "name"), experiment_key(docs[0], "name")) ||
		    !streq(experiment_key(docs[i], "baseline"), experiment_key(docs[0], "baseline")))
			return log_error_errno(-EBADMSG, "compare: %s holds experiment %s (baseline %s) but %s holds %s (baseline %s): "
					 "compare takes results of the same experiment",
					 dirs[i], experiment_key(docs[i], "name"), experiment_key(docs[i], "baseline"), dirs[0],
					 experiment_key(docs[0], "name"), experiment_key(docs[0], "baseline"));
	}
	return 0;
}

/* The documents of dirs side by side; explain directories, all of them, by
 * their causes. */
static int compare(char **dirs, size_t n, const struct report_args *a)
{
	json_t *docs[COMPARE_HOSTS_MAX] = {};
	const char *labels[COMPARE_HOSTS_MAX];
	struct document_input in = { .dirs = dirs, .labels = labels, .docs = docs, .n = n, .o = &a->ro };
	char formats[128];
	size_t nx = 0;
	int r = 0;

	for (size_t i = 0; i < n; i++)
		nx += is_explain_dir(dirs[i]);
	for (size_t i = 1; nx && nx < n && i < n; i++)
		if (is_explain_dir(dirs[i]) != is_explain_dir(dirs[0]))
			return log_error_errno(-EBADMSG, "compare: %s is %san explain directory and %s is %s: compare takes one kind",
					 dirs[0], is_explain_dir(dirs[0]) ? "" : "not ", dirs[i],
					 is_explain_dir(dirs[i]) ? "one" : "not");
	if (nx && !document_explain_compare.format[a->ro.format])
		return log_error_errno(-ENOTDIR, "compare: explain directories compare as %s",
				 document_formats(&document_explain_compare, ", ", " or ", formats, sizeof(formats)));
	if (nx) {
		compare_labels(dirs, n, labels);
		in.docs = NULL;
		return render_document("compare", &document_explain_compare, &in, "", a->output);
	}
	for (size_t i = 0; i < n && r >= 0; i++)
		r = load("compare", dirs[i], &docs[i]);
	if (r >= 0)
		r = compare_check(dirs, docs, n);
	if (r >= 0) {
		compare_labels(dirs, n, labels);
		r = render_document("compare", &document_compare, &in, NULL, a->output);
	}
	for (size_t i = 0; i < n; i++)
		json_decref(docs[i]);
	return r;
}

/* The directories' names are the columns'; one directory given twice (by
 * two paths, or one) would stand as two hosts that agree perfectly. */
static int same_twice(char *const *dirs, size_t n)
{
	struct stat a, b;

	/* A column is named after its directory: no escape sequence there. */
	for (size_t i = 0; i < n; i++)
		if (!text_is_printable(dirs[i])) {
			_cleanup_free_ char *shown = text_escape(dirs[i]);

			return cli_usage_error(&cli_compare, "%s: a control character or a byte not UTF-8 in the name, "
							     "which names its column", strempty(shown));
		}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (stat(dirs[i], &a) == 0 && stat(dirs[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				return cli_usage_error(&cli_compare, "%s and %s are the same directory: compare takes each "
								     "host's once", dirs[i], dirs[j]);
	return 0;
}

int verb_compare(int argc, char **argv)
{
	struct report_args a = {};
	char formats[128];
	int r, first;

	r = cli_parse(&cli_compare, argc, argv, &a, &first);
	if (r <= 0)
		return verb_parse_exit_status(r);
	if (argc - first == 1)
		return cli_usage_error(&cli_compare, "%s alone: compare needs the results of the same experiment from 2 to %d "
				       "hosts", argv[first], COMPARE_HOSTS_MAX), EXIT_USAGE;
	if (argc - first < 2 || argc - first > COMPARE_HOSTS_MAX)
		return cli_usage_error(&cli_compare, "give 2 to %d results directories", COMPARE_HOSTS_MAX), EXIT_USAGE;
	if (!document_compare.format[a.ro.format])
		return cli_usage_error(&cli_compare, "--format %s is for report; compare prints %s",
				       report_format_to_string(a.ro.format),
				       document_formats(&document_compare, ", ", " or ", formats, sizeof(formats))), EXIT_USAGE;
	if (output_check(&cli_compare, a.output) < 0 || same_twice(argv + first, (size_t)(argc - first)) < 0)
		return EXIT_USAGE;
	return verb_input_exit_status(compare(argv + first, (size_t)(argc - first), &a));
}

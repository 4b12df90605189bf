#!/bin/sh
# verbs.sh BINARY <slicebench.1.scd.in >slicebench.1.scd
#
# Fills the @VERBS@ line of slicebench(1) from the binary itself: the verbs
# and their summaries from `slicebench --help`, and each verb's usage,
# description and options from `slicebench VERB --help`, so that the page
# lists what --help lists and cannot drift from it.
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# scdoc takes * and _ as emphasis and \ as an escape.
esc() { sed -e 's/[\\*_]/\\&/g'; }

# One verb's --help, as scdoc: the usage lines as a literal block, the
# prose as paragraphs, each option line as a term and its indented help.
help_to_scdoc() {
	awk '
	function esc(s) { gsub(/[\\*_]/, "\\\\&", s); return s }
	function flush_usage() { if (in_usage) { print "```"; print ""; in_usage = 0 } }
	/^usage: / { sub(/^usage: /, ""); print "```"; print; in_usage = 1; next }
	in_usage && /^       / { sub(/^       /, ""); print; next }
	{ flush_usage() }
	/^  +-/ {
		line = $0
		sub(/^ +/, "", line)
		# The option and its argument, then two or more spaces, then the help.
		if (match(line, /  +/)) {
			opt = substr(line, 1, RSTART - 1)
			help = substr(line, RSTART + RLENGTH)
		} else {
			opt = line
			help = ""
		}
		n = split(opt, w, " ")
		term = ""
		for (i = 1; i <= n; i++) {
			if (w[i] ~ /^-/)
				term = term (term == "" ? "" : " ") "*" esc(w[i]) "*"
			else
				term = term " _" esc(w[i]) "_"
		}
		print term
		print "\t" (help == "" ? "." : esc(help))
		print ""
		next
	}
	/^$/ { print ""; next }
	# A prose line that starts with - would be a list item to scdoc.
	{ sub(/^ +/, ""); line = esc($0); sub(/^-/, "\\-", line); print line }
	END { flush_usage() }
	'
}

"$bin" --help >"$tmp/verbs"
sed -n '/^verbs:/,/^$/p' "$tmp/verbs" | sed -n 's/^  \([a-z][a-z-]*\)  *\(.*\)$/\1 \2/p' >"$tmp/list"
[ -s "$tmp/list" ] || { echo "verbs.sh: no verbs in $bin --help" >&2; exit 1; }

fill() {
	while read -r verb summary; do
		printf '## slicebench %s\n\n' "$verb"
		printf '%s\n' "$summary" | esc
		echo
		# A verb whose --help is not yet help (an error, exit 2) gets its summary only.
		if "$bin" "$verb" --help >"$tmp/help" 2>/dev/null; then
			help_to_scdoc <"$tmp/help"
		fi
		echo
	done <"$tmp/list"
}

while IFS= read -r line; do
	if [ "$line" = "@VERBS@" ]; then
		fill
	else
		printf '%s\n' "$line"
	fi
done

#!/bin/bash
# The command line as a whole: no %m is handed to a log call as an argument
# (printf prints it as it is; only the format turns it into the error).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=${SLICEBENCH_TOP:-.}
needs BINARY
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
echo "1..1"

# A string with %m after ? or : is a value, not a format (sweep once printed
# "preparing the dataset failed: %m").
grep -rnE '[?:] *"[^"]*%m' "$top"/runner "$top"/slices "$top"/common >"$scratch/m"
[ ! -s "$scratch/m" ]
ok $? "no %m in a string passed as an argument rather than as the format" "$scratch/m"
exit $failed

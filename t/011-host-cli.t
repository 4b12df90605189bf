#!/bin/bash
# slicebench host: --json is valid JSON with the cgroup section, a bogus
# option is a usage error (exit 2) that names the option.
SLICEBENCH=${SLICEBENCH:-./slicebench}
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

if [ ! -x "$SLICEBENCH" ]; then echo "1..0 # SKIP no binary at $SLICEBENCH"; exit 0; fi
if ! command -v python3 >/dev/null; then echo "1..0 # SKIP python3 is needed to parse JSON"; exit 0; fi
echo "1..7"

scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT

"$SLICEBENCH" host --json >"$scratch/out" 2>"$scratch/err"; rc=$?
ok $([ $rc = 0 ] && echo 0 || echo 1) "host --json exits 0 (got $rc)"
python3 -c 'import json,sys; json.load(sys.stdin)' <"$scratch/out"
ok $? "host --json parses as JSON"
python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if "cgroup" in d and d["format_version"] == 1 else 1)' <"$scratch/out"
ok $? "host --json has key cgroup and format_version 1"

"$SLICEBENCH" host >"$scratch/text" 2>&1
ok $? "host (text) exits 0"
grep -q '^cgroup\.mode: ' "$scratch/text"
ok $? "host (text) has a cgroup.mode line"

"$SLICEBENCH" host --bogus >"$scratch/out" 2>"$scratch/err"; rc=$?
ok $([ $rc = 2 ] && echo 0 || echo 1) "host --bogus exits 2 (got $rc)"
grep -q 'unknown option --bogus' "$scratch/err"
r=$?; [ $r = 0 ] || sed 's/^/# /' "$scratch/err"
ok $r "host --bogus names the option"

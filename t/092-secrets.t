#!/bin/bash
# Secrets stay out of every file a run writes (experiment.json, results.json,
# placements, steps, the CSV): Environment= values by their names in any case
# (APP_PASSWORD, db_password, GITHUB_PAT), credentials inside a URL
# (https_proxy=http://u:pw@host), and the inherited environment the
# placement records; what is not secret is kept; --resume still recognises
# the experiment.
# Prerequisites: ROOT, MYSQLD.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY ROOT MYSQLD
echo "1..6"
server_scratch
trap 'servers | xargs -r kill -9; rm -rf "$scratch"' EXIT
res=$scratch/res

SERVICE_TOKEN=hunter6 Db_Secret_Key=hunter7 "$SLICEBENCH" run "$top/t/fixtures/secrets/env.ini" --out "$res" >"$scratch/out" 2>&1
ok $? "a run with secrets in its environment" "$scratch/out"
found=$(grep -rl hunter "$res" | sed "s|$res/||" | tr '\n' ' ')
[ -z "$found" ]
ok $? "no file of the results holds a secret (found in: ${found:-none})"
grep -rq 'APP_PASSWORD=(withheld) db_password=(withheld) GITHUB_PAT=(withheld) https_proxy=http://(withheld)@proxy:3128 SAFE=visible' "$res/experiment.json"
ok $? "experiment.json says which were set and withholds their values"
p=$(ls "$res"/placements/*.json | head -n1)
[ "$(json_get "$p" env.SERVICE_TOKEN)" = "(set, value withheld)" ] && [ "$(json_get "$p" env.db_password)" = "(set, value withheld)" ] &&
	[ "$(json_get "$p" env.SAFE)" = visible ] && [ "$(json_get "$p" env.https_proxy)" = "http://(withheld)@proxy:3128" ]
ok $? "the placement withholds them too, and keeps SAFE ($(grep -oE '"env.(SERVICE_TOKEN|db_password|SAFE|https_proxy)": "[^"]*"' "$p" | tr '\n' ' '))"
[ "$(json_get "$p" in_force.Environment)" = yes ]
ok $? "and still finds Environment= in force ($(json_get "$p" in_force.Environment))"
"$SLICEBENCH" run "$top/t/fixtures/secrets/env.ini" --resume "$res" >"$scratch/out" 2>&1
ok $? "--resume recognises the experiment behind the withheld values" "$scratch/out"
exit $failed

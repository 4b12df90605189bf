#!/bin/bash
# The user's own workload (issue 44): workload = FILE.lua runs a sysbench
# script through sysbench on slicebench's dataset, workload = FILE.sql@W
# ... pgbench scripts through pgbench -f, each in a full experiment of two
# raw contexts with its verdict; the results directory names exactly what
# ran (each file, its weight, its SHA-256 against sha256sum's, its
# content); a script the tool cannot parse, a bad weight, a missing file,
# a script someone other than root can change, and a weight on a Lua
# script are refused with exit 2, the file, the line and the key, before
# anything starts; so is resuming a run whose script has changed since.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
command -v sysbench >/dev/null || sandbox_skip_all "needs sysbench"
[ -x /usr/lib/postgresql/15/bin/pgbench ] || sandbox_skip_all "needs PostgreSQL 15's pgbench"
command -v jq >/dev/null || sandbox_skip_all "needs jq"
# A directory root alone can change (the scripts are code root runs).
scratch=$(mktemp -d /tmp/slicebench-t212.XXXXXX) || exit 1
chmod 755 "$scratch"
# its own state: no other run's lock to wait for
export SLICEBENCH_STATE_DIR=$scratch/state SLICEBENCH_RUN_DIR=$scratch/run
trap '"$SLICEBENCH" cleanup >/dev/null 2>&1; [ "$failed" = 0 ] && rm -rf "$scratch" || echo "# kept: $scratch"' EXIT
echo "1..15"

cat >"$scratch/mine.lua" <<'EOF2'
-- the user's own: oltp_common's dataset, a point select and a short range
require("oltp_common")

function prepare_statements() end

function event()
   local id = sysbench.rand.default(1, sysbench.opt.table_size - 10)
   con:query(string.format("SELECT c FROM sbtest1 WHERE id = %d", id))
   con:query(string.format("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN %d AND %d", id, id + 9))
end
EOF2
printf -- '-- a read: one account by its id\n\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n' >"$scratch/read.sql"
printf -- '-- a write: one teller\n\\set tid random(1, 10 * :scale)\n\\set delta random(-5000, 5000)\nUPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n' >"$scratch/write.sql"
printf 'function event()\n  local x = = 1\nend\n' >"$scratch/bad.lua"
printf 'SELECT 1;\n\\sett x\n' >"$scratch/bad.sql"
cat >"$scratch/lua.ini" <<'EOF2'
[experiment]
description = t212: the user's sysbench script
threads = 2
warmup = 1s
duration = 3s
repeat = 2
tables = 1
table-size = 10000
workload = mine.lua
baseline = both

[server]
buffer-pool = 128M

[context both]
kind = raw

[context one]
kind = raw
CPUAffinity = 0
EOF2
sed -e 's/^workload = .*/workload = read.sql@9 write.sql@1/' -e 's/^tables = 1/scale = 1/' -e '/^table-size/d' \
	-e 's/^\[server\]/&\nengine = postgresql/' -e 's/sysbench script/pgbench scripts/' \
	-e 's/^warmup = 1s/warmup = 2s/' -e 's/^duration = 3s/duration = 4s/' "$scratch/lua.ini" >"$scratch/pg.ini"
# (pgbench's fresh backends on a loaded host: a longer warm-up, or a second
# judged a stall fails a start)

# refused: FILE.ini with workload = $1 ($2: the engine's line or none) must
# exit 2 naming the workload's line and the key, its message matching $3, no
# directory made
refused() {
	sed -e "s|^workload = .*|workload = $1|" "$scratch/$2.ini" >"$scratch/r.ini"
	"$SLICEBENCH" run "$scratch/r.ini" --out "$scratch/r-out" >"$scratch/r.out" 2>&1
	local rc=$?
	local line=$(grep -n '^workload = ' "$scratch/r.ini" | cut -d: -f1)
	[ "$rc" = 2 ] && grep -qF "r.ini:$line: workload: $3" "$scratch/r.out" && [ ! -e "$scratch/r-out" ]
	ok $? "workload = $1: exit 2 ($rc), r.ini:$line and the key: $3" "$scratch/r.out"
}
refused bad.lua lua "$scratch/bad.lua:2: unexpected symbol near '='"
refused "read.sql@9 bad.sql" pg "$scratch/bad.sql:2: invalid command"
refused "read.sql@x" pg "bad weight 'x' of read.sql"
refused missing.lua lua "$scratch/missing.lua: No such file or directory"
refused mine.lua@2 lua "a weight is pgbench's"
chown nobody "$scratch/write.sql"
refused "read.sql write.sql" pg "$scratch/write.sql: refused, since a script is code that runs as root"
chown root "$scratch/write.sql"

# steps_by DIR TOOL: the 4 steps of DIR ran by TOOL, none failed, each above 0 TPS
steps_by() {
	jq -s -e --arg d "$2" 'length == 4 and all(.[]; .driver == $d and .failed == false and .tps > 0)' \
		"$scratch/$1"/steps/*.json >/dev/null
	ok $? "its 4 steps ran by $2, each above 0 TPS"
}
"$SLICEBENCH" run "$scratch/lua.ini" --out "$scratch/lua" >"$scratch/lua.out" 2>&1
ok $? "the Lua script's experiment runs (sysbench, two contexts)" "$scratch/lua.out"
steps_by lua sysbench
# verdict DIR: report's JSON of DIR has one's ratio to both, its interval
# and a verdict (significant or not: 2 starts a side decide either way)
verdict() {
	"$SLICEBENCH" report "$scratch/$1" --format json 2>"$scratch/$1.err" |
		jq -e '.baseline == "both" and (.rows[0].cells[1] | .ratio > 0 and .ratio_lo > 0 and .ratio_hi >= .ratio and
			(.verdict | type) == "string")' >/dev/null
}
verdict lua
ok $? "its report gives the verdict of one against both" "$scratch/lua.err"
jq -e --arg f "$scratch/mine.lua" --arg h "$(sha256sum <"$scratch/mine.lua" | cut -c1-64)" \
	'.driver == "sysbench" and .workload == $f and (.scripts | length) == 1 and .scripts[0].sha256 == $h' \
	"$scratch/lua/experiment.json" >/dev/null &&
	jq -r '.scripts[0].base64' "$scratch/lua/experiment.json" | base64 -d | cmp -s - "$scratch/mine.lua"
ok $? "experiment.json names the script, its SHA-256 (sha256sum's) and its content, byte for byte"
cp "$scratch/mine.lua" "$scratch/mine.lua.was"
echo '-- changed after the run' >>"$scratch/mine.lua"
"$SLICEBENCH" run --resume "$scratch/lua" >"$scratch/resume.out" 2>&1
rc=$?
mv "$scratch/mine.lua.was" "$scratch/mine.lua"
[ "$rc" = 2 ] && grep -qF "workload: $scratch/mine.lua has changed since the run (SHA-256 " "$scratch/resume.out" &&
	[ "$(ls "$scratch/lua/steps" | wc -l)" = 4 ]
ok $? "a script changed since the run: run --resume exits 2 ($rc), naming it and its two hashes, and runs nothing" "$scratch/resume.out"

"$SLICEBENCH" run "$scratch/pg.ini" --out "$scratch/pg" >"$scratch/pg.out" 2>&1
ok $? "the pgbench scripts' experiment runs (pgbench -f, weights 9 and 1)" "$scratch/pg.out"
steps_by pg pgbench
verdict pg && "$SLICEBENCH" report "$scratch/pg" 2>>"$scratch/pg.err" | grep -q "^clients "
ok $? "its report gives the verdict of one against both, in clients" "$scratch/pg.err"
jq -e --arg r "$(sha256sum <"$scratch/read.sql" | cut -c1-64)" --arg w "$(sha256sum <"$scratch/write.sql" | cut -c1-64)" \
	'.driver == "pgbench" and ([.scripts[] | .weight] == [9, 1]) and .scripts[0].sha256 == $r and .scripts[1].sha256 == $w' \
	"$scratch/pg/experiment.json" >/dev/null
ok $? "experiment.json names both scripts with their weights and SHA-256"
exit $failed

#!/bin/bash
# A capture's server variables replayed: a mariadbd started by hand with
# a DBA's options (--table-open-cache=64 --performance-schema=ON
# --thread-cache-size=4 --innodb-buffer-pool-size=64M) is captured
# (place --pid), and [context replay] from = its snapshot starts
# [server]'s binary with each of them on its command line (ps shows them),
# where they read back alike over SQL (mariadb's own SELECT @@...) and in
# the replay's placement, in force; max_connections, [server]'s for every
# context, is said and not set.  PostgreSQL's variables (shared_buffers,
# max_worker_processes) set by a section reach postgres the same way and
# read back by psql.  Bad input, each exit 2 with FILE:LINE and
# the key, nothing started: a snapshot naming a server variable the table
# has not (plugin_load_add, a path of code), a value its row refuses, a
# section setting a variable its engine has not, or one of a proxy's.
# No systemd needed: the server runs raw.
# Prerequisites: ROOT, MYSQLD, PostgreSQL 15 (installed here as MariaDB is).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
server_scratch
out=$(mktemp -d) || exit 1 # the test's own files, apart from slicebench's state
trap 'servers | xargs -r kill -9; "$SLICEBENCH" cleanup >/dev/null 2>&1; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch" "$out"' EXIT
echo "1..15"
get() { json_get "$1" "$2"; }
sql() { mariadb --socket="$1" -N -e "SELECT $2"; }

"$SLICEBENCH" place --context raw >"$out/setup" 2>&1
ok $? "the managed datadir is made" "$out/setup"
cnf=$SLICEBENCH_STATE_DIR/my.cnf
sock=$(sed -n 's/^socket=//p' "$cnf")

(cd / && exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin mariadbd --defaults-file="$cnf" --table-open-cache=64 \
	--performance-schema=ON --thread-cache-size=4 --innodb-buffer-pool-size=64M >/dev/null 2>&1) &
for _ in $(seq 100); do [ -S "$sock" ] && pid=$(servers) && [ -n "$pid" ] && break; sleep 0.2; done
for _ in $(seq 50); do mariadb-admin --socket="$sock" ping >/dev/null 2>&1 && break; sleep 0.2; done
mkdir "$out/exp"
snap=$out/exp/snap.json
"$SLICEBENCH" place --pid "${pid:-0}" --json >"$snap" 2>"$out/err"
ok $? "a mariadbd started by hand with a DBA's options is captured (PID ${pid:-none})" "$out/err"
[ "$(get "$snap" server.table_open_cache)" = 64 ] && [ "$(get "$snap" server.performance_schema)" = ON ] &&
	[ "$(get "$snap" server.thread_cache_size)" = 4 ] && [ "$(get "$snap" server.innodb_buffer_pool_size)" = 67108864 ]
ok $? "the capture reads them: table_open_cache 64, performance_schema ON, thread_cache_size 4, a 64 MiB pool"
kill "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done

printf '[experiment]\nthreads = 1\n\n[context replay]\nfrom = snap.json\n' >"$out/exp/replay.ini"
"$SLICEBENCH" place --experiment "$out/exp/replay.ini" replay --json --keep >"$out/replay.json" 2>"$out/replay.err"
ok $? "place of the replay exits 0" "$out/replay.err"
grep -q "took .*innodb_buffer_pool_size=67108864, .*performance_schema=ON, table_open_cache=64, .*thread_cache_size=4" "$out/replay.err" &&
	grep -q "not reproduced: .*max_connections (read, not set by a replay)" "$out/replay.err"
ok $? "the replay says which server variables it took, and that max_connections is [server]'s" "$out/replay.err"
again=$(servers)
ps -o args= -p "${again:-0}" >"$out/args"
grep -q -- "--table_open_cache=64" "$out/args" && grep -q -- "--performance_schema=ON" "$out/args" &&
	grep -q -- "--thread_cache_size=4" "$out/args" && grep -q -- "--innodb_buffer_pool_size=67108864" "$out/args"
ok $? "the replayed server's command line carries them after its option file (ps)" "$out/args"
for v in table_open_cache performance_schema thread_cache_size innodb_buffer_pool_size; do
	back=$(sql "$sock" "@@$v")
	[ "$back" = "$(get "$snap" server.$v)" ] && [ "$(get "$out/replay.json" server.$v)" = "$back" ] &&
		[ "$(get "$out/replay.json" in_force.$v)" = yes ] || echo "$v: over SQL $back, captured $(get "$snap" server.$v), placement $(get "$out/replay.json" server.$v), in force $(get "$out/replay.json" in_force.$v)"
done >"$out/unlike"
# performance_schema reads back 1 over SELECT @@ and ON in SHOW VARIABLES.
sed -i '/^performance_schema: over SQL 1, captured ON, placement ON, in force yes$/d' "$out/unlike"
[ ! -s "$out/unlike" ]
ok $? "each reads back alike over SQL (mariadb's SELECT @@), in the placement, and in force" "$out/unlike"
differs=$(get "$out/replay.json" replay.differs)
[[ $differs != *table_open_cache* && $differs != *performance_schema* && $differs != *thread_cache_size* ]]
ok $? "the comparison with the capture names none of them (differs: ${differs:0:300})"
"$SLICEBENCH" cleanup >/dev/null 2>&1
[ -z "$(servers)" ]
ok $? "cleanup stops the kept replay"

# PostgreSQL's own, as a section sets them: --NAME=VALUE on postgres's
# command line too, read back by psql.
printf '[experiment]\nthreads = 1\n\n[server]\nengine = postgresql\n\n[context pg]\nkind = raw\nshared_buffers = 64MB\nmax_worker_processes = 4\n' >"$out/exp/pg.ini"
"$SLICEBENCH" place --experiment "$out/exp/pg.ini" pg --json --keep >"$out/pg.json" 2>"$out/pg.err"
pgdir=$(sed -n "s/^unix_socket_directories = '\(.*\)'$/\1/p" "$SLICEBENCH_STATE_DIR/postgresql.conf")
{ psql -h "$pgdir" -d postgres -Atc 'SHOW shared_buffers' && psql -h "$pgdir" -d postgres -Atc 'SHOW max_worker_processes'; } >"$out/pg.sql" 2>&1
[ "$(tr '\n' ' ' <"$out/pg.sql")" = "64MB 4 " ] && [ "$(get "$out/pg.json" in_force.shared_buffers)" = yes ] &&
	[ "$(get "$out/pg.json" in_force.max_worker_processes)" = yes ]
ok $? "postgres takes shared_buffers and max_worker_processes on its command line: psql reads $(tr '\n' ' ' <"$out/pg.sql")" "$out/pg.err"
"$SLICEBENCH" cleanup >/dev/null 2>&1

# Bad input: exit 2, FILE:LINE and the key, nothing started.
python3 - "$snap" "$out/exp" <<'EOF'
import json, os, sys
d = json.load(open(sys.argv[1]))
d["server.plugin_load_add"] = "/tmp/evil.so"
json.dump(d, open(os.path.join(sys.argv[2], "plugin.json"), "w"))
d = json.load(open(sys.argv[1]))
d["server.table_open_cache"] = "64 --plugin-load-add=/tmp/evil.so"
json.dump(d, open(os.path.join(sys.argv[2], "value.json"), "w"))
EOF
refused() { # name, file, what the message says
	"$SLICEBENCH" run "$out/exp/$1.ini" --dry-run >"$out/$1" 2>&1
	rc=$?
	[ $rc = 2 ] && grep -q -- "$2" "$out/$1" && [ -z "$(servers)" ]
}
printf '[experiment]\nthreads = 1\n\n[context replay]\nfrom = plugin.json\n' >"$out/exp/plugin.ini"
refused plugin "plugin.ini:5: from: plugin.json: server.plugin_load_add is no server variable a replay may set (open_files_limit, table_open_cache"
ok $? "a snapshot naming plugin_load_add: exit 2, FILE:LINE: from, the key (exit $rc)" "$out/plugin"
printf '[experiment]\nthreads = 1\n\n[context replay]\nfrom = value.json\n' >"$out/exp/value.ini"
refused value "value.ini:5: from: value.json: server.table_open_cache=64 --plugin-load-add=/tmp/evil.so is not a value of table_open_cache"
ok $? "a value its row refuses: exit 2, FILE:LINE: from, the key (exit $rc)" "$out/value"
printf '[experiment]\nthreads = 1\n\n[context pg]\nkind = raw\nshared_buffers = 128MB\n' >"$out/exp/engine.ini"
refused engine "engine.ini:6: shared_buffers: in \[context pg\]: mariadb's server has no such variable (it is postgresql's)"
ok $? "a variable of another engine's server: exit 2, FILE:LINE: the key (exit $rc)" "$out/engine"
printf '[experiment]\nthreads = 1\n\n[proxy p]\nengine = haproxy\ntable_open_cache = 64\n\n[context a]\nkind = raw\nproxy = p\n' >"$out/exp/proxy.ini"
refused proxy "proxy.ini:6: table_open_cache: a variable of the server's, which \[context\] sections set, not the proxy's"
ok $? "a server variable in a proxy's section: exit 2, FILE:LINE: the key (exit $rc)" "$out/proxy"
"$SLICEBENCH" place --context raw -p shared_buffers=64MB >"$out/cli" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "place: -p shared_buffers: mariadb's server has no such variable (it is postgresql's)" "$out/cli" && [ -z "$(servers)" ]
ok $? "the same on the command line (-p): exit 2, the option (exit $rc)" "$out/cli"
exit $failed

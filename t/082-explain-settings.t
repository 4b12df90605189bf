#!/bin/bash
# explain runs its mixes as a synthetic experiment that must carry the
# file's workload, server and client settings: with [server] binary =
# mysqld, flavor = mysql, user, buffer-pool and max-connections, and a
# [client] pin, the experiment.json that explain's run writes has them all
# (the hand-made copy dropped binary, flavor, user and max-connections, so
# that explain of a mysqld experiment ran mariadbd).  Debian's mysqld is
# MariaDB's mariadbd, which the mysql engine refuses, so a stand-in named
# mysqld comes first on PATH: it "initialises" an empty datadir and fails
# as a server, so that the run is set up, writes its experiment.json and
# stops at the first start.
# Prerequisites: ROOT (the state directory must be root's).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT
command -v python3 >/dev/null || skip_all "needs python3"
echo "1..3"
server_scratch
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/carry.ini" <<'INI'
[experiment]
threads = 1
tables = 2
table-size = 3000
driver = sysbench
rand-type = uniform
on-error = stop

[server]
binary = mysqld
flavor = mysql
buffer-pool = 96M
user = mysql
max-connections = 77

[client]
cpus = 0
pin = round-robin

[context a]
kind = raw
Nice = 5

[context b]
kind = raw
INI
mkdir "$scratch/bin" && printf '#!/bin/sh\ncase " $* " in *" --initialize-insecure "*) exit 0 ;; esac\nexit 1\n' >"$scratch/bin/mysqld" && chmod +x "$scratch/bin/mysqld"
PATH=$scratch/bin:$PATH "$SLICEBENCH" explain "$scratch/carry.ini" a b --repeat 2 --duration 1s --out "$scratch/x" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc = 1 ] && [ -f "$scratch/x/placed/experiment.json" ]
ok $? "explain's run wrote its experiment.json and stopped when the server did not start (exit $rc)" "$scratch/err"
python3 - "$scratch/x/placed/experiment.json" >"$scratch/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = {"binary": "mysqld", "engine": "mysql", "buffer_pool": "96M", "user": "mysql", "max_connections": 77}
assert d["server"] == want, d["server"]
PY
ok $? "the synthetic experiment runs the file's server: binary, engine, user, buffer pool, max_connections" "$scratch/check"
python3 - "$scratch/x/placed/experiment.json" >"$scratch/check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = (d["tables"], d["table_size"], d["driver"], d["rand_type"], d["on_error"], d["client"]["pin"], d["client"]["cpus"])
assert got == (2, 3000, "sysbench", "uniform", "stop", "round-robin", [0]), got
PY
ok $? "and the file's workload and client: tables, table size, driver, distribution, on-error, pin, CPUs" "$scratch/check"
exit $failed

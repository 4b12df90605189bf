#!/bin/bash
# What place --pid and diff read from a process or a file someone else
# made, and what they print: a process whose environment holds a 0xFF byte
# (the rest of it was cut) and 100,000 variables (37 s before), an escape
# sequence in a name and a value (kept from the terminal), a password in a
# connection string, a JDBC URL and --init-command on its command line, a
# binary upgraded since it started ("(deleted)"); diff of a link, a FIFO,
# a file past the bound and one with a key twice; output that cannot be
# written (/dev/full) fails; place --unit '' and help help; a replay's
# note names what it did not reproduce, never "nothing".
# Prerequisites: ROOT (to read another process's environ), python3, cc.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT
command -v cc >/dev/null || sandbox_skip_all "needs cc"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
scratch=$(mktemp -d) || exit 1
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch"' EXIT
echo "1..20"

# A process of 100,000 variables, one of them with a 0xFF byte before the
# last, one with an escape sequence in its name and its value, and secrets
# in connection strings and on its command line.
printf '#include <unistd.h>\nint main(void) { pause(); return 0; }\n' | cc -x c -o "$scratch/mariadbd" - || exit 1
python3 - "$scratch/mariadbd" <<'EOF' &
import os, sys, resource
resource.setrlimit(resource.RLIMIT_STACK, (64 << 20, 64 << 20))
env = {b"A%d" % i: b"v%d" % i for i in range(100000)}
env[b"BIN"] = b"a\xffb"
env[b"ZLAST"] = b"end"
env[b"ESC\x1b[31mNAME"] = b"red\x1b[2Jclear"
env[b"DATABASE"] = b"host=db password=hunter2"
env[b"JDBC_URL"] = b"jdbc:mysql://db/x?user=a&password=hunter2"
os.execve(sys.argv[1].encode(), [b"mariadbd", b"300", b"--init-command=SET PASSWORD = PASSWORD('hunter2')",
	b"primary_conninfo=host=p password=hunter2"], env)
EOF
pid=$!
pids+=($pid)
for i in $(seq 50); do [ "$(readlink /proc/$pid/exe)" = "$scratch/mariadbd" ] && break; sleep 0.1; done
rm "$scratch/mariadbd" # an upgrade: the running binary's file is replaced
"$SLICEBENCH" place --pid $pid --json >"$scratch/cap.json" 2>"$scratch/cap.err"; rc=$?
ok $rc "place --pid of a process of 100,000 variables and a 0xFF byte: --json (exit $rc)" "$scratch/cap.err"
python3 - "$scratch/cap.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
env = [k for k in d if k.startswith("env.")]
assert len(env) >= 100004, len(env)
assert d["env.ZLAST"] == "end" and d["env.A99999"] == "v99999", (d.get("env.ZLAST"), d.get("env.A99999"))
assert d["env.BIN"] == "a\\xffb", d["env.BIN"]
EOF
ok $? "all 100,004 variables are there, the one after the 0xFF byte too, that byte escaped (\\xff)"
! grep -q hunter2 "$scratch/cap.json"
ok $? "no password of the connection strings, the JDBC URL or --init-command is in the capture: $(grep -o '"env.DATABASE"[^,]*\|"env.JDBC_URL"[^,]*\|"capture.cmdline"[^,]*' "$scratch/cap.json" | tr '\n' ' ')"
grep -q '"capture.exe": "'"$scratch"'/mariadbd"' "$scratch/cap.json" && grep -q '"capture.exe_replaced": "yes' "$scratch/cap.json" &&
	grep -q '"server.read": "no: PID [0-9]* listens on no unix socket"' "$scratch/cap.json"
ok $? "a binary replaced since it started: its path without (deleted), said, and known for a server's" "$scratch/cap.json"
"$SLICEBENCH" place --pid $pid >"$scratch/cap.txt" 2>&1; rc=$?
[ $rc = 0 ] && ! grep -q $'\e' "$scratch/cap.txt" && grep -qF 'env.ESC\x1b[31mNAME: red\x1b[2Jclear' "$scratch/cap.txt"
ok $? "the text reaches the terminal with the escape sequences escaped (exit $rc)" "$scratch/cap.txt"
"$SLICEBENCH" place --pid $pid --json >/dev/full 2>"$scratch/full.err"; rc=$?
[ $rc = 1 ] && grep -q "writing the output: No space left on device" "$scratch/full.err"
ok $? "place --pid --json >/dev/full: exit 1, said (exit $rc)" "$scratch/full.err"

# diff reads through the one reader of input.
cp "$scratch/cap.json" "$scratch/a.json"
printf '{"affinity": "0-1"}' >"$scratch/b.json"
"$SLICEBENCH" diff "$scratch/a.json" "$scratch/b.json" >"$scratch/diff.out" 2>&1; rc=$?
[ $rc = 0 ] && ! grep -q $'\e' "$scratch/diff.out" && grep -qF 'env.ESC\x1b[31mNAME' "$scratch/diff.out"
ok $? "diff: the escape sequences escaped (exit $rc)" "$scratch/diff.out"
"$SLICEBENCH" diff "$scratch/a.json" "$scratch/b.json" >/dev/full 2>"$scratch/full.err"; rc=$?
[ $rc = 1 ]
ok $? "diff >/dev/full: exit 1 (exit $rc)" "$scratch/full.err"
ln -s /etc/shadow "$scratch/link.json"
"$SLICEBENCH" diff "$scratch/link.json" "$scratch/b.json" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "link.json: a symbolic link" "$scratch/out" && ! grep -q 'root:' "$scratch/out"
ok $? "diff of a link to /etc/shadow: exit 2, nothing of it shown (exit $rc)" "$scratch/out"
mkfifo "$scratch/fifo.json"
timeout 10 "$SLICEBENCH" diff "$scratch/fifo.json" "$scratch/b.json" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "not a regular file" "$scratch/out"
ok $? "diff of a FIFO: exit 2 at once, no hang (exit $rc)" "$scratch/out"
python3 -c 'import json; json.dump({"k%d" % i: "x" * 100 for i in range(90000)}, open("'"$scratch"'/big.json", "w"))'
"$SLICEBENCH" diff "$scratch/big.json" "$scratch/b.json" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "more than slicebench writes" "$scratch/out"
ok $? "diff of a file past the bound: exit 2 (exit $rc)" "$scratch/out"
printf '{"affinity": "0-1", "affinity": "1"}' >"$scratch/twice.json"
"$SLICEBENCH" diff "$scratch/twice.json" "$scratch/b.json" >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "twice.json:1: duplicate object key" "$scratch/out"
ok $? "diff of a file with a key twice: exit 2 (exit $rc)" "$scratch/out"

# The command line.
"$SLICEBENCH" place --unit '' >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q -- "--unit: bad value ''" "$scratch/out"
ok $? "place --unit '': exit 2, said (exit $rc)" "$scratch/out"
"$SLICEBENCH" place --unit 'a b.service' >"$scratch/out" 2>&1; rc=$?
[ $rc = 2 ]
ok $? "place --unit 'a b.service': exit 2 (exit $rc)" "$scratch/out"
"$SLICEBENCH" help help >"$scratch/out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q '^  place ' "$scratch/out"
ok $? "help help lists the verbs (exit $rc)" "$scratch/out"
"$SLICEBENCH" --version >/dev/full 2>/dev/null; rc=$?
[ $rc = 1 ]
ok $? "--version >/dev/full: exit 1 (exit $rc)"
"$SLICEBENCH" report "$top/t/fixtures/output/quickstart" --format csv >/dev/full 2>/dev/null; rc=$?
[ $rc = 1 ]
ok $? "report --format csv >/dev/full: exit 1 (exit $rc)"
kill $pid
python3 - <<'EOF' >"$scratch/placement.json"
import json
print(json.dumps({"affinity": "0-1", "env.A": "x"}))
EOF
"$SLICEBENCH" diff "$scratch/placement.json" "$scratch/placement.json" >"$scratch/out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q 'do not differ' "$scratch/out"
ok $? "diff of two sound files still works (exit $rc)" "$scratch/out"
# A replay's note: what no setting sets, the account's settings, systemd's per-start variables.
account=$(id -un slicebench 2>/dev/null || echo daemon)
python3 -c 'import json,sys; json.dump({"capture.kind": "service", "user": sys.argv[2], "personality": "0x0420000",
	"capture.setting.User": sys.argv[2], "env.INVOCATION_ID": "0123", "env.LANG": "C"}, open(sys.argv[1], "w"))' \
	"$scratch/note.json" "$account"
printf '[experiment]\nthreads = 1\n[server]\nuser = %s\n[context r]\nkind = raw\nfrom = note.json\n' "$account" >"$scratch/note.ini"
"$SLICEBENCH" run "$scratch/note.ini" --dry-run >"$scratch/note.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -q "not reproduced: 1 unit setting (capture.setting.\*: a raw context has no unit), personality (no setting of the table sets it), systemd's variables of one start" "$scratch/note.out" &&
	! grep -q 'not reproduced: nothing' "$scratch/note.out"
ok $? "a replay's note names what it did not reproduce (exit $rc): $(grep -o 'not reproduced: [^;]*' "$scratch/note.out")" "$scratch/note.out"
[ -z "$(pgrep -f "$scratch/mariadbd")" ]
ok $? "nothing of the test is left running"
exit $failed

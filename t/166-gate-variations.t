#!/bin/bash
# Variations of issue 42's probes on the gate, in dry runs (nothing is
# started by a refusal; t/161 runs the originals for real): an attacker's
# library, nobody's, in a directory anyone may write, asked for through
# LD_AUDIT, a path through "..", a colon list behind the host's jemalloc,
# a bare name with LD_LIBRARY_PATH, a quoted word, [vary], GCONV_PATH,
# MALLOC_CONF; EnvironmentFile=-/etc/shadow; every capability through ~;
# a number for User= or Group=; a server binary of nobody's.  A snapshot:
# LD_AUDIT, GCONV_PATH, names with a blank or a newline, a raw context's
# unit settings (refused, or said), User=root and
# capabilities as numbers or in lower case, SupplementaryGroups=,
# ExecStart=, a quoted Environment=.  explain RESULTS: placements naming
# LD_AUDIT or PATH, experiment.json's account, binary, Group= and
# EnvironmentFile=.  place -p of each kind.  Each is refused with exit 2 and the
# file and line, or neither taken nor silent: the replay's note names it as
# not reproduced.  And the cleanup at a verb's start keeps place --json's
# stdout JSON.  Prerequisites: ROOT, MYSQLD, a C compiler.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT MYSQLD
command -v cc >/dev/null || sandbox_skip_all "needs cc"
server_scratch
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
trap 'servers | xargs -r kill -9; "$SLICEBENCH" cleanup >/dev/null 2>&1; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch"' EXIT
echo "1..45"
open=$scratch/open
mkdir -m 1777 "$open"
echo 'void f(void) {}' >"$scratch/e.c"
cc -shared -fPIC -o "$open/evil.so" "$scratch/e.c" && chown nobody:nogroup "$open/evil.so" || exit 1
printf '#!/bin/sh\ntouch %s/ran\n' "$scratch" >"$open/cmd" && chmod 0755 "$open/cmd" && chown nobody "$open/cmd"
evil=$open/evil.so
head_ini='[experiment]
threads = 1
duration = 2s
tables = 1
table-size = 100'

# refused NAME WANT: NAME.ini (the head, then stdin) exits 2 in a dry run,
# saying WANT (FILE:LINE: KEY ...), and nothing ran.
refused() {
	{ echo "$head_ini"; cat; } >"$scratch/$1.ini"
	"$SLICEBENCH" run "$scratch/$1.ini" --dry-run >"$scratch/$1.out" 2>&1; local rc=$?
	[ $rc = 2 ] && grep -qF -- "$2" "$scratch/$1.out" && [ ! -e "$scratch/ran" ]
	ok $? "$1: exit 2 ($rc): $(head -c 200 "$scratch/$1.out")" "$scratch/$1.out"
}
refused audit "audit.ini:8: Environment: refused in [context a]: LD_AUDIT=$evil chooses code" <<EOF
[context a]
kind = raw
Environment = LD_AUDIT=$evil
EOF
refused dotdot "dotdot.ini:8: Environment: refused in [context a]: LD_PRELOAD=/usr/lib/../..$evil chooses code" <<EOF
[context a]
kind = raw
Environment = LD_PRELOAD=/usr/lib/../..$evil
EOF
jemalloc=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
refused colon-list "colon-list.ini:8: Environment: refused in [context a]: LD_PRELOAD=$jemalloc:$evil chooses code" <<EOF
[context a]
kind = raw
Environment = LD_PRELOAD=$jemalloc:$evil
EOF
refused bare-name "bare-name.ini:8: Environment: refused in [context a]: LD_LIBRARY_PATH=$open chooses code" <<EOF
[context a]
kind = raw
Environment = LD_PRELOAD=evil.so LD_LIBRARY_PATH=$open
EOF
refused quoted "quoted.ini:8: Environment: bad value" <<EOF
[context a]
kind = raw
Environment = "LD_PRELOAD=$evil"
EOF
refused vary "vary.ini:9: Environment: refused in [vary]: LD_PRELOAD=$evil chooses code" <<EOF
[context a]
kind = raw
[vary]
Environment = A=1, LD_PRELOAD=$evil
EOF
refused gconv "gconv.ini:8: Environment: refused in [context a]: GCONV_PATH=$open chooses code" <<EOF
[context a]
kind = raw
Environment = GCONV_PATH=$open
EOF
refused malloc-conf "malloc-conf.ini:8: Environment: refused in [context a]: MALLOC_CONF=prof:true,prof_prefix:$open/x" <<EOF
[context a]
kind = raw
Environment = MALLOC_CONF=prof:true,prof_prefix:$open/x
EOF
refused env-file-dash "env-file-dash.ini:8: EnvironmentFile: refused in [context a]: /etc/shadow is read by root" <<EOF
[context a]
kind = service
EnvironmentFile = -/etc/shadow
EOF
refused caps-inverted "caps-inverted.ini:8: AmbientCapabilities: refused in [context a]: CAP_CHOWN CAP_DAC_OVERRIDE" <<EOF
[context a]
kind = raw
AmbientCapabilities = ~CAP_IPC_LOCK
EOF
refused caps-number "caps-number.ini:8: AmbientCapabilities: bad value '21'" <<EOF
[context a]
kind = raw
AmbientCapabilities = 21
EOF
refused user-number "user-number.ini:8: User: bad value '0'" <<EOF
[context a]
kind = raw
User = 0
EOF
refused group-number "group-number.ini:8: Group: bad value '42'" <<EOF
[context a]
kind = raw
Group = 42
EOF
refused server-binary "server-binary.ini:7: binary: $open/cmd: refused, since what it names runs as the server" <<EOF
[server]
binary = $open/cmd
[context a]
kind = raw
EOF
refused proxy-binary "proxy-binary.ini:7: binary: $open/cmd: refused" <<EOF
[proxy hp]
binary = $open/cmd
engine = haproxy
kind = raw
[context a]
kind = raw
proxy = hp
EOF

# A snapshot replayed by a context of KIND: snapped NAME KIND WANT KEY VALUE...
# is refused (exit 2, WANT) or, with WANT beginning "note:", taken for a
# dry run whose note says the rest of WANT.
snapped() {
	local name=$1 kind=$2 want=$3
	shift 3
	python3 -c 'import json,sys; a=sys.argv[2:]; json.dump(dict(zip(a[::2], a[1::2])), open(sys.argv[1],"w"))' \
		"$scratch/$name.json" capture.kind "$kind" user slicebench "$@"
	printf '%s\n[context a]\nkind = %s\nfrom = %s.json\n' "$head_ini" "$kind" "$name" >"$scratch/$name.ini"
	"$SLICEBENCH" run "$scratch/$name.ini" --dry-run >"$scratch/$name.out" 2>&1; local rc=$?
	case $want in
	note:*) [ $rc = 0 ] && grep -qF -- "${want#note:}" "$scratch/$name.out" && ! grep -q "took [^;]*$evil" "$scratch/$name.out" ;;
	*) [ $rc = 2 ] && grep -qF -- "$name.ini:8: from: $name.json: $want" "$scratch/$name.out" ;;
	esac
	ok $? "$name ($kind): exit $rc: $(head -c 200 "$scratch/$name.out")" "$scratch/$name.out"
}
snapped s-audit raw "env.LD_AUDIT: refused: LD_AUDIT=$evil chooses code" env.LD_AUDIT "$evil"
snapped s-gconv raw "env.GCONV_PATH: refused: GCONV_PATH=$open chooses code" env.GCONV_PATH "$open"
snapped s-path raw "env.PATH: refused: PATH=$open:/usr/bin chooses code" env.PATH "$open:/usr/bin"
snapped s-malloc raw "env.MALLOC_CONF: refused" env.MALLOC_CONF "prof_prefix:$open/x"
snapped s-blank raw "env. LD_PRELOAD: refused: ' LD_PRELOAD' is no environment variable's name" "env. LD_PRELOAD" "$evil"
snapped s-newline raw "env.A\\x0aLD_PRELOAD: refused: 'A\\x0aLD_PRELOAD' is no environment variable's name" \
	"env.A
LD_PRELOAD" "$evil"
snapped s-value-newline raw "note:not reproduced: A (blanks in its value)" env.A "1
LD_PRELOAD=$evil"
snapped s-raw-caps raw "capture.setting.AmbientCapabilities: refused: CAP_SYS_ADMIN would be the server account's" \
	capture.setting.AmbientCapabilities CAP_SYS_ADMIN
snapped s-raw-settings raw "note:not reproduced: 2 unit settings (capture.setting.*: a raw context has no unit)" \
	capture.setting.CPUWeight 50 capture.setting.ExecStart "$open/cmd"
snapped s-user-root raw "note:not reproduced: its user root" user root
snapped s-unit-user service "note:not reproduced: User= (the server's account is [server] user's)" capture.setting.User root
snapped s-caps-number service "note:not reproduced: AmbientCapabilities=" capture.setting.AmbientCapabilities 0xffffffffff
snapped s-caps-lower service "note:not reproduced: AmbientCapabilities=" capture.setting.AmbientCapabilities cap_sys_admin
snapped s-supplementary service "note:not reproduced: SupplementaryGroups=" capture.setting.SupplementaryGroups shadow
snapped s-exec-start service "note:not reproduced: ExecStart=" capture.setting.ExecStart "$open/cmd"
snapped s-env-quoted service "note:not reproduced: Environment=" capture.setting.Environment "\"LD_PRELOAD=$evil\""
snapped s-env-multi service "capture.setting.Environment: refused: LD_PRELOAD=$evil chooses code" \
	capture.setting.Environment "A=1 LD_PRELOAD=$evil"
# explain RESULTS: what someone sent, through the same gate.
fx=$top/t/fixtures/results
explained() { # NAME WANT PYTHON: explain's fixtures, changed by PYTHON (e, pa, pb)
	mkdir -p "$scratch/$1/steps" "$scratch/$1/placements"
	python3 - "$fx" "$scratch/$1" "$3" <<'PY'
import json, sys
fx, d, change = sys.argv[1:]
e = json.load(open(fx + "/experiment.json")); pa = json.load(open(fx + "/placement.json")); pb = dict(pa)
exec(change)
json.dump(e, open(d + "/experiment.json", "w"))
json.dump(pa, open(d + "/placements/service-v1-r1.json", "w")); json.dump(pb, open(d + "/placements/weighted-v1-r1.json", "w"))
PY
	"$SLICEBENCH" explain "$scratch/$1" --from service --to weighted --out "$scratch/$1.dir" >"$scratch/$1.out" 2>&1; local rc=$?
	[ $rc = 2 ] && grep -qF -- "$2" "$scratch/$1.out" && [ ! -e "$scratch/$1.dir" ]
	ok $? "explain RESULTS $1: exit 2 ($rc): $(head -c 200 "$scratch/$1.out")" "$scratch/$1.out"
}
explained r-audit "weighted-v1-r1.json: env.LD_AUDIT: LD_AUDIT=$evil chooses code" "pb['env.LD_AUDIT'] = '$evil'"
explained r-path "service-v1-r1.json: env.PATH: PATH=$open:/usr/bin chooses code" "pa['env.PATH'] = '$open:/usr/bin'"
explained r-user "experiment.json: \$.server.user: bad value 'nobody'" "e['server']['user'] = 'nobody'"
explained r-binary "experiment.json: \$.server.binary" "e['server']['binary'] = '$open/cmd'"
explained r-group "experiment.json: \$.context_specs[2].properties.Group: refused in [context weighted]" \
	"e['context_specs'][2]['properties']['Group'] = 'shadow'"
explained r-envfile "experiment.json: \$.context_specs[0].properties.EnvironmentFile: refused in [context service]" \
	"e['context_specs'][0]['properties']['EnvironmentFile'] = '/etc/shadow'"

# The command line: -p through the same gate, nothing started.
for p in User=nobody Group=shadow EnvironmentFile=/etc/shadow "Environment=LD_AUDIT=$evil" "AmbientCapabilities=~CAP_IPC_LOCK"; do
	"$SLICEBENCH" place raw -p "$p" >"$scratch/p.out" 2>&1; rc=$?
	[ $rc = 2 ] && grep -q "refused in \[context\]: \|bad value" "$scratch/p.out" && [ -z "$(servers)" ]
	ok $? "place raw -p $p: exit 2 ($rc), nothing started: $(head -c 160 "$scratch/p.out")" "$scratch/p.out"
done
# What the cleanup at a verb's start says goes to stderr: a record an
# earlier run left made place --json's output no JSON ("stale: ..." first).
mkdir -p "$SLICEBENCH_STATE_DIR/live" && chmod 0755 "$SLICEBENCH_STATE_DIR" "$SLICEBENCH_STATE_DIR/live"
printf '{"kind": "raw", "owner_pid": 1}\n' >"$SLICEBENCH_STATE_DIR/live/left.json" && chmod 0644 "$SLICEBENCH_STATE_DIR/live/left.json"
"$SLICEBENCH" place raw --json >"$scratch/place.json" 2>"$scratch/place.err"; rc=$?
[ $rc = 0 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$scratch/place.json" &&
	grep -q "stale: left.json" "$scratch/place.err" && [ ! -e "$SLICEBENCH_STATE_DIR/live/left.json" ]
ok $? "place --json after a run left a record: JSON on stdout, the cleanup on stderr (exit $rc)" "$scratch/place.err"
[ ! -e "$scratch/ran" ] && [ -z "$(servers)" ] && [ ! -d "$scratch/state/live" -o -z "$(ls -A "$scratch/state/live" 2>/dev/null)" ]
ok $? "nothing ran and nothing was started"
exit $failed

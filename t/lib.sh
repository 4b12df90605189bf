# Sourced by the shell tests: the TAP helpers and the prerequisite checks
# that t/tap.c gives the C tests.
SLICEBENCH=${SLICEBENCH:-./slicebench}
n=0 failed=0

# ok STATUS DESC [FILE-TO-SHOW]: one TAP line; on failure the file's tail as
# diagnostics.
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		failed=1
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && grep -v '^slicebench: unit' "$3" | tail -n 25 | sed 's/^/# /'
	fi
	return 0
}

# todo DESC WHY: a check that could not be made here, said as TAP's TODO
# with the reason, so that prove shows it and the file does not fail.
todo() {
	n=$((n + 1))
	echo "not ok $n - $1 # TODO $2"
}
# skip_all WHY: the whole file cannot run here.
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
# sandbox_skip_all WHY: the same for a test that must run under CI (a
# sandbox test, or one that needs what .ci/deps installs).
sandbox_skip_all() {
	[ "${CI:-}" = true ] && { echo "1..1"; echo "not ok 1 - $1 (CI=true forbids skipping)"; exit 1; }
	skip_all "$1"
}
# needs NAME...: BINARY (the slicebench under test), ROOT, MYSQLD, CHROMIUM
# (.ci/deps installs it: skipped only outside CI).
needs() {
	for p in "$@"; do
		case $p in
		BINARY) [ -x "$SLICEBENCH" ] || skip_all "no binary at $SLICEBENCH" ;;
		ROOT) [ "$(id -u)" = 0 ] || skip_all "needs ROOT" ;;
		MYSQLD) command -v mariadbd >/dev/null || skip_all "needs MYSQLD" ;;
		CHROMIUM) command -v chromium >/dev/null || sandbox_skip_all "needs chromium" ;;
		esac
	done
}
# json_get FILE KEY: a top-level value of a JSON file, "(none)" if absent.
json_get() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "(none)"))' "$1" "$2"; }
# need_systemd BOX LOG: in_systemd=() under a running systemd (the VM
# guest), else a throwaway container named BOX whose commands run through
# "${in_systemd[@]}"; the caller's EXIT trap takes the container down.
need_systemd() {
	if [ "$(cat /proc/1/comm)" = systemd ]; then
		in_systemd=()
		return
	fi
	command -v systemd-nspawn >/dev/null || sandbox_skip_all "needs NSPAWN or a running systemd"
	"$SLICEBENCH" sandbox --name "$1" up >"$2" 2>&1 || sandbox_skip_all "the sandbox did not boot: $(tail -n 1 "$2")"
	in_systemd=("$SLICEBENCH" sandbox --name "$1" exec --)
}
# sandbox_test NAME: a container NAME-PID for the test's systemd kinds
# (need_systemd), $sb the binary's absolute path for commands run in it,
# and an EXIT trap that takes the container, any server of $scratch and
# $scratch itself away (SLICEBENCH_TEST_KEEP=1 keeps $scratch, to read a
# failure's results).  $scratch is made first if the test has none.
sandbox_test() {
	[ -n "${scratch:-}" ] || scratch=$(mktemp -d) || exit 1
	box=$1-$$
	trap '"$SLICEBENCH" sandbox --name $box down >/dev/null 2>&1; servers | xargs -r kill -9; [ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$scratch"' EXIT
	sb=$(cd "$(dirname "$SLICEBENCH")" && pwd)/$(basename "$SLICEBENCH")
	need_systemd "$box" "$scratch/up"
}
# need_deb: $deb, the package under test: SLICEBENCH_DEB (make check sets
# it), or what make deb builds in this checkout.
need_deb() {
	deb=${SLICEBENCH_DEB:-}
	if [ -z "$deb" ]; then
		make -s -C "${SLICEBENCH_TOP:-.}" deb >/dev/null 2>&1 || sandbox_skip_all "make deb failed (make deps installs debhelper and scdoc)"
		deb=$(make -s -C "${SLICEBENCH_TOP:-.}" deb-path)
	fi
	[ -f "$deb" ] || sandbox_skip_all "no package at $deb"
}
# server_scratch: $scratch, a scratch directory that the server's own user
# can reach, holding slicebench's state and run directories.
server_scratch() {
	scratch=$(mktemp -d) || exit 1
	chmod 0755 "$scratch"
	export SLICEBENCH_STATE_DIR=$scratch/state SLICEBENCH_RUN_DIR=$scratch/run
}
# servers: the PIDs of the servers started from $scratch's state.
servers() { pgrep -f -- "--(defaults|config)-file=$scratch/"; }

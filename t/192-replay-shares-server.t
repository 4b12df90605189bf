#!/bin/bash
# A shell start of a replayed server reads the same configuration: in a
# file with one context that replays a capture (from =), every other
# context not mirroring a unit takes the capture's server variables
# (innodb_buffer_pool_size 256 MiB here, not [server]'s 1 GiB), each one
# its own section does not set, and the replay's note says so; explain's
# plan then has no server variable among the factors, so that the gap it
# explains is the start's, not the option file's.  Two replays: neither's
# variables are given to a third context (whose would a shell read?).
# Dry runs of a capture in the real format (a run's placement): nothing
# starts.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
needs BINARY ROOT
out=$(mktemp -d) || exit 1
trap '[ -n "${SLICEBENCH_TEST_KEEP:-}" ] || rm -rf "$out"' EXIT
echo "1..6"
top=${SLICEBENCH_TOP:-.}
cp "$top/t/fixtures/output/quickstart/placements/service-v1-r1.json" "$out/prod.json"
cp "$top/t/fixtures/output/quickstart/placements/user-v1-r1.json" "$out/other.json"
unit_line() { grep -E "^  $1-v1-r1 " "$2"; }

printf '[experiment]\nthreads = 1\n\n[context prod]\nfrom = prod.json\n\n[context shell]\nkind = raw\n' >"$out/replay.ini"
"$SLICEBENCH" run "$out/replay.ini" --dry-run >"$out/plain" 2>&1
rc=$?
[ $rc = 0 ] && unit_line shell "$out/plain" | grep -q "innodb_buffer_pool_size=268435456" &&
	unit_line shell "$out/plain" | grep -q "thread_handling=one-thread-per-connection"
ok $? "the shell context takes the replayed server's variables: its 256 MiB pool, not [server]'s (exit $rc)" "$out/plain"
grep -q "\[context shell\] starts the same server, and takes its variables (unless its section sets them): innodb_buffer_pool_size" "$out/plain"
ok $? "the replay's note says which the shell context took" "$out/plain"

printf '[experiment]\nthreads = 1\n\n[context prod]\nfrom = prod.json\n\n[context shell]\nkind = raw\ninnodb_buffer_pool_size = 64M\n' >"$out/own.ini"
"$SLICEBENCH" run "$out/own.ini" --dry-run >"$out/own" 2>&1
[ $? = 0 ] && unit_line shell "$out/own" | grep -q "innodb_buffer_pool_size=67108864" &&
	! unit_line shell "$out/own" | grep -q "innodb_buffer_pool_size=268435456" &&
	unit_line shell "$out/own" | grep -q "thread_handling=one-thread-per-connection"
ok $? "a variable the section sets is its own (64 MiB), the others the replay's" "$out/own"

"$SLICEBENCH" explain "$out/replay.ini" prod shell --dry-run >"$out/explain" 2>&1
rc=$?
factors=$(grep -m1 '^explain replay: ' "$out/explain")
[ $rc = 0 ] && [ -n "$factors" ] && [[ $factors != *innodb* && $factors != *thread_handling* ]]
ok $? "explain's factors hold no server variable (exit $rc: ${factors:0:200})" "$out/explain"
[[ $factors == *LimitNOFILE=* && $factors == *environment* ]]
ok $? "and still the start's settings that differ" "$out/explain"

printf '[experiment]\nthreads = 1\n\n[context prod]\nfrom = prod.json\n\n[context other]\nfrom = other.json\n\n[context shell]\nkind = raw\n' >"$out/two.ini"
"$SLICEBENCH" run "$out/two.ini" --dry-run >"$out/two" 2>&1
[ $? = 0 ] && unit_line shell "$out/two" >"$out/two.shell" && ! grep -q "innodb_buffer_pool_size=" "$out/two.shell" &&
	! grep -q "starts the same server" "$out/two"
ok $? "with two replays the shell context keeps [server]'s configuration" "$out/two"
exit $failed

#!/bin/bash
# The proxy chain ([proxy NAME]): haproxy in front of MariaDB as a service
# and as a raw process pinned to CPU 1, pgbouncer in front of PostgreSQL,
# in a real systemd (the container sandbox, or the guest when PID 1 is
# systemd).  Every step runs through the proxy, each placement records the
# proxy's beside the server's and the client's, place shows the three
# processes, and nothing is left after a run, SIGINT, the proxy killed
# mid-step, a proxy that cannot bind, or SIGKILL of slicebench and cleanup
# (t/fixtures/proxy/scenarios.sh, which prints what it saw).  Bad [proxy]
# input exits 2 naming file, line and key, with nothing started or written.
# Prerequisites: ROOT, MYSQLD, haproxy, pgbouncer, NSPAWN or a running
# systemd (fails under CI).
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
[ "$(id -u)" = 0 ] || sandbox_skip_all "needs ROOT"
for p in mariadbd haproxy pgbouncer; do
	command -v $p >/dev/null || PATH=$PATH:/usr/sbin command -v $p >/dev/null || sandbox_skip_all "needs $p (make deps)"
done
[ -x /usr/lib/postgresql/15/bin/postgres ] || sandbox_skip_all "needs PostgreSQL 15 (make deps)"
scratch=$(mktemp -d "$top/.t074.XXXXXX")
sandbox_test t074
echo "1..40"

# Bad input first: each exits 2 and leaves no results directory.
bad() { # bad DESC WANT-IN-MESSAGE SED-SCRIPT-ON-chain.ini [INI]
	local ini=$scratch/bad.ini
	sed "$3" "${4:-$top/t/fixtures/proxy/chain.ini}" >"$ini"
	"$SLICEBENCH" run "$ini" --out "$scratch/bad-out" >/dev/null 2>"$scratch/bad.err"; rc=$?
	[ $rc = 2 ] && grep -qF -- "$2" "$scratch/bad.err" && [ ! -e "$scratch/bad-out" ]
	ok $? "$1: exit 2 and nothing written ($(head -c 220 "$scratch/bad.err"))" "$scratch/bad.err"
}
bad "pgbouncer in front of MariaDB" "bad.ini:27: engine: pgbouncer carries postgresql, and [server] engine = mariadb speaks mysql (haproxy or proxysql carries it)" \
	'27s/engine = haproxy/engine = pgbouncer/'
command -v proxysql >/dev/null && todo "ProxySQL is refused where not installed" "proxysql is installed here" ||
	bad "ProxySQL where it is not installed" "bad.ini:27: engine: proxysql is not installed here: no proxysql (ProxySQL is not packaged in Debian 12" \
		'27s/engine = haproxy/engine = proxysql/'
bad "sysbench through ProxySQL, which would need its password on the command line" \
	"bad.ini:5: driver: proxysql's users log in with a password, which sysbench would take on its command line" \
	'27s/engine = haproxy/engine = proxysql/; 4a driver = sysbench'
bad "a proxy that no section defines" "bad.ini:18: proxy: no [proxy nosuch] in this file" '18s/proxy = unit/proxy = nosuch/'
bad "User= for a proxy" "bad.ini:34: User: a proxy runs as the server's user" '33a User = nobody'
bad "a proxy without a kind" "bad.ini:26: kind: [proxy unit] needs kind = " '28d'
bad "a proxy binary that is not there" "bad.ini:29: binary: haproxy is not installed here: no /nonexistent/haproxy (apt-get install haproxy)" \
	'28a binary = /nonexistent/haproxy'
bad "an unknown key in [proxy]" "bad.ini:29: Frobnicate: unknown key" '28a Frobnicate = 1'

"${in_systemd[@]}" bash "$top/t/fixtures/proxy/scenarios.sh" "$sb" "$top/t/fixtures/proxy" >"$scratch/out" 2>&1
value() { sed -n "s/^$1=//p" "$scratch/out" | head -n1; }
is() { # is KEY WANT DESC
	local got; got=$(value "$1")
	[ "$got" = "$2" ]
	ok $? "$3 ($1: want '$2', got '$got')" "$scratch/out"
}
nothing_left() { # nothing_left SCENARIO
	is "$1.units" "" "no slicebench unit is left after $1"
	[ -z "$(value "$1.procs")" ] && [ -z "$(value "$1.cgroups")" ]
	ok $? "nor a process or a raw cgroup of the run ($(value "$1.procs") $(value "$1.cgroups"))" "$scratch/out"
}

is chain.rc 0 "the chain through haproxy runs"
is chain.ok_steps 4 "every step through the proxy has TPS above zero"
awk -v c="$(value chain.proxy_cpu)" 'BEGIN { exit !(c > 0) }'
ok $? "each step records the proxy's CPU per transaction ($(value chain.proxy_cpu) us)" "$scratch/out"
is chain.service_engine haproxy "the placement records the proxy's engine"
is chain.service_proxy_unit slicebench-proxy-unit.service "and its unit, apart from the server's"
is chain.chain "slicebench -> haproxy -> mariadb" "and the chain"
is chain.raw_affinity 1 "the raw proxy's CPUAffinity=1 reads back as its affinity"
is chain.raw_setting yes "and is in force"
is chain.client_cpus 1 "the client's CPUs are recorded beside them"
is chain.report 1 "report shows the proxies' affinities differ"
nothing_left chain
is pg.rc 0 "pgbench's select-only through pgbouncer runs"
awk -v t="$(value pg.tps)" 'BEGIN { exit !(t > 0) }'
ok $? "with TPS above zero ($(value pg.tps))" "$scratch/out"
is pg.engine pgbouncer "its placement records pgbouncer"
is pg.weight 512 "and the proxy's CPUWeight=50 as cpu.shares 512"
nothing_left pg
is place.processes 1 "place shows the server's, the proxy's and the client's PIDs"
is place.unit slicebench-proxy-unit.service "and the proxy's placement"
is int.rc 130 "SIGINT mid-run exits 130"
nothing_left int
is kill.service_failed 2 "a proxy killed mid-step fails that step and the unit's next"
is kill.second_reason "the proxy was no longer running" "the next says why"
is kill.scope_ok 2 "the other context still runs"
is kill.socket_left "" "the killed proxy's socket is removed"
nothing_left kill
reason=$(value bind.reason)
[[ $reason == "the proxy did not start: "*"[ALERT]"*"UNIX socket"* ]]
ok $? "a proxy that cannot bind fails its unit's steps with haproxy's words ($reason)" "$scratch/out"
is bind.scope_ok 2 "the other context still runs"
[[ "$(value sigkill.units_left)" == *slicebench-proxy-unit.service* ]] && [[ "$(value sigkill.cleanup)" == *"stopped unit slicebench-proxy-unit.service"* ]]
ok $? "after SIGKILL of slicebench, cleanup stops the proxy's unit ($(value sigkill.cleanup))" "$scratch/out"
exit $failed

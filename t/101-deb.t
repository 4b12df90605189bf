#!/bin/bash
# The Debian package (make deb): its files where the binary looks for them
# (the sandbox helpers in /usr/libexec/slicebench, the experiments in
# /usr/share/slicebench, compiled in with PREFIX=/usr), Depends from the
# libraries it links, mariadb-server and sysbench as Recommends, no lintian
# error; then installed with apt in a sandbox container (dpkg writes to the
# container's volatile overlay, never to this machine): slicebench host,
# list, run --dry-run from /, the helpers and both man pages are found.
# Recommends name packages, not versions (postgresql, not postgresql-15),
# and declare dbus and libpam-systemd; cpio (the VM sandbox's initramfs)
# is suggested; the bash completion is installed; purge removes
# /var/lib/slicebench.
# Prerequisites: the package (SLICEBENCH_DEB, or make deb), lintian; ROOT
# and NSPAWN for the install.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=${SLICEBENCH_TOP:-.}
needs BINARY
need_deb
echo "1..14"
scratch=$(mktemp -d) || exit 1
chmod 0755 "$scratch"
box=t101-$$
export SLICEBENCH_RUNDIR=$scratch/run
trap '"$SLICEBENCH" sandbox --name $box down >/dev/null 2>&1; rm -rf "$scratch"' EXIT

case $(basename "$deb") in slicebench_*_"$(dpkg --print-architecture)".deb) true ;; *) false ;; esac
ok $? "the package is slicebench_VERSION_ARCH.deb ($(basename "$deb"))"

dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|' >"$scratch/files"
missing=
for f in /usr/bin/slicebench /usr/libexec/slicebench/slicebench-sandbox /usr/libexec/slicebench/slicebench-vm \
	/usr/share/slicebench/experiments/quickstart.ini /usr/share/man/man1/slicebench.1.gz \
	/usr/share/man/man5/slicebench.experiment.5.gz /usr/share/doc/slicebench/copyright \
	/usr/share/bash-completion/completions/slicebench; do
	grep -qx "$f" "$scratch/files" || missing="$missing $f"
done
[ -z "$missing" ]
ok $? "the package holds the binary, the helpers, the experiments, both man pages, the completion${missing:+ (missing:$missing)}" "$scratch/files"

dpkg-deb -f "$deb" Depends Recommends >"$scratch/fields"
grep -q '^Depends:.*libsystemd0.*' "$scratch/fields" && grep -q '^Depends:.*libmariadb3' "$scratch/fields" &&
	grep -q '^Depends:.*libjansson4' "$scratch/fields" && grep -q '^Recommends:.*mariadb-server' "$scratch/fields" &&
	grep -q '^Recommends:.*sysbench' "$scratch/fields"
ok $? "Depends from the shared libraries, Recommends mariadb-server and sysbench" "$scratch/fields"
dpkg-deb -f "$deb" Recommends Suggests >"$scratch/fields"
grep -q '^Recommends:.*\bdbus\b' "$scratch/fields" && grep -q '^Recommends:.*libpam-systemd' "$scratch/fields" &&
	grep -q '^Recommends:.*\bpostgresql\b' "$scratch/fields" && ! grep -qE -- '-[0-9]+(,|$)' "$scratch/fields" &&
	grep -q '^Suggests:.*\bcpio\b' "$scratch/fields"
ok $? "Recommends dbus, libpam-systemd and postgresql by name, no version in a package's name; Suggests cpio" "$scratch/fields"

dpkg-deb -x "$deb" "$scratch/root"
strings "$scratch/root/usr/bin/slicebench" >"$scratch/strings"
grep -qx /usr/libexec/slicebench "$scratch/strings" && grep -qx /usr/share/slicebench/experiments "$scratch/strings" &&
	! grep -q "^/usr/local/[a-z]*/slicebench" "$scratch/strings"
ok $? "the binary looks in /usr/libexec/slicebench and /usr/share/slicebench, nowhere under /usr/local"

if command -v lintian >/dev/null; then
	lintian --fail-on error "$deb" >"$scratch/lintian" 2>&1
	ok $? "lintian reports no error" "$scratch/lintian"
else
	sandbox_skip_all "needs lintian (make deps)"
fi

[ "$(id -u)" = 0 ] || { echo "# the install in a container needs ROOT"; exit $failed; }
command -v systemd-nspawn >/dev/null || sandbox_skip_all "needs NSPAWN"
# The container sees this machine's / read-only, its own /tmp aside: the
# package is installed from where it was built.
deb=$(readlink -f "$deb")
"$SLICEBENCH" sandbox --name "$box" up >"$scratch/up" 2>&1
ok $? "a sandbox container boots" "$scratch/up"
in_box() { "$SLICEBENCH" sandbox --name "$box" exec -- "$@"; }
host_status() { dpkg-query -W -f '${Status} ${Version}' slicebench 2>&1; }
before=$(host_status)
in_box apt-get install -y -q "$deb" >"$scratch/apt" 2>&1 &&
	in_box dpkg-query -W -f '${Status}\n' slicebench | grep -q 'install ok installed' &&
	[ "$(host_status)" = "$before" ]
ok $? "apt installs the package in the container, not on this machine" "$scratch/apt"
in_box sh -c 'cd / && slicebench --version && slicebench host' >"$scratch/host" 2>&1 &&
	grep -qE "^slicebench $(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog") \([0-9a-zA-Z.+~_-]+\)$" "$scratch/host" &&
	! grep -q '(unknown)' "$scratch/host"
ok $? "the installed slicebench runs host, and --version names its commit" "$scratch/host"
in_box sh -c 'cd / && slicebench list && slicebench run quickstart --dry-run' >"$scratch/list" 2>&1 &&
	grep -q '^quickstart ' "$scratch/list" && grep -q '(/usr/share/slicebench/experiments/quickstart.ini)' "$scratch/list"
ok $? "list and run --dry-run find the experiments in /usr/share/slicebench" "$scratch/list"
in_box sh -c 'cd / && slicebench sandbox --name none status' >"$scratch/helper" 2>&1
grep -q '^sandbox none: down' "$scratch/helper"
ok $? "slicebench sandbox finds its helper in /usr/libexec/slicebench" "$scratch/helper"
in_box sh -c 'man -w slicebench slicebench.experiment && MANWIDTH=80 man slicebench.experiment | grep -q "^SYSTEMD PROPERTIES"' >"$scratch/man" 2>&1
ok $? "man finds and renders both installed pages" "$scratch/man"
in_box bash -c '. /usr/share/bash-completion/completions/slicebench && COMP_WORDS=(slicebench rep) COMP_CWORD=1 &&
	_slicebench && echo "${COMPREPLY[@]}"' >"$scratch/comp" 2>&1
grep -qx report "$scratch/comp"
ok $? "the installed completion completes a verb" "$scratch/comp"
in_box sh -c 'slicebench cleanup; test -d /var/lib/slicebench && apt-get purge -y -q slicebench && ! test -e /var/lib/slicebench' \
	>"$scratch/purge" 2>&1
ok $? "apt-get purge removes /var/lib/slicebench" "$scratch/purge"
exit $failed

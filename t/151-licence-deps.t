#!/bin/bash
# The licence is said the same everywhere it belongs: LICENSE (the GPL's
# text, and why), debian/copyright (machine-readable, DEP-5), the README,
# both man pages and --version; each library the binary links is named in
# debian/copyright's reason, so that a new one cannot come in unweighed.
# The two sets of packages: .ci/deps run (make deps) holds what building
# needs (every pkg-config module the Makefile asks for) and what running
# needs (the servers, systemd's container and D-Bus), .ci/deps test (make
# test-deps) all of that and what only the tests need, and nothing a test
# names is missing from it.  make install and make uninstall: what one puts
# there the other removes.
# Prerequisites: dpkg (the .pc files' packages), man.
. "${SLICEBENCH_TOP:-.}/t/lib.sh"
top=$(cd "${SLICEBENCH_TOP:-.}" && pwd)
needs BINARY
echo "1..11"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT

head -n 20 "$top/LICENSE" | grep -q 'GPL-3.0-or-later' && grep -q 'GNU Scientific Library' "$top/LICENSE" &&
	grep -q '^                    GNU GENERAL PUBLIC LICENSE$' "$top/LICENSE" && grep -q '^                       Version 3, 29 June 2007$' "$top/LICENSE"
ok $? "LICENSE: GPL-3.0-or-later, why (GSL), and the GPL's text"
python3 - "$top/debian/copyright" >"$scratch/dep5" 2>&1 <<'PY'
# DEP-5: paragraphs of fields; the header's Format; each Files paragraph
# with Copyright and a License whose text is given by a stand-alone
# License paragraph.
import re, sys
paras, cur = [], {}
for line in open(sys.argv[1]).read().split("\n") + [""]:
    if not line.strip():
        if cur: paras.append(cur); cur = {}
        continue
    if line[0] in " \t":
        cur[key] += "\n" + line.strip()
        continue
    key, _, val = line.partition(":")
    assert re.match(r"^[A-Za-z-]+$", key), "not a field: " + line
    cur[key] = val.strip()
head, files = paras[0], [p for p in paras if "Files" in p]
assert head["Format"] == "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/", head
assert files and files[0]["Files"] == "*", files
for p in files:
    assert p.get("Copyright") and p.get("License"), p
texts = {p["License"].split("\n")[0] for p in paras if "License" in p and "Files" not in p and "Format" not in p}
for p in files:
    assert p["License"].split("\n")[0] in texts, "no text for " + p["License"]
assert files[0]["License"] == "GPL-3+", files[0]
print("ok", len(files), "Files paragraphs")
PY
ok $? "debian/copyright is DEP-5: Files: * is GPL-3+, every licence has its text" "$scratch/dep5"
# What the binary links, as names the copyright's reason uses.
readelf -d "$SLICEBENCH" | sed -n 's/.*Shared library: \[\(lib[a-z0-9_]*\)[.-].*/\1/p' | sort -u >"$scratch/needed"
missing=
while read -r lib; do
	case $lib in
	libc | libm | libpthread) continue ;; # the C library's own exception
	libsystemd) name=libsystemd ;; libcgroup) name=libcgroup ;; libmariadb) name='MariaDB Connector/C' ;;
	libpq) name=libpq ;; libinih) name=inih ;; libjansson) name=jansson ;; libcairo) name=cairo ;;
	libgsl | libgslcblas) name='GNU Scientific Library' ;; libseccomp) name=libseccomp ;; libpam) name=libpam ;; libz) name=zlib ;;
	*) name="an unweighed library: $lib" ;;
	esac
	tr -s ' \n' ' ' <"$top/debian/copyright" | grep -qF "$name" || missing="$missing $lib"
done <"$scratch/needed"
[ -s "$scratch/needed" ] && [ -z "$missing" ]
ok $? "each library the binary links is weighed in debian/copyright ($(tr '\n' ' ' <"$scratch/needed"))${missing:+; not:$missing}"
"$SLICEBENCH" --version | grep -q 'GPL-3.0-or-later' && grep -q 'GPL-3.0-or-later' "$top/README.md" &&
	MANWIDTH=100 man -l "$(dirname "$SLICEBENCH")/man/slicebench.1" 2>/dev/null | grep -A3 '^LICENCE' | grep -q 'GPL-3.0-or-later' &&
	MANWIDTH=100 man -l "$(dirname "$SLICEBENCH")/man/slicebench.experiment.5" 2>/dev/null | grep -A2 '^LICENCE' | grep -q 'GPL-3.0-or-later'
ok $? "--version, the README and both man pages say GPL-3.0-or-later"

bash "$top/.ci/deps" list run | sort >"$scratch/run"
bash "$top/.ci/deps" list test | sort >"$scratch/test"
[ -s "$scratch/run" ] && [ -z "$(comm -23 "$scratch/run" "$scratch/test")" ] && [ "$(wc -l <"$scratch/test")" -gt "$(wc -l <"$scratch/run")" ]
ok $? "the test set holds the run set and more ($(wc -l <"$scratch/run") and $(wc -l <"$scratch/test") packages)"
# Each pkg-config module of the Makefile, by the package that holds its .pc.
missing=
for m in $(sed -n 's/^PKGS := //p' "$top/Makefile"); do
	pc=$(pkg-config --path "$m" 2>/dev/null) && pkg=$(dpkg -S "$(readlink -f "$pc")" 2>/dev/null | head -n 1 | cut -d: -f1) ||
		pkg=$(dpkg -S "$pc" 2>/dev/null | head -n 1 | cut -d: -f1)
	grep -qx "${pkg:-none}" "$scratch/run" || missing="$missing $m(${pkg:-no package})"
done
[ -z "$missing" ]
ok $? "make deps installs every library the build asks pkg-config for${missing:+ (missing:$missing)}"
for p in mariadb-server sysbench systemd-container dbus libpam-systemd postgresql haproxy pgbouncer scdoc git; do
	grep -qx "$p" "$scratch/run" || echo "$p"
done >"$scratch/lack"
[ ! -s "$scratch/lack" ] && ! grep -qxE 'qemu-system-x86|chromium|clang|valgrind|lintian|ansible-core|linux-image-amd64' "$scratch/run"
ok $? "make deps: the servers, the sandbox's container, D-Bus, the man pages' scdoc, git; none of the tests' tools" "$scratch/lack"
for p in qemu-system-x86 busybox-static linux-image-amd64 cpio chromium clang valgrind lintian debhelper ansible-core python3 jq; do
	grep -qx "$p" "$scratch/test" || echo "$p"
done >"$scratch/lack"
[ ! -s "$scratch/lack" ]
ok $? "make test-deps adds what the tests run (the VM's qemu, kernel and cpio, chromium, clang, valgrind, lintian, ...)" "$scratch/lack"
grep -q '^deps:' "$top/Makefile" && grep -A1 '^deps:' "$top/Makefile" | grep -q '.ci/deps run' &&
	grep -A1 '^test-deps:' "$top/Makefile" | grep -q '.ci/deps test' && grep -q '^make test-deps$' "$top/.ci/run"
ok $? "make deps is .ci/deps run, make test-deps .ci/deps test, and CI installs the test set"

make -s -C "$top" install DESTDIR="$scratch/root" >"$scratch/install" 2>&1 &&
	[ -x "$scratch/root/usr/local/bin/slicebench" ] && [ -f "$scratch/root/usr/local/share/bash-completion/completions/slicebench" ]
ok $? "make install DESTDIR=... puts the binary and the bash completion there" "$scratch/install"
make -s -C "$top" uninstall DESTDIR="$scratch/root" >"$scratch/uninstall" 2>&1 &&
	find "$scratch/root" -type f >"$scratch/left" && [ ! -s "$scratch/left" ]
ok $? "make uninstall removes every file make install put there" "$scratch/left"
exit $failed

#!/bin/sh
# Installs and starts a unit built like Percona Server 5.7's packaged one
# (percona-like.service: its ExecStartPre= helper preloads Debian's jemalloc
# through its EnvironmentFile=), with a datadir of its own, for
# experiments/percona-jemalloc.ini and t/131.  Meant for a throwaway
# systemd: `slicebench sandbox exec -- sh contrib/percona-like/install.sh`
# (the sandbox's overlay takes what it writes; on a real host it writes
# /usr/local/sbin, /etc/systemd/system, /etc/default and /var/lib).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ -r /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ] || { echo "$0: libjemalloc2 is not installed" >&2; exit 2; }
install -m 755 "$here/ps-mysqld-helper" /usr/local/sbin/ps-mysqld-helper
install -m 644 "$here/percona-like.service" /etc/systemd/system/percona-like.service
systemctl daemon-reload
if [ ! -d /var/lib/percona-like/mysql ]; then
	install -d -o mysql -g mysql /var/lib/percona-like
	mariadb-install-db --no-defaults --datadir=/var/lib/percona-like --user=mysql \
		--auth-root-authentication-method=socket --skip-test-db >/dev/null
fi
systemctl start percona-like.service

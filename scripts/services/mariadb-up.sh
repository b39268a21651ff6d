#!/usr/bin/env bash
# A throwaway MariaDB (Debian's mariadb-server) on 127.0.0.1:$MARIADB_PORT without systemd (run as root), for the
# Blazar import's MariaDB/MySQL source. Its server time zone is not UTC (+05:30) on purpose: Blazar's DATETIMEs are
# naive UTC, and the tests show that nothing on the way shifts them. Reused while it runs; a new one starts empty.
# Prints its URL as the last line.
# Usage: mariadb-up.sh   (env: MARIADB_ROOT=/tmp/leasehold-services/mariadb, MARIADB_PORT=63306)
set -euo pipefail
MARIADB_ROOT="${MARIADB_ROOT:-/tmp/leasehold-services/mariadb}"
MARIADB_PORT="${MARIADB_PORT:-63306}"
export DEBIAN_FRONTEND=noninteractive
if [ ! -x /usr/sbin/mariadbd ] || [ ! -x /usr/bin/mariadb-install-db ]; then
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 mariadb-server mariadb-client >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 mariadb-server mariadb-client >/dev/null; }
fi
url="mysql://leasehold:leasehold@127.0.0.1:$MARIADB_PORT/leasehold_test"
admin() { mariadb --no-defaults --socket="$MARIADB_ROOT/mysqld.sock" -u root "$@"; }
if [ -f "$MARIADB_ROOT/pid" ] && kill -0 "$(cat "$MARIADB_ROOT/pid")" 2>/dev/null && admin -e 'select 1' >/dev/null 2>&1; then
  echo "$url"
  exit 0
fi
bash "$(dirname "$0")/mariadb-down.sh"
rm -rf "$MARIADB_ROOT"
install -d -o mysql -g mysql -m 700 "$MARIADB_ROOT" "$MARIADB_ROOT/data"
# --no-defaults everywhere: /etc/mysql's configuration belongs to the system's server, not to this one
mariadb-install-db --no-defaults --user=mysql --datadir="$MARIADB_ROOT/data" --auth-root-authentication-method=socket \
  --skip-test-db >"$MARIADB_ROOT/install-db.log" 2>&1
setsid /usr/sbin/mariadbd --no-defaults --user=mysql --datadir="$MARIADB_ROOT/data" --socket="$MARIADB_ROOT/mysqld.sock" \
  --pid-file="$MARIADB_ROOT/mariadbd.pid" --log-error="$MARIADB_ROOT/error.log" --bind-address=127.0.0.1 --port="$MARIADB_PORT" \
  --default-time-zone=+05:30 --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
  --innodb-buffer-pool-size=64M --innodb-flush-log-at-trx-commit=0 --skip-log-bin --skip-name-resolve \
  >"$MARIADB_ROOT/stdout" 2>&1 </dev/null &
echo $! >"$MARIADB_ROOT/pid"
for _ in $(seq 1 120); do
  admin -e 'select 1' >/dev/null 2>&1 && break
  kill -0 "$(cat "$MARIADB_ROOT/pid")" 2>/dev/null || { echo "mariadbd died:" >&2; tail -50 "$MARIADB_ROOT/error.log" >&2; exit 1; }
  sleep 0.5
done
# the tests create a database of their own per file: the user may create and drop any
admin -e "CREATE USER 'leasehold'@'127.0.0.1' IDENTIFIED BY 'leasehold'; GRANT ALL ON *.* TO 'leasehold'@'127.0.0.1';
  CREATE DATABASE leasehold_test;"
echo "$url"

#!/usr/bin/env bash
# Stops the MariaDB mariadb-up.sh started. Its data goes at the next start.
# Usage: mariadb-down.sh   (env: MARIADB_ROOT=/tmp/leasehold-services/mariadb)
set -uo pipefail
MARIADB_ROOT="${MARIADB_ROOT:-/tmp/leasehold-services/mariadb}"
[ -f "$MARIADB_ROOT/pid" ] || exit 0
P=$(cat "$MARIADB_ROOT/pid")
kill -TERM "$P" 2>/dev/null || true
# gone only once it has shut down: a new server on the same datadir and port must not meet it
for _ in $(seq 1 300); do kill -0 "$P" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$P" 2>/dev/null || true
rm -f "$MARIADB_ROOT/pid"
exit 0

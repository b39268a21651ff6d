#!/usr/bin/env bash
# Throwaway PostgreSQL 15 on 127.0.0.1:$PGPORT without systemd (run as root); prints its URL.
set -euo pipefail
PGPORT="${PGPORT:-62432}"
PGROOT="${PGROOT:-/tmp/leasehold-services/pg}"
export DEBIAN_FRONTEND=noninteractive
if [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql-15 postgresql-client-15 >/dev/null
fi
PGBIN=/usr/lib/postgresql/15/bin
if [ -f "$PGROOT/data/postmaster.pid" ]; then runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGROOT/data" -m fast stop >/dev/null 2>&1 || true; fi
rm -rf "$PGROOT"; install -d -o postgres -g postgres -m 700 "$PGROOT" "$PGROOT/data" "$PGROOT/sock"
runuser -u postgres -- "$PGBIN/initdb" -D "$PGROOT/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$PGROOT/initdb.log"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGROOT/data" -l "$PGROOT/server.log" -w -t 30 \
  -o "-p $PGPORT -k $PGROOT/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
runuser -u postgres -- "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -v ON_ERROR_STOP=1 -q -c "ALTER USER postgres PASSWORD 'postgres'" -c "CREATE DATABASE leasehold_test" -c "CREATE DATABASE leasehold_e2e"
echo "postgres://postgres:postgres@127.0.0.1:$PGPORT/leasehold_test"

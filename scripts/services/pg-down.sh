#!/usr/bin/env bash
set -euo pipefail
PGROOT="${PGROOT:-/tmp/leasehold-services/pg}"
[ -f "$PGROOT/data/postmaster.pid" ] && runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$PGROOT/data" -m fast stop >/dev/null
rm -rf "$PGROOT"

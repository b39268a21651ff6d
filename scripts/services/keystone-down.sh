#!/usr/bin/env bash
# Stops the Keystone started by keystone-up.sh (by its own pid file) and removes its data.
set -uo pipefail
KS="${KS_ROOT:-/tmp/leasehold-services/keystone}"
if [ -f "$KS/uwsgi.pid" ]; then
  pid="$(cat "$KS/uwsgi.pid")"
  uwsgi --stop "$KS/uwsgi.pid" >/dev/null 2>&1 || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null
fi
rm -rf "$KS"

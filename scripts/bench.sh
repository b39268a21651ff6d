#!/usr/bin/env bash
# `npm run bench`: builds, then reproduces upstream Blazar's workload and prints the figures.
# `npm run bench:replay [-- --events N]` (or `npm run bench -- --replay`): the replay bench on a
# generated log of 1,000,000 events by default (minutes: never run by default or in CI).
# `npm run bench -- --scale [--hosts N] [--events N] [--store sqlite|postgresql|both]`: the scale bench
# (bench/scale.ts; 10,000 hosts and 1,000,000 events by default: long, never run by default or in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
if [ "${1:-}" = "--replay" ]; then
  shift
  node dist/bench/replay.js "$@"
elif [ "${1:-}" = "--scale" ]; then
  shift
  # PostgreSQL from the project's own script unless a server is given
  if [ -z "${LEASEHOLD_BENCH_PG_URL:-}" ] && [[ " $* " != *" --store sqlite "* ]]; then
    LEASEHOLD_BENCH_PG_URL="$(bash scripts/services/pg-up.sh | tail -1)"
    export LEASEHOLD_BENCH_PG_URL
  fi
  node dist/bench/scale.js "$@"
else
  node dist/bench/bench.js
fi

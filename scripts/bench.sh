#!/usr/bin/env bash
# `npm run bench`: builds, then reproduces upstream Blazar's workload and prints the figures.
# `npm run bench:replay [-- --events N]` (or `npm run bench -- --replay`): the replay bench on a
# generated log of 1,000,000 events by default (minutes: never run by default or in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
if [ "${1:-}" = "--replay" ]; then
  shift
  node dist/bench/replay.js "$@"
else
  node dist/bench/bench.js
fi

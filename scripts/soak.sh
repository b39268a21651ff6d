#!/usr/bin/env bash
# `npm run soak [-- --minutes 30]`: builds, then drives the mixed workload at half its measured peak rate
# and prints requests, errors, RSS per process, timer lateness and projector lag (bench/soak.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
node dist/bench/soak.js "$@"

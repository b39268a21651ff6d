#!/usr/bin/env bash
# `npm run bench`: builds, then reproduces upstream Blazar's workload and prints the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
node dist/bench/bench.js

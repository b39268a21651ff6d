#!/usr/bin/env bash
# Installs the project's npm dependencies (once) and builds it. Used by up.sh, test.sh and bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# better-sqlite3 builds from source against Node's own headers here (no prebuilt download)
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
if [ -L node_modules ]; then
  # a worktree borrowing another checkout's dependencies: `npm ci` here would empty the one it points to
  echo "node_modules is a link to $(readlink node_modules); not reinstalling" >&2
elif [ ! -f node_modules/better-sqlite3/build/Release/better_sqlite3.node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run --silent build

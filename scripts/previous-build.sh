#!/usr/bin/env bash
# Builds the previous release (a git ref; default: the last commit before events recorded their version,
# until releases are tagged) into a folder and prints the folder: LEASEHOLD_PREVIOUS_BUILD for
# test/e2e/rolling-upgrade.e2e.spec.ts. With this checkout's node_modules when the ref's package-lock.json
# is the same as ours (no install); otherwise its own, installed from its lock with `npm ci`.
set -euo pipefail
ref="${1:-cf1dba7d809b463a730ea42e5042acc44b5bb81b}"
out="${2:-/tmp/leasehold-previous}"
root="$(cd "$(dirname "$0")/.." && pwd)"
# better-sqlite3 builds from source against Node's own headers here (as scripts/install.sh)
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
rm -rf "$out"
mkdir -p "$out"
git -C "$root" archive "$ref" | tar -x -C "$out"
if cmp -s "$out/package-lock.json" "$root/package-lock.json"; then
  ln -s "$(readlink -f "$root/node_modules")" "$out/node_modules"
else
  (cd "$out" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi
(cd "$out" && npm run -s build) >&2
echo "$out"

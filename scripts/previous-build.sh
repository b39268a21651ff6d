#!/usr/bin/env bash
# Builds the previous release (a git ref; default: the last commit before events recorded their version,
# until releases are tagged) into a folder, with this checkout's node_modules, and prints the folder:
# LEASEHOLD_PREVIOUS_BUILD for test/e2e/rolling-upgrade.e2e.spec.ts. Runs no npm install.
set -euo pipefail
ref="${1:-cf1dba7d809b463a730ea42e5042acc44b5bb81b}"
out="${2:-/tmp/leasehold-previous}"
root="$(cd "$(dirname "$0")/.." && pwd)"
rm -rf "$out"
mkdir -p "$out"
git -C "$root" archive "$ref" | tar -x -C "$out"
ln -s "$(readlink -f "$root/node_modules")" "$out/node_modules"
(cd "$out" && npm run -s build) >&2
echo "$out"

#!/usr/bin/env bash
# The test command: unit, contract, integration and end-to-end tiers. Ends with "N passed, N failed"
# (scripts/test-summary.mjs), a failure whenever vitest failed, whether or not a test did.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/services/openstack-clients.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/services/faketime.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/services/chromium.sh || { echo "0 passed, 1 failed"; exit 1; }
rm -f .vitest-results.json
npx vitest run --reporter=default --reporter=json --outputFile=.vitest-results.json "$@"
node scripts/test-summary.mjs .vitest-results.json $?

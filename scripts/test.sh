#!/usr/bin/env bash
# The test command: unit, contract, integration and end-to-end tiers. Ends with "N passed, N failed"
# (scripts/test-summary.mjs), a failure whenever vitest failed, whether or not a test did.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/services/openstack-clients.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/services/faketime.sh || { echo "0 passed, 1 failed"; exit 1; }
bash scripts/services/chromium.sh || { echo "0 passed, 1 failed"; exit 1; }
# test/e2e/rolling-upgrade.e2e.spec.ts runs the previous release's build beside this one on PostgreSQL
if [ -n "${LEASEHOLD_TEST_PG_E2E_URL:-}" ] && [ -z "${LEASEHOLD_PREVIOUS_BUILD:-}" ]; then
  if previous="$(bash scripts/previous-build.sh 2>/tmp/leasehold-previous-build.log | tail -1)" && [ -n "$previous" ]; then
    export LEASEHOLD_PREVIOUS_BUILD="$previous"
  else
    echo "the previous release did not build; the end of /tmp/leasehold-previous-build.log:" >&2
    tail -40 /tmp/leasehold-previous-build.log >&2
    if [ "${LEASEHOLD_TEST_SERVERS:-}" = required ]; then echo "0 passed, 1 failed"; exit 1; fi
  fi
fi
rm -f .vitest-results.json
npx vitest run --reporter=default --reporter=json --outputFile=.vitest-results.json "$@"
node scripts/test-summary.mjs .vitest-results.json $?

#!/usr/bin/env bash
# Installs Debian's chromium, which test/e2e/calendar-page.e2e.spec.ts drives through playwright-core
# (executablePath /usr/bin/chromium: playwright never downloads a browser here).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then echo "chromium.sh: run as root to apt-get install chromium (the calendar page's tests are skipped without it)" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 chromium >/dev/null

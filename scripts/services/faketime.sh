#!/usr/bin/env bash
# Installs Debian's libfaketime, which test/e2e/fault-clock.e2e.spec.ts preloads into the processes to step their clock.
set -euo pipefail
if compgen -G '/usr/lib/*-linux-gnu/faketime/libfaketimeMT.so.1' >/dev/null; then exit 0; fi
if [ "$(id -u)" != "0" ]; then echo "faketime.sh: run as root to apt-get install libfaketime (the clock-step tests are skipped without it)" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends libfaketime >/dev/null

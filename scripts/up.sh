#!/usr/bin/env bash
# One command on a fresh machine: install, build, then run api + projector + reactor on the embedded
# SQLite store (data under ./data), API on http://127.0.0.1:1234 (Blazar's port).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec node dist/apps/launcher/main.js

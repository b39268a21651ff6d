#!/usr/bin/env bash
# Stops the mock Kafka cluster kafka-mock-up.sh started (its data, in memory, goes with it).
# Usage: kafka-mock-down.sh [STATE_DIR]
set -uo pipefail
DIR=${1:-${KAFKA_MOCK_ROOT:-/tmp/leasehold-services/kafka-mock}}
if [ -f "$DIR/pid" ]; then
  P=$(cat "$DIR/pid")
  kill -TERM -- "-$P" 2>/dev/null || kill -TERM "$P" 2>/dev/null || true
  # gone only once its ports are closed: a test that stops the cluster must not find it still answering
  for _ in $(seq 1 50); do kill -0 "$P" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$P" 2>/dev/null || true
  rm -f "$DIR/pid" "$DIR/bootstrap"
fi
exit 0

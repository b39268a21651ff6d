#!/usr/bin/env bash
# A throwaway Kafka cluster for the tests: librdkafka's mock cluster (Debian's kcat, librdkafka 2.0.2) on
# loopback. It speaks the Kafka protocol on real TCP ports and keeps everything in memory; it is the Kafka
# client maintainers' test cluster, not Apache Kafka (no durability, no controller: docs/kafka.md).
# Prints its bootstrap servers (host:port,...) as the last line.
# Usage: kafka-mock-up.sh [BROKERS] [STATE_DIR]   (default 3 brokers, /tmp/leasehold-services/kafka-mock)
set -euo pipefail
N=${1:-3}
DIR=${2:-${KAFKA_MOCK_ROOT:-/tmp/leasehold-services/kafka-mock}}
export DEBIAN_FRONTEND=noninteractive
if ! command -v kcat >/dev/null; then
  apt-get install -y -qq -o DPkg::Lock::Timeout=600 kcat >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=600 kcat >/dev/null; }
fi
mkdir -p "$DIR"
if [ -f "$DIR/pid" ] && kill -0 "$(cat "$DIR/pid")" 2>/dev/null; then tail -1 "$DIR/bootstrap"; exit 0; fi
rm -f "$DIR/bootstrap"
# kcat needs something to do: it consumes a keep-alive topic for as long as the cluster should live.
# -b is ignored once the mock cluster is on; debug=mock makes it print the bootstrap servers.
setsid kcat -b 127.0.0.1:1 -C -t leasehold-keepalive -q \
  -X test.mock.num.brokers="$N" -X debug=mock >"$DIR/kcat.log" 2>&1 </dev/null &
echo $! >"$DIR/pid"
for _ in $(seq 1 100); do
  B=$(grep -o -m1 'bootstrap.servers=[0-9.:,]*' "$DIR/kcat.log" | cut -d= -f2 || true)
  if [ -n "$B" ]; then echo "$B" >"$DIR/bootstrap"; echo "$B"; exit 0; fi
  kill -0 "$(cat "$DIR/pid")" 2>/dev/null || break
  sleep 0.1
done
echo "the mock Kafka cluster did not start: $(tail -3 "$DIR/kcat.log")" >&2
exit 1

#!/usr/bin/env bash
# Stops the RabbitMQ rabbitmq-up.sh started, and its private epmd. Its data goes at the next start.
# Usage: rabbitmq-down.sh   (env: RMQ_ROOT=/tmp/leasehold-services/rabbitmq)
set -uo pipefail
RMQ_ROOT="${RMQ_ROOT:-/tmp/leasehold-services/rabbitmq}"
[ -f "$RMQ_ROOT/pid" ] || exit 0
P=$(cat "$RMQ_ROOT/pid")
(
  # shellcheck disable=SC1091
  . "$RMQ_ROOT/env"
  timeout 30 /usr/lib/rabbitmq/bin/rabbitmqctl -n "$RABBITMQ_NODENAME" shutdown >/dev/null 2>&1
  # our private epmd (ERL_EPMD_PORT): -kill only succeeds once no node is registered with it
  timeout 10 /usr/lib/erlang/erts-*/bin/epmd -kill >/dev/null 2>&1
) || true
kill -TERM -- "-$P" 2>/dev/null || kill -TERM "$P" 2>/dev/null || true
# gone only once its port is closed: a test that stops the broker must not find it still answering
for _ in $(seq 1 100); do kill -0 "$P" 2>/dev/null || break; sleep 0.1; done
kill -KILL -- "-$P" 2>/dev/null || kill -KILL "$P" 2>/dev/null || true
rm -f "$RMQ_ROOT/pid"
exit 0

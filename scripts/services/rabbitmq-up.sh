#!/usr/bin/env bash
# A throwaway RabbitMQ (Debian's rabbitmq-server 3.10) on loopback for the oslo.messaging notifications
# channel's tests (and Debian's python3-oslo.messaging, their listener): its own node name, cookie, epmd port and data folder, so it never meets another node
# here (the OpenStack control plane's RabbitMQ runs on 61672). Data is wiped at every start.
# Prints its AMQP URL as the last line.
# Usage: rabbitmq-up.sh   (env: RMQ_ROOT=/tmp/leasehold-services/rabbitmq, AMQP_PORT=62674)
set -euo pipefail
RMQ_ROOT="${RMQ_ROOT:-/tmp/leasehold-services/rabbitmq}"
AMQP_PORT="${AMQP_PORT:-62674}"
NODE=leasehold-notify@localhost
export DEBIAN_FRONTEND=noninteractive
if [ ! -x /usr/lib/rabbitmq/bin/rabbitmq-server ]; then
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 rabbitmq-server >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 rabbitmq-server >/dev/null; }
fi
# the tests listen with a real oslo.messaging notification listener (Debian's, under /usr/bin/python3)
if ! /usr/bin/python3 -c 'import oslo_messaging' 2>/dev/null; then
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 python3-oslo.messaging >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 python3-oslo.messaging >/dev/null; }
fi
url="amqp://guest:guest@127.0.0.1:$AMQP_PORT"
if [ -f "$RMQ_ROOT/pid" ] && kill -0 "$(cat "$RMQ_ROOT/pid")" 2>/dev/null; then echo "$url"; exit 0; fi
rm -rf "$RMQ_ROOT"
mkdir -p "$RMQ_ROOT"/{home,mnesia,log}
head -c 20 /dev/urandom | base64 | tr -dc A-Za-z0-9 >"$RMQ_ROOT/home/.erlang.cookie"
chmod 400 "$RMQ_ROOT/home/.erlang.cookie"
cat >"$RMQ_ROOT/env" <<ENV
export HOME=$RMQ_ROOT/home
export RABBITMQ_NODENAME=$NODE
export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
export RABBITMQ_NODE_PORT=$AMQP_PORT
export RABBITMQ_DIST_PORT=$((AMQP_PORT + 10))
export ERL_EPMD_PORT=$((AMQP_PORT + 20))
export ERL_EPMD_ADDRESS=127.0.0.1
export RABBITMQ_MNESIA_BASE=$RMQ_ROOT/mnesia
export RABBITMQ_LOG_BASE=$RMQ_ROOT/log
export RABBITMQ_ENABLED_PLUGINS_FILE=$RMQ_ROOT/enabled_plugins
export RABBITMQ_CONFIG_FILE=$RMQ_ROOT/rabbitmq
export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
ENV
echo '[].' >"$RMQ_ROOT/enabled_plugins"
printf 'loopback_users = none\nlisteners.tcp.default = 127.0.0.1:%s\n' "$AMQP_PORT" >"$RMQ_ROOT/rabbitmq.conf"
# shellcheck disable=SC1091
. "$RMQ_ROOT/env"
setsid /usr/lib/rabbitmq/bin/rabbitmq-server >"$RMQ_ROOT/log/stdout" 2>&1 </dev/null &
echo $! >"$RMQ_ROOT/pid"
# the Erlang node first registers with epmd, then the rabbit application boots
for _ in $(seq 1 120); do
  /usr/lib/rabbitmq/bin/rabbitmq-diagnostics -q -n "$NODE" ping >/dev/null 2>&1 && break
  kill -0 "$(cat "$RMQ_ROOT/pid")" 2>/dev/null || { echo "rabbitmq died:" >&2; tail -50 "$RMQ_ROOT/log/stdout" >&2; exit 1; }
  sleep 0.5
done
/usr/lib/rabbitmq/bin/rabbitmqctl -n "$NODE" await_startup --timeout 60 >/dev/null
echo "$url"

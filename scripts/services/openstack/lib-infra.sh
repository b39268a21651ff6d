# PostgreSQL 15 (own cluster and port) and RabbitMQ 3.10 (own node, cookie and epmd port).
PGBIN=/usr/lib/postgresql/15/bin
pg_up() {
  local P=$OS_ROOT/pg
  rm -rf "$P"; install -d -o postgres -g postgres -m 700 "$P" "$P/data" "$P/sock"
  runuser -u postgres -- "$PGBIN/initdb" -D "$P/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$P/initdb.log"
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$P/data" -l "$P/server.log" -w -t 30 \
    -o "-p $PG_PORT -k $P/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null
  runuser -u postgres -- "$PGBIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -q \
    -c "ALTER USER postgres PASSWORD 'postgres'" -c "CREATE DATABASE keystone" -c "CREATE DATABASE placement" \
    -c "CREATE DATABASE nova_api" -c "CREATE DATABASE nova_cell0" -c "CREATE DATABASE nova" \
    -c "CREATE DATABASE glance" -c "CREATE DATABASE neutron"
}
pg_down() {
  [ -f "$OS_ROOT/pg/data/postmaster.pid" ] || return 0
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$OS_ROOT/pg/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
}
psql_os() { runuser -u postgres -- "$PGBIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -q "$@"; }

rmq_env() {
  export HOME=$OS_ROOT/rabbitmq/home RABBITMQ_NODENAME=$RMQ_NODE RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
    RABBITMQ_NODE_PORT=$AMQP_PORT RABBITMQ_DIST_PORT=$((AMQP_PORT + 10)) ERL_EPMD_PORT=$((AMQP_PORT + 20)) \
    ERL_EPMD_ADDRESS=127.0.0.1 RABBITMQ_MNESIA_BASE=$OS_ROOT/rabbitmq/mnesia RABBITMQ_LOG_BASE=$OS_ROOT/rabbitmq/log \
    RABBITMQ_ENABLED_PLUGINS_FILE=$OS_ROOT/rabbitmq/enabled_plugins RABBITMQ_CONFIG_FILE=$OS_ROOT/rabbitmq/rabbitmq \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
}
rmqctl() { ( rmq_env; /usr/lib/rabbitmq/bin/rabbitmqctl -n "$RMQ_NODE" "$@" ); }
rmq_up() {
  local R=$OS_ROOT/rabbitmq
  rm -rf "$R"; mkdir -p "$R"/{home,mnesia,log}
  head -c 20 /dev/urandom | base64 | tr -dc A-Za-z0-9 > "$R/home/.erlang.cookie"; chmod 400 "$R/home/.erlang.cookie"
  echo '[].' > "$R/enabled_plugins"
  printf 'loopback_users = none\nlisteners.tcp.default = 127.0.0.1:%s\n' "$AMQP_PORT" > "$R/rabbitmq.conf"
  ( rmq_env; setsid /usr/lib/rabbitmq/bin/rabbitmq-server > "$R/log/stdout" 2>&1 < /dev/null & echo $! > "$R/pid" )
  ( rmq_env
    for _ in $(seq 1 120); do
      /usr/lib/rabbitmq/bin/rabbitmq-diagnostics -q -n "$RMQ_NODE" ping >/dev/null 2>&1 && break
      kill -0 "$(cat "$R/pid")" 2>/dev/null || { echo "rabbitmq died:" >&2; tail -50 "$R/log/stdout" >&2; exit 1; }
      sleep 0.5
    done
    /usr/lib/rabbitmq/bin/rabbitmqctl -n "$RMQ_NODE" await_startup --timeout 60 >/dev/null )
}
rmq_down() {
  [ -f "$OS_ROOT/rabbitmq/pid" ] || return 0
  ( rmq_env
    timeout 30 /usr/lib/rabbitmq/bin/rabbitmqctl -n "$RMQ_NODE" shutdown >/dev/null 2>&1
    # our private epmd (ERL_EPMD_PORT): -kill only succeeds once no node is registered with it
    timeout 10 /usr/lib/erlang/erts-*/bin/epmd -kill >/dev/null 2>&1 ) || true
  stop_pid "$OS_ROOT/rabbitmq/pid" 10
}

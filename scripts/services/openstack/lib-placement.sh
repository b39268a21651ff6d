# Placement 8 (Zed), served by uwsgi.
placement_conf() {
  mkdir -p "$OS_ROOT/placement/log"
  { cat <<CONF
[DEFAULT]
log_file = $OS_ROOT/placement/log/placement.log
[api]
auth_strategy = keystone
[placement_database]
connection = $DB/placement
CONF
  authtoken placement; } > "$OS_ROOT/placement/placement.conf"
}
placement_db() {
  OS_PLACEMENT_CONFIG_DIR=$OS_ROOT/placement $OS_PY "$OS_BIN/placement-manage" --config-file "$OS_ROOT/placement/placement.conf" db sync \
    > "$OS_ROOT/placement/log/db-sync.out" 2>&1 || { tail -20 "$OS_ROOT/placement/log/db-sync.out" >&2; return 1; }
}
placement_start() {
  setsid uwsgi --plugin python3 --http11-socket "127.0.0.1:$PLACEMENT_PORT" --add-header "Connection: close" \
    --wsgi-file "$OS_BIN/placement-wsgi.py" --master --processes 1 --threads 4 --enable-threads --die-on-term \
    --pidfile "$OS_ROOT/placement/uwsgi.pid" --logto "$OS_ROOT/placement/log/uwsgi.log" \
    --env "OS_PLACEMENT_CONFIG_DIR=$OS_ROOT/placement" </dev/null >/dev/null 2>&1 &
  wait_for 60 placement http_up "http://127.0.0.1:$PLACEMENT_PORT/" || { tail -30 "$OS_ROOT/placement/log/uwsgi.log" >&2; return 1; }
}
placement_down() { stop_pid "$OS_ROOT/placement/uwsgi.pid" 15; }

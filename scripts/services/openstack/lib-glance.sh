# Glance 25 (Zed) glance-api, file store, 1 worker.
glance_conf() {
  local G=$OS_ROOT/glance
  mkdir -p "$G"/{log,images,staging,tasks,lock}
  cp "$OS_DEBS/x/usr/share/glance-common/glance-api-paste.ini" "$G/glance-api-paste.ini"
  { cat <<CONF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $GLANCE_PORT
workers = 1
log_file = $G/log/glance-api.log
transport_url = $TRANSPORT_URL
enabled_backends = fs:file
[glance_store]
default_backend = fs
[fs]
filesystem_store_datadir = $G/images
[os_glance_staging_store]
filesystem_store_datadir = $G/staging
[os_glance_tasks_store]
filesystem_store_datadir = $G/tasks
[database]
connection = $DB/glance
[paste_deploy]
flavor = keystone
config_file = $G/glance-api-paste.ini
[oslo_concurrency]
lock_path = $G/lock
[oslo_messaging_notifications]
driver = messagingv2
CONF
  authtoken glance; } > "$G/glance-api.conf"
}
glance_db() {
  $OS_PY "$OS_BIN/glance-manage" --config-file "$OS_ROOT/glance/glance-api.conf" db_sync > "$OS_ROOT/glance/log/db-sync.out" 2>&1 \
    || { tail -20 "$OS_ROOT/glance/log/db-sync.out" >&2; return 1; }
}
glance_start() {
  setsid $OS_PY "$OS_BIN/glance-api" --config-file "$OS_ROOT/glance/glance-api.conf" \
    > "$OS_ROOT/glance/log/glance-api.out" 2>&1 < /dev/null &
  echo $! > "$OS_ROOT/glance/glance-api.pid"
  wait_for 90 glance-api http_up "http://127.0.0.1:$GLANCE_PORT/" || { tail -30 "$OS_ROOT/glance/log/glance-api.out" >&2; return 1; }
}
glance_down() { stop_pid "$OS_ROOT/glance/glance-api.pid" 15; }

# Keystone 22 (Zed) on the control plane's own PostgreSQL, served by uwsgi.
ks_up() {
  local K=$OS_ROOT/keystone
  rm -rf "$K"; mkdir -p "$K"/{fernet-keys,credential-keys,log}
  cat > "$K/keystone.conf" <<CONF
[DEFAULT]
log_dir = $K/log
[database]
connection = $DB/keystone
[token]
provider = fernet
expiration = 86400
[fernet_tokens]
key_repository = $K/fernet-keys
[credential]
key_repository = $K/credential-keys
CONF
  local M="keystone-manage --config-file $K/keystone.conf"
  {
    $M db_sync
    $M fernet_setup --keystone-user root --keystone-group root
    $M credential_setup --keystone-user root --keystone-group root
    $M bootstrap --bootstrap-password admin --bootstrap-username admin --bootstrap-project-name admin \
      --bootstrap-role-name admin --bootstrap-service-name keystone --bootstrap-region-id RegionOne \
      --bootstrap-admin-url "$KS_URL" --bootstrap-public-url "$KS_URL" --bootstrap-internal-url "$KS_URL"
  } > "$K/log/manage.out" 2>&1 || { tail -30 "$K/log/manage.out" >&2; return 1; }
  setsid uwsgi --plugin python3 --http11-socket "127.0.0.1:$KS_PORT" --add-header "Connection: close" \
    --wsgi-file /usr/bin/keystone-wsgi-public --master --processes 1 --threads 4 --enable-threads --die-on-term \
    --pidfile "$K/uwsgi.pid" --logto "$K/log/uwsgi.log" --env "OS_KEYSTONE_CONFIG_FILES=$K/keystone.conf" \
    </dev/null >/dev/null 2>&1 &
  wait_for 60 keystone http_up "$KS_URL" || { tail -30 "$K/log/uwsgi.log" >&2; return 1; }
}
ks_down() { stop_pid "$OS_ROOT/keystone/uwsgi.pid" 15; }

# keystonemiddleware section for a service user ($1); password = user name
authtoken() {
  cat <<CONF
[keystone_authtoken]
www_authenticate_uri = $KS_URL
auth_url = $KS_URL
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $1
password = $1
service_token_roles_required = true
CONF
}
# keystoneauth section [$1] for service user $2
ksauth() {
  cat <<CONF
[$1]
auth_url = $KS_URL
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $2
password = $2
region_name = RegionOne
CONF
}

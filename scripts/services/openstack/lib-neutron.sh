# Neutron 21 (Zed) neutron-server (API in the parent process), ML2 flat/vlan with the openvswitch mechanism
# driver and no agents: fake "Open vSwitch agent" rows let ports bind on the compute hosts.
neutron_conf() {
  local Q=$OS_ROOT/neutron
  mkdir -p "$Q"/{log,lock,state}
  cp "$OS_DEBS/x/usr/share/neutron-common/api-paste.ini" "$Q/api-paste.ini"
  { cat <<CONF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $NEUTRON_PORT
api_workers = 0
rpc_workers = 0
rpc_state_report_workers = 0
state_path = $Q/state
log_file = $Q/log/neutron-server.log
api_paste_config = $Q/api-paste.ini
transport_url = $TRANSPORT_URL
auth_strategy = keystone
core_plugin = ml2
service_plugins = router
allow_overlapping_ips = true
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
# the fake agent rows (neutron_fake_agents) stay "alive" for ~11 days
agent_down_time = 999999
[database]
connection = $DB/neutron
[oslo_concurrency]
lock_path = $Q/lock
[oslo_messaging_notifications]
driver = messagingv2
[agent]
root_helper = false
CONF
  authtoken neutron
  ksauth nova nova; } > "$Q/neutron.conf"
  cat > "$Q/ml2_conf.ini" <<CONF
[ml2]
type_drivers = flat,vlan
tenant_network_types =
mechanism_drivers = openvswitch
extension_drivers = port_security
[ml2_type_flat]
flat_networks = public,physnet1
[ml2_type_vlan]
network_vlan_ranges = physnet1:100:200
[securitygroup]
firewall_driver = noop
enable_security_group = true
CONF
}
neutron_db() {
  $OS_PY "$OS_BIN/neutron-db-manage" --config-file "$OS_ROOT/neutron/neutron.conf" --config-file "$OS_ROOT/neutron/ml2_conf.ini" upgrade head \
    > "$OS_ROOT/neutron/log/db-manage.out" 2>&1 || { tail -20 "$OS_ROOT/neutron/log/db-manage.out" >&2; return 1; }
}
neutron_start() {
  setsid $OS_PY "$OS_BIN/neutron-server" --config-file "$OS_ROOT/neutron/neutron.conf" --config-file "$OS_ROOT/neutron/ml2_conf.ini" \
    > "$OS_ROOT/neutron/log/neutron-server.out" 2>&1 < /dev/null &
  echo $! > "$OS_ROOT/neutron/neutron-server.pid"
  wait_for 90 neutron-server http_up "http://127.0.0.1:$NEUTRON_PORT/" || { tail -30 "$OS_ROOT/neutron/log/neutron-server.out" >&2; return 1; }
}
neutron_down() { stop_pid "$OS_ROOT/neutron/neutron-server.pid" 20; }
neutron_fake_agents() {
  local sql="" h
  for h in $COMPUTE_HOSTS; do
    sql="$sql INSERT INTO agents (id, agent_type, \"binary\", topic, host, admin_state_up, created_at, started_at, heartbeat_timestamp, configurations, load, resources_synced)
      VALUES (gen_random_uuid()::text, 'Open vSwitch agent', 'neutron-openvswitch-agent', 'N/A', '$h', true, now() at time zone 'utc', now() at time zone 'utc', now() at time zone 'utc',
      '{\"bridge_mappings\": {\"public\": \"br-ex\", \"physnet1\": \"br-eth1\"}, \"tunnel_types\": [], \"datapath_type\": \"system\", \"ovs_hybrid_plug\": false, \"integration_bridge\": \"br-int\", \"l2_population\": false, \"enable_distributed_routing\": false, \"devices\": 0}', 0, true)
      ON CONFLICT (agent_type, host) DO UPDATE SET heartbeat_timestamp = now() at time zone 'utc';"
  done
  psql_os -d neutron -c "$sql"
}

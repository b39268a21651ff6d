# Nova 26 (Zed): api (1 worker), conductor, scheduler and one nova-compute per $COMPUTE_HOSTS on fake.FakeDriver.
nova_conf() {
  local N=$OS_ROOT/nova
  mkdir -p "$N"/{log,state,lock,instances}
  cp "$OS_DEBS/x/usr/share/nova-common/api-paste.ini" "$N/api-paste.ini"
  { cat <<CONF
[DEFAULT]
transport_url = $TRANSPORT_URL
my_ip = 127.0.0.1
state_path = $N/state
instances_path = $N/instances
enabled_apis = osapi_compute
osapi_compute_listen = 127.0.0.1
osapi_compute_listen_port = $NOVA_PORT
osapi_compute_workers = 1
compute_driver = fake.FakeDriver
# resource tracker period (default 60 s): placement sees new hosts and inventories sooner
update_resources_interval = 10
heal_instance_info_cache_interval = -1
# heartbeat every 5 s; a compute counts as down after 30 s without one (defaults 10 s / 60 s)
report_interval = 5
service_down_time = 30
[wsgi]
api_paste_config = $N/api-paste.ini
[api]
auth_strategy = keystone
[conductor]
workers = 1
[scheduler]
workers = 1
discover_hosts_in_cells_interval = 10
# docs/openstack.md, scheduler isolation: aggregates with metadata trait:CUSTOM_X=required are excluded
# (placement member_of=!in:...) unless the flavor or image requires that trait
enable_isolated_aggregate_filtering = True
[filter_scheduler]
enabled_filters = AvailabilityZoneFilter,ComputeFilter,ComputeCapabilitiesFilter,ImagePropertiesFilter,AggregateInstanceExtraSpecsFilter,ServerGroupAntiAffinityFilter,ServerGroupAffinityFilter,AggregateMultiTenancyIsolation
[notifications]
# versioned notifications (service.update, instance.*, aggregate.*, flavor.*) on exchange "nova",
# routing key versioned_notifications.<priority>
notification_format = versioned
versioned_notifications_topics = versioned_notifications
notify_on_state_change = vm_and_task_state
[oslo_messaging_notifications]
driver = messagingv2
[oslo_concurrency]
lock_path = $N/lock
[quota]
# ERROR servers count against the quota; tests boot and delete many
instances = 100
cores = 400
ram = 819200
server_groups = 100
[vnc]
enabled = false
[cinder]
os_region_name = RegionOne
CONF
  authtoken nova
  ksauth placement placement
  ksauth neutron neutron
  ksauth service_user nova; echo "send_service_user_token = true"
  ksauth glance glance
  } > "$N/nova.conf"
  # only api, conductor, scheduler and nova-manage get the databases: nova-compute must not have them
  printf '[api_database]\nconnection = %s\n[database]\nconnection = %s\n' "$DB/nova_api" "$DB/nova" > "$N/nova-db.conf"
  local h
  for h in $COMPUTE_HOSTS; do printf '[DEFAULT]\nhost = %s\n' "$h" > "$N/compute-$h.conf"; done
}
nova_manage() { $OS_PY "$OS_BIN/nova-manage" --config-file "$OS_ROOT/nova/nova.conf" --config-file "$OS_ROOT/nova/nova-db.conf" "$@"; }
nova_db() {
  { nova_manage api_db sync && nova_manage cell_v2 map_cell0 --database_connection "$DB/nova_cell0" &&
    nova_manage cell_v2 create_cell --name cell1 --verbose && nova_manage db sync; } > "$OS_ROOT/nova/log/nova-manage.out" 2>&1 \
    || { tail -20 "$OS_ROOT/nova/log/nova-manage.out" >&2; return 1; }
}
nova_bg() { # name, python entry point, args...
  local name=$1 entry=$2; shift 2
  setsid $OS_PY "$OS_BIN/$entry" "$@" > "$OS_ROOT/nova/log/$name.out" 2>&1 < /dev/null &
  echo $! > "$OS_ROOT/nova/$name.pid"
}
compute_start() { # host
  nova_bg "compute-$1" nova-compute --config-file "$OS_ROOT/nova/nova.conf" --config-file "$OS_ROOT/nova/compute-$1.conf" \
    --log-file "$OS_ROOT/nova/log/nova-compute-$1.log"
}
compute_stop() { stop_pid "$OS_ROOT/nova/compute-$1.pid" 20; }
nova_start() {
  local C="--config-file $OS_ROOT/nova/nova.conf --config-file $OS_ROOT/nova/nova-db.conf" h
  nova_bg api nova-api $C --log-file "$OS_ROOT/nova/log/nova-api.log"
  nova_bg conductor nova-conductor $C --log-file "$OS_ROOT/nova/log/nova-conductor.log"
  nova_bg scheduler nova-scheduler $C --log-file "$OS_ROOT/nova/log/nova-scheduler.log"
  for h in $COMPUTE_HOSTS; do compute_start "$h"; done
  wait_for 90 nova-api http_up "http://127.0.0.1:$NOVA_PORT/" || { tail -30 "$OS_ROOT/nova/log/api.out" >&2; return 1; }
}
# Every compute has reported a heartbeat newer than $1 (UTC, before they started), so none of them is a stale "up" row.
computes_fresh() {
  local n since=$1
  n=$(psql_os -At -d nova -c "SELECT count(*) FROM services WHERE \"binary\" = 'nova-compute' AND deleted = 0
        AND last_seen_up > '$since' AND host IN ($(printf "'%s'," $COMPUTE_HOSTS | sed 's/,$//'))")
  [ "$n" -ge "$(echo $COMPUTE_HOSTS | wc -w)" ]
}
# The computes' nodes are mapped to cell1 and their resource providers exist in placement.
computes_mapped() {
  local n
  n=$(psql_os -At -d nova_api -c "SELECT count(*) FROM host_mappings WHERE host IN ($(printf "'%s'," $COMPUTE_HOSTS | sed 's/,$//'))")
  [ "$n" -ge "$(echo $COMPUTE_HOSTS | wc -w)" ] &&
    [ "$(psql_os -At -d placement -c "SELECT count(*) FROM resource_providers WHERE name IN ($(printf "'%s'," $COMPUTE_HOSTS | sed 's/,$//'))")" -ge "$(echo $COMPUTE_HOSTS | wc -w)" ]
}
nova_wait_computes() { # $1 = UTC start time
  wait_for 120 "nova-compute heartbeats" computes_fresh "$1" || { for h in $COMPUTE_HOSTS; do tail -15 "$OS_ROOT/nova/log/compute-$h.out" >&2; done; return 1; }
  nova_manage cell_v2 discover_hosts --verbose > "$OS_ROOT/nova/log/discover-hosts.out" 2>&1
  wait_for 60 "compute host mappings and resource providers" computes_mapped
}
nova_down() {
  local f
  for f in "$OS_ROOT"/nova/*.pid; do [ -f "$f" ] && stop_pid "$f" 20 & done
  wait
}

#!/usr/bin/env bash
# A real OpenStack "Zed" control plane from Debian bookworm packages on 127.0.0.1, for the OpenStack
# integration tests (run as root; no systemd, no Docker): its own PostgreSQL 15 and RabbitMQ 3.10, Keystone,
# Placement, Nova (api, conductor, scheduler, one nova-compute on fake.FakeDriver per compute host), Glance
# and Neutron (ML2, no agents). Versioned Nova notifications go to RabbitMQ (exchange nova). docs/openstack.md
# describes what it contains.
#
# Usage: up.sh [--fresh]
#   Installs the missing packages (apt), starts everything and seeds it, unless it is already up and
#   healthy (then it only prints the env file again); --fresh always starts from empty databases.
#   State, configs and logs: $LEASEHOLD_OPENSTACK_ROOT (/tmp/leasehold-services/openstack).
#   Timings go to stderr and $LEASEHOLD_OPENSTACK_ROOT/logs/up-timings.txt. The last line on stdout is the
#   env file (credentials, URLs, ids; KEY=value lines). Stop with down.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
for f in infra keystone placement nova glance neutron; do . "$HERE/lib-$f.sh"; done
OS_DEBS="$OS_ROOT-debs"
FRESH=0; [ "${1:-}" = --fresh ] && FRESH=1
[ "$(id -u)" = 0 ] || { echo "up.sh: run as root" >&2; exit 1; }

mkdir -p "$OS_ROOT"
# one up.sh/down.sh at a time; flock -o: the services started below must not inherit the lock
if [ -z "${LEASEHOLD_OS_LOCKED:-}" ]; then
  LEASEHOLD_OS_LOCKED=1 exec flock -o -w 1800 "$OS_ROOT.lock" bash "$0" "$@"
fi

T0=$(date +%s.%N)
lap() { local line; line=$(printf '[%6.1fs] %s' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*"); echo "$line" >&2; echo "$line" >> "$OS_ROOT/logs/up-timings.txt"; }
fail() { # what, log files to show...
  local what=$1 f; shift
  echo "up.sh: FAILED: $what" >&2
  for f in "$@"; do [ -f "$f" ] && { echo "--- tail $f" >&2; tail -25 "$f" >&2; }; done
  echo "up.sh: logs under $OS_ROOT (stop the rest with down.sh)" >&2
  exit 1
}

service_pids() {
  echo "$OS_ROOT/rabbitmq/pid $OS_ROOT/keystone/uwsgi.pid $OS_ROOT/placement/uwsgi.pid $OS_ROOT/glance/glance-api.pid"
  echo "$OS_ROOT/neutron/neutron-server.pid $OS_ROOT/nova/api.pid $OS_ROOT/nova/conductor.pid $OS_ROOT/nova/scheduler.pid"
  for h in $COMPUTE_HOSTS; do echo "$OS_ROOT/nova/compute-$h.pid"; done
}
healthy() {
  local f
  [ -f "$OS_ENV_FILE" ] && [ -f "$OS_ROOT/pg/data/postmaster.pid" ] || return 1
  for f in $(service_pids); do pid_alive "$f" || return 1; done
  http_up "$KS_URL" && http_up "http://127.0.0.1:$NOVA_PORT/" && computes_fresh "$(date -u -d '-30 sec' +%Y-%m-%dT%H:%M:%S)"
}
if [ $FRESH = 0 ] && healthy 2>/dev/null; then
  echo "openstack control plane already up ($OS_ROOT)" >&2
  echo "$OS_ENV_FILE"
  exit 0
fi
bash "$HERE/down.sh" >/dev/null 2>&1 || true
find "$OS_ROOT" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
mkdir -p "$OS_ROOT/logs"
for p in $OS_PORTS; do
  if ss -Hltn "sport = :$p" | grep -q .; then ss -ltnp "sport = :$p" >&2; fail "port $p is taken by another process"; fi
done

# 1. packages: only the python3-* libraries of nova/glance/neutron/placement, not their service packages
#    (those pull in libvirt/qemu and run init and dbconfig scripts); api-paste.ini comes from the *-common debs
PKGS="postgresql-15 postgresql-client-15 rabbitmq-server keystone uwsgi-core uwsgi-plugin-python3 python3-psycopg2
      python3-openstackclient python3-osc-placement python3-nova python3-placement python3-glance python3-neutron bc curl"
missing=$(for p in $PKGS; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"; done)
if [ -n "$missing" ]; then
  apt_install() { DEBIAN_FRONTEND=noninteractive timeout 1800 apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends $missing; }
  { apt_install || { timeout 900 apt-get -o DPkg::Lock::Timeout=900 update && apt_install; }; } > "$OS_ROOT/logs/apt.out" 2>&1 \
    || fail "apt-get install $missing" "$OS_ROOT/logs/apt.out"
  lap "apt-get install $(echo $missing)"
fi
if [ ! -f "$OS_DEBS/x/usr/share/nova-common/api-paste.ini" ]; then
  rm -rf "$OS_DEBS"; mkdir -p "$OS_DEBS"
  ( cd "$OS_DEBS" && timeout 600 apt-get download nova-common neutron-common glance-common && for d in *.deb; do dpkg-deb -x "$d" x; done ) \
    > "$OS_ROOT/logs/debs.out" 2>&1 || fail "apt-get download nova-common neutron-common glance-common" "$OS_ROOT/logs/debs.out"
  lap "downloaded nova-common, neutron-common, glance-common (api-paste.ini files)"
fi

# 2. infrastructure and Keystone
pg_up > "$OS_ROOT/logs/pg.out" 2>&1 || fail postgresql "$OS_ROOT/logs/pg.out" "$OS_ROOT/pg/server.log"
lap "postgresql up (127.0.0.1:$PG_PORT)"
rmq_up > "$OS_ROOT/logs/rabbitmq.out" 2>&1 || fail rabbitmq "$OS_ROOT/logs/rabbitmq.out" "$OS_ROOT/rabbitmq/log/stdout"
lap "rabbitmq up (127.0.0.1:$AMQP_PORT, node $RMQ_NODE)"
mkdir -p "$OS_ROOT"/{keystone,placement,nova,glance,neutron}
ks_up > "$OS_ROOT/logs/keystone.out" 2>&1 || fail keystone "$OS_ROOT/logs/keystone.out" "$OS_ROOT/keystone/log/uwsgi.log"
lap "keystone up ($KS_URL)"

# 3. catalog and schemas, in two parallel chains (2 cores)
placement_conf; nova_conf; glance_conf; neutron_conf
U=http://127.0.0.1
( $OS_PY "$OS_BIN/seed.py" identity "$KS_URL" "nova:compute:$U:$NOVA_PORT/v2.1" "placement:placement:$U:$PLACEMENT_PORT" \
    "glance:image:$U:$GLANCE_PORT" "neutron:network:$U:$NEUTRON_PORT" > "$OS_ROOT/identity.env" &&
  placement_db && glance_db && neutron_db ) > "$OS_ROOT/logs/chain.out" 2>&1 & chain=$!
nova_db > "$OS_ROOT/logs/nova-db.out" 2>&1 || fail "nova schemas and cells" "$OS_ROOT/logs/nova-db.out" "$OS_ROOT/nova/log/nova-manage.out"
wait $chain || fail "catalog, placement/glance/neutron schemas" "$OS_ROOT/logs/chain.out"
lap "catalog, users, projects; placement, nova (cell0 + cell1), glance, neutron schemas"

# 4. services: the API servers together, then nova
placement_start > "$OS_ROOT/logs/placement.out" 2>&1 & p1=$!
glance_start > "$OS_ROOT/logs/glance.out" 2>&1 & p2=$!
neutron_start > "$OS_ROOT/logs/neutron.out" 2>&1 & p3=$!
wait $p1 || fail placement "$OS_ROOT/logs/placement.out"
wait $p2 || fail glance "$OS_ROOT/logs/glance.out"
wait $p3 || fail neutron "$OS_ROOT/logs/neutron.out"
lap "placement, glance, neutron up"
NOVA_T0=$(date -u +%Y-%m-%dT%H:%M:%S)
nova_start > "$OS_ROOT/logs/nova.out" 2>&1 || fail nova-api "$OS_ROOT/logs/nova.out" "$OS_ROOT/nova/log/nova-api.log"
lap "nova-api up"
neutron_fake_agents > "$OS_ROOT/logs/fake-agents.out" 2>&1 || fail "neutron fake agents" "$OS_ROOT/logs/fake-agents.out"
nova_wait_computes "$NOVA_T0" > "$OS_ROOT/logs/computes.out" 2>&1 || fail "nova-compute services" "$OS_ROOT/logs/computes.out" "$OS_ROOT/nova/log/discover-hosts.out"
lap "nova-compute up on $(echo $COMPUTE_HOSTS), mapped to cell1, resource providers in placement"

# 5. seed data, env file, checks
$OS_PY "$OS_BIN/seed.py" cloud "$KS_URL" > "$OS_ROOT/cloud.env" 2> "$OS_ROOT/logs/seed-cloud.out" || fail "seeding" "$OS_ROOT/logs/seed-cloud.out"
lap "seeded image tiny, flavor m1.tiny, networks public (external, pool .100-.200) and private"
{
  echo "# written by scripts/services/openstack/up.sh; KEY=value lines (no quoting needed)"
  echo "OS_AUTH_URL=$KS_URL"
  echo "OS_IDENTITY_API_VERSION=3"
  echo "OS_REGION_NAME=RegionOne"
  echo "OS_INTERFACE=public"
  echo "OS_USERNAME=admin"
  echo "OS_PASSWORD=admin"
  echo "OS_PROJECT_NAME=admin"
  echo "OS_USER_DOMAIN_NAME=Default"
  echo "OS_PROJECT_DOMAIN_NAME=Default"
  echo "LEASEHOLD_OS_SERVICE_USERNAME=leasehold"
  echo "LEASEHOLD_OS_SERVICE_PASSWORD=leasehold-secret"
  echo "LEASEHOLD_OS_SERVICE_PROJECT_NAME=service"
  echo "LEASEHOLD_OS_DEMO_PROJECT_NAME=demo"
  echo "LEASEHOLD_OS_DEMO_USERNAME=demo"
  echo "LEASEHOLD_OS_DEMO_PASSWORD=demo-secret"
  echo "LEASEHOLD_OS_OTHER_PROJECT_NAME=other"
  echo "LEASEHOLD_OS_OTHER_USERNAME=other"
  echo "LEASEHOLD_OS_OTHER_PASSWORD=other-secret"
  cat "$OS_ROOT/identity.env" "$OS_ROOT/cloud.env"
  echo "LEASEHOLD_OS_COMPUTE_HOSTS=$(echo $COMPUTE_HOSTS | tr ' ' ,)"
  echo "LEASEHOLD_OS_COMPUTE_CTL=$HERE/compute.sh"
  echo "LEASEHOLD_OS_SERVICE_DOWN_SECONDS=30"
  echo "LEASEHOLD_OS_TRANSPORT_URL=$TRANSPORT_URL"
  echo "LEASEHOLD_OS_AMQP_URL=amqp://guest:guest@127.0.0.1:$AMQP_PORT"
  echo "LEASEHOLD_OS_NOTIFICATIONS_EXCHANGE=nova"
  echo "LEASEHOLD_OS_NOTIFICATIONS_TOPIC=versioned_notifications"
  echo "LEASEHOLD_OS_NOTIFICATIONS_ROUTING_KEY=versioned_notifications.info"
  echo "LEASEHOLD_OS_COMPUTE_URL=http://127.0.0.1:$NOVA_PORT/v2.1"
  echo "LEASEHOLD_OS_PLACEMENT_URL=http://127.0.0.1:$PLACEMENT_PORT"
  echo "LEASEHOLD_OS_NETWORK_URL=http://127.0.0.1:$NEUTRON_PORT"
  echo "LEASEHOLD_OS_IMAGE_URL=http://127.0.0.1:$GLANCE_PORT"
  echo "LEASEHOLD_OS_ROOT=$OS_ROOT"
} > "$OS_ENV_FILE.tmp"
mv "$OS_ENV_FILE.tmp" "$OS_ENV_FILE"
# nova-compute announces itself with service.create/service.update: versioned notifications reach RabbitMQ
notifications_queued() { rmqctl -q list_queues name messages | grep -qE '^versioned_notifications.info[[:space:]]+[1-9]'; }
wait_for 30 "versioned notifications in RabbitMQ" notifications_queued \
  || fail "no versioned notification reached RabbitMQ" "$OS_ROOT/nova/log/nova-compute-${COMPUTE_HOSTS%% *}.log"
lap "ALL UP (versioned notifications flowing; env file $OS_ENV_FILE)"
bash "$HERE/bin/mem.sh" "$OS_ROOT" > "$OS_ROOT/logs/mem.txt" 2>&1 || true
tail -1 "$OS_ROOT/logs/mem.txt" >&2
echo "$OS_ENV_FILE"

# Settings shared by up.sh, down.sh and compute.sh (sourced). Every server binds 127.0.0.1 only, on ports
# above the kernel's ephemeral range (32768-60999) and apart from the project's other test servers
# (PostgreSQL 62432, Keystone 62357, RabbitMQ 62672, Leasehold 62234).
OS_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OS_ROOT="${LEASEHOLD_OPENSTACK_ROOT:-/tmp/leasehold-services/openstack}"
OS_ENV_FILE="$OS_ROOT/openstack.env"
OS_PY=/usr/bin/python3   # Debian's interpreter: a python3 earlier on PATH (pyenv) cannot import the OpenStack packages
OS_BIN="$OS_HERE/bin"
PG_PORT=61432
AMQP_PORT=61672          # Erlang distribution 61682, epmd 61692
KS_PORT=61357
PLACEMENT_PORT=61778
NOVA_PORT=61774
GLANCE_PORT=61292
NEUTRON_PORT=61696
OS_PORTS="$PG_PORT $AMQP_PORT $((AMQP_PORT + 10)) $((AMQP_PORT + 20)) $KS_PORT $PLACEMENT_PORT $NOVA_PORT $GLANCE_PORT $NEUTRON_PORT"
RMQ_NODE=lhos@localhost
TRANSPORT_URL="rabbit://guest:guest@127.0.0.1:$AMQP_PORT/"
DB="postgresql+psycopg2://postgres:postgres@127.0.0.1:$PG_PORT"
KS_URL="http://127.0.0.1:$KS_PORT/v3"
COMPUTE_HOSTS="${LEASEHOLD_OPENSTACK_COMPUTES:-fake-host-1 fake-host-2 fake-host-3}"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

# A started process's pid file holds its own pid (setsid: it leads its own process group).
pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
# stop_pid FILE [SECONDS]: TERM, wait, then KILL the process group the pid file names.
stop_pid() {
  local f=$1 secs=${2:-15} p i
  [ -f "$f" ] || return 0
  p=$(cat "$f")
  if kill -0 "$p" 2>/dev/null; then
    kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
    for ((i = 0; i < secs * 5; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$p" 2>/dev/null && { kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null; }
  fi
  rm -f "$f"
}
# wait_for SECONDS WHAT CMD...: polls CMD every 0.2 s; fails (status 1) after SECONDS.
wait_for() {
  local secs=$1 what=$2 i; shift 2
  for ((i = 0; i < secs * 5; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "timed out after ${secs}s waiting for $what" >&2
  return 1
}
http_up() { curl -sf -o /dev/null --max-time 2 "$1"; }

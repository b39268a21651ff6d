#!/usr/bin/env bash
# Stops or starts one fake nova-compute of the running control plane (to test host failure handling):
#   compute.sh stop HOST    the process ends; Nova reports the service down after service_down_time (30 s)
#   compute.sh start HOST   starts it again and waits for a fresh heartbeat (so Nova reports it up)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
. "$HERE/lib-infra.sh"; . "$HERE/lib-nova.sh"
action=${1:-}; host=${2:-}
[ -f "$OS_ROOT/nova/compute-$host.conf" ] || { echo "usage: compute.sh stop|start HOST (one of: $COMPUTE_HOSTS)" >&2; exit 2; }
case $action in
  stop) compute_stop "$host" ;;
  start)
    pid_alive "$OS_ROOT/nova/compute-$host.pid" && exit 0
    since=$(date -u +%Y-%m-%dT%H:%M:%S)
    compute_start "$host"
    COMPUTE_HOSTS=$host wait_for 60 "nova-compute on $host" computes_fresh "$since" ;;
  *) echo "usage: compute.sh stop|start HOST" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# RSS and PSS (MiB) of each control plane service: the process tree under each pid file. PSS counts shared pages once.
R=${1:-/tmp/leasehold-services/openstack}
tree() { local c; echo "$1"; for c in $(ps -o pid= --ppid "$1"); do tree "$c"; done; }
total=0; totalpss=0
row() {
  local name=$1 pid=$2 pids kb pss
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  pids=$(tree "$pid" | tr '\n' ',' | sed 's/,$//')
  kb=$(ps -o rss= -p "$pids" | awk '{s+=$1} END {print s}')
  pss=$(for p in ${pids//,/ }; do awk '/^Pss:/{print $2}' "/proc/$p/smaps_rollup" 2>/dev/null; done | awk '{s+=$1} END {print s+0}')
  printf '%-28s RSS %5d MiB  PSS %5d MiB  (%d procs)\n' "$name" $((kb / 1024)) $((pss / 1024)) "$(echo "$pids" | tr ',' '\n' | wc -l)"
  total=$((total + kb)); totalpss=$((totalpss + pss))
}
row postgres "$(head -1 "$R/pg/data/postmaster.pid" 2>/dev/null)"
row rabbitmq "$(cat "$R/rabbitmq/pid" 2>/dev/null)"
row keystone "$(cat "$R/keystone/uwsgi.pid" 2>/dev/null)"
row placement "$(cat "$R/placement/uwsgi.pid" 2>/dev/null)"
for f in "$R"/nova/*.pid; do row "nova-$(basename "$f" .pid)" "$(cat "$f")"; done
row glance-api "$(cat "$R/glance/glance-api.pid" 2>/dev/null)"
row neutron-server "$(cat "$R/neutron/neutron-server.pid" 2>/dev/null)"
printf '%-28s RSS %5d MiB  PSS %5d MiB\n' TOTAL $((total / 1024)) $((totalpss / 1024))

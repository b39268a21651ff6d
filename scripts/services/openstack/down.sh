#!/usr/bin/env bash
# Stops what up.sh started, by its own pid files, newest first. Keeps configs, data and logs under
# $LEASEHOLD_OPENSTACK_ROOT for a post-mortem (the next up.sh wipes them); --purge removes them too.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/env.sh"
for f in infra keystone placement nova glance neutron; do . "$HERE/lib-$f.sh"; done
[ -d "$OS_ROOT" ] || exit 0
if [ -z "${LEASEHOLD_OS_LOCKED:-}" ]; then
  LEASEHOLD_OS_LOCKED=1 exec flock -o -w 600 "$OS_ROOT.lock" bash "$0" "$@"
fi
T0=$(date +%s)
# nova-compute, neutron-server and glance-api each take a few seconds to shut down: stop them together
nova_down & neutron_down & glance_down & wait
placement_down & ks_down & wait
rmq_down
pg_down
rm -f "$OS_ENV_FILE"
busy=""
for p in $OS_PORTS; do ss -Hltn "sport = :$p" | grep -q . && busy="$busy $p"; done
[ "${1:-}" = --purge ] && find "$OS_ROOT" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
if [ -n "$busy" ]; then echo "openstack control plane: ports still listening:$busy" >&2; exit 1; fi
echo "openstack control plane stopped in $(( $(date +%s) - T0 )) s"

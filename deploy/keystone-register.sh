#!/usr/bin/env bash
# Registers Leasehold in Keystone's catalog the way upstream Blazar's devstack plugin does: a service of
# type `reservation` (named `blazar`) with public, internal and admin endpoints, so that the openstack CLI,
# blazarclient and Horizon's blazar-dashboard, which look the service up by its type, find Leasehold.
#
#   deploy/keystone-register.sh [--region REGION] [--internal-url URL] [--admin-url URL] PUBLIC_URL
#
# PUBLIC_URL ends in /v1 (e.g. https://leasehold.example.org:1234/v1): clients append /leases, /os-hosts, ...
# The internal and admin endpoints take PUBLIC_URL unless given. REGION defaults to OS_REGION_NAME, then RegionOne.
# It runs as a Keystone admin: the usual OS_* variables or OS_CLOUD (clouds.yaml), as for any `openstack` command.
#
# Idempotent: a run over a complete registration changes nothing. A service of type `reservation` already there
# (whatever its name) is kept, an endpoint with another URL is updated in place, a missing one is created.
# Two services of that type, or two endpoints for one interface and region, stop it: which to keep is the
# operator's choice. Tested by test/e2e/keystone-register.e2e.spec.ts against the project's Keystone.
set -euo pipefail

usage() {
  echo "usage: deploy/keystone-register.sh [--region REGION] [--internal-url URL] [--admin-url URL] PUBLIC_URL" >&2
  exit 2
}

region="${OS_REGION_NAME:-RegionOne}"
public_url=""
internal_url=""
admin_url=""
while [ $# -gt 0 ]; do
  case "$1" in
    --region) region="${2:?--region needs a value}"; shift 2 ;;
    --internal-url) internal_url="${2:?--internal-url needs a value}"; shift 2 ;;
    --admin-url) admin_url="${2:?--admin-url needs a value}"; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "keystone-register.sh: unknown option $1" >&2; usage ;;
    *) [ -z "$public_url" ] || usage; public_url="$1"; shift ;;
  esac
done
[ -n "$public_url" ] || usage
for url in "$public_url" "${internal_url:-$public_url}" "${admin_url:-$public_url}"; do
  case "$url" in
    http://*/v1 | https://*/v1) ;;
    *) echo "keystone-register.sh: $url is not an http(s) URL ending in /v1" >&2; exit 2 ;;
  esac
done

# `-f value` prints the columns in the table's order (ID, Name, Type; a name may hold spaces): the ids alone
mapfile -t services < <(openstack service list -f value -c ID -c Type | awk '$2 == "reservation" { print $1 }')
case "${#services[@]}" in
  0)
    service=$(openstack service create --name blazar --description "Leasehold (OpenStack Blazar API v1)" -f value -c id reservation)
    echo "service reservation: created (blazar, $service)"
    ;;
  1)
    service="${services[0]}"
    echo "service reservation: exists ($service, kept with its name)"
    ;;
  *)
    echo "keystone-register.sh: ${#services[@]} services of type reservation (${services[*]}): delete all but one" >&2
    exit 1
    ;;
esac

# every endpoint of the service in one call (each `openstack` start costs seconds): "id region interface url" lines
mapfile -t endpoints < <(openstack endpoint list --service "$service" -f value -c ID -c Region -c Interface -c URL)
region_checked=""

register_endpoint() { # interface url
  local interface=$1 url=$2 found
  mapfile -t found < <(printf '%s\n' "${endpoints[@]}" | awk -v i="$interface" -v r="$region" '$3 == i && $2 == r { print $1 " " $4 }')
  case "${#found[@]}" in
    0)
      # a listing, not `region show`: the CLI's show falls back to a name filter Keystone ignores, and "finds" a lone region
      # whatever its name; an endpoint create would make the mistyped region silently
      if [ -z "$region_checked" ] && ! openstack region list -f value -c Region | grep -qxF -- "$region"; then
        echo "keystone-register.sh: Keystone has no region $region (--region, or OS_REGION_NAME)" >&2
        exit 1
      fi
      region_checked=yes
      openstack endpoint create --region "$region" "$service" "$interface" "$url" -f value -c id >/dev/null
      echo "endpoint $interface: created ($url)"
      ;;
    1)
      if [ "${found[0]#* }" = "$url" ]; then
        echo "endpoint $interface: unchanged ($url)"
      else
        openstack endpoint set --url "$url" "${found[0]%% *}"
        echo "endpoint $interface: updated (${found[0]#* } -> $url)"
      fi
      ;;
    *)
      echo "keystone-register.sh: ${#found[@]} $interface endpoints in $region for service $service: delete all but one" >&2
      exit 1
      ;;
  esac
}

register_endpoint public "$public_url"
register_endpoint internal "${internal_url:-$public_url}"
register_endpoint admin "${admin_url:-$public_url}"

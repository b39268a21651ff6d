#!/usr/bin/env bash
# Makes Chameleon's python-blazarclient fork (branch chameleoncloud/2023.1, the one with `openstack reservation
# network ...`) runnable with Debian's python3 and its OpenStack packages, without PyPI, and prints the PYTHONPATH
# that makes /usr/bin/openstack use it:
#   git -C <a clone of ChameleonCloud/python-blazarclient> archive chameleoncloud/2023.1 | tar -x -C /tmp/chameleon-blazarclient
#   export LEASEHOLD_TEST_CHAMELEON_CLIENT="$(bash scripts/chameleon-client.sh /tmp/chameleon-blazarclient)"
#   PYTHONPATH="$LEASEHOLD_TEST_CHAMELEON_CLIENT" openstack --os-auth-type none --os-endpoint http://127.0.0.1:1234/v1 \
#     reservation network list
# Usage: scripts/chameleon-client.sh <checkout-dir> [site-dir]   (site-dir defaults to <checkout-dir>-site)
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 <checkout-dir> [site-dir]" >&2
  exit 2
fi
checkout="$(cd "$1" && pwd)"
site="${2:-$checkout-site}"
python=/usr/bin/python3
if ! grep -q 'reservation_network_create' "$checkout/setup.cfg" 2>/dev/null; then
  echo "chameleon-client.sh: $checkout/setup.cfg has no network commands: not a checkout of Chameleon's chameleoncloud/2023.1" >&2
  exit 1
fi
# the fork needs only what python3-openstackclient already pulls in; pip and pbr build its dist-info
if ! "$python" -c 'import osc_lib, keystoneauth1, openstackclient, oslo_utils, pbr, pip' 2>/dev/null; then
  echo "chameleon-client.sh: run as root: apt-get install python3-openstackclient python3-pbr python3-pip" >&2
  exit 1
fi
# The `openstack reservation ...` commands are entry points, read from an installed dist-info: install the fork
# (and only it, --no-deps) into a directory of its own. An export carries no git history for pbr to read a
# version from, hence PBR_VERSION. Earlier on PYTHONPATH than Debian's python3-blazarclient 3.5 (if installed),
# its dist-info wins for each command name both define.
PBR_VERSION=3.6.0 "$python" -m pip install --quiet --no-deps --no-build-isolation --no-index --no-cache-dir \
  --disable-pip-version-check --root-user-action=ignore --upgrade --target "$site" "$checkout" >&2
if ! PYTHONPATH="$site" "$python" -c 'import blazarclient.v1.networks' 2>/dev/null; then
  echo "chameleon-client.sh: the fork did not import from $site" >&2
  exit 1
fi
echo "$site"

#!/usr/bin/env bash
# Installs the real OpenStack CLIs the end-to-end tests drive (Debian packages; their shebang is /usr/bin/python3).
set -euo pipefail
if [ -x /usr/bin/openstack ] && [ -x /usr/bin/blazar ]; then exit 0; fi
if [ "$(id -u)" != "0" ]; then echo "openstack-clients.sh: run as root to apt-get install python3-openstackclient python3-blazarclient" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends python3-openstackclient python3-blazarclient >/dev/null

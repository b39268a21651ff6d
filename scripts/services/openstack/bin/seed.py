#!/usr/bin/python3
"""Seeds the control plane through its REST APIs in one process (one `openstack` CLI call costs ~1.5 s).

  seed.py identity KS_URL NAME:TYPE:URL...   service project, service users (roles admin + service), catalog,
                                             Leasehold's service user, projects demo and other with a member each
  seed.py cloud KS_URL                        image tiny, flavor m1.tiny, networks public (external) and private

Prints KEY=VALUE lines for the env file. Safe to re-run: existing objects are found by name and reused.
"""
import json
import sys
import urllib.error
import urllib.request

ks_url = sys.argv[2]


def call(method, url, body=None, token=None, raw=None, content_type="application/json"):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url, method=method, data=data)
    req.add_header("Content-Type", content_type)
    req.add_header("Accept", "application/json")
    if token:
        req.add_header("X-Auth-Token", token)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            text = resp.read()
            return resp.headers, (json.loads(text) if text else None)
    except urllib.error.HTTPError as e:
        raise SystemExit(f"{method} {url}: {e.code} {e.read().decode(errors='replace')[:500]}")


def admin_token():
    ident = {"methods": ["password"], "password": {"user": {"name": "admin", "domain": {"id": "default"}, "password": "admin"}}}
    scope = {"project": {"name": "admin", "domain": {"id": "default"}}}
    headers, body = call("POST", f"{ks_url}/auth/tokens", {"auth": {"identity": ident, "scope": scope}})
    catalog = {s["type"]: next(e["url"] for e in s["endpoints"] if e["interface"] == "public") for s in body["token"]["catalog"]}
    return headers["X-Subject-Token"], catalog


def identity(specs):
    token, _ = admin_token()

    def find(collection, name, extra=""):
        items = call("GET", f"{ks_url}/{collection}?name={name}{extra}", token=token)[1][collection]
        return items[0]["id"] if items else None

    def ensure(collection, key, body):
        found = find(collection, body["name"])
        return found or call("POST", f"{ks_url}/{collection}", {key: body}, token)[1][key]["id"]

    def grant(project, user, role):
        call("PUT", f"{ks_url}/projects/{project}/users/{user}/roles/{role}", token=token)

    roles = {name: ensure("roles", "role", {"name": name}) for name in ("admin", "member", "reader", "service")}
    projects = {name: ensure("projects", "project", {"name": name, "domain_id": "default"}) for name in ("service", "demo", "other")}
    services = {s["type"]: s["id"] for s in call("GET", f"{ks_url}/services", token=token)[1]["services"]}
    for spec in specs:
        name, stype, url = spec.split(":", 2)
        user = ensure("users", "user", {"name": name, "domain_id": "default", "password": name, "default_project_id": projects["service"]})
        grant(projects["service"], user, roles["admin"])
        grant(projects["service"], user, roles["service"])
        if stype not in services:
            services[stype] = call("POST", f"{ks_url}/services", {"service": {"name": name, "type": stype}}, token)[1]["service"]["id"]
            for iface in ("public", "internal", "admin"):
                endpoint = {"service_id": services[stype], "interface": iface, "region_id": "RegionOne", "url": url}
                call("POST", f"{ks_url}/endpoints", {"endpoint": endpoint}, token)
    # Leasehold's own service user, as Blazar's os_admin_* user: admin (and service, for service tokens) in project service
    leasehold = ensure("users", "user", {"name": "leasehold", "domain_id": "default", "password": "leasehold-secret", "default_project_id": projects["service"]})
    grant(projects["service"], leasehold, roles["admin"])
    grant(projects["service"], leasehold, roles["service"])
    for user, project in (("demo", "demo"), ("other", "other")):
        uid = ensure("users", "user", {"name": user, "domain_id": "default", "password": f"{user}-secret", "default_project_id": projects[project]})
        grant(projects[project], uid, roles["member"])
    print(f"LEASEHOLD_OS_SERVICE_PROJECT_ID={projects['service']}")
    print(f"LEASEHOLD_OS_DEMO_PROJECT_ID={projects['demo']}")
    print(f"LEASEHOLD_OS_OTHER_PROJECT_ID={projects['other']}")


def cloud():
    token, catalog = admin_token()
    nova, glance, neutron = catalog["compute"], catalog["image"], catalog["network"]

    images = call("GET", f"{glance}/v2/images?name=tiny", token=token)[1]["images"]
    if images:
        image = images[0]["id"]
    else:
        body = {"name": "tiny", "disk_format": "raw", "container_format": "bare", "visibility": "public"}
        image = call("POST", f"{glance}/v2/images", body, token)[1]["id"]
        call("PUT", f"{glance}/v2/images/{image}/file", token=token, raw=b"\0" * 1048576, content_type="application/octet-stream")

    flavors = [f for f in call("GET", f"{nova}/flavors?is_public=None", token=token)[1]["flavors"] if f["name"] == "m1.tiny"]
    if not flavors:
        call("POST", f"{nova}/flavors", {"flavor": {"id": "1", "name": "m1.tiny", "ram": 512, "disk": 1, "vcpus": 1}}, token)

    def network(name, body, subnet):
        found = call("GET", f"{neutron}/v2.0/networks?name={name}", token=token)[1]["networks"]
        net = found[0]["id"] if found else call("POST", f"{neutron}/v2.0/networks", {"network": {"name": name, **body}}, token)[1]["network"]["id"]
        subs = call("GET", f"{neutron}/v2.0/subnets?network_id={net}", token=token)[1]["subnets"]
        sub = subs[0]["id"] if subs else call("POST", f"{neutron}/v2.0/subnets", {"subnet": {"network_id": net, "ip_version": 4, **subnet}}, token)[1]["subnet"]["id"]
        return net, sub

    public, public_subnet = network(
        "public",
        {"router:external": True, "shared": True, "provider:network_type": "flat", "provider:physical_network": "public"},
        {"name": "public-subnet", "cidr": "172.24.4.0/24", "gateway_ip": "172.24.4.1", "enable_dhcp": False,
         "allocation_pools": [{"start": "172.24.4.100", "end": "172.24.4.200"}]})
    private, private_subnet = network(
        "private",
        {"shared": True, "provider:network_type": "vlan", "provider:physical_network": "physnet1", "provider:segmentation_id": 101},
        {"name": "private-subnet", "cidr": "10.0.0.0/24"})
    print(f"LEASEHOLD_OS_IMAGE_ID={image}")
    print("LEASEHOLD_OS_FLAVOR_ID=1")
    print(f"LEASEHOLD_OS_PUBLIC_NETWORK_ID={public}")
    print(f"LEASEHOLD_OS_PUBLIC_SUBNET_ID={public_subnet}")
    print("LEASEHOLD_OS_PUBLIC_SUBNET_CIDR=172.24.4.0/24")
    print("LEASEHOLD_OS_PUBLIC_POOL_START=172.24.4.100")
    print("LEASEHOLD_OS_PUBLIC_POOL_END=172.24.4.200")
    print(f"LEASEHOLD_OS_PRIVATE_NETWORK_ID={private}")
    print(f"LEASEHOLD_OS_PRIVATE_SUBNET_ID={private_subnet}")


if sys.argv[1] == "identity":
    identity(sys.argv[3:])
elif sys.argv[1] == "cloud":
    cloud()
else:
    raise SystemExit(f"unknown command {sys.argv[1]}")

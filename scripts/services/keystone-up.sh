#!/usr/bin/env bash
# Throwaway Keystone (Debian's `keystone` package, sqlite + uwsgi, no systemd, no apache) on
# 127.0.0.1:$KS_PORT for the end-to-end tests; run as root. Seeds what the tests use:
#   admin/admin (project admin, role admin), region RegionOne;
#   service `reservation` (name leasehold) with public/internal/admin endpoints $LEASEHOLD_ENDPOINT;
#   project service + user leasehold/leasehold-secret (admin role there): Leasehold's own credentials;
#   projects project-a, project-b; alice (member of project-a), bob (member of project-b),
#   rita (reader of project-a); password of each test user: <name>-secret.
# The last line printed is Keystone's URL (http://127.0.0.1:$KS_PORT/v3). Stop it with keystone-down.sh.
set -euo pipefail
KS="${KS_ROOT:-/tmp/leasehold-services/keystone}"
KS_PORT="${KS_PORT:-62357}"
LEASEHOLD_ENDPOINT="${LEASEHOLD_ENDPOINT:-http://127.0.0.1:62234/v1}"
export DEBIAN_FRONTEND=noninteractive
if ! command -v keystone-manage >/dev/null || ! command -v uwsgi >/dev/null; then
  if [ "$(id -u)" != "0" ]; then echo "keystone-up.sh: run as root to apt-get install keystone" >&2; exit 1; fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends keystone uwsgi-plugin-python3 >/dev/null
fi
if [ -f "$KS/uwsgi.pid" ]; then uwsgi --stop "$KS/uwsgi.pid" 2>/dev/null || true; sleep 1; fi
rm -rf "$KS"; mkdir -p "$KS"/{fernet-keys,credential-keys,log}
cat > "$KS/keystone.conf" <<CONF
[DEFAULT]
log_dir = $KS/log
[database]
connection = sqlite:///$KS/keystone.db
[token]
provider = fernet
[fernet_tokens]
key_repository = $KS/fernet-keys
[credential]
key_repository = $KS/credential-keys
CONF
M="keystone-manage --config-file $KS/keystone.conf"
$M db_sync >"$KS/log/manage.log" 2>&1
$M fernet_setup --keystone-user root --keystone-group root >>"$KS/log/manage.log" 2>&1
$M credential_setup --keystone-user root --keystone-group root >>"$KS/log/manage.log" 2>&1
URL="http://127.0.0.1:$KS_PORT/v3"
$M bootstrap --bootstrap-password admin --bootstrap-username admin --bootstrap-project-name admin \
  --bootstrap-role-name admin --bootstrap-service-name keystone --bootstrap-region-id RegionOne \
  --bootstrap-admin-url "$URL" --bootstrap-public-url "$URL" --bootstrap-internal-url "$URL" >>"$KS/log/manage.log" 2>&1
# WAL: a uwsgi worker keeps a read transaction open after validating tokens against revocation events,
# which in sqlite's default journal mode locks every later write (a second token revocation got 500 "database is locked").
/usr/bin/python3 -c "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA journal_mode=WAL')" "$KS/keystone.db"
setsid uwsgi --plugin python3 --http11-socket "127.0.0.1:$KS_PORT" --add-header "Connection: close" \
  --wsgi-file /usr/bin/keystone-wsgi-public --master --processes 2 --threads 1 --die-on-term \
  --pidfile "$KS/uwsgi.pid" --logto "$KS/log/uwsgi.log" --env "OS_KEYSTONE_CONFIG_FILES=$KS/keystone.conf" </dev/null >/dev/null 2>&1 &
for _ in $(seq 1 150); do curl -sf "$URL" >/dev/null && break; sleep 0.2; done
curl -sf "$URL" >/dev/null || { tail -30 "$KS/log/uwsgi.log" >&2; exit 1; }

# Seed through the REST API with the bootstrap admin (one python process: much faster than one CLI call per object).
KS_URL="$URL" LEASEHOLD_ENDPOINT="$LEASEHOLD_ENDPOINT" /usr/bin/python3 - <<'PY'
import http.client, json, os, time, urllib.error, urllib.request

url = os.environ["KS_URL"]

def call_once(method, path, body, token, expect):
    req = urllib.request.Request(url + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("X-Auth-Token", token)
    with urllib.request.urlopen(req, timeout=30) as resp:
        if resp.status not in expect:
            raise SystemExit(f"{method} {path}: {resp.status}")
        text = resp.read()
        return resp.headers, (json.loads(text) if text else None)

def call(method, path, body=None, token=None, expect=(200, 201, 204)):
    # a busy machine (uwsgi just started) may drop a connection before answering: try again
    for attempt in range(6):
        try:
            return call_once(method, path, body, token, expect)
        except urllib.error.HTTPError:
            raise
        except (http.client.HTTPException, ConnectionError, urllib.error.URLError, TimeoutError):
            if attempt == 5:
                raise
            time.sleep(1 + attempt)

scope = {"project": {"name": "admin", "domain": {"id": "default"}}}
ident = {"methods": ["password"], "password": {"user": {"name": "admin", "domain": {"id": "default"}, "password": "admin"}}}
headers, _ = call("POST", "/auth/tokens", {"auth": {"identity": ident, "scope": scope}})
token = headers["X-Subject-Token"]

def create(collection, key, body):
    try:
        return call("POST", f"/{collection}", {key: body}, token)[1][key]["id"]
    except urllib.error.HTTPError as error:
        # a retried POST whose first attempt did reach Keystone: the object is there already
        if error.code != 409 or "name" not in body:
            raise
        return call("GET", f"/{collection}?name={body['name']}", token=token)[1][collection][0]["id"]

roles = {r["name"]: r["id"] for r in call("GET", "/roles", token=token)[1]["roles"]}
for name in ("member", "reader"):
    if name not in roles:
        roles[name] = create("roles", "role", {"name": name})

service = create("services", "service", {"type": "reservation", "name": "leasehold", "description": "Leasehold (Blazar API v1)"})
for interface in ("public", "internal", "admin"):
    create("endpoints", "endpoint", {"service_id": service, "interface": interface, "region_id": "RegionOne", "url": os.environ["LEASEHOLD_ENDPOINT"]})

projects = {name: create("projects", "project", {"name": name, "domain_id": "default"}) for name in ("service", "project-a", "project-b")}
for user, project, role in (("leasehold", "service", "admin"), ("alice", "project-a", "member"), ("bob", "project-b", "member"), ("rita", "project-a", "reader")):
    user_id = create("users", "user", {"name": user, "domain_id": "default", "password": f"{user}-secret", "default_project_id": projects[project]})
    call("PUT", f"/projects/{projects[project]}/users/{user_id}/roles/{roles[role]}", token=token)
PY
echo "keystone ready (uwsgi master pid $(cat "$KS/uwsgi.pid")); reservation endpoint $LEASEHOLD_ENDPOINT" >&2
echo "$URL"

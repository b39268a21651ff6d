/**
 * LEASEHOLD_POLICY_FILE overrides upstream's default rules by name (YAML or JSON, oslo.policy's
 * rule language); a file that cannot be understood stops the API before it listens.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerCount } from '../helpers/api-fixtures.js';
import { blazarDate } from '../helpers/http.js';
import { type RunningSystem, freePort, runApiUntilExit as runApi, startSystem } from '../helpers/system.js';

const TOKENS = {
  'pf-admin': { user_id: 'u-admin', project_id: 'p-admin', roles: ['admin'] },
  'pf-member': { user_id: 'u-member', project_id: 'p-a', roles: ['member'] },
  'pf-reader': { user_id: 'u-reader', project_id: 'p-a', roles: ['reader'] },
  'pf-operator': { user_id: 'u-operator', project_id: 'p-ops', roles: ['reader', 'lease-operator'] },
};

/** As an operator would write it: readers may see hosts, only admins delete leases, a custom operator role sees all leases. */
const POLICY_YAML = `# Leasehold policy overrides (same names as upstream Blazar)
"blazar:oshosts:get": "rule:admin or role:reader"
blazar:leases:delete: rule:admin
'lease_operator': 'role:lease-operator'
"blazar:leases:get": "rule:project_reader_or_admin or rule:lease_operator"
"admin": "is_admin:True or role:admin or rule:lease_operator"
"blazar:leases:post": "(role:member and project_id:%(project_id)s) and not role:lease-operator"
`;

let system: RunningSystem;
let dir: string;

const call = async (method: string, path: string, token: string, body?: unknown) => {
  const response = await fetch(`${system.url}${path}`, {
    method,
    headers: { 'X-Auth-Token': token, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text.length > 0 ? JSON.parse(text) : null };
};

const newLease = (token: string, name: string) =>
  call('POST', '/v1/leases', token, {
    name,
    start_date: blazarDate(60 * 24 * 5),
    end_date: blazarDate(60 * 24 * 5 + 60),
    reservations: [],
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'leasehold-policy-'));
  writeFileSync(join(dir, 'tokens.json'), JSON.stringify(TOKENS));
  writeFileSync(join(dir, 'policy.yaml'), POLICY_YAML);
  system = await startSystem({
    env: { LEASEHOLD_AUTH: 'static', LEASEHOLD_TOKENS_FILE: join(dir, 'tokens.json'), LEASEHOLD_POLICY_FILE: join(dir, 'policy.yaml') },
  });
});

afterAll(async () => {
  await system?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('policy file overrides', () => {
  it('a reader may list hosts, but still not register one', async () => {
    expect((await call('GET', '/v1/os-hosts', 'pf-reader')).status).toBe(200);
    expect((await call('POST', '/v1/os-hosts', 'pf-reader', { name: 'x' })).status).toBe(403);
  });

  it('only admins delete leases: the member who created one may not, nothing is written', async () => {
    const created = await newLease('pf-member', 'pf-member-lease');
    expect(created.status).toBe(201);
    const before = ledgerCount(system.dataDir);
    const refused = await call('DELETE', `/v1/leases/${created.body.lease.id}`, 'pf-member');
    expect(refused).toEqual({
      status: 403,
      body: { error_code: 403, error_message: "Policy doesn't allow blazar:leases:delete to be performed", error_name: 403 },
    });
    expect(ledgerCount(system.dataDir)).toBe(before);
    expect((await call('DELETE', `/v1/leases/${created.body.lease.id}`, 'pf-admin')).status).toBe(204);
  });

  it("a custom role named through rule: sees every project's leases (the list follows the `admin` rule) but may not create", async () => {
    const created = await newLease('pf-member', 'pf-visible');
    expect(created.status).toBe(201);
    const list = await call('GET', '/v1/leases', 'pf-operator');
    expect(list.status).toBe(200);
    expect(list.body.leases.map((l: { id: string }) => l.id)).toContain(created.body.lease.id);
    expect((await call('GET', `/v1/leases/${created.body.lease.id}`, 'pf-operator')).status).toBe(200);
    expect((await newLease('pf-operator', 'nope')).status).toBe(403);
    // the member's list is still its own project's
    const own = await call('GET', '/v1/leases', 'pf-member');
    expect(new Set(own.body.leases.map((l: { project_id: string }) => l.project_id))).toEqual(new Set(['p-a']));
  });
});

describe('an unusable policy file', () => {
  it.each([
    [
      'syntax error',
      '"blazar:leases:get": "role:reader or"\n',
      'rule "blazar:leases:get": invalid policy rule "role:reader or": unexpected end',
    ],
    ['cycle', '{"a": "rule:b", "b": "rule:a"}', 'rules refer to each other in a cycle: a -> b -> a'],
    ['missing file', null, 'cannot be read'],
  ])('%s: the API refuses to start and says why', async (_name, content, message) => {
    const work = mkdtempSync(join(tmpdir(), 'leasehold-policy-bad-'));
    try {
      const file = join(work, 'policy.yaml');
      if (content !== null) writeFileSync(file, content);
      const result = await runApi({ LEASEHOLD_POLICY_FILE: file, LEASEHOLD_PORT: String(await freePort()), LEASEHOLD_DATA_DIR: work });
      expect(result.code).toBe(1);
      expect(result.output.replaceAll('\\"', '"')).toContain(message);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

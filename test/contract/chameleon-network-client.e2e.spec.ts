/**
 * The HTTP contract of Chameleon's python-blazarclient fork on network segments and reservations, without Python:
 * the requests its `openstack reservation network ...` and `lease ...` commands sent in
 * test/e2e/chameleon-network-client.e2e.spec.ts (recorded there, fixtures/chameleon-network-client.json) are
 * replayed in order against a new system. Each must get the status the client got and an answer holding every key
 * the client reads from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ExchangeFixture, type RecordedRequest, missingKeys, resolvePlaceholders } from '../helpers/client-exchanges.js';
import { ROOT, type RunningSystem, startSystem } from '../helpers/system.js';

const fixture = JSON.parse(
  readFileSync(join(ROOT, 'test', 'contract', 'fixtures', 'chameleon-network-client.json'), 'utf8'),
) as ExchangeFixture;

/** Sends a recorded request as the fork's keystoneauth adapter does: JSON, a Content-Type only with a body. */
const send = async (url: string, request: RecordedRequest, answers: readonly unknown[], today: DateTime) => {
  const path = resolvePlaceholders(request.path, answers, today);
  const body = request.body === null ? undefined : resolvePlaceholders(JSON.stringify(request.body), answers, today);
  const headers = {
    Accept: 'application/json',
    'User-Agent': 'python-blazarclient',
    ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
  };
  const response = await fetch(`${url}${path}${request.query === '' ? '' : `?${request.query}`}`, {
    method: request.method,
    headers,
    body,
  });
  const text = await response.text();
  return { status: response.status, answer: text === '' ? null : (JSON.parse(text) as unknown) };
};

describe("Chameleon's client on networks, replayed from its recorded requests (no Python)", () => {
  let system: RunningSystem;

  beforeAll(async () => {
    system = await startSystem();
  });

  afterAll(async () => {
    await system?.stop();
  });

  afterEach((context) => {
    if (context.task.result?.state === 'fail') console.error(`system output (tail):\n${system?.output().slice(-6000)}`);
  });

  it("holds every call of the fork's network manager and the lease calls of a network lease", () => {
    const calls = new Set(
      fixture.exchanges.map(
        ({ method, path, query }) => `${method} ${path.replace(/\{\{[^}]+\}\}/g, '{id}')}${query === '' ? '' : `?${query}`}`,
      ),
    );
    expect([...calls].sort()).toEqual(
      [
        'POST /v1/networks',
        'GET /v1/networks',
        'GET /v1/networks/{id}',
        'PUT /v1/networks/{id}',
        'DELETE /v1/networks/{id}',
        'GET /v1/networks/allocations',
        'GET /v1/networks/{id}/allocation',
        'GET /v1/networks/properties',
        'GET /v1/networks/properties?detail=True',
        'PATCH /v1/networks/properties/stitch',
        'POST /v1/leases',
        'GET /v1/leases',
        'GET /v1/leases/{id}',
        'PUT /v1/leases/{id}',
        'DELETE /v1/leases/{id}',
      ].sort(),
    );
  });

  it('answers each request with the status the client got and every key the client reads', async () => {
    const answers: unknown[] = [];
    const today = DateTime.utc();
    for (const [index, request] of fixture.exchanges.entries()) {
      const { status, answer } = await send(system.url, request, answers, today);
      answers.push(answer);
      const where = `exchange ${index}: ${request.method} ${request.path} (${request.command}) answered ${JSON.stringify(answer)}`;
      expect(status, where).toBe(request.status);
      expect(missingKeys(answer, request.reads), where).toEqual([]);
    }
    expect(answers.length).toBe(fixture.exchanges.length);
  });
});

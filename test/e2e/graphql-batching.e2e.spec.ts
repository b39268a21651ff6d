/**
 * No N+1 through /graphql: a page of leases with their reservations and each reservation's
 * allocations is answered with a fixed number of read-model queries, however many leases it holds.
 * The API runs alone with LEASEHOLD_READ_MODEL_QUERY_LOG=1 (every SQL statement it sends to the read
 * model, on its stdout), beside a projector and a reactor of their own sharing its data folder; a
 * request is delimited in that log by a list of flavors before and after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, blazarDate, floatingIpReservation, instanceReservation } from '../helpers/http.js';
import { pinnedHost } from '../helpers/api-fixtures.js';
import { graphqlClient } from '../helpers/graphql.js';
import { type RunningSystem, eventually, startSystem } from '../helpers/system.js';

const LEASES = 500;
const NET = '5b0c3d2e-1f4a-4b5c-8d6e-7f8091a2b3c4';

const PAGE = `query Page($first: Int!) {
  leases(first: $first) {
    edges { node { id name reservations { id resource_type end_action allocations { resource_kind resource_id start_date end_date slots { count vcpus } } } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

let dataDir: string;
let apiSystem: RunningSystem;
let workers: RunningSystem;

const queryLines = (output: string): string[] => output.split('\n').filter((line) => line.includes('[query]'));

const MARKER = 'lh_flavors';

/**
 * The read-model statements the API logged for `run`, between two lists of flavors (a table the page
 * does not read) before and after it; the waits on checkpoints (read-your-writes: one look per read
 * model once caught up) left out.
 */
const statementsOf = async (run: () => Promise<unknown>): Promise<string[]> => {
  const client = api(apiSystem.url);
  const markers = (lines: readonly string[]): number[] => lines.flatMap((line, index) => (line.includes(MARKER) ? [index] : []));
  const seen = markers(queryLines(apiSystem.output())).length;
  expect((await client.get('/v1/flavors')).status).toBe(200);
  await run();
  expect((await client.get('/v1/flavors')).status).toBe(200);
  const lines = await eventually(
    async () => {
      const logged = queryLines(apiSystem.output());
      return markers(logged).length >= seen + 2 ? logged : undefined;
    },
    10_000,
    'the closing marker in the query log',
  );
  const [start, end] = markers(lines).slice(seen, seen + 2) as [number, number];
  return lines.slice(start + 1, end).filter((line) => !line.includes('lh_checkpoints'));
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'leasehold-gql-batching-'));
  apiSystem = await startSystem({ dataDir, apps: ['api'], env: { LEASEHOLD_READ_MODEL_QUERY_LOG: '1' } });
  workers = await startSystem({ dataDir, apps: ['projector', 'reactor'] });
  const client = api(apiSystem.url);
  for (const name of ['batch-1', 'batch-2'])
    expect((await client.post('/v1/os-hosts', { name, vcpus: 8, memory_mb: 16384, local_gb: 100 })).status).toBe(201);
  expect((await client.post('/v1/floatingips', { floating_network_id: NET, floating_ip_address: '10.61.0.1' })).status).toBe(201);
  // one lease an hour, far ahead: a whole host, instance slots on the other, an address every tenth
  const lease = async (i: number): Promise<void> => {
    const start = blazarDate(60 * 24 * 400 + 60 * i);
    const end = blazarDate(60 * 24 * 400 + 60 * i + 50);
    const reservations = [
      pinnedHost('batch-1'),
      instanceReservation(2, { vcpus: 1, memory_mb: 512, disk_gb: 5 }),
      ...(i % 10 === 0 ? [floatingIpReservation(NET, 1)] : []),
    ];
    const created = await client.post('/v1/leases', { name: `batch-${i}`, start_date: start, end_date: end, reservations });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  };
  for (let i = 0; i < LEASES; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => lease(i + k)));
}, 600_000);

afterAll(async () => {
  await workers?.stop();
  await apiSystem?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a page of leases with reservations and allocations', () => {
  it(`reads the same few statements for 5 leases as for ${LEASES}, and every allocation is there`, async () => {
    const graphql = graphqlClient(apiSystem.url);
    // every read model past the last write first: then a request's waits are one look each
    expect((await graphql(PAGE, { first: LEASES })).errors).toBeUndefined();
    let small: any;
    let large: any;
    const few = await statementsOf(async () => (small = await graphql(PAGE, { first: 5 })));
    const many = await statementsOf(async () => (large = await graphql(PAGE, { first: LEASES })));
    expect(small.errors).toBeUndefined();
    expect(large.errors).toBeUndefined();
    const edges = large.data.leases.edges;
    expect(edges).toHaveLength(LEASES);
    const reservations = edges.flatMap((edge: any) => edge.node.reservations);
    expect(reservations).toHaveLength(LEASES * 2 + LEASES / 10);
    for (const reservation of reservations) expect(reservation.allocations.length, reservation.resource_type).toBeGreaterThan(0);
    expect(
      reservations
        .filter((r: any) => r.resource_type === 'virtual:instance')
        .every((r: any) => r.allocations.every((a: any) => a.slots?.count >= 1)),
    ).toBe(true);
    // the page of leases (their reservations are in the lease's row), the host bookings, the address bookings
    expect(many.length, many.join('\n')).toBe(few.length);
    expect(many.length, many.join('\n')).toBe(3);
  });
});

/**
 * Network reservations under contention: sixteen parallel clients over two API processes create, move, re-query and
 * delete leases holding segments of a pool of four; no segment is ever in two overlapping reservations (cleaning time
 * included), as the allocations API shows and as an independent replay of the raw log (bench/ledger-audit.ts) finds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMinutes } from '../helpers/api-fixtures.js';
import { api, blazarDate } from '../helpers/http.js';
import { allHolds, apiAddressHolds, doubleBookedAddresses, freshBody, holdKeys, replayLedger, upToDate } from '../helpers/ledger-replay.js';
import { RaceRecord, type RaceAction, createLease, requestDate } from '../helpers/race-clients.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const CLIENTS = 16;
const ROUNDS = 6;
const CLEANING_MINUTES = 30;
const CLEANING_MS = CLEANING_MINUTES * 60_000;
const ENV = { LEASEHOLD_CLEANING_TIME_MINUTES: String(CLEANING_MINUTES) };

/** Three segments on physnet1 (one of them fast) and one on physnet2, against ~8 leases asked for at any hour. */
const POOL = [
  { physical_network: 'physnet1', segment_id: 150, speed: 'fast' },
  { physical_network: 'physnet1', segment_id: 151 },
  { physical_network: 'physnet1', segment_id: 152 },
  { physical_network: 'physnet2', segment_id: 10 },
];

const KINDS = ['any', 'physnet1', 'fast', 'pinned', 'two', 'extend', 'requery', 'delete'] as const;
type Kind = (typeof KINDS)[number];

const segment = (network_properties = '', resource_properties = '') => ({
  resource_type: 'network',
  network_name: 'race-net',
  network_properties,
  resource_properties,
});
const ON_PHYSNET1 = '["==", "$physical_network", "physnet1"]';

describe('16 parallel clients racing for 4 network segments, through two API processes', () => {
  let first: RunningSystem;
  let second: RunningSystem;
  const race = new RaceRecord<Kind>(KINDS);
  const { latest } = race;

  const createBody = (kind: Kind, name: string, start: number): Record<string, unknown> => {
    const reservations = {
      any: [segment()],
      physnet1: [segment(ON_PHYSNET1)],
      fast: [segment('', '["==", "$speed", "fast"]')],
      pinned: [segment('["==", "$segment_id", "151"]')],
      two: [segment(ON_PHYSNET1), segment()],
      extend: [segment()],
      requery: [segment(ON_PHYSNET1)],
      delete: [segment()],
    }[kind];
    return { name, start_date: blazarDate(start), end_date: blazarDate(start + 180), reservations };
  };

  /** Updates and deletes act on this client's own leases; null when it has none (then it creates). */
  const actionFor = (kind: Kind, mine: readonly string[]): RaceAction | null => {
    if (kind === 'delete') return mine[0] === undefined ? null : { method: 'DELETE', path: `/v1/leases/${mine[0]}`, expected: 204 };
    const leaseId = mine.at(-1);
    if ((kind !== 'extend' && kind !== 'requery') || leaseId === undefined) return null;
    const lease = latest.get(leaseId);
    const path = `/v1/leases/${leaseId}`;
    if (kind === 'extend') return { method: 'PUT', path, body: { end_date: addMinutes(requestDate(lease.end_date), 60) }, expected: 200 };
    const reservation = lease.reservations[0];
    return {
      method: 'PUT',
      path,
      body: { reservations: [{ id: reservation.id, network_properties: '["==", "$physical_network", "physnet2"]' }] },
      expected: 200,
    };
  };

  const runClient = async (client: number): Promise<void> => {
    const http = api(client % 2 === 0 ? first.url : second.url);
    const mine: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const kind = KINDS[(client + 3 * round) % KINDS.length]!;
      // 3 h windows starting on twelve consecutive hours: each overlaps the two before and after it
      const start = 24 * 60 + ((client * 5 + round * 3) % 12) * 60;
      await race.play(
        http,
        kind,
        actionFor(kind, mine) ?? createLease(createBody(kind, `net-${client}-${round}`, start)),
        mine,
        `client ${client} round ${round}`,
      );
    }
  };

  beforeAll(async () => {
    first = await startSystem({ apps: ['api', 'projector'], env: ENV });
    second = await startSystem({ apps: ['api'], dataDir: first.dataDir, env: ENV });
    const admin = api(first.url);
    for (const { physical_network, segment_id, ...capabilities } of POOL) {
      const registered = await admin.post('/v1/networks', { network_type: 'vlan', physical_network, segment_id, ...capabilities });
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    }
    await Promise.all(Array.from({ length: CLIENTS }, (_, client) => runClient(client)));
  }, 120_000);

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  const read = async (path: string, system = first): Promise<any> => freshBody(await api(system.url).get(path, upToDate(first.dataDir)));

  it('accepts what fits and refuses the rest with 409: the clients did contend', () => {
    expect(race.unexpected).toEqual([]);
    expect(race.accepted + race.refused).toBe(CLIENTS * ROUNDS);
    expect(race.accepted, race.summary()).toBeGreaterThan(0);
    expect(race.refused, race.summary()).toBeGreaterThan(0);
  });

  it('never holds a segment for two reservations at once, as the allocations API shows', async () => {
    const holds = apiAddressHolds((await read('/v1/networks/allocations')).allocations);
    expect(holds.length).toBeGreaterThan(0);
    expect(doubleBookedAddresses(holds, CLEANING_MS)).toEqual([]);
  });

  it('never holds a segment for two reservations at once when the whole log is replayed; each reservation holds one that matches', () => {
    const { fold } = replayLedger(first.dataDir);
    expect(fold.misfiled).toEqual([]);
    const live = [...fold.leases.values()].filter((l) => !l.deleted);
    expect(live.map((l) => l.leaseId).sort()).toEqual([...latest.keys()].sort());
    const holds = allHolds(fold.segmentHolds);
    expect(doubleBookedAddresses(holds, CLEANING_MS)).toEqual([]);
    for (const lease of fold.leases.values()) {
      for (const reservation of lease.reservations) {
        const mine = holds.filter((h) => h.reservationId === reservation.id);
        if (lease.deleted) {
          expect(mine, `holds of deleted lease ${lease.leaseId}`).toEqual([]);
          continue;
        }
        expect(mine, `segment of ${reservation.id}`).toHaveLength(1);
        const [held] = mine;
        expect([held!.start, held!.end]).toEqual([Date.parse(lease.startDate), Date.parse(lease.endDate)]);
        expect(reservation.allocations.map((a: any) => a.networkId)).toEqual([held!.resourceId]);
        const registered = fold.segments.get(held!.resourceId)!;
        if (reservation.networkProperties === ON_PHYSNET1) expect(registered.physicalNetwork).toBe('physnet1');
        if (reservation.networkProperties.includes('physnet2')) expect(registered.physicalNetwork).toBe('physnet2');
        if (reservation.networkProperties.includes('151')) expect(registered.segmentId).toBe(151);
        if (reservation.resourceProperties.includes('fast')) expect(registered.segmentId).toBe(150);
      }
    }
  });

  it('shows through the API exactly the holds the log records, the same from either process', async () => {
    const { fold } = replayLedger(first.dataDir);
    const fromApi = apiAddressHolds((await read('/v1/networks/allocations')).allocations);
    expect(holdKeys(fromApi)).toEqual(holdKeys(allHolds(fold.segmentHolds)));
    expect(await read('/v1/networks/allocations', second)).toEqual(await read('/v1/networks/allocations'));
  });
});

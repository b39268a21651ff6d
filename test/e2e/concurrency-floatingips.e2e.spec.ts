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

/** Eight addresses on two networks against ~30 asked for at any hour. */
const RACE_NET = 'a1c3e5f7-0000-4000-8000-00000000ace1';
const SIDE_NET = 'a1c3e5f7-0000-4000-8000-0000000051de';
const POOL = [
  ...['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4', '203.0.113.5', '203.0.113.6'].map((address) => ({
    network: RACE_NET,
    address,
  })),
  ...['198.51.100.1', '198.51.100.2'].map((address) => ({ network: SIDE_NET, address })),
];

const KINDS = ['one', 'two', 'required', 'required-plus', 'two-networks', 'grow', 'extend', 'delete'] as const;
type Kind = (typeof KINDS)[number];

const addresses = (network: string, amount: number, required: readonly string[] = []) => ({
  resource_type: 'virtual:floatingip',
  network_id: network,
  amount,
  required_floatingips: required,
});

describe('16 parallel clients racing for a pool of 8 floating IPs, through two API processes', () => {
  let first: RunningSystem;
  let second: RunningSystem;
  const race = new RaceRecord<Kind>(KINDS);
  const { latest } = race;

  const createBody = (kind: Kind, name: string, start: number): Record<string, unknown> => {
    const reservations = {
      one: [addresses(RACE_NET, 1)],
      two: [addresses(RACE_NET, 2)],
      required: [addresses(RACE_NET, 1, ['203.0.113.1'])],
      'required-plus': [addresses(RACE_NET, 2, ['203.0.113.2'])],
      'two-networks': [addresses(SIDE_NET, 1), addresses(RACE_NET, 1)],
      grow: [addresses(RACE_NET, 1, ['203.0.113.3'])],
      extend: [addresses(SIDE_NET, 1)],
      delete: [addresses(RACE_NET, 1, ['203.0.113.4'])],
    }[kind];
    return { name, start_date: blazarDate(start), end_date: blazarDate(start + 180), reservations };
  };

  /**
   * Updates and deletes act on this client's own leases: one more address for the latest one, end
   * the latest one an hour later, delete the oldest one. Null when it has none (then it creates).
   */
  const actionFor = (kind: Kind, mine: readonly string[]): RaceAction | null => {
    if (kind === 'delete') return mine[0] === undefined ? null : { method: 'DELETE', path: `/v1/leases/${mine[0]}`, expected: 204 };
    const leaseId = mine.at(-1);
    if ((kind !== 'grow' && kind !== 'extend') || leaseId === undefined) return null;
    const lease = latest.get(leaseId);
    const path = `/v1/leases/${leaseId}`;
    if (kind === 'extend') return { method: 'PUT', path, body: { end_date: addMinutes(requestDate(lease.end_date), 60) }, expected: 200 };
    const reservation = lease.reservations[0];
    return { method: 'PUT', path, body: { reservations: [{ id: reservation.id, amount: reservation.amount + 1 }] }, expected: 200 };
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
        actionFor(kind, mine) ?? createLease(createBody(kind, `fip-${client}-${round}`, start)),
        mine,
        `client ${client} round ${round}`,
      );
    }
  };

  beforeAll(async () => {
    first = await startSystem({ apps: ['api', 'projector'], env: ENV });
    second = await startSystem({ apps: ['api'], dataDir: first.dataDir, env: ENV });
    const admin = api(first.url);
    for (const { network, address } of POOL) {
      const registered = await admin.post('/v1/floatingips', { floating_network_id: network, floating_ip_address: address });
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

  it('keeps every reservation of every accepted lease as last accepted, on its network and with its required addresses', async () => {
    const leases: any[] = (await read('/v1/leases')).leases;
    expect(leases.map((l) => l.id).sort()).toEqual([...latest.keys()].sort());
    const ips = new Map<string, any>((await read('/v1/floatingips')).floatingips.map((ip: any) => [ip.id, ip]));
    const allocations: any[] = (await read('/v1/floatingips/allocations')).allocations;
    for (const lease of leases) {
      const accepted = latest.get(lease.id);
      expect([lease.start_date, lease.end_date]).toEqual([accepted.start_date, accepted.end_date]);
      const shape = (r: any) => ({
        id: r.id,
        type: r.resource_type,
        network: r.network_id,
        amount: r.amount,
        required: r.required_floatingips,
      });
      expect(lease.reservations.map(shape)).toEqual(accepted.reservations.map(shape));
      for (const reservation of lease.reservations) {
        const held = allocations.flatMap((a) =>
          a.reservations.filter((r: any) => r.id === reservation.id).map((r: any) => ({ ip: ips.get(a.resource_id), ...r })),
        );
        expect(held, `addresses of ${reservation.id}`).toHaveLength(reservation.amount);
        for (const h of held) {
          expect([h.start_date, h.end_date]).toEqual([lease.start_date, lease.end_date]);
          expect(h.ip.floating_network_id).toBe(reservation.network_id);
        }
        expect(held.map((h) => h.ip.floating_ip_address)).toEqual(expect.arrayContaining(reservation.required_floatingips));
      }
    }
  });

  it('never holds an address for two reservations at once, as the allocations API shows', async () => {
    const holds = apiAddressHolds((await read('/v1/floatingips/allocations')).allocations);
    expect(holds.length).toBeGreaterThan(0);
    expect(doubleBookedAddresses(holds, CLEANING_MS)).toEqual([]);
  });

  it('never holds an address for two reservations at once when the whole log is replayed', () => {
    const { fold } = replayLedger(first.dataDir);
    expect(fold.misfiled).toEqual([]);
    const live = [...fold.leases.values()].filter((l) => !l.deleted);
    expect(live.map((l) => l.leaseId).sort()).toEqual([...latest.keys()].sort());
    expect(
      [...fold.leases.values()]
        .filter((l) => l.deleted)
        .map((l) => l.leaseId)
        .sort(),
    ).toEqual([...race.deleted].sort());
    const holds = allHolds(fold.ipHolds);
    expect(doubleBookedAddresses(holds, CLEANING_MS)).toEqual([]);
    for (const lease of fold.leases.values()) {
      for (const reservation of lease.reservations) {
        const mine = holds.filter((h) => h.reservationId === reservation.id);
        if (lease.deleted) {
          expect(mine, `holds of deleted lease ${lease.leaseId}`).toEqual([]);
          continue;
        }
        for (const h of mine) expect([h.start, h.end]).toEqual([Date.parse(lease.startDate), Date.parse(lease.endDate)]);
        expect(mine, `addresses of ${reservation.id}`).toHaveLength(reservation.amount);
        expect(mine.map((h) => h.resourceId).sort()).toEqual(reservation.allocations.map((a: any) => a.floatingIpId).sort());
        expect(mine.map((h) => fold.floatingIps.get(h.resourceId)?.networkId)).toEqual(mine.map(() => reservation.networkId));
      }
    }
  });

  it('shows through the API exactly the holds and addresses the log records', async () => {
    const { fold } = replayLedger(first.dataDir);
    const fromApi = apiAddressHolds((await read('/v1/floatingips/allocations')).allocations);
    expect(holdKeys(fromApi)).toEqual(holdKeys(allHolds(fold.ipHolds)));
    expect(await read('/v1/floatingips/allocations', second)).toEqual(await read('/v1/floatingips/allocations'));
    const ips = (await read('/v1/floatingips')).floatingips.map((ip: any) => [
      ip.id,
      { networkId: ip.floating_network_id, address: ip.floating_ip_address },
    ]);
    expect(new Map(ips)).toEqual(fold.floatingIps);
  });

  it('has an auditor that does flag an address held twice, or within the cleaning time', () => {
    const at = (hour: number): number => Date.UTC(2030, 0, 1, hour);
    const hold = (reservationId: string, resourceId: string, from: number, to: number) => ({
      resourceId,
      reservationId,
      leaseId: reservationId,
      start: at(from),
      end: at(to),
      slots: null,
    });
    const holds = [hold('a', 'ip-1', 0, 2), hold('b', 'ip-1', 2, 3), hold('c', 'ip-2', 1, 3)];
    expect(doubleBookedAddresses(holds, 0)).toEqual([]);
    expect(doubleBookedAddresses(holds, CLEANING_MS)).toHaveLength(1);
    expect(doubleBookedAddresses([...holds, hold('d', 'ip-2', 2, 4)], 0)).toHaveLength(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostEvent, type HostState, type LeaseEvent, hostDecider } from '#domain/index.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { reservedHostIds } from '#plugins/reservation-holdings.js';
import { api, blazarDate, hostReservation } from '../helpers/http.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const HOSTS = 4;
const CLIENTS = 16;
const LEASES_PER_CLIENT = 6;

interface Span {
  readonly reservationId: string;
  readonly start: number;
  readonly end: number;
}

const overlappingPairs = (spansByHost: ReadonlyMap<string, readonly Span[]>): string[] => {
  const problems: string[] = [];
  for (const [host, spans] of spansByHost) {
    for (let i = 0; i < spans.length; i++) {
      for (let j = i + 1; j < spans.length; j++) {
        const [a, b] = [spans[i]!, spans[j]!];
        if (a.start < b.end && b.start < a.end) problems.push(`host ${host}: ${a.reservationId} overlaps ${b.reservationId}`);
      }
    }
  }
  return problems;
};

describe('16 parallel clients on a pool of 4 hosts, through two API processes', () => {
  let first: RunningSystem;
  let second: RunningSystem;
  const accepted: string[] = [];
  let rejected = 0;

  beforeAll(async () => {
    first = await startSystem({ apps: ['api', 'projector'] });
    second = await startSystem({ apps: ['api'], dataDir: first.dataDir });
    for (let i = 1; i <= HOSTS; i++) expect((await api(first.url).post('/v1/os-hosts', { name: `race-${i}` })).status).toBe(201);
    // windows of 2 h starting every hour: each overlaps its neighbours, so most requests compete
    const clients = Array.from({ length: CLIENTS }, (_, client) =>
      (async () => {
        const http = api(client % 2 === 0 ? first.url : second.url);
        for (let i = 0; i < LEASES_PER_CLIENT; i++) {
          const slot = (client + i) % 4;
          const response = await http.post('/v1/leases', {
            name: `race-${client}-${i}`,
            start_date: blazarDate(24 * 60 + slot * 60),
            end_date: blazarDate(24 * 60 + slot * 60 + 120),
            reservations: [hostReservation(1, 2)],
          });
          if (response.status === 201) accepted.push(response.body.lease.id);
          else if (response.status === 409) rejected++;
          else throw new Error(`unexpected ${response.status}: ${JSON.stringify(response.body)}`);
        }
      })(),
    );
    await Promise.all(clients);
  }, 120_000);

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('accepts what fits and refuses the rest with 409', () => {
    expect(accepted.length + rejected).toBe(CLIENTS * LEASES_PER_CLIENT);
    expect(accepted.length).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });

  it('never books a host twice at once, as the allocations API shows', async () => {
    const { body } = await api(first.url).get('/v1/os-hosts/allocations');
    const spans = new Map<string, Span[]>(
      body.allocations.map((a: { resource_id: string; reservations: { id: string; start_date: string; end_date: string }[] }) => [
        a.resource_id,
        a.reservations.map((r) => ({ reservationId: r.id, start: Date.parse(`${r.start_date}Z`), end: Date.parse(`${r.end_date}Z`) })),
      ]),
    );
    const booked = [...spans.values()].reduce((n, list) => n + list.length, 0);
    expect(booked).toBeGreaterThanOrEqual(accepted.length);
    expect(overlappingPairs(spans)).toEqual([]);
  });

  it('never books a host twice at once when the whole log is replayed', async () => {
    const store = SqliteEventStore.open({ file: `${first.dataDir}/events.sqlite` });
    try {
      const events = await store.readAll({ from: 0 });
      const hosts = new Map<string, HostState>();
      const leaseHosts = new Map<string, string[]>();
      for (const event of events) {
        if (event.streamId.startsWith('host-')) {
          hosts.set(
            event.streamId,
            hostDecider.evolve(hosts.get(event.streamId) ?? hostDecider.initialState(), event as unknown as HostEvent),
          );
        }
        const lease = event as unknown as LeaseEvent;
        if (lease.type === 'Lease.Created')
          leaseHosts.set(
            lease.data.leaseId,
            lease.data.reservations.flatMap((r) => reservedHostIds(r)),
          );
      }
      const spans = new Map<string, Span[]>();
      for (const [stream, state] of hosts) {
        if (state.status === 'Registered')
          spans.set(
            stream,
            state.bookings.map((b) => ({ reservationId: b.reservationId, start: b.start, end: b.end })),
          );
      }
      expect(overlappingPairs(spans)).toEqual([]);
      expect([...leaseHosts.keys()].sort()).toEqual([...accepted].sort());
      const bookingsInLog = [...spans.values()].reduce((n, list) => n + list.length, 0);
      expect(bookingsInLog).toBe([...leaseHosts.values()].reduce((n, list) => n + list.length, 0));
    } finally {
      await store.close();
    }
  });

  it('lets a client read its write through another API process with X-Leasehold-Min-Position', async () => {
    for (let i = 0; i < 10; i++) {
      const created = await api(second.url).post('/v1/leases', {
        name: `ryw-${i}`,
        start_date: blazarDate(9000 + i * 60),
        end_date: blazarDate(9030 + i * 60),
      });
      expect(created.status).toBe(201);
      const position = created.headers.get('x-leasehold-position') ?? '';
      expect(Number(position)).toBeGreaterThan(0);
      const shown = await api(first.url).get(`/v1/leases/${created.body.lease.id}`, { 'X-Leasehold-Min-Position': position });
      expect(shown.status).toBe(200);
      expect(shown.body.lease.name).toBe(`ryw-${i}`);
    }
  });
});

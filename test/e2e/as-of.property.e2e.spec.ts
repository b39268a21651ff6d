/**
 * Property: for random workloads through the real API (hosts and floating IPs registered and
 * removed, leases created with or without bookings, some starting at once so the reactor records
 * their start, renamed, rescheduled, deleted), what a GET answered at an instant T is what the same
 * GET with `as_of=T` answers later, byte for byte, status included, for every route that takes
 * `as_of`. A GET "at T" is one served while the log stood still: the read models had reached the
 * log's head, and nothing was recorded between T and the end of the GET. With the read models on
 * SQLite, and on PostgreSQL when LEASEHOLD_TEST_PG_E2E_URL names a server.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerHead } from '../helpers/api-fixtures.js';
import { type JsonResponse, api, blazarDate, floatingIpReservation, hostReservation } from '../helpers/http.js';
import type { Client } from '../helpers/lease-client.js';
import { queryPostgres } from '../helpers/postgres.js';
import { type RunningSystem, startSystem } from '../helpers/system.js';

const NETWORK = '2f6a9c1e-3b5d-4e7f-9a1b-8c2d4e6f0a13';

type Op =
  | { readonly kind: 'host' }
  | { readonly kind: 'floatingip' }
  | { readonly kind: 'lease'; readonly startsIn: number | 'now'; readonly hours: number; readonly booking: 'none' | 'host' | 'floatingip' }
  | { readonly kind: 'rename' | 'delete-lease' | 'delete-host' | 'delete-floatingip'; readonly pick: number }
  | { readonly kind: 'reschedule'; readonly pick: number; readonly hours: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ kind: 'host' as const }),
  fc.constant({ kind: 'floatingip' as const }),
  fc.record({
    kind: fc.constant('lease' as const),
    startsIn: fc.oneof(fc.constant('now' as const), fc.integer({ min: 60, max: 60 * 24 * 60 })),
    hours: fc.integer({ min: 2, max: 72 }),
    booking: fc.constantFrom('none' as const, 'host' as const, 'floatingip' as const),
  }),
  fc.record({
    kind: fc.constantFrom('rename' as const, 'delete-lease' as const, 'delete-host' as const, 'delete-floatingip' as const),
    pick: fc.nat(),
  }),
  fc.record({ kind: fc.constant('reschedule' as const), pick: fc.nat(), hours: fc.integer({ min: 2, max: 96 }) }),
);

interface Lease {
  readonly id: string;
  /** Minutes from the test's start at which it starts. */
  readonly start: number;
}

interface Known {
  readonly leases: Lease[];
  readonly hosts: string[];
  readonly floatingIps: string[];
}

interface Reading {
  readonly instant: string;
  readonly replies: ReadonlyMap<string, { readonly status: number; readonly body: unknown }>;
}

const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

/** Waits for the clock to pass the current millisecond and returns that millisecond. */
const instantAfterNow = async (): Promise<string> => {
  const now = Date.now();
  while (Date.now() <= now) await new Promise((resolve) => setImmediate(resolve));
  return new Date(now).toISOString();
};

const pgUrl = process.env.LEASEHOLD_TEST_PG_E2E_URL ?? '';

/** A database of its own on the test server, for one system's read models. */
const postgresReadModel = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const database = `leasehold_as_of_${randomBytes(6).toString('hex')}`;
  await queryPostgres(pgUrl, `create database ${database}`);
  const url = new URL(pgUrl);
  url.pathname = `/${database}`;
  return { url: url.toString(), drop: async () => void (await queryPostgres(pgUrl, `drop database if exists ${database} with (force)`)) };
};

describe.each([
  { readModel: 'SQLite', skip: false },
  { readModel: 'PostgreSQL', skip: pgUrl === '' },
])(
  'as_of answers what the same GET answered then (property, api + projector + reactor, read models on $readModel)',
  ({ readModel, skip }) => {
    let system: RunningSystem;
    let client: Client;
    let dropDatabase: (() => Promise<void>) | null = null;
    let counter = 0;
    const t0 = Date.now();

    beforeAll(async () => {
      if (skip) return;
      const env: Record<string, string> = {};
      if (readModel === 'PostgreSQL') {
        const db = await postgresReadModel();
        dropDatabase = db.drop;
        env.LEASEHOLD_READ_MODEL_URL = db.url;
      }
      system = await startSystem({ env });
      client = api(system.url);
    });

    afterAll(async () => {
      await system?.stop();
      await dropDatabase?.();
    });

    const apply = async (step: Op, known: Known): Promise<JsonResponse | null> => {
      const n = ++counter;
      switch (step.kind) {
        case 'host': {
          const reply = await client.post('/v1/os-hosts', { name: `as-of-prop-${n}` });
          if (reply.status === 201) known.hosts.push(reply.body.host.id);
          return reply;
        }
        case 'floatingip': {
          const reply = await client.post('/v1/floatingips', {
            floating_network_id: NETWORK,
            floating_ip_address: `10.${Math.floor(n / 250) % 250}.${n % 250}.7`,
          });
          if (reply.status === 201) known.floatingIps.push(reply.body.floatingip.id);
          return reply;
        }
        case 'lease': {
          const start = step.startsIn === 'now' ? 0 : step.startsIn;
          const reservations =
            step.booking === 'host' ? [hostReservation()] : step.booking === 'floatingip' ? [floatingIpReservation(NETWORK, 1)] : [];
          const body = {
            name: `as-of-prop-${n}`,
            start_date: step.startsIn === 'now' ? 'now' : blazarDate(start, t0),
            end_date: blazarDate(start + step.hours * 60, t0),
            reservations,
          };
          const reply = await client.post('/v1/leases', body);
          if (reply.status === 201) known.leases.push({ id: reply.body.lease.id, start });
          return reply;
        }
        case 'rename': {
          const lease = pick(known.leases, step.pick);
          return lease === undefined ? null : client.put(`/v1/leases/${lease.id}`, { name: `renamed-${n}` });
        }
        case 'reschedule': {
          const lease = pick(known.leases, step.pick);
          return lease === undefined
            ? null
            : client.put(`/v1/leases/${lease.id}`, { end_date: blazarDate(lease.start + step.hours * 60, t0) });
        }
        case 'delete-lease': {
          const lease = pick(known.leases, step.pick);
          return lease === undefined ? null : client.delete(`/v1/leases/${lease.id}`);
        }
        case 'delete-host': {
          const host = pick(known.hosts, step.pick);
          return host === undefined ? null : client.delete(`/v1/os-hosts/${host}`);
        }
        case 'delete-floatingip': {
          const ip = pick(known.floatingIps, step.pick);
          return ip === undefined ? null : client.delete(`/v1/floatingips/${ip}`);
        }
      }
    };

    const paths = (known: Known): string[] => [
      '/v1/leases',
      '/v1/os-hosts',
      '/v1/os-hosts/allocations',
      '/v1/floatingips',
      '/v1/floatingips/allocations',
      ...known.leases.map((lease) => `/v1/leases/${lease.id}`),
      ...known.hosts.map((host) => `/v1/os-hosts/${host}`),
      ...known.floatingIps.map((ip) => `/v1/floatingips/${ip}`),
    ];

    /**
     * GETs served at an instant T while the log stood still: every event up to the head read first was
     * recorded at or before T, the reads waited until the read models had it, and the head had not
     * moved once the clock had passed T (so what came after was recorded after T). Else again.
     */
    const readAt = async (known: Known): Promise<Reading> => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const head = ledgerHead(system.dataDir);
        const instant = await instantAfterNow();
        const replies = new Map<string, { status: number; body: unknown }>();
        for (const path of paths(known)) {
          const reply = await client.get(path, { 'X-Leasehold-Min-Position': String(head) });
          replies.set(path, { status: reply.status, body: reply.body });
        }
        const stale = [...replies.values()].some((reply) => typeof reply.body === 'object' && reply.body !== null && 'stale' in reply.body);
        if (!stale && ledgerHead(system.dataDir) === head) return { instant, replies };
      }
      throw new Error('the log never stood still for the time of a few GETs');
    };

    it.skipIf(skip)(
      'for random workloads, a GET at T equals a later GET with as_of=T',
      async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 12 }), async (steps) => {
            const known: Known = { leases: [], hosts: [], floatingIps: [] };
            const readings: Reading[] = [await readAt(known)];
            for (const step of steps) {
              const reply = await apply(step, known);
              expect(reply?.status ?? 200, JSON.stringify(reply?.body)).toBeLessThan(500);
              readings.push(await readAt(known));
            }
            for (const { instant, replies } of readings) {
              for (const [path, then] of replies) {
                const later = await client.get(`${path}${path.includes('?') ? '&' : '?'}as_of=${encodeURIComponent(instant)}`);
                expect({ status: later.status, body: later.body }, `${path} as of ${instant}`).toEqual(then);
              }
            }
          }),
          { numRuns: 10, endOnFailure: true },
        );
      },
      300_000,
    );
  },
);

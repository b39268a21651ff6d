import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, isDomainError } from '#domain/index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import { StandaloneNetworkSegments } from '#plugins/network/standalone/standalone-network-segments.js';
import type { ApplicationContext } from '../application-context.js';
import { eventMetadata } from '../command.js';
import { CommandHandler } from '../command-handler.js';
import { DEFAULT_SETTINGS, commandMetadata, testCaller } from '../testing/application.specification.js';
import { BookingPlan } from '../write-model/booking-plan.js';
import { WriteIndex } from '../write-model/write-index.js';
import { NetworkUseCases } from './network.use-cases.js';

const NOW = '2030-01-01T00:00:00.000Z';
const DAY = Date.parse(NOW);
const CLEANING_MINUTES = 30;
const REPLICAS = 8;
const ATTEMPTS = 30;
const admin = commandMetadata(testCaller('admin'), NOW);

/** One API process: its own connection to the log, its own write index and command handler. */
interface Replica {
  readonly store: EventStore;
  readonly context: ApplicationContext;
  readonly networks: NetworkUseCases;
}

/** A small seeded generator (mulberry32): the same race on every run, still interleaved by the replicas. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};

const iso = (minutes: number): string => new Date(DAY + minutes * MINUTE_MS).toISOString();

interface Interval {
  readonly networkId: string;
  readonly reservationId: string;
  start: number;
  end: number;
}

/**
 * The calendars as the raw log says, folded here without the decider: every booking still held at the end, by
 * segment and reservation (booked, then moved, until released).
 */
const replay = async (store: EventStore): Promise<Interval[]> => {
  const held = new Map<string, Interval>();
  for (const event of await store.readAll({ from: 0 })) {
    const data = event.data as { networkId: string; reservationId: string; startDate: string; endDate: string };
    const key = `${data.networkId} ${data.reservationId}`;
    if (event.type === 'NetworkSegment.Booked') {
      held.set(key, {
        networkId: data.networkId,
        reservationId: data.reservationId,
        start: Date.parse(data.startDate),
        end: Date.parse(data.endDate),
      });
    } else if (event.type === 'NetworkSegment.BookingMoved') {
      const interval = held.get(key);
      if (interval === undefined) throw new Error(`${key} moved before it was booked`);
      interval.start = Date.parse(data.startDate);
      interval.end = Date.parse(data.endDate);
    } else if (event.type === 'NetworkSegment.BookingReleased') held.delete(key);
  }
  return [...held.values()];
};

/** Pairs of bookings of one segment closer than the cleaning time (overlapping ones included). */
const clashes = (intervals: readonly Interval[], cleaningMs: number): string[] =>
  intervals.flatMap((a, i) =>
    intervals
      .slice(i + 1)
      .filter((b) => a.networkId === b.networkId && a.start < b.end + cleaningMs && b.start < a.end + cleaningMs)
      .map(
        (b) =>
          `${a.networkId}: ${a.reservationId} [${iso((a.start - DAY) / MINUTE_MS)}] vs ${b.reservationId} [${iso((b.start - DAY) / MINUTE_MS)}]`,
      ),
  );

describe(`${REPLICAS} API processes racing on one log (SQLite file)`, () => {
  let dir: string;
  let replicas: Replica[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'leasehold-networks-'));
    replicas = Array.from({ length: REPLICAS }, (_, i) => {
      const store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
      let ids = 0;
      const settings = { ...DEFAULT_SETTINGS, cleaningTimeMinutes: CLEANING_MINUTES };
      const context = { handler: new CommandHandler(store), index: new WriteIndex(store), settings, newId: () => `r${i}-${++ids}` };
      return { store, context, networks: new NetworkUseCases(context, new StandaloneNetworkSegments()) };
    });
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers one segment once: of parallel registrations of it, exactly one wins, the others get 409', async () => {
    const segment = { networkType: 'vlan', physicalNetwork: 'physnet1', segmentId: 100, capabilities: {} } as const;
    const outcomes = await Promise.allSettled(
      replicas.map((replica) => replica.networks.register({ type: 'RegisterNetwork', data: { network: segment }, metadata: admin })),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
    expect(won).toHaveLength(1);
    expect(refused.map((error) => (isDomainError(error) ? error.code : String(error)))).toEqual(
      Array.from({ length: REPLICAS - 1 }, () => 'NETWORK_ALREADY_REGISTERED'),
    );
    const registered = (await replicas[0]!.store.readAll({ from: 0 })).filter((event) => event.type === 'NetworkSegment.Registered');
    expect(registered).toHaveLength(1);
  });

  it('never books a segment twice at once: parallel bookings, moves and releases, then a replay of the log finds no clash', async () => {
    const ids: string[] = [];
    for (const segmentId of [200, 201, 202]) {
      const network = { networkType: 'vlan', physicalNetwork: 'physnet1', segmentId, capabilities: {} } as const;
      ids.push((await replicas[0]!.networks.register({ type: 'RegisterNetwork', data: { network }, metadata: admin })).networkId);
    }
    const tally = { booked: 0, moved: 0, released: 0, refused: 0 };
    const client = async (replica: Replica, index: number): Promise<void> => {
      const next = random(index + 1);
      const mine: { networkId: string; reservationId: string }[] = [];
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const start = Math.floor(next() * 40) * 30;
        const window = {
          leaseId: `lease-${index}-${attempt}`,
          startDate: iso(start),
          endDate: iso(start + 60 + Math.floor(next() * 4) * 30),
          propertyNames: [],
        };
        const own = mine[Math.floor(next() * mine.length)];
        const choice = next();
        const action = own !== undefined && choice < 0.2 ? 'release' : own !== undefined && choice < 0.5 ? 'move' : 'book';
        const networkId = action === 'book' ? ids[Math.floor(next() * ids.length)]! : own!.networkId;
        const reservationId = action === 'book' ? `res-${index}-${attempt}` : own!.reservationId;
        try {
          await replica.context.handler.handle(async () => {
            await replica.context.index.catchUp();
            const plan = new BookingPlan(replica.context.index, {
              cleaningTimeMinutes: CLEANING_MINUTES,
              allocationRatios: DEFAULT_SETTINGS.allocationRatios,
            });
            if (action === 'book') plan.bookResource('network', networkId, { ...window, reservationId });
            else if (action === 'move') plan.moveResource('network', networkId, { ...window, reservationId });
            else plan.releaseResource('network', networkId, reservationId);
            return { appends: plan.appends(eventMetadata(admin), replica.context.newId), result: null };
          });
          tally[action === 'book' ? 'booked' : action === 'move' ? 'moved' : 'released']++;
          if (action === 'book') mine.push({ networkId, reservationId });
          if (action === 'release') mine.splice(mine.indexOf(own!), 1);
        } catch (error) {
          if (!isDomainError(error) || error.code !== 'NETWORK_ALREADY_BOOKED') throw error;
          tally.refused++;
        }
      }
    };
    await Promise.all(replicas.map(client));

    // the race was a race: each outcome happened, and most requests collided with another's booking
    expect(tally.booked).toBeGreaterThan(10);
    expect(tally.moved).toBeGreaterThan(0);
    expect(tally.released).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(tally.booked);
    const held = await replay(replicas[0]!.store);
    expect(held.length).toBe(tally.booked - tally.released);
    expect(clashes(held, CLEANING_MINUTES * MINUTE_MS)).toEqual([]);
  });
});

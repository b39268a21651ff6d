import { afterEach, describe, expect, it } from 'vitest';
import { CommandHandler } from '#application/command-handler.js';
import { DEFAULT_SETTINGS } from '#application/testing/application.specification.js';
import { at, hostBooked, hostRegistered, hostWentDown } from '#application/testing/calendars.fixture.js';
import { appendGiven } from '#application/testing/given-events.js';
import { WriteIndex } from '#application/write-model/write-index.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { ReactorLogEntry } from '../scheduler.js';
import { type ReactorCommands, openReactorCommands } from '../commands/reactor-command-bus.js';
import { HealingRunner } from './healing.runner.js';

const NOW = new Date(at(9));
const HOUR_MS = 3_600_000;

const leaseCreated = {
  streamId: 'lease-a',
  type: 'Lease.Created',
  data: {
    leaseId: 'a',
    name: 'a',
    projectId: 'project-1',
    userId: 'user-1',
    trustId: null,
    startDate: at(10),
    endDate: at(18),
    beforeEndDate: null,
    reservations: [
      {
        id: 'r-a',
        resourceId: 'res-a',
        resourceType: 'physical:host',
        min: 1,
        max: 1,
        hypervisorProperties: '',
        resourceProperties: '',
        beforeEnd: 'default',
        hostIds: ['1'],
      },
    ],
    eventIds: { start: 's', end: 'e', beforeEnd: 'b' },
    createdAt: at(8),
  },
};

const eventually = async <T>(check: () => Promise<T | undefined>, what: string): Promise<T> => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('healing in the reactor', () => {
  let store: EventStore;
  let runner: HealingRunner | null = null;
  let commands: ReactorCommands | null = null;
  const logged: ReactorLogEntry[] = [];

  afterEach(async () => {
    await runner?.stop();
    await commands?.close();
    await store.close();
  });

  it('heals as soon as a host goes down, without waiting for the periodic pass, and says why in the log', async () => {
    store = SqliteEventStore.open({ file: ':memory:' });
    await appendGiven(store, [hostRegistered('1'), hostRegistered('2'), hostBooked('1', 'r-a', { leaseId: 'a' }), leaseCreated]);
    const config = { checkMs: HOUR_MS, intervalMinutes: 0, settings: DEFAULT_SETTINGS };
    commands = await openReactorCommands({ handler: new CommandHandler(store), healing: { index: new WriteIndex(store), config } });
    const { bus } = commands;
    runner = await HealingRunner.start({ store, commands: bus, checkMs: HOUR_MS, clock: () => NOW, log: (entry) => logged.push(entry) });
    // the first periodic pass (at start) found nothing down; the next one is an hour away
    await runner.request('settled');
    expect(await store.readStream('lease-a')).toHaveLength(1);

    const wentDown = hostWentDown('1');
    const metadata = { correlationId: 'monitor', causationId: 'monitor', actor: null };
    await store.appendToStream(wentDown.streamId, 'any', [{ id: 'went-down-1', type: wentDown.type, data: wentDown.data, metadata }]);
    const healed = await eventually(
      async () => (await store.readStream('lease-a')).find((e) => e.type === 'Reservation.Healed'),
      'the reservation to be healed',
    );

    expect(healed.data).toMatchObject({ reservation: { hostIds: ['2'] }, replacements: [{ hostId: '1', by: ['2'] }] });
    expect(healed.metadata).toMatchObject({
      causationId: 'went-down-1',
      correlationId: 'went-down-1',
      actor: null,
      system: 'healing',
      reason: 'host_down',
      downHostIds: ['1'],
    });
    expect(logged).toContainEqual(expect.objectContaining({ event: 'healing', down_hosts: ['1'], examined: 1 }));
  });
});

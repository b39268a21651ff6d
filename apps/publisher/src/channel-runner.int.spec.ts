import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { PublicEvent } from '#application/outbound/public-event.js';
import type { OutboundChannel } from './channel.js';
import { ChannelCheckpoints } from './channel-checkpoints.js';
import { type ChannelLogEntry, ChannelRunner } from './channel-runner.js';

/**
 * The runner's contract with any channel, on a real log and checkpoint file. The channel here is a
 * scripted stand-in (it refuses while told to), not a fake of an outside system: Kafka's own suite is
 * test/e2e/kafka-channel.e2e.spec.ts.
 */
class ScriptedChannel implements OutboundChannel {
  readonly name = 'scripted';
  readonly received: PublicEvent[][] = [];
  refusing = false;
  attempts = 0;

  async publish(events: readonly PublicEvent[]): Promise<void> {
    this.attempts++;
    if (this.refusing) throw new Error('channel unavailable');
    this.received.push([...events]);
  }

  async close(): Promise<void> {}
}

const until = async (check: () => boolean | Promise<boolean>, what: string): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('ChannelRunner', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const setUp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'leasehold-channel-runner-'));
    const store = SqliteEventStore.open({ file: join(dir, 'events.sqlite') });
    const checkpoints = ChannelCheckpoints.open(join(dir, 'publisher.sqlite'));
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => store.close(),
      () => checkpoints.close(),
    );
    const append = async (leaseId: string, type = 'Lease.Renamed'): Promise<number> =>
      (
        await store.appendToStream(`lease-${leaseId}`, 'any', [
          {
            id: randomUUID(),
            type,
            data: { leaseId, name: 'n', renamedAt: '2030-01-01T00:00:00.000Z' },
            metadata: { correlationId: 'c', causationId: 'c', actor: null },
          },
        ])
      ).position;
    const run = (channel: OutboundChannel, log: ChannelLogEntry[] = [], retryDelayMs = 20) => {
      const runner = new ChannelRunner({
        store,
        channel,
        checkpoints,
        batchSize: 3,
        retryDelayMs,
        maxRetryDelayMs: retryDelayMs * 2,
        log: (entry) => log.push(entry),
      });
      cleanups.push(() => runner.stop());
      runner.start();
      return runner;
    };
    return { store, checkpoints, append, run };
  };

  it('sends every public event in log order, skips what has no public form, and checkpoints each acknowledged batch', async () => {
    const { append, run, checkpoints } = setUp();
    for (const lease of ['a', 'b', 'a', 'c', 'b', 'a', 'c']) await append(lease);
    const last = await append('a', 'Lease.Teleported');
    const channel = new ScriptedChannel();
    const runner = run(channel);
    await until(async () => (await runner.status()).position === last, 'the checkpoint at the head');
    expect(channel.received.flat().map((event) => event.position)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(channel.received.every((batch) => batch.length <= 3)).toBe(true);
    expect(checkpoints.position('scripted')).toBe(last);
    expect(await runner.status()).toMatchObject({
      position: last,
      head: last,
      lag: { positions: 0, seconds: 0 },
      published: 7,
      failing: null,
    });
  });

  it('a refusing channel keeps its checkpoint and the batch, reports the lag, and delivers it all once it takes again', async () => {
    const { append, run, checkpoints } = setUp();
    const channel = new ScriptedChannel();
    await append('a');
    const log: ChannelLogEntry[] = [];
    const runner = run(channel, log);
    await until(() => checkpoints.position('scripted') === 1, 'the first event');
    channel.refusing = true;
    for (let i = 0; i < 5; i++) await append(`l${i}`);
    await until(() => channel.attempts >= 4, 'a few refused attempts');
    const down = await runner.status();
    expect(down).toMatchObject({ position: 1, head: 6, lag: { positions: 5 }, failing: { error: 'channel unavailable', position: 2 } });
    expect(down.failing?.attempts).toBeGreaterThanOrEqual(3);
    expect(checkpoints.position('scripted')).toBe(1);

    channel.refusing = false;
    await until(() => checkpoints.position('scripted') === 6, 'the catch-up');
    expect(channel.received.flat().map((event) => event.position)).toEqual([1, 2, 3, 4, 5, 6]);
    const up = await runner.status();
    expect(up.failing).toBeNull();
    expect(up.lastFailure?.error).toBe('channel unavailable');
    expect(log.map((entry) => entry.event)).toContain('recovered');
  });

  it('an event it cannot map stops the channel at the batch holding it, shown as its failure: nothing from there is sent', async () => {
    const { append, run, checkpoints, store } = setUp();
    await append('a');
    // a Lease.Created without its reservations: the catalogue cannot map it
    await store.appendToStream('lease-broken', 'any', [
      {
        id: randomUUID(),
        type: 'Lease.Created',
        data: { leaseId: 'broken' },
        metadata: { correlationId: 'c', causationId: 'c', actor: null },
      },
    ]);
    await append('b');
    const channel = new ScriptedChannel();
    const runner = run(channel);
    await until(async () => ((await runner.status()).failing?.attempts ?? 0) >= 2, 'the failure to repeat');
    expect(await runner.status()).toMatchObject({ position: 0, head: 3, failing: { position: 1 } });
    expect(checkpoints.position('scripted')).toBe(0);
    expect(channel.received.flat()).toEqual([]);
  });

  it('resumes from its checkpoint after a restart, and stop() cuts a retry pause short', async () => {
    const { append, run, checkpoints } = setUp();
    for (const lease of ['a', 'b']) await append(lease);
    checkpoints.save('scripted', 1, '2030-01-01T00:00:00.000Z');
    const channel = new ScriptedChannel();
    channel.refusing = true;
    // the next attempt would be a minute away
    const runner = run(channel, [], 60_000);
    await until(() => channel.attempts >= 1, 'an attempt');
    const started = performance.now();
    await runner.stop();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(checkpoints.position('scripted')).toBe(1);

    const again = new ScriptedChannel();
    run(again);
    await until(() => checkpoints.position('scripted') === 2, 'the resumed channel');
    expect(again.received.flat().map((event) => event.position)).toEqual([2]);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DueAction, EffectPhase } from '#domain/index.js';
import { DueQueue } from './due-queue.js';
import { type ReactorLogEntry, Scheduler } from './scheduler.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');

const put = (
  queue: DueQueue,
  leaseId: string,
  phase: EffectPhase,
  dueMs: number,
  resources: readonly string[],
  releases: readonly string[] = [],
): void => {
  const step = phase === 'update' ? 'complete' : 'begin';
  queue.set(leaseId, {
    action: { leaseId, phase, step, dueAt: new Date(dueMs).toISOString() },
    dueMs,
    resources,
    releases,
    instant: false,
  });
};

/** Deferred runs the test resolves by hand, to observe what runs while another action is in flight. */
const harness = (options: { readonly fail?: (action: DueAction) => boolean; readonly concurrency?: number } = {}) => {
  const queue = new DueQueue();
  /** How far the wall clock has been stepped from the fake timers' steady time. */
  const wall = { stepMs: 0 };
  const started: { action: DueAction; at: number; finish: () => void }[] = [];
  const logs: ReactorLogEntry[] = [];
  const run = (action: DueAction): Promise<string> =>
    new Promise((resolve, reject) => {
      const finish = (): void => (options.fail?.(action) ? reject(new Error('transient')) : resolve('done'));
      started.push({ action, at: Date.now(), finish });
    });
  const clock = (): Date => new Date(Date.now() + wall.stepMs);
  const scheduler = new Scheduler({
    queue,
    clock,
    monotonic: () => Date.now(),
    run,
    log: (entry) => logs.push(entry),
    concurrency: options.concurrency,
  });
  /** Stops the scheduler, letting whatever is still in flight finish. */
  const stop = async (): Promise<void> => {
    const stopping = scheduler.stop();
    for (const run of started) run.finish();
    await stopping;
  };
  return { queue, started, logs, scheduler, stop, wall };
};

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Scheduler', () => {
  it('sleeps until the earliest due time and re-arms when an earlier action appears', async () => {
    const { queue, started, scheduler, stop } = harness();
    put(queue, 'late', 'start', T0 + 60_000, ['h1']);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(5_000);
    put(queue, 'early', 'start', T0 + 10_000, ['h2']);
    scheduler.wake();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(started.map((s) => [s.action.leaseId, s.at - T0])).toEqual([['early', 10_000]]);
    await stop();
  });

  it('runs actions on one host in due order and actions on other hosts at once', async () => {
    const { queue, started, scheduler, stop } = harness();
    put(queue, 'ending', 'end', T0, ['h1']);
    put(queue, 'starting', 'start', T0, ['h1']);
    put(queue, 'elsewhere', 'start', T0, ['h2']);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((s) => s.action.leaseId)).toEqual(['ending', 'elsewhere']);
    queue.set('ending', null);
    started[0]?.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((s) => s.action.leaseId)).toEqual(['ending', 'elsewhere', 'starting']);
    await stop();
  });

  it('lets no other lease take what an owed update gives up before the update has run, even a start due before it, and the update does not wait for that start', async () => {
    const { queue, started, scheduler, stop } = harness();
    put(queue, 'taker', 'start', T0, ['h1']);
    put(queue, 'healed', 'update', T0 + 1_000, ['h2'], ['h1']);
    put(queue, 'elsewhere', 'start', T0, ['h3']);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(0);
    // the update is not due yet, and still the start waits for it
    expect(started.map((s) => s.action.leaseId)).toEqual(['elsewhere']);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started.map((s) => s.action.leaseId)).toEqual(['elsewhere', 'healed']);
    // the update's outcome recorded: the lease gives nothing up any more, but its run still holds h1 until it returns
    put(queue, 'healed', 'end', T0 + 3_600_000, ['h2']);
    scheduler.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((s) => s.action.leaseId)).toEqual(['elsewhere', 'healed']);
    started[1]?.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((s) => s.action.leaseId)).toEqual(['elsewhere', 'healed', 'taker']);
    await stop();
  });

  it('holds what an owed update gives up while the update waits on a retry', async () => {
    const { queue, started, scheduler, stop } = harness({ fail: (action) => action.phase === 'update' });
    put(queue, 'healed', 'update', T0, ['h2'], ['h1']);
    put(queue, 'taker', 'start', T0 + 1, ['h1']);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(0);
    started[0]?.finish();
    await vi.advanceTimersByTimeAsync(500);
    expect(started.map((s) => s.action.leaseId)).toEqual(['healed']);
    await vi.advanceTimersByTimeAsync(500);
    expect(started.map((s) => s.action.leaseId)).toEqual(['healed', 'healed']);
    await stop();
  });

  it('runs at most `concurrency` actions at once, the next due one as soon as one of them ends', async () => {
    const { queue, started, scheduler, stop } = harness({ concurrency: 2 });
    for (const [index, leaseId] of ['a', 'b', 'c', 'd'].entries()) put(queue, leaseId, 'start', T0 + index, [`h${index}`]);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(started.map((s) => s.action.leaseId)).toEqual(['a', 'b']);
    queue.set('b', null);
    started[1]?.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((s) => s.action.leaseId)).toEqual(['a', 'b', 'c']);
    queue.set('a', null);
    started[0]?.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((s) => s.action.leaseId)).toEqual(['a', 'b', 'c', 'd']);
    await stop();
  });

  it("retries a transient failure after 1 s, 2 s, 4 s... capped at 30 s, holding the lease's hosts meanwhile", async () => {
    const { queue, started, logs, scheduler, stop } = harness({ fail: (action) => action.leaseId === 'flaky' });
    put(queue, 'flaky', 'end', T0, ['h1']);
    put(queue, 'next', 'start', T0 + 1, ['h1']);
    scheduler.start();
    for (let i = 0; i < 7; i++) {
      await vi.advanceTimersByTimeAsync(0);
      started.at(-1)?.finish();
      await vi.advanceTimersByTimeAsync(30_000);
    }
    const delays = logs.filter((entry) => entry.event === 'retry').map((entry) => entry.inMs);
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(started.every((s) => s.action.leaseId === 'flaky')).toBe(true);
    await stop();
  });

  it("forgets the backoff of a phase that is no longer due: the lease's next phase is a first attempt, at once", async () => {
    const { queue, started, logs, scheduler, stop } = harness({ fail: (action) => action.phase === 'start' });
    put(queue, 'flaky', 'start', T0, ['h1']);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(0);
    started[0]?.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(logs.filter((entry) => entry.event === 'retry')).toHaveLength(1);
    // another reactor started it meanwhile: its end is due now
    put(queue, 'flaky', 'end', T0, ['h1']);
    scheduler.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((s) => s.action.phase)).toEqual(['start', 'end']);
    expect(logs.filter((entry) => entry.event === 'action').map((entry) => [entry.phase, entry.attempt])).toEqual([
      ['start', 1],
      ['end', 1],
    ]);
    await stop();
  });

  it('runs the actions a step of the wall clock forward made due within a second, each once', async () => {
    const { queue, started, scheduler, stop, wall } = harness();
    put(queue, 'in-two-hours', 'start', T0 + 2 * 3_600_000, ['h1']);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(started).toEqual([]);
    wall.stepMs = 2 * 3_600_000;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started.map((s) => s.action.leaseId)).toEqual(['in-two-hours']);
    queue.set('in-two-hours', null);
    started[0]?.finish();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(started).toHaveLength(1);
    await stop();
  });

  it("measures a retry's backoff on the steady clock: a step of the wall clock back does not hold it back", async () => {
    let failures = 1;
    const { queue, started, logs, scheduler, stop, wall } = harness({ fail: () => failures-- > 0 });
    put(queue, 'overdue', 'end', T0 - 3 * 3_600_000, ['h1']);
    scheduler.start();
    await vi.advanceTimersByTimeAsync(0);
    started[0]?.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(logs.filter((entry) => entry.event === 'retry').map((entry) => entry.inMs)).toEqual([1000]);
    wall.stepMs = -2 * 3_600_000;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toHaveLength(2);
    await stop();
  });

  describe("exclusive work on a lease (a reconciliation's check)", () => {
    const deferred = (): { promise: Promise<string>; resolve: (value: string) => void } => {
      let resolve: (value: string) => void = () => undefined;
      const promise = new Promise<string>((settle) => (resolve = settle));
      return { promise, resolve };
    };

    it("holds the lease's action that falls due meanwhile, and the other leases' actions on its resources, until it is done", async () => {
      const { queue, started, scheduler, stop } = harness();
      put(queue, 'checked', 'end', T0 + 1_000, ['f1']);
      put(queue, 'next', 'start', T0 + 1_000, ['f1']);
      put(queue, 'elsewhere', 'start', T0 + 1_000, ['f2']);
      scheduler.start();
      const work = deferred();
      const running = scheduler.exclusive('checked', () => work.promise);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(started.map((s) => s.action.leaseId)).toEqual(['elsewhere']);
      work.resolve('checked');
      await expect(running).resolves.toBe('checked');
      await vi.advanceTimersByTimeAsync(0);
      expect(started.map((s) => s.action.leaseId)).toEqual(['elsewhere', 'checked']);
      queue.set('checked', null);
      started[1]?.finish();
      await vi.advanceTimersByTimeAsync(0);
      expect(started.map((s) => s.action.leaseId)).toEqual(['elsewhere', 'checked', 'next']);
      await stop();
    });

    it("does not run while the lease has an action in flight or due, or another lease's action holds its resources", async () => {
      const { queue, started, scheduler, stop } = harness();
      put(queue, 'busy', 'end', T0, ['f1']);
      put(queue, 'due-later', 'end', T0 + 60_000, ['f2']);
      put(queue, 'beside', 'end', T0 + 60_000, ['f1']);
      const work = vi.fn(async () => 'ran');
      // due now (the scheduler has not started it yet)
      expect(await scheduler.exclusive('busy', work)).toBeNull();
      scheduler.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(started.map((s) => s.action.leaseId)).toEqual(['busy']);
      expect(await scheduler.exclusive('busy', work)).toBeNull();
      // another lease's action in flight holds f1
      expect(await scheduler.exclusive('beside', work)).toBeNull();
      expect(work).not.toHaveBeenCalled();
      expect(await scheduler.exclusive('due-later', work)).toBe('ran');
      await stop();
    });
  });
});

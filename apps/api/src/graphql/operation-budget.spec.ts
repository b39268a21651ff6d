import { describe, expect, it } from 'vitest';
import { OperationBudget, OperationStopped } from './operation-budget.js';

/** A clock the test moves by hand. */
const manualClock = () => {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
};

const rows = (count: number) => async (): Promise<number[]> => Array.from({ length: count }, (_, i) => i);
const length = (values: readonly unknown[]): number => values.length;

const stopCause = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return 'not stopped';
  } catch (error) {
    return error instanceof OperationStopped ? `${error.why} ${error.limit}` : String(error);
  }
};

describe('an operation budget', () => {
  it('runs its reads one after another, in the order asked, counting the rows each returns', async () => {
    const budget = new OperationBudget({ timeoutMs: 60_000, maxRows: 100 });
    const order: string[] = [];
    const read = (name: string, count: number) =>
      budget.read(async () => {
        order.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`end ${name}`);
        return Array.from({ length: count });
      }, length);
    await Promise.all([read('a', 3), read('b', 4), read('c', 5)]);
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(budget.rowsRead).toBe(12);
    expect(budget.stopped).toBeNull();
    budget.finish();
  });

  it('past its rows, the read that passed them fails and no later read starts', async () => {
    const budget = new OperationBudget({ timeoutMs: 60_000, maxRows: 10 });
    let started = 0;
    const read = (count: number) =>
      budget.read(async () => {
        started++;
        return rows(count)();
      }, length);
    const outcomes = await Promise.all([read(6), read(6), read(1), read(1)].map(stopCause));
    expect(outcomes).toEqual(['not stopped', 'rows 10', 'rows 10', 'rows 10']);
    expect(started).toBe(2);
    expect(budget.rowsRead).toBe(12);
    expect(budget.stopped?.why).toBe('rows');
    expect(await stopCause(read(1))).toBe('rows 10');
    expect(started).toBe(2);
  });

  it('past its time (by the clock each read looks at), no further read starts', async () => {
    const clock = manualClock();
    const budget = new OperationBudget({ timeoutMs: 1000, maxRows: 1000 }, clock.now);
    expect(await budget.read(rows(2), length)).toHaveLength(2);
    clock.advance(1000);
    let started = false;
    const late = budget.read(async () => {
      started = true;
      return [];
    }, length);
    expect(await stopCause(late)).toBe('time 1000');
    expect(started).toBe(false);
    budget.finish();
  });

  it('past its time (by its timer), a wait that is not a read is given up', async () => {
    const budget = new OperationBudget({ timeoutMs: 20, maxRows: 1000 });
    const never = new Promise<void>(() => undefined);
    expect(await stopCause(budget.unlessStopped(never))).toBe('time 20');
    expect(budget.signal.aborted).toBe(true);
  });

  it('stopped while a read runs (the client left): its answer is dropped and nothing after it starts', async () => {
    const budget = new OperationBudget({ timeoutMs: 60_000, maxRows: 1000 });
    let release: () => void = () => undefined;
    const running = budget.read(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return [1];
    }, length);
    let startedAfter = false;
    const next = budget.read(async () => {
      startedAfter = true;
      return [];
    }, length);
    await new Promise((resolve) => setImmediate(resolve));
    budget.stop(new OperationStopped('gone', 0));
    release();
    expect(await stopCause(running)).toBe('gone 0');
    expect(await stopCause(next)).toBe('gone 0');
    expect(startedAfter).toBe(false);
    // the first reason stays
    budget.stop(new OperationStopped('rows', 1));
    expect(budget.stopped?.why).toBe('gone');
  });

  it('lets the event loop serve others between reads once it has read for a while', async () => {
    const clock = manualClock();
    const budget = new OperationBudget({ timeoutMs: 60_000, maxRows: 1000 }, clock.now);
    const seen: number[] = [];
    let served = false;
    setImmediate(() => (served = true));
    const reads = Array.from({ length: 5 }, (_, i) =>
      budget.read(async () => {
        seen.push(served ? i : -1);
        clock.advance(6);
        return [];
      }, length),
    );
    await Promise.all(reads);
    // 6 ms a read: the third starts after the loop's turn (12 ms past the start of the slice)
    expect(seen).toEqual([-1, -1, 2, 3, 4]);
    budget.finish();
  });

  it('once finished, its clock no longer stops anything', async () => {
    const budget = new OperationBudget({ timeoutMs: 10, maxRows: 1000 });
    budget.finish();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(budget.stopped).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import type { EffectPhase } from '#domain/index.js';
import { type DueEntry, DueQueue } from './due-queue.js';

const entry = (
  leaseId: string,
  phase: EffectPhase,
  dueMs: number,
  resources: readonly string[] = [],
  instant = false,
  releases: readonly string[] = [],
): DueEntry => ({
  action: { leaseId, phase, step: phase === 'update' ? 'complete' : 'begin', dueAt: new Date(dueMs).toISOString() },
  dueMs,
  resources,
  releases,
  instant,
});

const order = (entries: readonly DueEntry[]): string[] => entries.map((e) => `${e.action.leaseId}:${e.action.phase}`);

describe('DueQueue', () => {
  it('orders by due time, then before-end and end ahead of update ahead of start at the same instant', () => {
    const queue = new DueQueue();
    queue.set('c', entry('c', 'start', 2000));
    queue.set('b', entry('b', 'start', 1000));
    queue.set('e', entry('e', 'update', 1000));
    queue.set('a', entry('a', 'end', 1000));
    queue.set('d', entry('d', 'before_end', 1000));
    expect(order(queue.dueBy(1000))).toEqual(['d:before_end', 'a:end', 'e:update', 'b:start']);
    expect(queue.nextAfter(1000)).toBe(2000);
    expect(queue.nextAfter(2000)).toBeNull();
  });

  it('puts the start of a lease that ends the instant it starts ahead of the other starts of that instant', () => {
    const queue = new DueQueue();
    queue.set('a', entry('a', 'start', 1000, ['host:1']));
    queue.set('z', entry('z', 'start', 1000, ['host:1'], true));
    queue.set('y', entry('y', 'end', 1000, ['host:2']));
    expect(order(queue.dueBy(1000))).toEqual(['y:end', 'z:start', 'a:start']);
  });

  it('keeps one entry per lease, replaced or removed as the lease moves on', () => {
    const queue = new DueQueue();
    expect(queue.set('a', entry('a', 'start', 1000))).toBe(true);
    expect(queue.set('a', entry('a', 'start', 1000))).toBe(false);
    expect(queue.set('a', entry('a', 'end', 5000))).toBe(true);
    expect(queue.size).toBe(1);
    expect(queue.dueBy(1000)).toEqual([]);
    expect(queue.set('a', null)).toBe(true);
    expect(queue.set('a', null)).toBe(false);
    expect(queue.size).toBe(0);
  });

  it('knows which leases still give a resource up, whether their entries are due or not', () => {
    const queue = new DueQueue();
    queue.set('a', entry('a', 'update', 5000, ['host:2'], false, ['host:1']));
    expect(queue.releasedByAnother('host:1', 'b')).toBe(true);
    expect(queue.releasedByAnother('host:1', 'a')).toBe(false);
    expect(queue.releasedByAnother('host:2', 'b')).toBe(false);
    queue.set('c', entry('c', 'update', 6000, [], false, ['host:1']));
    expect(queue.releasedByAnother('host:1', 'a')).toBe(true);
    queue.set('a', entry('a', 'end', 9000, ['host:2']));
    queue.set('c', null);
    expect(queue.releasedByAnother('host:1', 'b')).toBe(false);
  });

  it('stays sorted through many random updates', () => {
    const queue = new DueQueue();
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 48271) % 2147483647) % n;
    for (let i = 0; i < 2000; i++) {
      const id = `lease-${random(200)}`;
      queue.set(id, random(5) === 0 ? null : entry(id, random(2) === 0 ? 'start' : 'end', random(50) * 1000));
    }
    const times = queue.dueBy(Number.MAX_SAFE_INTEGER).map((e) => e.dueMs);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(times).toHaveLength(queue.size);
  });
});

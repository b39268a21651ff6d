import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { SqliteEventStore } from '#event-store/sqlite/sqlite-event-store.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { registerReactorMetrics } from './reactor.metrics.js';

let appended = 0;
const append = (store: EventStore, streamId: string, type: string) =>
  store.appendToStream(streamId, 'any', [
    { id: `event-${++appended}`, type, data: {}, metadata: { correlationId: 'c', causationId: 'c', actor: null } },
  ]);

const valueOf = async (registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> => {
  // a histogram's series are named by their own metricName (`_count`, `_sum`, `_bucket`)
  const values = (await registry.getMetricsAsJSON()).flatMap((m) =>
    m.values.map((v) => ({ ...v, name: (v as { metricName?: string }).metricName ?? m.name })),
  );
  return values.find((v) => v.name === name && Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
};

describe('the reactor metrics', () => {
  let store: EventStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  it('counts effect failures and drift repairs recorded after the start, not those already in the log', async () => {
    store = SqliteEventStore.open({ file: ':memory:' });
    await append(store, 'lease-1', 'Lease.StartFailed');
    const registry = new Registry();
    const metrics = registerReactorMetrics(registry);
    const subscription = await metrics.followOutcomes(store);
    try {
      expect(await valueOf(registry, 'leasehold_effect_failures_total', { type: 'Lease.StartFailed' })).toBe(0);
      await append(store, 'lease-2', 'Lease.StartFailed');
      await append(store, 'lease-2', 'Lease.Started');
      await append(store, 'lease-3', 'Reservation.DriftRepaired');
      await append(store, 'host-4', 'Host.EnrollmentFailed');
      // the subscription delivers asynchronously: wait for the last append's count, with a deadline
      const deadline = Date.now() + 10_000;
      while ((await valueOf(registry, 'leasehold_effect_failures_total', { type: 'Host.EnrollmentFailed' })) !== 1 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(await valueOf(registry, 'leasehold_effect_failures_total', { type: 'Lease.StartFailed' })).toBe(1);
      expect(await valueOf(registry, 'leasehold_effect_failures_total', { type: 'Host.EnrollmentFailed' })).toBe(1);
      expect(await valueOf(registry, 'leasehold_drift_repairs_total')).toBe(1);
    } finally {
      await subscription.stop();
    }
  });

  it("reads the timers' lateness off the first step of each due action, and counts retries", async () => {
    const registry = new Registry();
    const metrics = registerReactorMetrics(registry);
    metrics.observe({ event: 'action', leaseId: 'l', phase: 'start', step: 'begin', latenessMs: 1500, attempt: 1 });
    metrics.observe({ event: 'action', leaseId: 'l', phase: 'start', step: 'complete', latenessMs: 9000, attempt: 1 });
    metrics.observe({ event: 'action', leaseId: 'l', phase: 'start', step: 'begin', latenessMs: 4000, attempt: 2 });
    metrics.observe({ event: 'action', leaseId: 'l', phase: 'update', step: 'complete', latenessMs: 20, attempt: 1 });
    metrics.observe({ event: 'retry', leaseId: 'l', phase: 'end', step: 'begin', attempt: 1 });
    expect(await valueOf(registry, 'leasehold_reactor_timer_lateness_seconds_count', { phase: 'start' })).toBe(1);
    expect(await valueOf(registry, 'leasehold_reactor_timer_lateness_seconds_sum', { phase: 'start' })).toBe(1.5);
    expect(await valueOf(registry, 'leasehold_reactor_timer_lateness_seconds_count', { phase: 'update' })).toBe(1);
    expect(await valueOf(registry, 'leasehold_reactor_action_retries_total', { phase: 'end' })).toBe(1);
    expect(await valueOf(registry, 'leasehold_reactor_action_retries_total', { phase: 'start' })).toBe(0);
  });
});
